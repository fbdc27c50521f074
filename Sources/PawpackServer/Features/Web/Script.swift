/// The one script, plain JavaScript without a build step. Every page works without it; with
/// it: photo previews, show-password toggles, busy buttons on slow forms, the deck's drag to
/// swipe (sent without reloading), the browser's location, times in the reader's time zone, the
/// realtime socket (live chat, the bell, acknowledgements), Web Push, and the service worker.
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

      // The meet-up form: the time is the member's own (their offset from UTC on that day).
      var meetupForm = document.getElementById('meetup-form');
      if (meetupForm) {
        meetupForm.addEventListener('submit', function () {
          var day = meetupForm.querySelector('[name=date]').value, time = meetupForm.querySelector('[name=time]').value;
          var local = new Date(day + 'T' + time);
          document.getElementById('meetup-offset').value = String(isNaN(local) ? new Date().getTimezoneOffset() : local.getTimezoneOffset());
        });
      }

      var newID = function () {
        if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
        var bytes = crypto.getRandomValues(new Uint8Array(16)), hex = '';
        bytes[6] = (bytes[6] & 15) | 64; bytes[8] = (bytes[8] & 63) | 128;
        for (var i = 0; i < 16; i++) hex += (bytes[i] + 256).toString(16).slice(1);
        return hex.slice(0, 8) + '-' + hex.slice(8, 12) + '-' + hex.slice(12, 16) + '-' + hex.slice(16, 20) + '-' + hex.slice(20);
      };

      // Realtime: one socket per page (the session cookie signs it in). Each event is
      // acknowledged, so a message seen here does not buzz the phone too; the bell keeps its
      // count; a chat's page shows messages and read receipts as they come.
      if (document.body.classList.contains('signed-in') && 'WebSocket' in window) {
        var list = document.getElementById('messages');
        var chatID = list ? list.dataset.chat : null;
        var composer = document.getElementById('message-form');
        var csrf = document.querySelector('input[name=_csrf]');
        // The first socket resumes after the newest event as the page was drawn (a message
        // committed meanwhile still comes; one the page shows is not added twice).
        var socket = null, lastID = document.body.dataset.eventsAfter || null, tries = 0, leaving = false, unreadMessage = null;
        window.addEventListener('beforeunload', function () { leaving = true; });
        window.addEventListener('pageshow', function () { leaving = false; });
        // The bell's and the Chats tab's counts (`WebPages.countBadge`, there even at 0).
        var setCount = function (id, count) {
          var badge = document.getElementById(id);
          if (!badge || typeof count !== 'number') return;
          badge.firstChild.nodeValue = count > 99 ? '99+' : String(count);
          badge.hidden = count === 0;
        };
        // Reads the chat up to a message of the other member's, once this page is in sight;
        // the answer brings the counts that reading changed.
        var read = function (messageID) {
          if (!csrf || document.visibilityState !== 'visible') { unreadMessage = messageID; return; }
          unreadMessage = null;
          var body = new URLSearchParams();
          body.set('_csrf', csrf.value); body.set('messageId', messageID);
          fetch(list.dataset.read, { method: 'POST', body: body, credentials: 'same-origin', headers: { 'Accept': 'application/json' } })
            .then(function (response) { return response.ok ? response.json() : null; })
            .then(function (counts) {
              if (counts) { setCount('bell-count', counts.unreadNotifications); setCount('chats-count', counts.unreadChats); }
            })
            .catch(function () {});
        };
        document.addEventListener('visibilitychange', function () { if (unreadMessage) read(unreadMessage); });
        var showSeen = function (position) {
          var mine = list.querySelectorAll('.message.mine'), seen = document.getElementById('seen');
          var last = mine[mine.length - 1];
          if (seen && last) seen.hidden = Number(last.dataset.position) > position;
        };
        var append = function (message) {
          if (!list || message.chatId !== chatID || document.getElementById('m-' + message.id)) return;
          var empty = document.getElementById('messages-empty');
          if (empty) empty.remove();
          var item = document.createElement('li');
          item.className = 'message ' + (message.fromMe ? 'mine' : 'theirs');
          item.id = 'm-' + message.id;
          item.dataset.position = message.position;
          if (message.text) { var text = document.createElement('p'); text.textContent = message.text; item.appendChild(text); }
          if (message.photo) {
            var photo = document.createElement('img');
            photo.src = new URL(message.photo.url).pathname; photo.alt = 'Photo'; photo.className = 'message-photo';
            item.appendChild(photo);
          }
          var time = document.createElement('time');
          time.setAttribute('datetime', message.createdAt); time.dataset.style = 'time';
          item.appendChild(time);
          localize(item);
          list.appendChild(item);
          item.scrollIntoView({ block: 'end' });
          if (message.fromMe) { showSeen(0); return; }
          read(message.id);
        };
        var typing = function () {
          var text = composer && composer.querySelector('textarea');
          return text && text.value.trim() !== '';
        };
        var connect = function () {
          socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '\(WebPath.realtime)'
                                 + (lastID !== null ? '?after=' + lastID : ''));
          // Marked on the page, for styles and tests that wait for live updates.
          socket.onopen = function () { tries = 0; document.documentElement.dataset.realtime = 'open'; };
          socket.onmessage = function (message) {
            var event;
            try { event = JSON.parse(message.data); } catch (error) { return; }
            if (typeof event.id === 'number') { lastID = event.id; socket.send(JSON.stringify({ type: 'ack', id: event.id })); }
            var data = event.data || {};
            if (event.type === 'message') append(data);
            else if (event.type === 'notification') setCount('bell-count', data.unreadCount);
            else if (event.type === 'read' && list && data.chatId === chatID && !data.byMe) showSeen(data.position);
            // A meet-up the other owner changed, or the chat closed: the page is drawn again
            // (not while something is typed, nor while this page is already going elsewhere).
            else if ((event.type === 'meetup' && !data.changedByMe) || event.type === 'chat_closed' || event.type === 'resync') {
              if (list && (data.chatId === chatID || event.type === 'resync') && !typing() && !leaving) window.location.reload();
            }
          };
          socket.onclose = function (event) {
            document.documentElement.dataset.realtime = 'closed';
            // Signed out (here or elsewhere): the page is drawn again, which leads to log in.
            if (event.code === 4004) { if (!leaving) window.location.reload(); return; }
            // Too many tabs: stay quiet. Otherwise come back, a little later each time.
            if (event.code === 4003 || event.code === 4008 || tries > 8) return;
            tries += 1;
            setTimeout(connect, Math.min(30000, 500 * Math.pow(2, tries)));
          };
        };
        connect();
        if (composer && list) {
          var field = composer.querySelector('textarea');
          composer.addEventListener('submit', function (event) {
            if (!socket || socket.readyState !== 1) return;
            event.preventDefault();
            if (!field.value.trim()) return;
            var button = composer.querySelector('button[type=submit]');
            button.disabled = true;
            fetch(composer.action, { method: 'POST', body: new URLSearchParams(new FormData(composer)), credentials: 'same-origin',
                                     headers: { 'Accept': 'application/json' } })
              .then(function (response) {
                if (!response.ok) throw new Error(String(response.status));
                field.value = '';
                composer.querySelector('[name=id]').value = newID();
              })
              .catch(function () { composer.submit(); })
              .then(function () { button.disabled = false; field.focus(); });
          });
          field.addEventListener('keydown', function (event) {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) { event.preventDefault(); composer.requestSubmit(); }
          });
          var lastMessage = list.lastElementChild;
          if (lastMessage) lastMessage.scrollIntoView({ block: 'end' });
        }
      }

      // Notifications on this device (Web Push), where the browser can receive them.
      var pushCard = document.getElementById('push-card');
      if (pushCard && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window) {
        pushCard.hidden = false;
        var pushToggle = document.getElementById('push-toggle'), pushStatus = document.getElementById('push-status');
        var keyBytes = function (text) {
          var base64 = text.replace(/-/g, '+').replace(/_/g, '/');
          base64 += '==='.slice((base64.length + 3) % 4);
          var raw = atob(base64), bytes = new Uint8Array(raw.length);
          for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
          return bytes;
        };
        var tell = function (url, subscription) {
          var json = subscription.toJSON(), body = new URLSearchParams();
          body.set('_csrf', pushCard.dataset.csrf); body.set('endpoint', subscription.endpoint);
          if (json.keys) { body.set('p256dh', json.keys.p256dh); body.set('auth', json.keys.auth); }
          return fetch(url, { method: 'POST', body: body, credentials: 'same-origin' }).then(function (response) {
            if (!response.ok) throw new Error(String(response.status));
          });
        };
        var showPush = function (on) {
          pushToggle.lastChild.nodeValue = on ? 'Turn off notifications' : 'Turn on notifications';
          pushStatus.textContent = on ? 'This device gets a notification when something happens.'
                                      : 'Get a notification here when something happens, even with Pawpack closed.';
        };
        navigator.serviceWorker.ready.then(function (registration) {
          registration.pushManager.getSubscription().then(function (current) { showPush(!!current); });
          pushToggle.addEventListener('click', function () {
            registration.pushManager.getSubscription().then(function (current) {
              if (current) {
                return tell(pushCard.dataset.unsubscribe, current).then(function () { return current.unsubscribe(); })
                  .then(function () { showPush(false); });
              }
              return Notification.requestPermission().then(function (permission) {
                if (permission !== 'granted') { pushStatus.textContent = 'Notifications are blocked for this site in your browser settings.'; return; }
                return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(pushCard.dataset.vapidKey) })
                  .then(function (subscription) { return tell(pushCard.dataset.subscribe, subscription); })
                  .then(function () { showPush(true); });
              });
            }).catch(function () { pushStatus.textContent = 'Notifications could not be turned on in this browser.'; });
          });
        });
      }

      if ('serviceWorker' in navigator) {
        window.addEventListener('load', function () { navigator.serviceWorker.register('\(WebPath.serviceWorker)').catch(function () {}); });
      }
    })();
    """
}
