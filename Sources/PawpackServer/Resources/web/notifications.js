// Notifications: the bell follows the inbox live; Web Push on this device, where the browser
// can receive it.
Pawpack.on('notification', function (data) { Pawpack.setCount('bell-count', data.unreadCount); });

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
