import Crypto
import Foundation
import PawpackCore
import Vapor

/// The signed-in browser user of this request, if any.
struct WebUser {
    var user: UserRecord
    var session: WebSessionRecord
}

enum WebCookie {
    static let session = "pawpack_session"
    static let csrf = "pawpack_csrf"
}

extension Request {
    private struct WebUserKey: StorageKey { typealias Value = WebUser }
    private struct CSRFKey: StorageKey { typealias Value = String }

    var webUser: WebUser? {
        get { storage[WebUserKey.self] }
        set { storage[WebUserKey.self] = newValue }
    }

    /// The CSRF token every form on this page carries: for a signed-in member, derived from
    /// their session with the server's secret, so no one without the session can make one;
    /// before signing in, the value of an HttpOnly, SameSite=Strict cookie (double submit).
    var csrfToken: String {
        get { storage[CSRFKey.self] ?? "" }
        set { storage[CSRFKey.self] = newValue }
    }

    /// A route parameter that must be an id (`Param`); anything else names nothing, so 404.
    func idParameter<Owner>(_ parameter: RouteParameter<Owner>) throws -> Identifier<Owner> {
        guard let id = parameters.get(parameter.name).flatMap(Identifier<Owner>.init(string:)) else { throw Problem.notFound }
        return id
    }

    /// The signed-in user, or a redirect to the login page.
    func requireWebUser() throws -> WebUser {
        guard let webUser else {
            // A page asked for while signed out comes back after logging in.
            let here = url.path + (url.query.map { "?" + $0 } ?? "")
            guard method == .GET, WebPages.safeNext(here) != nil else { throw Abort.redirect(to: WebPath.logIn) }
            throw Abort.redirect(to: WebPath.logIn + "?next=" + (here.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
        return webUser
    }

    /// Rejects a form sent from another site (`Origin`), or whose `_csrf` field is not this
    /// session's token (signed in) or the cookie's (signed out).
    func checkCSRF() throws {
        let expired = Problem(
            status: 403, code: .csrfFailed, title: "This form has expired",
            detail: "Go back, reload the page and send the form again.")
        guard originIsOurs else { throw expired }
        let sent = (try? content.get(String.self, at: "_csrf")) ?? ""
        let expected = webUser != nil ? csrfToken : (cookies[WebCookie.csrf]?.string ?? "")
        guard !expected.isEmpty, constantTimeEquals(sent, expected) else { throw expired }
    }

    /// The page's script posting a form in the background (`Accept: application/json`): it is
    /// answered with JSON, not a page.
    var asksForJSON: Bool {
        headers.accept.contains { $0.mediaType == .json }
    }

    /// Whether a form came from one of this server's pages: browsers name the page's origin in
    /// `Origin` on every form they send; it must be the public address or the one asked for.
    /// A request without it (no browser, or an old one) rests on the token alone.
    /// Whether the request's `Origin` is exactly the configured public address: scheme, host
    /// and port (the scheme's default when none is written). A web socket opened with the
    /// session cookie has no CSRF token, so a page elsewhere must not open one (cross-site
    /// WebSocket hijacking); the `Host` header does not count, since whoever makes the request
    /// chooses it (DNS rebinding).
    var originIsPublicURL: Bool {
        func origin(_ text: String) -> String? {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else {
                return nil
            }
            let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
            return "\(scheme)://\(host):\(port)"
        }
        guard let sent = headers.first(name: .origin).flatMap(origin) else { return false }
        return sent == origin(application.pawpack.config.publicBaseURL)
    }

    var originIsOurs: Bool {
        guard let origin = headers.first(name: .origin) else { return true }
        func authority(_ text: String) -> String? {
            guard let url = URL(string: text), let host = url.host?.lowercased() else { return nil }
            return url.port.map { "\(host):\($0)" } ?? host
        }
        guard let sentFrom = authority(origin) else { return false } // `null`, or not an origin
        return sentFrom == authority(application.pawpack.config.publicBaseURL)
            || sentFrom == headers.first(name: .host)?.lowercased()
    }
}

/// Loads the browser session and guarantees a CSRF cookie for web pages. API paths are
/// skipped: they authenticate with bearer tokens and never read cookies.
///
/// Future-based, so that an API request passes without a task of its own (each waits its turn
/// on the event loop: `RequestContextMiddleware` says more); a page's request gets one.
struct WebSessionMiddleware: Middleware {
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let path = request.url.path
        if path.hasPrefix("/v1/") || path == "/healthz" || path == "/openapi.yaml" || WebPath.staticFiles.contains(path)
            || path.hasPrefix(WebAssets.folder)
        {
            return next.respond(to: request)
        }
        return request.eventLoop.makeFutureWithTask { try await respondToPage(request, chainingTo: next) }
    }

    private func respondToPage(_ request: Request, chainingTo next: any Responder) async throws -> Response {
        let path = request.url.path
        if let token = request.cookies[WebCookie.session]?.string,
            let (user, session) = try await request.pawpack.sessions.webSession(token: token, on: request.db)
        {
            request.webUser = WebUser(user: user, session: session)
        }
        let existingCSRF = request.cookies[WebCookie.csrf]?.string
        if let webUser = request.webUser {
            request.csrfToken = try CSRFToken.bound(to: webUser.session.requireID(), secret: request.pawpack.config.secret)
            // The tab bar's and the bell's counts, for whatever may draw a page (a form post is
            // drawn again with its errors); photos (`/media`) and the script's JSON posts skip them.
            let drawsPage = request.method == .GET || !request.asksForJSON
            if drawsPage, !path.hasPrefix("/media/") {
                let me = try webUser.user.requireID()
                // Read before anything the page shows: its script's socket resumes after this
                // id, so whatever commits while the page is drawn and loads still reaches it.
                let frame = try await request.pawpack.shell.frameCounts(of: me, on: request.db)
                request.eventsShownAfter = frame.eventsShownAfter
                request.badgeCounts = frame.badges
            }
        } else {
            request.csrfToken = existingCSRF ?? OpaqueToken.generate(prefix: "")
        }
        let response = try await next.respond(to: request).get()
        let config = request.pawpack.config
        if existingCSRF == nil, request.webUser == nil {
            response.cookies[WebCookie.csrf] = HTTPCookies.Value(
                string: request.csrfToken, path: "/", isSecure: config.secureCookies, isHTTPOnly: true, sameSite: .strict)
        }
        if request.cookies[WebCookie.session] != nil, request.webUser == nil,
            response.cookies[WebCookie.session] == nil
        {
            // The session ended (idle, signed out elsewhere): forget the stale cookie.
            response.cookies[WebCookie.session] = WebCookies.expired
        }
        return response
    }
}

enum WebCookies {
    static func session(_ token: String, secure: Bool) -> HTTPCookies.Value {
        HTTPCookies.Value(string: token, path: "/", isSecure: secure, isHTTPOnly: true, sameSite: .lax)
    }

    static let expired = HTTPCookies.Value(
        string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0,
        path: "/", isHTTPOnly: true, sameSite: .lax)
}

/// The CSRF token of a signed-in browser: an HMAC of its session's id under the server's
/// secret. It changes with the session and cannot be chosen by anyone who sets cookies.
enum CSRFToken {
    static func bound(to session: Identifier<WebSessionRecord>, secret: String) -> String {
        let key = SymmetricKey(data: SHA256.hash(data: Data(("pawpack-csrf:" + secret).utf8)))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(session.description.utf8), using: key)
        return Data(mac).base64URLEncoded
    }
}
