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

    /// The CSRF token every form on this page carries (double-submit: the same value sits in
    /// an HttpOnly, SameSite=Strict cookie that another site can neither read nor send).
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
        guard let webUser else { throw Abort.redirect(to: WebPath.logIn) }
        return webUser
    }

    /// Rejects a form whose `_csrf` field does not match the cookie.
    func checkCSRF() throws {
        let sent = (try? content.get(String.self, at: "_csrf")) ?? ""
        guard let cookie = cookies[WebCookie.csrf]?.string, !cookie.isEmpty,
              constantTimeEquals(sent, cookie) else {
            throw Problem(status: 403, code: .csrfFailed, title: "This form has expired",
                          detail: "Go back, reload the page and send the form again.")
        }
    }
}

/// Loads the browser session and guarantees a CSRF cookie for web pages. API paths are
/// skipped: they authenticate with bearer tokens and never read cookies.
struct WebSessionMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let path = request.url.path
        if path.hasPrefix("/v1/") || path == "/healthz" || path == "/openapi.yaml" || path == WebPath.stylesheet {
            return try await next.respond(to: request)
        }
        if let token = request.cookies[WebCookie.session]?.string,
           let (user, session) = try await request.pawpack.accounts.webSession(token: token, on: request.db) {
            request.webUser = WebUser(user: user, session: session)
        }
        let existingCSRF = request.cookies[WebCookie.csrf]?.string
        request.csrfToken = existingCSRF ?? OpaqueToken.generate(prefix: "")
        let response = try await next.respond(to: request)
        let config = request.pawpack.config
        if existingCSRF == nil {
            response.cookies[WebCookie.csrf] = HTTPCookies.Value(
                string: request.csrfToken, path: "/", isSecure: config.secureCookies, isHTTPOnly: true, sameSite: .strict)
        }
        if request.cookies[WebCookie.session] != nil, request.webUser == nil,
           response.cookies[WebCookie.session] == nil {
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

    static let expired = HTTPCookies.Value(string: "", expires: Date(timeIntervalSince1970: 0), maxAge: 0,
                                           path: "/", isHTTPOnly: true, sameSite: .lax)
}
