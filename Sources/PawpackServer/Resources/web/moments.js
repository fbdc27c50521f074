// Moments: votes sent in the background, feeds that load on as the reader scrolls, the
// contest's leaderboard kept live, and the smaller copies of a photo made before it is posted.

// A vote or its taking back: the button says the new count at once, the page stays put.
document.addEventListener('submit', function (event) {
  var form = event.target;
  if (!form.matches || !form.matches('form[data-vote]') || form.dataset.sending) return;
  event.preventDefault();
  form.dataset.sending = '1';
  fetch(form.action, { method: 'POST', body: new FormData(form), credentials: 'same-origin',
                       headers: { 'Accept': 'application/json' } })
    .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.json(); })
    .then(function (outcome) {
      var button = form.querySelector('button.vote');
      form.querySelector('[name=vote]').value = outcome.voted ? '0' : '1';
      button.setAttribute('aria-pressed', outcome.voted ? 'true' : 'false');
      button.classList.toggle('voted', outcome.voted);
      button.classList.toggle('secondary', !outcome.voted);
      button.querySelector('.vote-label').textContent = ' ' + outcome.votes + (outcome.votes === 1 ? ' vote' : ' votes');
      delete form.dataset.sending;
      refreshLeaderboard();
    })
    .catch(function () { delete form.dataset.sending; form.submit(); });
});

// "More": the next page's items join the list; with an observer, before the reader reaches it.
function loadMore(link) {
  if (link.dataset.loading) return;
  link.dataset.loading = '1';
  fetch(link.href, { credentials: 'same-origin' })
    .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.text(); })
    .then(function (html) {
      var next = new DOMParser().parseFromString(html, 'text/html');
      var id = link.dataset.more, here = document.getElementById(id), there = next.getElementById(id);
      if (!here || !there) throw new Error('no list');
      Array.prototype.slice.call(there.children).forEach(function (item) {
        if (!item.id || !document.getElementById(item.id)) here.appendChild(document.importNode(item, true));
      });
      var nextLink = next.querySelector('a[data-more="' + id + '"]');
      if (nextLink) { link.href = nextLink.getAttribute('href'); delete link.dataset.loading; }
      else link.closest('.more') ? link.closest('.more').remove() : link.remove();
    })
    .catch(function () { window.location.href = link.href; });
}
document.addEventListener('click', function (event) {
  var link = event.target.closest && event.target.closest('a[data-more]');
  if (!link) return;
  event.preventDefault();
  loadMore(link);
});
if ('IntersectionObserver' in window) {
  var watcher = new IntersectionObserver(function (seen) {
    seen.forEach(function (entry) { if (entry.isIntersecting && document.contains(entry.target)) loadMore(entry.target); });
  }, { rootMargin: '600px 0px' });
  document.querySelectorAll('a[data-more]').forEach(function (link) { watcher.observe(link); });
}

// The running contest's leaderboard, read again every few seconds while the page is seen and
// after each vote.
var board = document.querySelector('[data-live]');
function refreshLeaderboard() {
  if (!board) return;
  fetch(board.dataset.live, { credentials: 'same-origin' })
    .then(function (response) { if (!response.ok) throw new Error(String(response.status)); return response.text(); })
    .then(function (html) {
      var list = document.getElementById('leaderboard-list');
      var fresh = new DOMParser().parseFromString('<div>' + html + '</div>', 'text/html').body.firstChild;
      if (list && fresh && list.innerHTML !== fresh.innerHTML) list.replaceChildren.apply(list, Array.prototype.slice.call(fresh.childNodes));
    })
    .catch(function () {});
}
if (board) setInterval(function () { if (!document.hidden) refreshLeaderboard(); }, 4000);

// Posting: the display size and the thumbnail, drawn on a canvas from the chosen photo and
// sent beside it, so that feeds load small pictures. A photo the browser cannot draw (HEIC in
// most) goes alone, and the server shows the original.
var momentForm = document.getElementById('moment-form');
if (momentForm && window.DataTransfer && window.HTMLCanvasElement) {
  var sizes = (momentForm.dataset.sizes || '1600,480').split(',').map(Number);
  var copies = {};
  sizes.forEach(function (size, index) {
    var input = document.createElement('input');
    input.type = 'file';
    input.name = index === 0 ? 'display' : 'thumbnail';
    input.hidden = true;
    input.setAttribute('aria-hidden', 'true');
    input.tabIndex = -1;
    momentForm.appendChild(input);
    copies[input.name] = { input: input, size: size };
  });
  var shrink = function (image, size) {
    var scale = Math.min(1, size / Math.max(image.width, image.height));
    var canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(image.width * scale));
    canvas.height = Math.max(1, Math.round(image.height * scale));
    canvas.getContext('2d').drawImage(image, 0, 0, canvas.width, canvas.height);
    return new Promise(function (resolve) { canvas.toBlob(resolve, 'image/jpeg', 0.85); });
  };
  momentForm.querySelector('input[name=photo]').addEventListener('change', function (event) {
    var file = event.target.files && event.target.files[0];
    Object.keys(copies).forEach(function (name) { copies[name].input.value = ''; });
    if (!file || !window.createImageBitmap) return;
    // The pixels as stored: the server keeps the original's pixels as they are, and a copy
    // turned upright would not have its shape.
    createImageBitmap(file, { imageOrientation: 'none' }).then(function (image) {
      return Promise.all(Object.keys(copies).map(function (name) {
        var copy = copies[name];
        // A photo already small enough is its own display size.
        if (Math.max(image.width, image.height) <= copy.size) return null;
        return shrink(image, copy.size).then(function (blob) {
          if (!blob) return;
          var files = new DataTransfer();
          files.items.add(new File([blob], name + '.jpg', { type: 'image/jpeg' }));
          copy.input.files = files.files;
        });
      }));
    }).catch(function () {});
  });
}
