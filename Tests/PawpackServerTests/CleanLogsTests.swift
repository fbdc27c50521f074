import AsyncHTTPClient
import Foundation
import NIOCore
import PawpackServer
import PawpackTestSupport
import SQLiteNIO
import Testing
import Vapor

/// Nothing secret is ever logged: a server process logging everything it can (`trace`) is
/// used with known passwords, tokens and cookies, through the API and the web pages, succeeding
/// and failing in every way a client can make it fail, and with its database broken under it so
/// that the same requests fail with 500; then its log is searched for each secret.
@Suite struct CleanLogsTests {
    @Test(arguments: ["text", "json"])
    func noPasswordTokenOrCookieEverReachesTheLog(format: String) async throws {
        let server = try await ServerProcess(
            environment: ["LOG_LEVEL": "trace", "PAWPACK_LOG_FORMAT": format],
            keepingLog: true)
        defer { server.stop() }
        let http = Client(baseURL: server.baseURL)
        let (first, second, third) = ("first Secret-Passw0rd", "second Secret-Passw0rd", "third Secret-Passw0rd")
        var secrets = [first, second, third]

        // given an account signed up, verified, logged in and refreshed through the API
        _ = try await http.json(
            .POST, APIPath.signUp,
            [
                "email": "zed@example.com", "password": first,
                "username": "zed", "displayName": "Zed", "dateOfBirth": "1990-01-01",
            ])
        let verification = try await http.lastMailToken()
        secrets.append(verification)
        try await http.expect(200, .POST, APIPath.verifyEmail, ["token": verification])
        var session = try await http.json(.POST, APIPath.logIn, ["email": "zed@example.com", "password": first])
        let (access, refresh) = (try session.string("accessToken"), try session.string("refreshToken"))
        session = try await http.json(.POST, APIPath.refresh, ["refreshToken": refresh])
        let (newAccess, newRefresh) = (try session.string("accessToken"), try session.string("refreshToken"))
        secrets += [access, refresh, newAccess, newRefresh]
        let bearer = ["Authorization": "Bearer " + newAccess]
        try await http.expect(200, .GET, APIPath.me, headers: bearer)
        try await http.expect(204, .POST, APIPath.password, ["currentPassword": first, "newPassword": second], headers: bearer)
        // and a password reset through its mailed link
        try await http.expect(202, .POST, APIPath.passwordResetRequest, ["email": "zed@example.com"])
        let reset = try await http.lastMailToken()
        secrets.append(reset)
        _ = try await http.send(.GET, "/reset-password?token=" + reset)
        try await http.expect(204, .POST, APIPath.passwordResetConfirm, ["token": reset, "newPassword": third])

        // and a web session with its CSRF token
        let web = try await http.webLogIn(email: "zed@example.com", password: third)
        secrets += [web.session, web.csrf]
        try await http.expect(200, .GET, "/home", headers: web.cookieHeader)

        // when clients get things wrong with the secrets in hand
        try await http.expect(401, .POST, APIPath.logIn, ["email": "zed@example.com", "password": first])
        try await http.expect(400, .POST, APIPath.logIn, ["email": 42, "password": third])
        try await http.expect(
            406, .POST, APIPath.logIn, ["email": "zed@example.com", "password": third],
            headers: ["Accept": "text/plain"])
        try await http.expect(401, .GET, APIPath.me, headers: ["Authorization": "Bearer " + access])
        try await http.expect(400, .POST, APIPath.refresh, ["refreshToken": [refresh]])

        // and when the database breaks under the server, so that each request fails with 500
        let database = try await SQLiteConnection.open(storage: .file(path: server.databaseFile))
        for table in ["users", "auth_tokens", "web_sessions"] {
            _ = try await database.query("ALTER TABLE \(table) RENAME TO broken_\(table)")
        }
        try await database.close()
        try await http.expect(500, .POST, APIPath.logIn, ["email": "zed@example.com", "password": third])
        try await http.expect(500, .GET, APIPath.me, headers: bearer)
        try await http.expect(500, .POST, APIPath.refresh, ["refreshToken": newRefresh])
        try await http.expect(500, .GET, "/home", headers: web.cookieHeader.merging(["Accept": "text/html"]) { $1 })

        // then the log tells the failures by code and request id
        let log = try server.log()
        let failures = log.split(separator: "\n").filter { $0.contains("request failed") }
        #expect(failures.count >= 4, "\(failures.count) failures logged")
        #expect(failures.allSatisfy { $0.contains("internal_error") && $0.contains("request-id") })
        #expect(log.contains("POST /v1/auth/login"))
        // and holds none of the secrets, as they are or as the bytes a body trace shows
        for secret in secrets {
            let hex = Data(secret.utf8).map { String(format: "%02x", $0) }.joined()
            let (inText, inHex) = (log.contains(secret), log.lowercased().contains(hex.prefix(24)))
            #expect(!inText, "\(secret) is in the log: \(Self.lines(of: log, containing: secret))")
            #expect(!inHex, "\(secret) is in the log in hex")
        }
    }

