import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

/// The Pawpack Swift SDK: one client per server, async methods, and the session kept for you.
///
/// ```swift
/// let pawpack = PawpackClient(serverURL: URL(string: "https://pawpack.example.org")!)
/// try await pawpack.logIn(email: "ada@example.com", password: "a walk in the park")
/// let me = try await pawpack.me()
/// ```
///
/// Signed-in calls refresh an expired access token once, by themselves. Failures throw
/// ``PawpackError`` with the server's stable `code`.
public final class PawpackClient: Sendable {
    let client: Client
    private let store: SessionStore

    /// Creates a client.
    /// - Parameters:
    ///   - serverURL: The server's base URL, e.g. `https://pawpack.example.org`.
    ///   - transport: How requests travel. The default uses AsyncHTTPClient and works on
    ///     Linux and Apple platforms; pass `URLSessionTransport()` from swift-openapi-urlsession
    ///     to use URLSession on iOS.
    ///   - session: A session saved earlier (for example in the keychain) to resume.
    public init(serverURL: URL, transport: any ClientTransport = AsyncHTTPClientTransport(),
                session: Session? = nil) {
        let store = SessionStore(session)
        self.store = store
        self.client = Client(serverURL: serverURL, configuration: .pawpack, transport: transport,
                             middlewares: [BearerTokenMiddleware(store: store)])
    }

    /// The current session, to save and pass back to `init` on the next launch.
    public var session: Session? {
        get async { await store.session }
    }

    // MARK: Accounts

