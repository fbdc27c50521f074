import Foundation
import PawpackCore
import Plot
import Vapor

/// What makes the web app installable: the manifest, its icons, and a service worker that
/// keeps the shell (stylesheet, script, icons, offline page) so a member without a network
/// sees a page that says so rather than the browser's error.
enum AppShell {
    static var manifest: String {
        let icons = WebPath.iconSizes.map {
            #"{"src":"\#(WebPath.icon(size: $0))","sizes":"\#($0)x\#($0)","type":"image/png","purpose":"any maskable"}"#
        } + [#"{"src":"\#(WebPath.iconSVG)","sizes":"any","type":"image/svg+xml","purpose":"any"}"#]
        return """
        {"name":"Pawpack","short_name":"Pawpack","description":"Safe playmates for your dog, nearby.",\
        "id":"/home","start_url":"/home","scope":"/","display":"standalone","orientation":"portrait",\
        "background_color":"\(DesignTokens.value(of: "bg", dark: false)!)","theme_color":"\(DesignTokens.themeColour)",\
        "icons":[\(icons.joined(separator: ","))]}
        """
    }

    /// Bumped whenever the shell's files change, so the worker replaces its cache.
    static let cacheVersion = "pawpack-shell-5"

    static var serviceWorker: String {
        let shell = [WebPath.offline, WebPath.stylesheet, WebPath.script, WebPath.iconSVG] + WebPath.iconSizes.map { WebPath.icon(size: $0) }
        let list = shell.map { "'\($0)'" }.joined(separator: ",")
        return """
        // Pawpack's service worker: the shell from the cache, pages from the network (never
        // cached: they are personal), the offline page when the network is gone.
        var CACHE = '\(cacheVersion)';
        var SHELL = [\(list)];
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
            event.respondWith(fetch(request).catch(function () { return caches.match('\(WebPath.offline)'); }));
          }
        });
        // Web Push (the server's `WebPushProvider`): show the notification, one per tag (a
        // chat's messages replace each other), and open its page when it is tapped.
        self.addEventListener('push', function (event) {
          var data = {};
          try { data = event.data ? event.data.json() : {}; } catch (e) {}
          event.waitUntil(self.registration.showNotification(data.title || 'Pawpack', {
            body: data.body || '', tag: data.tag, renotify: !!data.tag, icon: '\(WebPath.icon(size: 192))',
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
        """
    }

    static var iconSVG: String {
        ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5.5" fill="\##(DesignTokens.themeColour)"/><g fill="#fff" transform="translate(3.2 3.2) scale(.733)">"##
            + #"<ellipse cx="12" cy="16.2" rx="4.6" ry="3.8"/><ellipse cx="5.4" cy="10.6" rx="2.1" ry="2.6"/><ellipse cx="18.6" cy="10.6" rx="2.1" ry="2.6"/><ellipse cx="9.1" cy="6.2" rx="2.1" ry="2.7"/><ellipse cx="14.9" cy="6.2" rx="2.1" ry="2.7"/></g></svg>"#
    }

    /// The PNG icons, drawn once.
    static let icons: [Int: Data] = Dictionary(uniqueKeysWithValues: WebPath.iconSizes.map { ($0, DogPortrait.appIcon(size: $0)) })

    static func register(on app: Application) {
        func serve(_ path: String, type: HTTPMediaType, maxAge: Int = 3600, _ body: @escaping @Sendable () -> Response.Body) {
            app.get(path.pathComponents) { _ in
                let response = Response(status: .ok, body: body())
                response.headers.contentType = type
                response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=\(maxAge)")
                return response
            }
        }
        let utf8 = ["charset": "utf-8"]
        serve(WebPath.stylesheet, type: HTTPMediaType(type: "text", subType: "css", parameters: utf8)) { .init(string: Stylesheet.css) }
        serve(WebPath.script, type: HTTPMediaType(type: "text", subType: "javascript", parameters: utf8)) { .init(string: Script.js) }
        serve(WebPath.manifest, type: HTTPMediaType(type: "application", subType: "manifest+json", parameters: utf8)) { .init(string: manifest) }
        // The worker is checked for updates on every visit: never cached long.
        serve(WebPath.serviceWorker, type: HTTPMediaType(type: "text", subType: "javascript", parameters: utf8), maxAge: 0) {
            .init(string: serviceWorker)
        }
        serve(WebPath.iconSVG, type: HTTPMediaType(type: "image", subType: "svg+xml")) { .init(string: iconSVG) }
        for size in WebPath.iconSizes {
            serve(WebPath.icon(size: size), type: .png, maxAge: 86400) { .init(data: icons[size] ?? Data()) }
        }
        app.get(WebPath.offline.pathComponents) { req in
            WebPages.page(req, title: "You are offline", main: .div(.class("empty"), .id("offline"),
                Icon.paw.node(),
                .p(.text("Pawpack needs a connection for this page. Check your network, then try again.")),
                .a(.class("button"), .href(WebPath.home), .text("Try again"))))
        }
    }
}
