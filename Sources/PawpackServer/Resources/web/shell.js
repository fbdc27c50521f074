// The shell every page loads first: what any page may use (photo previews, password toggles,
// busy buttons, the browser's location, times in the reader's time zone) and `Pawpack`, what
// the areas' modules build on: `Pawpack.on(type, handler)` hands them the realtime events.
// Plain JavaScript, no build step; every page works without it. The server joins this file and
// the areas' modules into one script (`WebAssets`), each in a function of its own.
var Pawpack = window.Pawpack = { handlers: {} };

// A flash (`?flash=`, the toast) shows once: the address forgets it, so neither a reload nor
// Back shows it again.
if (document.getElementById('toast') && window.history.replaceState) {
  var shown = new URL(window.location.href);
  if (shown.searchParams.has('flash')) {
    shown.searchParams.delete('flash');
    window.history.replaceState(window.history.state, '', shown.pathname + shown.search + shown.hash);
  }
}

// A list that follows events elsewhere draws itself again with `Pawpack.redraw()`, unless the
// member is leaving the page already (a form sent, a link followed): the event their own action
// caused (accepting a request makes a match) must not take them back to the page they left.
Pawpack.leaving = false;
document.addEventListener('submit', function (event) { if (!event.defaultPrevented) Pawpack.leaving = true; });
document.addEventListener('click', function (event) {
  var link = event.target.closest && event.target.closest('a[href]');
  // A link to another tab (a meet-up's map) leaves nothing.
  if (link && !event.defaultPrevented && !link.target && link.getAttribute('href').charAt(0) !== '#') Pawpack.leaving = true;
});
Pawpack.redraw = function () {
  setTimeout(function () { if (!Pawpack.leaving) window.location.reload(); }, 300);
};

// A toast from a script (a like sent, a match made elsewhere): `link` is `{ href, text }`.
Pawpack.toast = function (text, link) {
  var old = document.getElementById('toast');
  if (old) old.remove();
  var toast = document.createElement('div');
  toast.className = 'toast';
  toast.id = 'toast';
  toast.setAttribute('role', 'status');
  toast.appendChild(document.createTextNode(text));
  if (link) {
    var anchor = document.createElement('a');
    anchor.href = link.href;
    anchor.textContent = link.text;
    toast.appendChild(document.createTextNode(' '));
    toast.appendChild(anchor);
  }
  (document.getElementById('main') || document.body).appendChild(toast);
};

// Realtime events to the areas' modules: `Pawpack.on('message', function (data, event) {…})`.
Pawpack.on = function (type, handler) {
  (Pawpack.handlers[type] = Pawpack.handlers[type] || []).push(handler);
};

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

