import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// Everything an account owns, as exported to its owner.
struct AccountExportDocument: Sendable {
    struct SessionSummary: Sendable {
        enum Kind: Sendable { case app, web }
        var kind: Kind
        var createdAt: Date
        var lastUsedAt: Date
    }

    var exportedAt: Date
    var account: Account
    var sessions: [SessionSummary]
}

/// The account lifecycle: sign-up, verification, profile changes, password reset, export and
/// deletion. Sign-in and sessions are `SessionService`'s. API handlers and web pages both call
/// this; neither holds a rule.
final class AccountService: Sendable {
    let config: Config
    let clock: any AppClock
    let mailer: any Mailer
    let hasher: PasswordHasher
    /// Pets belong to accounts: deletion and export reach into them.
    /// Deletes a member and all that is theirs, in every area (`PawpackServices.deleteMember`).
    private let deleteMember: @Sendable (User.ID, any Database) async throws -> Void
    /// Sockets live as long as their session: told when sessions end.
    let realtime: RealtimeEvents
    private let signer: LinkSigner
    /// Mail anyone can make Pawpack send (sign-up, resend, reset, change of email), per client
    /// address or member: over the limit the request is refused.
    private let mailRequests: RateLimiter
    /// Mail to one address, whoever asks: over the limit it is not sent, and the answer is the
    /// same, so the limit tells nothing about the address.
    private let mailsPerRecipient: RateLimiter
    private let logger: Logger

    var rules: AccountRules { config.accountRules }
    var sessions: SessionPolicy { config.sessions }

    init(
        config: Config, clock: any AppClock, mailer: any Mailer, hasher: PasswordHasher,
        realtime: RealtimeEvents, logger: Logger,
        deleteMember: @escaping @Sendable (User.ID, any Database) async throws -> Void
    ) {
        self.config = config
        self.realtime = realtime
        self.deleteMember = deleteMember
        self.clock = clock
        self.mailer = mailer
        self.hasher = hasher
        self.logger = logger
        self.signer = LinkSigner(secret: config.secret)
        self.mailRequests = RateLimiter(limit: config.mailRequestsPerClientPerHour, window: 60 * 60)
        self.mailsPerRecipient = RateLimiter(limit: config.mailsPerRecipientPerHour, window: 60 * 60)
    }

    // MARK: Sign-up and verification

    /// Creates an account and mails its verification link. An address that already has an
    /// account is answered exactly as a new one (an account that is not kept), and its owner
    /// is mailed instead: the answer never tells who is a member.
    func signUp(_ form: SignUpForm, client: String, on db: any Database) async throws -> UserRecord {
        let now = clock.now()
        let valid = try rules.validate(form, now: now)
        try await mailRequests.take(client, now: now, what: "requests that send mail")
        try await ensureAvailable(username: valid.username, on: db)
        let hash = try await hasher.hash(valid.password)
        let user = UserRecord(signUp: valid, passwordHash: hash, now: now)
        if let owner = try await UserRecord.query(on: db).filter(\.$email == valid.email).first() {
            await send(
                to: owner.email, subject: "Someone tried to sign up to Pawpack with your email",
                """
                Hello,

                Someone tried to create a Pawpack account with this address, which already has one.
                If it was you, log in, or choose a new password here:

                \(config.publicBaseURL)\(WebPath.forgotPassword)

                If it was not you, ignore this message: nothing changed.
                """)
            return user
        }
        user.verificationSentAt = now
        let token = EmailTokenRecord(
            userID: try user.requireID(), purpose: .verifyEmail,
            expiresAt: now.addingTimeInterval(sessions.emailVerificationLifetime), now: now)
        do {
            try await db.transaction { tx in
                try await user.create(on: tx)
                try await token.create(on: tx)
            }
        } catch {
            if let database = error as? any DatabaseError, database.isConstraintFailure {
                // Lost a race with another sign-up for the same username, or for the same email,
                // which is answered as any registered email is.
                try await ensureAvailable(username: valid.username, on: db)
                if try await UserRecord.query(on: db).filter(\.$email == valid.email).first() != nil { return user }
            }
            throw error
        }
        try await sendVerification(to: user, token: token)
        return user
    }

    private func ensureAvailable(username: String, on db: any Database) async throws {
        if try await UserRecord.query(on: db).filter(\.$username == username).first() != nil {
            throw usernameTaken
        }
    }