    static func lines(of log: String, containing secret: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(secret) }.map { $0.prefix(400) }
    }

    /// Redaction itself, on the shapes secrets take in what libraries log.
    @Test func credentialsAreBlankedInEveryShapeTheyAreWritten() {
        let cases: [(String, String)] = [
            ("headers: Host: a; authorization: Bearer ppa_abc.DEF-1; accept: */*", "ppa_abc.DEF-1"),
            (#"[("Authorization", "Basic dXNlcjpwYXNz")]"#, "dXNlcjpwYXNz"),
            ("Cookie: pawpack_session=s3cr3t; pawpack_csrf=c5rf", "s3cr3t"),
            ("Cookie: pawpack_session=s3cr3t; pawpack_csrf=c5rf", "c5rf"),
            (#"LoginRequest(email: "a@b.c", password: "hunter2 x")"#, "hunter2"),
            (#"{"newPassword":"p\"w","refreshToken":"ppr_x1"}"#, "ppr_x1"),
            ("/reset-password?token=abc123&x=1", "abc123"),
            ("body: [7b22656d61696c223a227a6564406578616d706c652e636f6d222c2270617373...](124 bytes)", "2270617373"),
        ]
        for (text, secret) in cases {
            let redacted = LogRedaction.redact(text)
            #expect(!redacted.contains(secret), "\(text) → \(redacted)")
            #expect(redacted.contains("[redacted]"))
        }
        #expect(LogRedaction.redact("GET /v1/pets/42 status=200 ms=1.2") == "GET /v1/pets/42 status=200 ms=1.2")
    }

    /// Metadata set on a logger (as Vapor sets a request's) is kept as set and redacted when a
    /// line is written, together with the line's own.
    @Test func metadataSetOnALoggerIsRedactedWhenALineIsWritten() {
        let written = WrittenLines()
        var logger = Logger(label: "pawpack.test") { _ in RedactingLogHandler(WritingHandler(lines: written)) }
        logger[metadataKey: "session"] = "s3cr3t-session"
        logger[metadataKey: "headers"] = "authorization: Bearer ppa_abc.DEF-1"
        logger[metadataKey: "request-id"] = "42"
        logger.info("request", metadata: ["refreshToken": "ppr_x1"])
        let line = written.all.joined()
        for secret in ["s3cr3t-session", "ppa_abc.DEF-1", "ppr_x1"] {
            #expect(!line.contains(secret), "\(line)")
        }
        #expect(line.contains("request-id=42") && line.contains("[redacted]"), "\(line)")
    }
}

/// Lines a `WritingHandler` wrote, each with its metadata sorted.
private final class WrittenLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

private struct WritingHandler: LogHandler {
    let lines: WrittenLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata lineMetadata: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        let all = metadata.merging(lineMetadata ?? [:]) { _, new in new }
        lines.append("\(message) " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    }
}

/// Just enough of an HTTP client for a server in another process.
private struct Client {
    let baseURL: String

    struct Reply {
        var status: Int
        var headers: HTTPHeaders
        var body: String

        func string(_ key: String) throws -> String {
            let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            guard let value = object?[key] as? String else { throw TestFailure("no \(key) in \(body)") }
            return value
        }
    }

    func send(
        _ method: HTTPMethod, _ path: String, body: Data? = nil, contentType: String = "application/json",
        headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await TestBrowser.client.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: String(buffer: bytes))
    }

    @discardableResult
    func json(_ method: HTTPMethod, _ path: String, _ object: [String: Any], headers: [String: String] = [:]) async throws -> Reply {
        try await send(method, path, body: JSONSerialization.data(withJSONObject: object), headers: headers)
    }

    func expect(
        _ status: Int, _ method: HTTPMethod, _ path: String, _ object: [String: Any]? = nil,
        headers: [String: String] = [:]
    ) async throws {
        let reply = if let object { try await json(method, path, object, headers: headers) } else { try await send(method, path, headers: headers) }
        #expect(reply.status == status, "\(method) \(path): \(reply.status) \(reply.body.prefix(300))")
    }

    /// The token of the newest link in the development outbox.
    func lastMailToken() async throws -> String {
        let outbox = try await send(.GET, "/dev/mail").body
        guard let range = outbox.range(of: #"token=[A-Za-z0-9_.-]+"#, options: .regularExpression) else {
            throw TestFailure("no link in the outbox")
        }
        return String(outbox[range].dropFirst("token=".count))
    }

    struct WebSession {
        var session: String
        var csrf: String
        var cookieHeader: [String: String] { ["Cookie": "pawpack_session=\(session); pawpack_csrf=\(csrf)"] }
    }

    func webLogIn(email: String, password: String) async throws -> WebSession {
        let form = try await send(.GET, "/login")
        let csrf = try Self.cookie("pawpack_csrf", in: form.headers)
        let fields = ["email": email, "password": password, "_csrf": csrf].map { key, value in
            key + "=" + value.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }.joined(separator: "&")
        let login = try await send(
            .POST, "/login", body: Data(fields.utf8), contentType: "application/x-www-form-urlencoded",
            headers: ["Cookie": "pawpack_csrf=\(csrf)", "Origin": baseURL])
        guard login.status == 303 else { throw TestFailure("web log-in: \(login.status) \(login.body.prefix(300))") }
        return WebSession(
            session: try Self.cookie("pawpack_session", in: login.headers),
            csrf: (try? Self.cookie("pawpack_csrf", in: login.headers)) ?? csrf)
    }

    static func cookie(_ name: String, in headers: HTTPHeaders) throws -> String {
        for header in headers[canonicalForm: "Set-Cookie"] where header.hasPrefix(name + "=") {
            return String(header.dropFirst(name.count + 1).prefix { $0 != ";" })
        }
        throw TestFailure("no \(name) cookie in \(headers)")
    }
}
