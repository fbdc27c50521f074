// Playdates: the deck. Drag the top card, or press Like or Pass; the swipe is sent in the
// background and the next card, already on the page, comes up.
var deck = document.getElementById('deck');
if (deck) {
  var undo = document.getElementById('undo-form');
  var topCard = function () { return deck.querySelector('.deck-card'); };
  var send = function (card, decision) {
    var form = card.querySelector('form.swipe-form[data-decision="' + decision + '"]');
    if (!form || card.dataset.sent) return;
    card.dataset.sent = '1';
    var dx = decision === 'like' ? 1 : -1;
    card.classList.add('leaving');
    card.style.transform = 'translate(' + dx * 140 + '%, -4%) rotate(' + dx * 24 + 'deg)';
    fetch(form.action, { method: 'POST', body: new FormData(form), credentials: 'same-origin',
                         headers: { 'Accept': 'application/json' } })
      .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.json(); })
      .then(function (result) {
        if (result.match) { window.location.href = result.match; return; }
        card.remove();
        if (undo) undo.hidden = false;
        if (result.message) Pawpack.toast(result.message);
        var next = topCard();
        if (!next) { window.location.reload(); return; }
        // The round buttons name the dog now on top, for screen readers.
        var name = next.dataset.name;
        var like = document.getElementById('like-button'), pass = document.getElementById('pass-button');
        if (like && name) like.setAttribute('aria-label', 'Like ' + name);
        if (pass && name) pass.setAttribute('aria-label', 'Pass on ' + name);
        var heading = next.querySelector('h2');
        if (heading) { heading.setAttribute('tabindex', '-1'); heading.focus({ preventScroll: true }); }
      })
      .catch(function () { form.submit(); });
  };
  deck.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.matches('form.swipe-form')) return;
    event.preventDefault();
    send(form.closest('.deck-card'), form.dataset.decision);
  });
  document.querySelectorAll('[data-swipe]').forEach(function (button) {
    button.addEventListener('click', function (event) {
      var card = topCard();
      if (!card) return;
      event.preventDefault();
      send(card, button.dataset.swipe);
    });
  });
  var start = null, moved = false;
  deck.addEventListener('pointerdown', function (event) {
    var card = topCard();
    if (!card || !card.contains(event.target) || event.button !== 0) return;
    start = { x: event.clientX, y: event.clientY, card: card };
    moved = false;
    card.classList.add('dragging');
  });
  deck.addEventListener('pointermove', function (event) {
    if (!start) return;
    var dx = event.clientX - start.x, dy = event.clientY - start.y;
    // The card takes the pointer only once it is dragged: a tap stays a tap on its link,
    // which opens the dog's page.
    if (Math.abs(dx) > 6 && !moved) { moved = true; start.card.setPointerCapture(event.pointerId); }
    start.card.style.transform = 'translate(' + dx + 'px,' + dy * 0.3 + 'px) rotate(' + dx / 18 + 'deg)';
    var like = start.card.querySelector('.stamp.like'), pass = start.card.querySelector('.stamp.pass');
    if (like) like.style.opacity = Math.max(0, Math.min(1, dx / 90));
    if (pass) pass.style.opacity = Math.max(0, Math.min(1, -dx / 90));
  });
  var finish = function (event) {
    if (!start) return;
    var card = start.card, dx = event.clientX - start.x;
    start = null;
    card.classList.remove('dragging');
    if (Math.abs(dx) > Math.min(120, deck.clientWidth / 4)) { send(card, dx > 0 ? 'like' : 'pass'); return; }
    card.style.transition = 'transform .2s';
    card.style.transform = '';
    card.querySelectorAll('.stamp').forEach(function (stamp) { stamp.style.opacity = 0; });
    setTimeout(function () { card.style.transition = ''; }, 220);
  };
  deck.addEventListener('pointerup', finish);
  deck.addEventListener('pointercancel', finish);
  // A drag is not a tap: it must not open the dog's profile.
  deck.addEventListener('click', function (event) { if (moved) { event.preventDefault(); moved = false; } }, true);
  document.addEventListener('keydown', function (event) {
    if (event.target.closest && event.target.closest('input,select,textarea')) return;
    var card = topCard();
    if (!card) return;
    if (event.key === 'ArrowRight') send(card, 'like');
    if (event.key === 'ArrowLeft') send(card, 'pass');
  });
}

// A match made by the other owner's like, while this member is elsewhere in the app: a toast
// that leads to the chat (the member who liked last sees the match screen instead).
Pawpack.on('match', function (data) {
  if (document.getElementById('match-screen') || !data || !data.match) return;
  Pawpack.toast("It's a match: " + data.match.myPet.name + ' and ' + data.match.otherPet.name + '!',
                { href: '/chats/' + encodeURIComponent(data.match.chatId), text: 'Say hello' });
});

// The Requests and Matches pages follow what happens elsewhere: a request that arrives, or a
// match made, draws the page again (a list has nothing typed to lose).
var requestsPage = document.getElementById('incoming-requests') || document.getElementById('outgoing-requests');
var matchesPage = document.getElementById('match-list');
if (requestsPage || matchesPage) {
  var redraw = Pawpack.redraw;
  Pawpack.on('match_request', function () { if (requestsPage) redraw(); });
  Pawpack.on('match', function () { redraw(); });
  Pawpack.on('chat_closed', function () { if (matchesPage) redraw(); });
}

