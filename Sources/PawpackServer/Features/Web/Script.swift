/// The one script, plain JavaScript without a build step. Every page works without it; with
/// it: photo previews, show-password toggles, busy buttons on slow forms, the deck's drag to
/// swipe (sent without reloading), the browser's location, and the service worker.
enum Script {
    static let js = """
    (function () {
      'use strict';
      // A chosen photo shows before upload.
      document.addEventListener('change', function (event) {
        var input = event.target;
        if (!input.matches || !input.matches('input[type=file][data-preview]')) return;
        var preview = document.getElementById(input.dataset.preview);
        if (!preview) return;
        var file = input.files && input.files[0];
        if (preview.dataset.url) URL.revokeObjectURL(preview.dataset.url);
        if (file) { preview.dataset.url = URL.createObjectURL(file); preview.src = preview.dataset.url; }
        else preview.removeAttribute('src');
      });

      // Show-password toggles.
      document.querySelectorAll('.password-toggle').forEach(function (button) {
        var input = document.getElementById(button.dataset.toggles);
        if (!input) return;
        button.hidden = false;
        button.addEventListener('click', function () {
          var show = input.type === 'password';
          input.type = show ? 'text' : 'password';
          button.textContent = show ? 'Hide' : 'Show';
          button.setAttribute('aria-pressed', show ? 'true' : 'false');
        });
      });

      // A button that says what the server is doing while a slow form is sent.
      document.addEventListener('submit', function (event) {
        var button = event.submitter;
        if (event.defaultPrevented || !button || !button.dataset.busy) return;
        button.classList.add('is-loading');
        button.setAttribute('aria-busy', 'true');
        button.textContent = button.dataset.busy;
        setTimeout(function () { button.disabled = true; }, 0);
      });

      // The deck: drag the top card, or press Like or Pass; the swipe is sent in the
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
              var next = topCard();
              if (!next) { window.location.reload(); return; }
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
          card.setPointerCapture(event.pointerId);
        });
        deck.addEventListener('pointermove', function (event) {
          if (!start) return;
          var dx = event.clientX - start.x, dy = event.clientY - start.y;
          if (Math.abs(dx) > 6) moved = true;
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

      // "Use my current location": the browser's position, or why not.
      var locate = document.getElementById('locate-button');
      if (locate && navigator.geolocation) {
        locate.hidden = false;
        locate.addEventListener('click', function () {
          var status = document.getElementById('locate-status');
          var say = function (text) { if (status) status.textContent = text; };
          say('Finding where you are…');
          navigator.geolocation.getCurrentPosition(function (position) {
            var form = document.getElementById('geo-form');
            form.querySelector('[name=latitude]').value = position.coords.latitude.toFixed(5);
            form.querySelector('[name=longitude]').value = position.coords.longitude.toFixed(5);
            form.submit();
          }, function (error) {
            say(error.code === 1
              ? 'Your browser did not allow Pawpack to know your location. Search for your town instead, or allow location for this site in your browser settings.'
              : 'Your location could not be found just now. Search for your town instead.');
          }, { enableHighAccuracy: false, timeout: 15000, maximumAge: 600000 });
        });
      }

      if ('serviceWorker' in navigator) {
        window.addEventListener('load', function () { navigator.serviceWorker.register('\(WebPath.serviceWorker)').catch(function () {}); });
      }
    })();
    """
}