    /// Creates an account. The server emails a verification link; ``logIn(email:password:)``
    /// answers `email_not_verified` until it is opened.
    public func signUp(email: String, password: String, username: String, displayName: String,
                       dateOfBirth: LocalDate, city: String? = nil) async throws -> Account {
        let output = try await client.signUp(body: .json(.init(
            email: email, password: password, username: username, displayName: displayName,
            dateOfBirth: dateOfBirth.description, city: city)))
        switch output {
        case let .created(created): return try Account(try created.body.json)
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Confirms an email address with the token from the emailed link.
    @discardableResult
    public func verifyEmail(token: String) async throws -> Account {
        switch try await client.verifyEmail(body: .json(.init(token: token))) {
        case let .ok(ok): return try Account(try ok.body.json)
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Sends the verification link again (the server sends at most one a minute).
    public func resendVerification(email: String) async throws {
        switch try await client.resendVerification(body: .json(.init(email: email))) {
        case .accepted: return
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Signs in and keeps the session for later calls.
    @discardableResult
    public func logIn(email: String, password: String) async throws -> Account {
        switch try await client.logIn(body: .json(.init(email: email, password: password))) {
        case let .ok(ok):
            let session = try Session(try ok.body.json)
            await store.set(session)
            return session.account
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Rotates the refresh token into a new pair. Signed-in calls do this by themselves.
    public func refresh() async throws {
        guard let refreshToken = await store.session?.refreshToken else { throw PawpackError.notSignedIn }
        switch try await client.refreshSession(body: .json(.init(refreshToken: refreshToken))) {
        case let .ok(ok):
            await store.set(try Session(try ok.body.json))
        case let .default(status, problem):
            await store.set(nil)
            throw PawpackError(status: status, problem)
        }
    }

    /// Signs out on the server and forgets the session.
    public func logOut() async throws {
        do {
            try await signedIn {
                switch try await client.logOut() {
                case .noContent: return
                case let .default(status, problem): throw PawpackError(status: status, problem)
                }
            }
        } catch {
            // The session is forgotten locally even when the server could not be told.
            await store.set(nil)
            throw error
        }
        await store.set(nil)
    }

    /// The signed-in account.
    public func me() async throws -> Account {
        try await signedIn {
            switch try await client.getMe() {
            case let .ok(ok): return try Account(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Changes profile fields; `nil` leaves a field as it is and an empty `city` clears it.
    @discardableResult
    public func updateProfile(displayName: String? = nil, city: String? = nil, username: String? = nil) async throws -> Account {
        try await signedIn {
            switch try await client.updateMe(body: .json(.init(displayName: displayName, city: city, username: username))) {
            case let .ok(ok): return try Account(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Changes the password; the server signs out every other session.
    public func changePassword(current: String, new: String) async throws {
        try await signedIn {
            switch try await client.changePassword(body: .json(.init(currentPassword: current, newPassword: new))) {
            case .noContent: return
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Starts a change of email; it takes effect when the link sent to `newEmail` is opened.
    public func changeEmail(to newEmail: String, password: String) async throws {
        try await signedIn {
            switch try await client.changeEmail(body: .json(.init(newEmail: newEmail, password: password))) {
            case .accepted: return
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Emails a password reset link if the address has an account (the answer is the same
    /// either way).
    public func requestPasswordReset(email: String) async throws {
        switch try await client.requestPasswordReset(body: .json(.init(email: email))) {
        case .accepted: return
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Sets a new password with the token from the reset link; every session is signed out.
    public func resetPassword(token: String, newPassword: String) async throws {
        switch try await client.confirmPasswordReset(body: .json(.init(token: token, newPassword: newPassword))) {
        case .noContent: await store.set(nil)
        case let .default(status, problem): throw PawpackError(status: status, problem)
        }
    }

    /// Deletes the account and everything it owns, for good.
    public func deleteAccount(password: String) async throws {
        try await signedIn {
            switch try await client.deleteMe(body: .json(.init(password: password))) {
            case .noContent: return
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
        await store.set(nil)
    }

    /// Everything the account owns.
    public func exportData() async throws -> AccountExport {
        try await signedIn {
            switch try await client.exportMe() {
            case let .ok(ok): return try AccountExport(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Whether the server is up and reaches its database.
    public func isHealthy() async -> Bool {
        guard case .ok = try? await client.getHealth() else { return false }
        return true
    }

    /// Runs a signed-in call, refreshing an expired access token once.
    func signedIn<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        guard await store.session != nil else { throw PawpackError.notSignedIn }
        do {
            return try await call()
        } catch let error as PawpackError where error.code == ProblemCode.tokenExpired.rawValue {
            try await refresh()
            return try await call()
        }
    }
}

/// A signed-in session: tokens and the account they belong to. `Codable` so an app can keep
/// it in the keychain.
public struct Session: Sendable, Codable, Equatable {
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date
    public var account: Account

    public init(accessToken: String, accessTokenExpiresAt: Date, refreshToken: String,
                refreshTokenExpiresAt: Date, account: Account) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.account = account
    }

    init(_ dto: Components.Schemas.Session) throws {
        self.init(accessToken: dto.accessToken, accessTokenExpiresAt: dto.accessTokenExpiresAt,
                  refreshToken: dto.refreshToken, refreshTokenExpiresAt: dto.refreshTokenExpiresAt,
                  account: try Account(dto.account))
    }
}

/// Everything an account owns, as exported.
public struct AccountExport: Sendable, Equatable {
    /// One signed-in app or browser.
    public struct SessionSummary: Sendable, Equatable {
        public enum Kind: String, Sendable { case app, web }
        public var kind: Kind
        public var createdAt: Date
        public var lastUsedAt: Date
    }

    public var exportedAt: Date
    public var account: Account
    public var sessions: [SessionSummary]

    init(_ dto: Components.Schemas.AccountExport) throws {
        exportedAt = dto.exportedAt
        account = try Account(dto.account)
        sessions = dto.sessions.map {
            SessionSummary(kind: $0.kind == .web ? .web : .app, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
        }
    }
}

/// A failure reported by the server (problem details) or by the SDK itself.
public struct PawpackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, or 0 for an SDK-side failure.
    public var status: Int
    /// The stable code, e.g. `email_not_verified`; see ``PawpackCore/ProblemCode``.
    public var code: String
    public var title: String
    public var detail: String
    /// The fields at fault, when the input was not valid.
    public var errors: [FieldError]

    /// The code as a known ``PawpackCore/ProblemCode``, when it is one.
    public var problemCode: ProblemCode? { ProblemCode(rawValue: code) }
    /// The first field at fault.
    public var field: String? { errors.first?.field }

    public var description: String { "\(status) \(code): \(detail)" }

    public init(status: Int, code: String, title: String, detail: String, errors: [FieldError] = []) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
    }

    init(status: Int, _ response: Components.Responses.Problem) {
        guard case let .applicationProblemJson(problem) = response.body else {
            self.init(status: status, code: "unknown", title: "Unexpected answer", detail: "HTTP \(status)")
            return
        }
        self.init(status: status, code: problem.code, title: problem.title, detail: problem.detail,
                  errors: (problem.errors ?? []).map { FieldError(field: $0.field, message: $0.message) })
    }

    static let notSignedIn = PawpackError(status: 0, code: ProblemCode.unauthenticated.rawValue,
                                          title: "Not signed in", detail: "Call logIn(email:password:) first.")
    static func malformed(_ what: String) -> PawpackError {
        PawpackError(status: 0, code: "malformed_response", title: "Unexpected answer", detail: what)
    }
}

extension Account {
    init(_ dto: Components.Schemas.Account) throws {
        guard let id = User.ID(string: dto.id), let birth = LocalDate(dto.dateOfBirth) else {
            throw PawpackError.malformed("account \(dto.id) has an unreadable id or date of birth")
        }
        self.init(id: id, email: dto.email, username: dto.username, displayName: dto.displayName,
                  dateOfBirth: birth, city: dto.city,
                  location: dto.location.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) },
                  emailVerified: dto.emailVerified, createdAt: dto.createdAt)
    }
}
