import Fluent

// Shipped migrations are never edited: a change to a table is a new migration type,
// appended to `AccountMigrations.all` (and the list in `configure` keeps its order).

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
    ]
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
