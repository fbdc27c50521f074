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
  if (request.method === 'POST' && FEED_FORM.test(new URL(request.url).pathname) && new URL(request.url).origin === self.location.origin) {
    event.respondWith(sendFeed(request));
    return;
  }
  if (request.method !== 'GET') return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (SHELL.indexOf(url.pathname) >= 0) {
    event.respondWith(caches.match(request).then(function (hit) { return hit || fetch(request); }));
  } else if (request.mode === 'navigate') {
    event.respondWith(fetch(request).catch(function () { return caches.match('{{offline}}'); }));
  }
});
// A feed logged without a connection (Pawfolio kept an offline copy of its database): the
// form is kept on this device, with its feed id and the moment it was logged, and sent once a
// connection is back (Background Sync where the browser has it, and on every page's load).
// The id makes a second sending log nothing more; it goes with `logAnyway`, as the pet was fed.
var FEED_FORM = /^\/care\/pets\/[0-9a-f-]{36}\/feeds$/;
var WAITING_PAGE = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
  '<title>Saved on this device · Pawpack</title><link rel="stylesheet" href="{{stylesheet}}"></head><body><main class="main">' +
  '<section class="card" id="feed-waiting"><h1>Saved on this device</h1><p>There is no connection. The feed is kept here and sent ' +
  'as soon as there is one, with its own id, so it is never logged twice.</p><p><a class="button" href="/care">Back to Care</a></p>' +
  '</section></main></body></html>';