    private var usernameTaken: Problem {
        Problem(
            status: 409, code: .usernameTaken, title: "Username taken",
            detail: "Someone already uses this username. Try another.",
            errors: [.init(field: "username", message: "is already taken")])
    }

    private func sendVerification(to user: UserRecord, token: EmailTokenRecord) async throws {
        let link = try self.link(path: WebPath.verifyEmail, token: token)
        await send(
            to: user.email, subject: "Verify your email for Pawpack",
            """
            Hello,

            Welcome to Pawpack! Open this link to verify your email address:

            \(link)

            The link works once and expires in \(Int(sessions.emailVerificationLifetime / 3600)) hours.
            If you did not sign up, ignore this message.
            """)
    }

    private func link(path: String, token: EmailTokenRecord) throws -> String {
        let signed = signer.sign(
            .init(
                purpose: token.purpose.rawValue, id: try token.requireID().rawValue,
                expiresAt: token.expiresAt))
        return "\(config.publicBaseURL)\(path)?token=\(signed)"
    }

    /// Mail failures are logged, not thrown: the account change has been committed and the
    /// owner can ask for the message again.
    private func send(to address: String, subject: String, _ text: String) async {
        let message = MailMessage(to: address, subject: subject, text: text, sentAt: clock.now())
        guard await mailsPerRecipient.admit(message.to.lowercased(), now: clock.now()) == nil else {
            logger.notice("mail not sent: its recipient had enough this hour", metadata: ["subject": .string(message.subject)])
            return
        }
        do {
            try await mailer.send(message)
        } catch {
            logger.error("sending mail failed", metadata: ["to": .string(message.to), "error": "\(error)"])
        }
    }

    /// Consumes an emailed link token: verifies a new account or completes a change of email.
    func verifyEmail(token: String, on db: any Database) async throws -> UserRecord {
        let now = clock.now()
        let (record, user) = try await openLink(token, purposes: [.verifyEmail, .changeEmail], on: db)
        if record.purpose == .changeEmail, let newEmail = record.newEmail {
            if try await UserRecord.query(on: db).filter(\.$email == newEmail).filter(\.$id != user.requireID()).first() != nil {
                throw Problem(
                    status: 409, code: .emailTaken, title: "Email already registered",
                    detail: "Another account took this address meanwhile.",
                    errors: [.init(field: "email", message: "is already registered")])
            }
            user.email = newEmail
        }
        user.emailVerifiedAt = user.emailVerifiedAt ?? now
        user.updatedAt = now
        try await db.transaction { tx in
            try await self.useUp(record, on: tx)
            try await user.save(on: tx)
        }
        return user
    }

    /// Checks a link's signature, expiry, purpose and that it is unused; does not use it up,
    /// so a link survives a form that comes back with a problem (a weak new password).
    private func openLink(
        _ token: String, purposes: Set<EmailTokenRecord.Purpose>,
        on db: any Database
    ) async throws -> (EmailTokenRecord, UserRecord) {
        let now = clock.now()
        guard let payload = signer.open(token.trimmingCharacters(in: .whitespacesAndNewlines)),
            payload.expiresAt > now,
            let record = try await EmailTokenRecord.find(Identifier(payload.id), on: db),
            purposes.contains(record.purpose), record.purpose.rawValue == payload.purpose,
            record.usedAt == nil, record.expiresAt > now,
            let user = try await UserRecord.find(record.$user.id, on: db)
        else {
            throw Problem.invalidToken
        }
        return (record, user)
    }

    /// Marks a link used in one conditional UPDATE: of two requests racing with the same
    /// link, exactly one gets through.
    private func useUp(_ record: EmailTokenRecord, on db: any Database) async throws {
        guard try await EmailTokenRecord.markUsedOnce(EmailTokenRecord.schema, id: record.requireID(), now: clock.now(), on: db) else {
            throw Problem.invalidToken
        }
    }

    func resendVerification(email: String, client: String, on db: any Database) async throws {
        let now = clock.now()
        let address = rules.normalizedEmail(email)
        if let message = rules.emailProblem(address) { throw Problem.invalidField("email", message) }
        try await mailRequests.take(client, now: now, what: "requests that send mail")
        guard let user = try await UserRecord.query(on: db).filter(\.$email == address).first(),
            user.emailVerifiedAt == nil,
            sessions.mayResendVerification(lastSent: user.verificationSentAt, now: now)
        else { return }
        let token = EmailTokenRecord(
            userID: try user.requireID(), purpose: .verifyEmail,
            expiresAt: now.addingTimeInterval(sessions.emailVerificationLifetime), now: now)
        user.verificationSentAt = now
        try await db.transaction { tx in
            try await token.create(on: tx)
            try await user.save(on: tx)
        }
        try await sendVerification(to: user, token: token)
    }

