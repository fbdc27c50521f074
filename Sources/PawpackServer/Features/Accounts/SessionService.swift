import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// A freshly issued pair of app tokens. The plain tokens exist only here, on their way to
/// the client; the database keeps their hashes.
struct IssuedSession: Sendable {
    var accessToken: String
    var accessTokenExpiresAt: Date
    var refreshToken: String
    var refreshTokenExpiresAt: Date
    var family: AppSession.ID
    var account: Account
}

/// Signing in and staying signed in: credentials checked under limits that lock out no owner,
/// app sessions (an access token and a rotating refresh token per family) and web sessions (a
/// cookie that idles out). Every authenticated request passes through `authenticate` or
/// `webSession`; a session's end closes its sockets.
final class SessionService: Sendable {
    let config: Config
    let clock: any AppClock
    let hasher: PasswordHasher
    /// Sockets live as long as their session: told when sessions end.
    let realtime: RealtimeEvents
    /// The access token read every API request makes.
    private let reads: HotReads
    private let addressLimiter: RateLimiter
    private let signInLocks: SignInLocks
    private let logger: Logger
    /// A real bcrypt hash to check against when the email is unknown, so an attacker cannot
    /// tell from timing which addresses have accounts.
    private let dummyHash: Task<String, any Error>

    var rules: AccountRules { config.accountRules }
    var policy: SessionPolicy { config.sessions }

    init(
        config: Config, clock: any AppClock, hasher: PasswordHasher, realtime: RealtimeEvents, reads: HotReads,
        logger: Logger
    ) {
        self.config = config
        self.clock = clock
        self.hasher = hasher
        self.realtime = realtime
        self.reads = reads
        self.logger = logger
        self.addressLimiter = RateLimiter(limit: config.failedLoginsPerAddress, window: config.failedLoginsPerAddressWindow)
        self.signInLocks = SignInLocks(policy: config.lockout)
        self.dummyHash = Task { try await hasher.hash("pawpack-timing-equaliser-password") }
    }

    /// Checks credentials under two limits that never lock anyone else out: failed sign-ins
    /// per client address across accounts (high: people share addresses), and per (address,
    /// account), which locks only the client guessing that account. Both apply alike to
    /// addresses with and without an account, and an unknown address is checked against a real
    /// hash, so neither the answer nor its time tells who is a member.
    func logIn(email: String, password: String, address: String, on db: any Database) async throws -> UserRecord {
        let now = clock.now()
        if let wait = await addressLimiter.blockedFor(address, now: now) {
            throw Problem.tooManyAttempts(retryAfter: wait)
        }
        let normalized = rules.normalizedEmail(email)
        var errors: [FieldError] = []
        if normalized.isEmpty { errors.append(.init(field: "email", message: "is required")) }
        if password.isEmpty { errors.append(.init(field: "password", message: "is required")) }
        guard errors.isEmpty else { throw Problem.validation(errors) }

        let pair = address + " " + normalized
        if let wait = await signInLocks.lockedFor(pair, now: now) {
            throw Problem.accountLocked(retryAfter: wait)
        }
        let user = try await UserRecord.query(on: db).filter(\.$email == normalized).first()
        let hash = if let user { user.passwordHash } else { try await dummyHash.value }
        guard try await hasher.verify(password, against: hash), let user else {
            await addressLimiter.record(address, now: now)
            if let wait = await signInLocks.recordFailure(pair, now: now) {
                throw Problem.accountLocked(retryAfter: wait)
            }
            throw Problem.invalidCredentials
        }
        await signInLocks.recordSuccess(pair)
        // Only a caller who knows the password learns that the address is unverified.
        guard user.emailVerifiedAt != nil else { throw Problem.emailNotVerified }
        return user
    }

    func issueAppSession(
        for user: UserRecord, family: AppSession.ID = AppSession.ID(),
        on db: any Database
    ) async throws -> IssuedSession {
        let now = clock.now()
        let access = OpaqueToken.generate(prefix: "ppa_")
        let refresh = OpaqueToken.generate(prefix: "ppr_")
        let accessExpiry = now.addingTimeInterval(policy.accessTokenLifetime)
        let refreshExpiry = now.addingTimeInterval(policy.refreshIdleTimeout)
        let userID = try user.requireID()
        try await AuthTokenRecord(
            userID: userID, kind: .access, tokenHash: OpaqueToken.hash(access),
            family: family, expiresAt: accessExpiry, now: now
        ).create(on: db)
        try await AuthTokenRecord(
            userID: userID, kind: .refresh, tokenHash: OpaqueToken.hash(refresh),
            family: family, expiresAt: refreshExpiry, now: now
        ).create(on: db)
        return IssuedSession(
            accessToken: access, accessTokenExpiresAt: accessExpiry, refreshToken: refresh,
            refreshTokenExpiresAt: refreshExpiry, family: family, account: try user.account)
    }

    /// Rotates a refresh token. A second use of the same token revokes the whole family:
    /// one of the two users of that token is not its owner.
    func refresh(refreshToken: String, on db: any Database) async throws -> IssuedSession {
        let now = clock.now()
        guard
            let record = try await AuthTokenRecord.query(on: db)
                .filter(\.$tokenHash == OpaqueToken.hash(refreshToken))
                .filter(\.$kind == .refresh).first()
        else { throw Problem.tokenExpired }
        if record.usedAt != nil {
            try await revokeFamily(record.family, of: record.$user.id, on: db)
            logger.warning("refresh token reused; session revoked", metadata: ["user": "\(record.$user.id)"])
            throw Problem.tokenExpired
        }
        guard record.expiresAt > now, let user = try await UserRecord.find(record.$user.id, on: db) else {
            throw Problem.tokenExpired
        }
        return try await db.transaction { tx in
            // Two refreshes racing with one token: only the first rotates.
            guard try await AuthTokenRecord.markUsedOnce(AuthTokenRecord.schema, id: record.requireID(), now: now, on: tx) else {
                throw Problem.tokenExpired
            }
            try await AuthTokenRecord.query(on: tx)
                .filter(\.$family == record.family).filter(\.$kind == .access).delete()
            return try await self.issueAppSession(for: user, family: record.family, on: tx)
        }
    }