// Fields for one species (`data-for-species`: the deck's questions, for dogs) follow the
// species chosen on a new pet's form; without the script they stay, and are not asked later.
document.querySelectorAll('select[name=species]').forEach(function (select) {
  var follow = function () {
    document.querySelectorAll('[data-for-species]').forEach(function (part) {
      part.hidden = part.dataset.forSpecies !== select.value;
    });
  };
  select.addEventListener('change', follow);
  follow();
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

// An inline confirmation that opens at the bottom of the screen comes up above the tab bar
// (the page's scroll padding keeps the bar's height free).
document.addEventListener('toggle', function (event) {
  var details = event.target;
  if (details.matches && details.matches('details.confirm') && details.open) details.scrollIntoView({ block: 'nearest' });
}, true);

// A button that says what the server is doing while a slow form is sent.
document.addEventListener('submit', function (event) {
  var button = event.submitter;
  if (event.defaultPrevented || !button || !button.dataset.busy) return;
  button.classList.add('is-loading');
  button.setAttribute('aria-busy', 'true');
  button.textContent = button.dataset.busy;
  setTimeout(function () { button.disabled = true; }, 0);
});


// "Use my location" buttons (`data-locate`): the browser's position into their form's
// latitude and longitude, then the form sent ("submit") or the place kept ("fill"); or why not.
if (navigator.geolocation) {
  document.querySelectorAll('button[data-locate]').forEach(function (button) {
    var form = button.form, status = document.getElementById(button.dataset.locateStatus);
    var say = function (text) { if (status) status.textContent = text; };
    button.hidden = false;
    button.addEventListener('click', function () {
      say('Finding where you are…');
      navigator.geolocation.getCurrentPosition(function (position) {
        form.querySelector('[name=latitude]').value = position.coords.latitude.toFixed(5);
        form.querySelector('[name=longitude]').value = position.coords.longitude.toFixed(5);
        if (button.dataset.locate === 'submit') form.submit(); else say(button.dataset.located || '');
      }, function (error) {
        say(error.code === 1 ? button.dataset.denied : button.dataset.unavailable);
      }, { enableHighAccuracy: button.dataset.locate === 'fill', timeout: 15000, maximumAge: button.dataset.locate === 'fill' ? 60000 : 600000 });
    });
  });
}

// Times: the server writes them in UTC; they show in the reader's own time zone.
var timeFormats = {
  full: { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' },
  short: { day: 'numeric', month: 'short' },
  time: { hour: '2-digit', minute: '2-digit' }
};
var localize = function (root) {
  root.querySelectorAll('time[datetime][data-style]').forEach(function (element) {
    var date = new Date(element.getAttribute('datetime'));
    if (!isNaN(date)) element.textContent = date.toLocaleString(undefined, timeFormats[element.dataset.style] || timeFormats.full);
  });
};
localize(document);

Pawpack.localize = localize;

// A form that asks for no time zone still sends the browser's (`data-browser-time-zone`): a new
// member's own, a new family's. Without this script the server falls back as it says.
document.querySelectorAll('[data-browser-time-zone]').forEach(function (field) {
  try { field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch (error) { /* left empty */ }
});

var newID = function () {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  var bytes = crypto.getRandomValues(new Uint8Array(16)), hex = '';
  bytes[6] = (bytes[6] & 15) | 64; bytes[8] = (bytes[8] & 63) | 128;
  for (var i = 0; i < 16; i++) hex += (bytes[i] + 256).toString(16).slice(1);
  return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
};
Pawpack.newID = newID;

// A count on a tab or the bell (`WebPages.countBadge`, there even at 0 when live).
Pawpack.setCount = function (id, count) {
  var badge = document.getElementById(id);
  if (!badge || typeof count !== 'number') return;
  badge.firstChild.nodeValue = count > 99 ? '99+' : String(count);
  badge.hidden = count === 0;
};

// Whether the page is being left: a page that would draw itself again does not then.
Pawpack.leaving = false;
window.addEventListener('beforeunload', function () { Pawpack.leaving = true; });
window.addEventListener('pageshow', function () { Pawpack.leaving = false; });

// Realtime: one socket per page (the session cookie signs it in), started once every module
// has said what it handles. Each event is acknowledged, so one seen here does not buzz the
// phone too. The first socket resumes after the newest event as the page was drawn (one
// committed meanwhile still comes; one the page shows is not added twice).
Pawpack.start = function () {
  if (!document.body.classList.contains('signed-in') || !('WebSocket' in window)) return;
  var socket = null, lastID = document.body.dataset.eventsAfter || null, tries = 0;
  var connect = function () {
    socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '{{realtime}}'
                           + (lastID !== null ? '?after=' + lastID : ''));
    Pawpack.socket = socket;
    // Marked on the page, for styles and tests that wait for live updates.
    socket.onopen = function () { tries = 0; document.documentElement.dataset.realtime = 'open'; };
    socket.onmessage = function (message) {
      var event;
      try { event = JSON.parse(message.data); } catch (error) { return; }
      if (typeof event.id === 'number') { lastID = event.id; socket.send(JSON.stringify({ type: 'ack', id: event.id })); }
      (Pawpack.handlers[event.type] || []).forEach(function (handler) { handler(event.data || {}, event); });
    };
    socket.onclose = function (event) {
      document.documentElement.dataset.realtime = 'closed';
      // Signed out (here or elsewhere): the page is drawn again, which leads to log in.
      if (event.code === 4004) { if (!Pawpack.leaving) window.location.reload(); return; }
      // Too many tabs: stay quiet. Otherwise come back, a little later each time.
      if (event.code === 4003 || event.code === 4008 || tries > 8) return;
      tries += 1;
      setTimeout(connect, Math.min(30000, 500 * Math.pow(2, tries)));
    };
  };
  connect();
};

if ('serviceWorker' in navigator) {
  window.addEventListener('load', function () { navigator.serviceWorker.register('{{serviceWorker}}').catch(function () {}); });
}