    // MARK: Profile

    func updateProfile(_ user: UserRecord, change: ProfileChange, on db: any Database) async throws -> UserRecord {
        let valid = try rules.validate(change)
        if let username = valid.username, username != user.username {
            if try await UserRecord.query(on: db).filter(\.$username == username).filter(\.$id != user.requireID())
                .first() != nil
            {
                throw usernameTaken
            }
            user.username = username
        }
        if let name = valid.displayName { user.displayName = name }
        if let city = valid.city { user.city = city.isEmpty ? nil : city }
        if let zone = valid.timeZone { user.timeZone = zone.isEmpty ? nil : zone }
        user.updatedAt = clock.now()
        do {
            try await user.save(on: db)
        } catch {
            if let database = error as? any DatabaseError, database.isConstraintFailure { throw usernameTaken }
            throw error
        }
        return user
    }

    /// Changes the password and signs out every other session (keeping the caller's own).
    func changePassword(
        _ user: UserRecord, current: String, new: String,
        keepingFamily: AppSession.ID? = nil, keepingWebSession: WebSessionRecord.IDValue? = nil,
        on db: any Database
    ) async throws {
        guard try await hasher.verify(current, against: user.passwordHash) else {
            throw Problem(
                status: 403, code: .invalidCredentials, title: "Wrong password",
                detail: "The current password is not right.",
                errors: [.init(field: "currentPassword", message: "is not right")])
        }
        if let message = rules.passwordProblem(new, email: user.email, username: user.username) {
            throw Problem.invalidField("newPassword", message)
        }
        let hash = try await hasher.hash(new)
        let userID = try user.requireID()
        try await db.transaction { tx in
            user.passwordHash = hash
            user.updatedAt = self.clock.now()
            try await user.save(on: tx)
            var tokens = AuthTokenRecord.query(on: tx).filter(\.$user.$id == userID)
            if let keepingFamily { tokens = tokens.filter(\.$family != keepingFamily) }
            try await tokens.delete()
            var webs = WebSessionRecord.query(on: tx).filter(\.$user.$id == userID)
            if let keepingWebSession { webs = webs.filter(\.$id != keepingWebSession) }
            try await webs.delete()
        }
        await realtime.sessionsEnded(of: userID, on: db)
        await send(
            to: user.email, subject: "Your Pawpack password was changed",
            "Hello,\n\nYour password was just changed and your other sessions were signed out. If this was not you, reset your password now: \(config.publicBaseURL)\(WebPath.forgotPassword)\n"
        )
    }

    /// Starts a change of email: the new address must be verified before it replaces the old.
    func changeEmail(_ user: UserRecord, newEmail: String, password: String, on db: any Database) async throws {
        let now = clock.now()
        let address = rules.normalizedEmail(newEmail)
        if let message = rules.emailProblem(address) { throw Problem.invalidField("newEmail", message) }
        guard try await hasher.verify(password, against: user.passwordHash) else {
            throw Problem(
                status: 403, code: .invalidCredentials, title: "Wrong password",
                detail: "The password is not right.", errors: [.init(field: "password", message: "is not right")])
        }
        guard address != user.email else { throw Problem.invalidField("newEmail", "is already your email") }
        try await mailRequests.take("member " + user.requireID().description, now: now, what: "requests that send mail")
        if try await UserRecord.query(on: db).filter(\.$email == address).first() != nil {
            throw Problem(
                status: 409, code: .emailTaken, title: "Email already registered",
                detail: "Another account uses this address.",
                errors: [.init(field: "newEmail", message: "is already registered")])
        }
        let token = EmailTokenRecord(
            userID: try user.requireID(), purpose: .changeEmail, newEmail: address,
            expiresAt: now.addingTimeInterval(sessions.emailVerificationLifetime), now: now)
        try await token.create(on: db)
        await send(
            to: address, subject: "Verify your new email for Pawpack",
            "Hello,\n\nOpen this link to make this your Pawpack email address:\n\n\(try link(path: WebPath.verifyEmail, token: token))\n\nIf you did not ask for this, ignore this message.\n"
        )
        await send(
            to: user.email, subject: "Your Pawpack email is being changed",
            "Hello,\n\nSomeone signed in to your account asked to change its email to \(address). It changes once that address is verified. If this was not you, change your password now.\n"
        )
    }

