import AsyncHTTPClient
import Foundation
import NIOCore
import Vapor

/// A minimal browser for web-page tests: keeps cookies, posts forms with the page's CSRF
/// token, and does not follow redirects (tests look at them).
package final class TestBrowser {
    package let server: TestServer
    package private(set) var cookies: [String: String] = [:]
    /// The raw `Set-Cookie` headers of the last reply.
    package private(set) var lastSetCookies: [String] = []
    /// The `_csrf` value of the forms on the last page shown since the session last changed.
    private var pageCSRF: String?

    package init(_ server: TestServer) { self.server = server }

    /// A browser signed in through the log-in page as a member who exists.
    package static func signedIn(_ server: TestServer, as member: TestServer.Member) async throws -> TestBrowser {
        let browser = TestBrowser(server)
        _ = try await browser.get("/login")
        let login = try await browser.post("/login", ["email": member.email, "password": member.password])
        guard login.status == 303, login.location == "/home" else {
            throw TestFailure("web log-in of \(member.username): \(login.status) \(login.html)")
        }
        return browser
    }

    /// Redirects are the answers under test, so they are not followed. Lives as long as the
    /// test process.
    /// A request waits up to 30 s for one of the pool's connections to a server: a test that
    /// sends a hundred at once to one server, while hundreds of others run, waited longer than
    /// the default 10 s on a loaded machine.
    package static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(30))))

    package struct Page {
        package var status: Int
        package var location: String?
        package var html: String
        package var headers: HTTPHeaders
    }

    package func get(_ path: String, headers: [(String, String)] = []) async throws -> Page {
        try await send(.GET, path, form: nil, headers: headers)
    }

    /// The CSRF token a form sends.
    package enum CSRF {
        /// The one the page's form carries, as a browser would send it: from the last page, or
        /// when none was shown since the session changed, from a page fetched for it.
        case fromPage
        /// No `_csrf` field at all.
        case missing
        case value(String)
    }

    /// Posts a form; `_csrf` is filled from the cookie unless `csrf` says otherwise.
    package func post(
        _ path: String, _ form: [String: String], csrf: CSRF = .fromPage,
        headers: [(String, String)] = []
    ) async throws -> Page {
        try await post(path, fields: form.sorted { $0.key < $1.key }, csrf: csrf, headers: headers)
    }

    /// Posts a form whose fields may repeat (`hear[]` once per ticked box), in this order.
    package func post(
        _ path: String, fields form: [(String, String)], csrf: CSRF = .fromPage,
        headers: [(String, String)] = []
    ) async throws -> Page {
        var fields = form.filter { $0.0 != "_csrf" }
        switch csrf {
        case .fromPage:
            if pageCSRF == nil { _ = try await get(cookies["pawpack_session"] == nil ? "/login" : "/account") }
            fields.append(("_csrf", pageCSRF ?? ""))
        case .missing: break
        case .value(let token): fields.append(("_csrf", token))
        }
        return try await send(.POST, path, form: fields, headers: headers)
    }

    /// Posts a form with files (`multipart/form-data`), as a page with a file input does;
    /// `_csrf` comes from the page, as for `post`.
    package func upload(_ path: String, parts: [TestServer.FormPart], headers: [(String, String)] = []) async throws -> Page {
        if pageCSRF == nil { _ = try await get(cookies["pawpack_session"] == nil ? "/login" : "/account") }
        let boundary = "pawpack-page-\(UUID().uuidString)"
        var body = Data()
        for part in parts + [.init(name: "_csrf", data: Data((pageCSRF ?? "").utf8))] {
            var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { header += "; filename=\"\(filename)\"" }
            header += "\r\n"
            if let type = part.contentType { header += "Content-Type: \(type)\r\n" }
            body.append(Data((header + "\r\n").utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        return try await send(.POST, path, form: nil, raw: ("multipart/form-data; boundary=\(boundary)", body), headers: headers)
    }

    /// Sets a cookie as another site or a script on a sibling domain could.
    package func setCookie(_ name: String, _ value: String) { cookies[name] = value }

    /// The `Cookie` header this browser sends, for requests made another way (a WebSocket).
    package var cookieHeader: String? {
        cookies.isEmpty ? nil : cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ")
    }

    private func send(
        _ method: HTTPMethod, _ path: String, form: [(String, String)]?, raw: (type: String, body: Data)? = nil,
        headers: [(String, String)] = []
    ) async throws -> Page {
        var request = HTTPClientRequest(url: server.baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Accept", value: "text/html")
        if !cookies.isEmpty {
            request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; "))
        }
        if let form {
            var components = URLComponents()
            components.queryItems = form.map { URLQueryItem(name: $0.0, value: $0.1) }
            let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: body))
        }
        if let raw {
            request.headers.add(name: "Content-Type", value: raw.type)
            request.body = .bytes(ByteBuffer(data: raw.body))
        }
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 8 << 20)
        lastSetCookies = response.headers["Set-Cookie"]
        for header in lastSetCookies {
            let pair = header.split(separator: ";", maxSplits: 1)[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2 else { continue }
            let name = String(pair[0]).trimmingCharacters(in: .whitespaces)
            let value = String(pair[1])
            if name == "pawpack_session" { pageCSRF = nil }
            if value.isEmpty || header.lowercased().contains("max-age=0") {
                cookies[name] = nil
            } else {
                cookies[name] = value
            }
        }
        let html = String(buffer: body)
        if let range = html.range(of: #"name="_csrf" value="[^"]*""#, options: .regularExpression) {
            pageCSRF = String(html[range].dropFirst(#"name="_csrf" value=""#.count).dropLast())
        }
        return Page(
            status: Int(response.status.code), location: response.headers.first(name: "Location"),
            html: html, headers: response.headers)
    }
}
