import Fluent
import Foundation
import PawpackCore

// Fluent models are reference types whose property wrappers Fluent mutates; they are
// `@unchecked Sendable` because each instance is confined to the task that loaded it.

final class UserRecord: Model, @unchecked Sendable {
    static let schema = "users"

    @ID(custom: .id) var id: User.ID?
    @Field(key: "email") var email: String
    @Field(key: "username") var username: String
    @Field(key: "display_name") var displayName: String
    @Field(key: "date_of_birth") var dateOfBirth: String
    @OptionalField(key: "city") var city: String?
    @Field(key: "password_hash") var passwordHash: String
    @OptionalField(key: "email_verified_at") var emailVerifiedAt: Date?
    @OptionalField(key: "verification_sent_at") var verificationSentAt: Date?
    /// The account-wide lockout's state, no longer used (a lock now holds per client address
    /// and account, in `SignInLocks`); the columns stay, as shipped tables only grow.
    @Field(key: "failed_logins") var failedLogins: Int
    @OptionalField(key: "failure_window_start") var failureWindowStart: Date?
    @OptionalField(key: "locked_until") var lockedUntil: Date?
    /// Added by `AddUserLocation`: the centre of the member's cell (`LocationBlur`), never the
    /// position they gave; shown to the member only.
    @OptionalField(key: "latitude") var latitude: Double?
    @OptionalField(key: "longitude") var longitude: Double?
    /// Added by `BlurMemberLocations`: the member's own grid, drawn when they first give a position.
    @OptionalField(key: "location_offset_north") var locationOffsetNorth: Double?
    @OptionalField(key: "location_offset_east") var locationOffsetEast: Double?
    /// Added by `AddUserTimeZone`: the member's own time zone (an IANA name), the days of their
    /// pets that no family or setting of the pet's places elsewhere.
    @OptionalField(key: "time_zone") var timeZone: String?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date

    init() {}

    init(id: User.ID = User.ID(), signUp: ValidSignUp, passwordHash: String, now: Date) {
        self.id = id
        email = signUp.email
        username = signUp.username
        displayName = signUp.displayName
        dateOfBirth = signUp.dateOfBirth.description
        city = signUp.city
        timeZone = signUp.timeZone
        self.passwordHash = passwordHash
        failedLogins = 0
        createdAt = now
        updatedAt = now
    }

    /// Where the member is matched from: the centre of their cell. Set through `place(at:newOffset:)`.
    var location: GeoPoint? {
        latitude.flatMap { lat in longitude.map { GeoPoint(latitude: lat, longitude: $0) } }
    }

    /// Keeps the centre of the cell of `point` on the member's own grid (nil: no position),
    /// drawing the grid's offset with `newOffset` the first time. True when that changed where
    /// the member is matched from.
    @discardableResult
    func place(at point: GeoPoint?, newOffset: () -> LocationBlur.Offset) -> Bool {
        let before = location
        guard let point else {
            (latitude, longitude) = (nil, nil)
            return before != nil
        }
        let offset =
            locationOffsetNorth.flatMap { north in locationOffsetEast.map { LocationBlur.Offset(north: north, east: $0) } }
            ?? newOffset()
        (locationOffsetNorth, locationOffsetEast) = (offset.north, offset.east)
        let blurred = LocationBlur.matchingPoint(of: point, offset: offset)
        (latitude, longitude) = (blurred.latitude, blurred.longitude)
        return before != blurred
    }

    var account: Account {
        get throws {
            try Account(
                id: requireID(), email: email, username: username, displayName: displayName,
                dateOfBirth: LocalDate(dateOfBirth) ?? LocalDate(year: 1970, month: 1, day: 1)!,
                city: city, location: location, timeZone: timeZone, emailVerified: emailVerifiedAt != nil, createdAt: createdAt)
        }
    }
}

/// An app signed in: the access and refresh tokens issued at log-in, and every pair rotated
/// from them. Signing out ends it.
enum AppSession {
    typealias ID = Identifier<AppSession>
}

/// An app token. Access and refresh tokens issued together share a `family`, their
/// `AppSession`: refreshing replaces the family's access token, and signing out deletes it.
final class AuthTokenRecord: Model, @unchecked Sendable {
    static let schema = "auth_tokens"

    enum Kind: String, Codable { case access, refresh }