    // MARK: Password reset

    /// Emails a reset link when the address has an account; silent otherwise, so the answer
    /// never tells who is a member.
    /// A new link leaves the earlier ones working (one may be in the owner's inbox already,
    /// and anyone can ask for another); using any one of them retires the rest.
    func requestPasswordReset(email: String, client: String, on db: any Database) async throws {
        let now = clock.now()
        let address = rules.normalizedEmail(email)
        if let message = rules.emailProblem(address) { throw Problem.invalidField("email", message) }
        try await mailRequests.take(client, now: now, what: "requests that send mail")
        guard let user = try await UserRecord.query(on: db).filter(\.$email == address).first() else { return }
        let token = EmailTokenRecord(
            userID: try user.requireID(), purpose: .resetPassword,
            expiresAt: now.addingTimeInterval(sessions.passwordResetLifetime), now: now)
        try await token.create(on: db)
        await send(
            to: user.email, subject: "Reset your Pawpack password",
            "Hello,\n\nOpen this link to choose a new password:\n\n\(try link(path: WebPath.resetPassword, token: token))\n\nThe link works once and expires in \(Int(sessions.passwordResetLifetime / 60)) minutes. If you did not ask for it, ignore this message.\n"
        )
    }

    /// Sets a new password from a reset link and signs out everywhere.
    func confirmPasswordReset(token: String, newPassword: String, on db: any Database) async throws {
        let now = clock.now()
        let (record, user) = try await openLink(token, purposes: [.resetPassword], on: db)
        if let message = rules.passwordProblem(newPassword, email: user.email, username: user.username) {
            throw Problem.invalidField("newPassword", message)
        }
        let hash = try await hasher.hash(newPassword)
        let userID = try user.requireID()
        try await db.transaction { tx in
            user.passwordHash = hash
            // The link reached the inbox, which proves the address too.
            user.emailVerifiedAt = user.emailVerifiedAt ?? now
            user.updatedAt = now
            try await self.useUp(record, on: tx)
            // The other reset links sent meanwhile are retired with this one.
            try await EmailTokenRecord.query(on: tx).filter(\.$user.$id == userID)
                .filter(\.$purpose == .resetPassword).filter(\.$usedAt == nil)
                .set(\.$usedAt, to: now).update()
            try await user.save(on: tx)
            try await AuthTokenRecord.query(on: tx).filter(\.$user.$id == userID).delete()
            try await WebSessionRecord.query(on: tx).filter(\.$user.$id == userID).delete()
        }
        await realtime.sessionsEnded(of: userID, on: db)
    }

    // MARK: Export and deletion

    func export(_ user: UserRecord, on db: any Database) async throws -> AccountExportDocument {
        let userID = try user.requireID()
        let refresh = try await AuthTokenRecord.query(on: db).filter(\.$user.$id == userID)
            .filter(\.$kind == .refresh).filter(\.$usedAt == nil).all()
        let web = try await WebSessionRecord.query(on: db).filter(\.$user.$id == userID).all()
        let sessions =
            refresh.map { AccountExportDocument.SessionSummary(kind: .app, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt) }
            + web.map { AccountExportDocument.SessionSummary(kind: .web, createdAt: $0.createdAt, lastUsedAt: $0.lastSeenAt) }
        return AccountExportDocument(
            exportedAt: clock.now(), account: try user.account,
            sessions: sessions.sorted { $0.createdAt < $1.createdAt })
    }

    /// Deletes the account and everything that is the member's, once the password is right.
    func deleteAccount(_ user: UserRecord, password: String, on db: any Database) async throws {
        guard try await hasher.verify(password, against: user.passwordHash) else {
            throw Problem(
                status: 403, code: .invalidCredentials, title: "Wrong password",
                detail: "The password is not right; nothing was deleted.",
                errors: [.init(field: "password", message: "is not right")])
        }
        let id = try user.requireID()
        try await deleteMember(id, db)
        logger.info("account deleted", metadata: ["user": "\(id)"])
    }
}
