// Pawpack's service worker: the shell from the cache, pages from the network (never
// cached: they are personal), the offline page when the network is gone.
var CACHE = '{{cache}}';
var SHELL = [/* {{shell}} */];
self.addEventListener('install', function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});
self.addEventListener('activate', function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (key) { return key !== CACHE; }).map(function (key) { return caches.delete(key); }));
  }));
  // No clients.claim(): a page keeps the worker it loaded with, so a worker installed
  // during a form's redirect never takes that navigation over half-way.
});
self.addEventListener('fetch', function (event) {
  var request = event.request;
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (SHELL.indexOf(url.pathname) >= 0) {
    event.respondWith(caches.match(request).then(function (hit) { return hit || fetch(request); }));
  } else if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(function () { return caches.match('{{offline}}'); }));
  }
});
// Web Push (the server's `WebPushProvider`): show the notification, one per tag (a
// chat's messages replace each other), and open its page when it is tapped.
self.addEventListener('push', function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) {}
  event.waitUntil(self.registration.showNotification(data.title || 'Pawpack', {
    body: data.body || '', tag: data.tag, renotify: !!data.tag, icon: '{{icon}}',
    data: { path: typeof data.path === 'string' && data.path.charAt(0) === '/' ? data.path : '/home' }
  }));
});
self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var path = (event.notification.data && event.notification.data.path) || '/home';
  var target = new URL(path, self.location.origin).href;
  event.waitUntil(clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (open) {
    for (var i = 0; i < open.length; i++) {
      if (open[i].url === target && 'focus' in open[i]) return open[i].focus();
    }
    return clients.openWindow(target);
  }));
});