    @ID(custom: .id) var id: Identifier<AuthTokenRecord>?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "kind") var kind: Kind
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "family") var family: AppSession.ID
    @Field(key: "expires_at") var expiresAt: Date
    /// Set when a refresh token has been rotated; presenting it again means it was stolen.
    @OptionalField(key: "used_at") var usedAt: Date?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "last_used_at") var lastUsedAt: Date

    init() {}

    init(userID: User.ID, kind: Kind, tokenHash: String, family: AppSession.ID, expiresAt: Date, now: Date) {
        self.$user.id = userID
        self.kind = kind
        self.tokenHash = tokenHash
        self.family = family
        self.expiresAt = expiresAt
        self.createdAt = now
        self.lastUsedAt = now
    }
}

/// A signed-in browser. The cookie holds the token; only its hash is stored.
final class WebSessionRecord: Model, @unchecked Sendable {
    static let schema = "web_sessions"

    @ID(custom: .id) var id: Identifier<WebSessionRecord>?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "last_seen_at") var lastSeenAt: Date

    init() {}

    init(userID: User.ID, tokenHash: String, now: Date) {
        self.$user.id = userID
        self.tokenHash = tokenHash
        self.createdAt = now
        self.lastSeenAt = now
    }
}

/// The single-use half of an emailed link; the signed token names this row.
final class EmailTokenRecord: Model, @unchecked Sendable {
    static let schema = "email_tokens"

    enum Purpose: String, Codable, CaseIterable {
        case verifyEmail = "verify_email"
        case changeEmail = "change_email"
        case resetPassword = "reset_password"
    }

    @ID(custom: .id) var id: Identifier<EmailTokenRecord>?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "purpose") var purpose: Purpose
    @OptionalField(key: "new_email") var newEmail: String?
    @Field(key: "expires_at") var expiresAt: Date
    @OptionalField(key: "used_at") var usedAt: Date?
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(userID: User.ID, purpose: Purpose, newEmail: String? = nil, expiresAt: Date, now: Date) {
        // Set now, not on create: the emailed link names the row.
        self.id = Identifier()
        self.$user.id = userID
        self.purpose = purpose
        self.newEmail = newEmail
        self.expiresAt = expiresAt
        self.createdAt = now
    }
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum AccountMigrations {
    static let all: [any Migration] = [
        CreateUsers(), CreateAuthTokens(), CreateWebSessions(), CreateEmailTokens(),
        AddIndexes(
            name: "AccountLookupIndexes",
            indexes: [
                IndexSpec(name: "auth_tokens_by_user", table: "auth_tokens", columns: ["user_id"]),
                IndexSpec(name: "web_sessions_by_user", table: "web_sessions", columns: ["user_id"]),
                IndexSpec(name: "email_tokens_by_user", table: "email_tokens", columns: ["user_id"]),
            ]),
        // Listed with Playdates until blocks became every area's; where a database already has
        // it, it does not run again.
        CreateBlocks(),
        AddUserTimeZone(),
    ]
}

/// A member's own time zone, for the days of pets that no family places (issue 35: "from the
/// family, else the owner").
struct AddUserTimeZone: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserRecord.schema).field("time_zone", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserRecord.schema).deleteField("time_zone").update()
    }
}

struct CreateUsers: CreatesTable {
    static let table = UserRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("email", .string, .required)
            .field("username", .string, .required)
            .field("display_name", .string, .required)
            .field("date_of_birth", .string, .required)
            .field("city", .string)
            .field("password_hash", .string, .required)
            .field("email_verified_at", .datetime)
            .field("verification_sent_at", .datetime)
            .field("failed_logins", .int, .required)
            .field("failure_window_start", .datetime)
            .field("locked_until", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "email")
            .unique(on: "username")
            .create()
    }
}

struct CreateAuthTokens: CreatesTable {
    static let table = AuthTokenRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("token_hash", .string, .required)
            .field("family", .uuid, .required)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("last_used_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
    }
}

struct CreateWebSessions: CreatesTable {
    static let table = WebSessionRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("created_at", .datetime, .required)
            .field("last_seen_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
    }
}

struct CreateEmailTokens: CreatesTable {
    static let table = EmailTokenRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("purpose", .string, .required)
            .field("new_email", .string)
            .field("expires_at", .datetime, .required)
            .field("used_at", .datetime)
            .field("created_at", .datetime, .required)
            .create()
    }
}

struct CreateBlocks: CreatesTable {
    static let table = BlockRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("blocker_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("blocked_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "blocker_id", "blocked_id")
            .create()
    }
}