    /// The account behind a bearer token, or 401.
    func authenticate(accessToken: String, on db: any Database) async throws -> (UserRecord, AuthTokenRecord) {
        let now = clock.now()
        // Every API request passes here: one query, rows read without model decoding.
        guard
            let (token, user) = try await AuthTokenRecord.accessToken(
                hash: OpaqueToken.hash(accessToken), reads: reads, on: db)
        else {
            throw Problem.unauthenticated
        }
        guard token.expiresAt > now, user.emailVerifiedAt != nil else { throw Problem.tokenExpired }
        return (user, token)
    }

    /// Ends an app session (signing out, or a refresh token used twice) and closes its sockets.
    func revokeFamily(_ family: AppSession.ID, of user: User.ID, on db: any Database) async throws {
        try await AuthTokenRecord.query(on: db).filter(\.$family == family).delete()
        await realtime.sessionsEnded(of: user, on: db)
    }

    /// The member's sessions that are open: app token families not revoked, web sessions not
    /// idle. A socket of any other session is closed (`RealtimeEvents.sessionsEnded`).
    static func openSessions(of user: User.ID, policy: SessionPolicy, now: Date, on db: any Database) async throws -> Set<SocketSession> {
        let families = try await AuthTokenRecord.query(on: db).filter(\.$user.$id == user).filter(\.$expiresAt > now)
            .field(\.$family).all().map { SocketSession.app($0.family) }
        let webs = try await WebSessionRecord.query(on: db).filter(\.$user.$id == user)
            .filter(\.$lastSeenAt > now.addingTimeInterval(-policy.webIdleTimeout)).all()
            .map { SocketSession.web(try $0.requireID()) }
        return Set(families + webs)
    }

    // MARK: Web sessions

    func startWebSession(for user: UserRecord, on db: any Database) async throws -> String {
        let token = OpaqueToken.generate(prefix: "pws_")
        try await WebSessionRecord(userID: user.requireID(), tokenHash: OpaqueToken.hash(token), now: clock.now()).create(on: db)
        return token
    }

    /// The signed-in user of a browser, ending the session when it has been idle too long.
    func webSession(token: String, on db: any Database) async throws -> (UserRecord, WebSessionRecord)? {
        let now = clock.now()
        guard
            let session = try await WebSessionRecord.query(on: db)
                .filter(\.$tokenHash == OpaqueToken.hash(token)).first()
        else { return nil }
        if policy.isWebSessionIdle(lastSeen: session.lastSeenAt, now: now) {
            try await session.delete(on: db)
            await realtime.sessionsEnded(of: session.$user.id, on: db)
            return nil
        }
        guard let user = try await UserRecord.find(session.$user.id, on: db) else { return nil }
        if policy.shouldTouchWebSession(lastSeen: session.lastSeenAt, now: now) {
            session.lastSeenAt = now
            try await session.save(on: db)
        }
        return (user, session)
    }

    func endWebSession(token: String, on db: any Database) async throws {
        guard let session = try await WebSessionRecord.query(on: db).filter(\.$tokenHash == OpaqueToken.hash(token)).first() else {
            return
        }
        try await session.delete(on: db)
        await realtime.sessionsEnded(of: session.$user.id, on: db)
    }
}

extension Model {
    /// Sets `used_at` on a row that has none yet, in one conditional UPDATE; false when another
    /// request got there first (two requests racing with one link or one refresh token).
    static func markUsedOnce<Row>(_ table: String, id: Identifier<Row>, now: Date, on db: any Database) async throws -> Bool {
        guard let sql = db as? any SQLDatabase else { return false }
        let claimed = try await sql.update(table)
            .set("used_at", to: now)
            .where("id", .equal, id)
            .where("used_at", .is, SQLLiteral.null)
            .returning("id")
            .all()
        return !claimed.isEmpty
    }
}

/// Failed sign-ins per (client address, account), counted in this process: `LockoutPolicy`'s
/// lock holds for that pair only, so a guesser cannot lock an owner out of their own account.
actor SignInLocks {
    private let policy: LockoutPolicy
    private var states: [String: LoginThrottleState] = [:]

    init(policy: LockoutPolicy) { self.policy = policy }

    func lockedFor(_ pair: String, now: Date) -> Int? {
        states[pair].flatMap { policy.lockedFor($0, now: now) }
    }

    /// Counts a failure; the wait when that locked the pair.
    func recordFailure(_ pair: String, now: Date) -> Int? {
        let state = policy.recordingFailure(states[pair] ?? LoginThrottleState(), now: now)
        states[pair] = state
        if states.count > 10_000 {
            // Forget pairs whose window and lock are over, so a spray of guesses stays bounded.
            states = states.filter { _, state in
                (state.lockedUntil.map { $0 > now } ?? false)
                    || (state.windowStart.map { now.timeIntervalSince($0) < policy.window } ?? false)
            }
        }
        return policy.lockedFor(state, now: now)
    }

    func recordSuccess(_ pair: String) { states[pair] = nil }
}