function sendFeed(request) {
  var kept = request.clone().text();
  return fetch(request).catch(function () {
    return kept.then(function (body) {
      var form = new URLSearchParams(body);
      if (!form.get('time')) form.set('at', new Date().toISOString());
      form.set('logAnyway', '1');
      return withFeeds('readwrite', function (store) { store.add({ url: request.url, body: form.toString() }); });
    }).then(function () {
      if (self.registration.sync) self.registration.sync.register('feeds').catch(function () {});
      return new Response(WAITING_PAGE, { status: 202, headers: { 'Content-Type': 'text/html; charset=utf-8' } });
    });
  });
}
// The kept feeds, in IndexedDB (the page reads their count there too: `care.js`).
function withFeeds(mode, work) {
  return new Promise(function (resolve, reject) {
    var open = indexedDB.open('pawpack-offline', 1);
    open.onupgradeneeded = function () { open.result.createObjectStore('feeds', { autoIncrement: true }); };
    open.onerror = function () { reject(open.error); };
    open.onsuccess = function () {
      var db = open.result, tx = db.transaction('feeds', mode), out = { items: [] };
      work(tx.objectStore('feeds'), out);
      tx.oncomplete = function () { db.close(); resolve(out.items); };
      tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
    };
  });
}
// The session's form token, read from the Care page as a browser would show it; null when
// signed out (the page then is the login page, reached by a redirect).
function formToken() {
  return fetch('/care', { credentials: 'same-origin' }).then(function (page) {
    if (page.redirected || !page.ok) return null;
    return page.text().then(function (html) {
      var token = /name="_csrf" value="([^"]+)"/.exec(html);
      return token ? token[1] : null;
    });
  });
}
// A feed form's answer: logged (the form's redirect back to where it was sent from), refused
// for good (a 4xx: the food or the pet is gone), or to try again (signed out: a redirect to the
// login page; the server restarting).
function outcome(answer) {
  var path = new URL(answer.url || self.location.href).pathname;
  if (answer.ok && answer.redirected && path.indexOf('/login') !== 0) return 'logged';
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 401 && answer.status !== 403 && answer.status !== 429) return 'refused';
  return 'later';
}
var replaying = null;
// Sends the kept feeds one after the other, with the session's token of now; resolves with how
// many still wait.
function replayFeeds() {
  if (replaying) return replaying;
  replaying = withFeeds('readonly', function (store, out) {
    store.openCursor().onsuccess = function (event) {
      var cursor = event.target.result;
      if (cursor) { out.items.push({ key: cursor.key, value: cursor.value }); cursor.continue(); }
    };
  }).then(function (items) {
    if (!items.length) return { sent: 0, left: 0 };
    return formToken().then(function (token) {
      if (!token) return { sent: 0, left: items.length };
      var sent = 0;
      return items.reduce(function (done, item) {
        return done.then(function () {
          var form = new URLSearchParams(item.value.body);
          form.set('_csrf', token);
          return fetch(item.value.url, {
            method: 'POST', body: form, credentials: 'same-origin',
            headers: { 'Content-Type': 'application/x-www-form-urlencoded' }
          }).then(function (answer) {
            var result = outcome(answer);
            if (result === 'later') return;
            if (result === 'logged') sent += 1;
            return withFeeds('readwrite', function (store) { store.delete(item.key); });
          }, function () {});
        });
      }, Promise.resolve()).then(function () {
        return withFeeds('readonly', function (store, out) {
          store.count().onsuccess = function (event) { out.items = event.target.result; };
        });
      }).then(function (left) { return { sent: sent, left: left }; });
    });
  }).then(function (result) {
    if (!result.sent) return result;
    return clients.matchAll({ type: 'window' }).then(function (open) {
      open.forEach(function (client) { client.postMessage({ type: 'feeds-sent', count: result.sent }); });
      return result;
    });
  }).then(function (result) {
    replaying = null;
    return result.left;
  }, function (error) {
    replaying = null;
    throw error;
  });
  return replaying;
}
// Background Sync tries again later while feeds wait.
self.addEventListener('sync', function (event) {
  if (event.tag !== 'feeds') return;
  event.waitUntil(replayFeeds().then(function (left) { if (left) throw new Error(left + ' feeds wait'); }));
});
self.addEventListener('message', function (event) {
  if (event.data === 'replay-feeds') event.waitUntil(replayFeeds().catch(function () {}));
});
// Web Push (the server's `WebPushProvider`): show the notification, one per tag (a
// chat's messages replace each other), and open its page when it is tapped. A feeding
// reminder offers "Mark as fed", which logs the pet's usual feed without opening a page.
var ID = /^[0-9a-f-]{36}$/;
self.addEventListener('push', function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) {}
  var marksFed = data.action === 'mark_fed' && ID.test(data.petId || '') && ID.test(data.notificationId || '');
  event.waitUntil(self.registration.showNotification(data.title || 'Pawpack', {
    body: data.body || '', tag: data.tag, renotify: !!data.tag, icon: '{{icon}}',
    actions: marksFed ? [{ action: 'mark_fed', title: 'Mark as fed' }] : [],
    data: {
      path: typeof data.path === 'string' && data.path.charAt(0) === '/' ? data.path : '/home',
      pet: marksFed ? data.petId : null, notification: marksFed ? data.notificationId : null
    }
  }));
});
// The feed goes as the page's own form would: the session's cookie, and the form token read
// from the Care page (this worker has no other way to learn it). The notification's id is the
// feed's, so a second tap, or the inbox's button after it, logs nothing more.
function markFed(data) {
  var care = '/care/pets/' + data.pet;
  return formToken().then(function (token) {
    if (!token) throw new Error('signed out');
    var body = new URLSearchParams({ _csrf: token, id: data.notification, back: care });
    return fetch(care + '/feeds', { method: 'POST', body: body, credentials: 'same-origin' });
  }).then(function (answer) {
    // Logged: the form's redirect back to the pet. Anything else (409: another member fed a
    // moment ago) opens the pet's page, which says what happened.
    if (outcome(answer) === 'logged') {
      return self.registration.showNotification('Marked as fed', { body: 'The household sees it now.', tag: 'fed-' + data.pet, icon: '{{icon}}' });
    }
    return clients.openWindow(care);
  }).catch(function () { return clients.openWindow(care); });
}
self.addEventListener('notificationclick', function (event) {
  event.notification.close();
  var data = event.notification.data || {};
  if (event.action === 'mark_fed' && data.pet && data.notification) {
    event.waitUntil(markFed(data));
    return;
  }
  var path = (event.notification.data && event.notification.data.path) || '/home';
  var target = new URL(path, self.location.origin).href;
  event.waitUntil(clients.matchAll({ type: 'window', includeUncontrolled: true }).then(function (open) {
    for (var i = 0; i < open.length; i++) {
      if (open[i].url === target && 'focus' in open[i]) return open[i].focus();
    }
    return clients.openWindow(target);
  }));
});
