import Fluent
import Foundation
import SQLKit

// Account records read from plain SQL rows, column by column: every API request reads its
// access token and its member, and Fluent's model decoding reflects over every property of
// every row (see `PetRows.swift`). Each initialiser reads every column its model declares and
// marks the record as loaded, so saving it later updates the row.

extension UserRecord: SQLRowReadable {
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = try row.decode(column: "id", as: UUID.self)
        email = try row.decode(column: "email", as: String.self)
        username = try row.decode(column: "username", as: String.self)
        displayName = try row.decode(column: "display_name", as: String.self)
        dateOfBirth = try row.decode(column: "date_of_birth", as: String.self)
        city = try row.decode(column: "city", as: String?.self)
        passwordHash = try row.decode(column: "password_hash", as: String.self)
        emailVerifiedAt = try row.decode(column: "email_verified_at", as: Date?.self)
        verificationSentAt = try row.decode(column: "verification_sent_at", as: Date?.self)
        failedLogins = try row.decode(column: "failed_logins", as: Int.self)
        failureWindowStart = try row.decode(column: "failure_window_start", as: Date?.self)
        lockedUntil = try row.decode(column: "locked_until", as: Date?.self)
        latitude = try row.decode(column: "latitude", as: Double?.self)
        longitude = try row.decode(column: "longitude", as: Double?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        updatedAt = try row.decode(column: "updated_at", as: Date.self)
        $id.exists = true
    }

}

extension AuthTokenRecord {
    static let columns = ["id", "user_id", "kind", "token_hash", "family", "expires_at", "used_at", "created_at", "last_used_at"]

    /// The token's columns, each under `prefix` + its name (to read it beside its user's row).
    convenience init<Row: SQLRow>(reading row: Row, prefix: String) throws {
        self.init()
        id = try row.decode(column: prefix + "id", as: UUID.self)
        $user.id = try row.decode(column: prefix + "user_id", as: UUID.self)
        kind = try row.decode(column: prefix + "kind", asRawValueOf: Kind.self)
        tokenHash = try row.decode(column: prefix + "token_hash", as: String.self)
        family = try row.decode(column: prefix + "family", as: UUID.self)
        expiresAt = try row.decode(column: prefix + "expires_at", as: Date.self)
        usedAt = try row.decode(column: prefix + "used_at", as: Date?.self)
        createdAt = try row.decode(column: prefix + "created_at", as: Date.self)
        lastUsedAt = try row.decode(column: prefix + "last_used_at", as: Date.self)
        $id.exists = true
    }

    /// The query of `accessToken(hash:reads:on:)` up to its bound value, written once: every
    /// API request runs it, and SQLKit's builder spent more on its text than SQLite on running
    /// it. Bound values compared bare in a join make SQLite prepare the statement anew each time
    /// a new value is bound (it tries them against the join's terms), so the kind, a constant,
    /// is part of the text, and the hash is compared through a CAST, which changes nothing for
    /// text (`HotReadsTests` counts repreparations).
    private static let accessTokenSelect: String = {
        let users = UserRecord.schema
        return "SELECT \"\(users)\".*, " + columns.map { "\"\(schema)\".\"\($0)\" AS \"token_\($0)\"" }.joined(separator: ", ")
            + " FROM \"\(schema)\" JOIN \"\(users)\" ON \"\(users)\".\"id\" = \"\(schema)\".\"user_id\""
            + " WHERE \"\(schema)\".\"kind\" = '\(Kind.access.rawValue)' AND \"\(schema)\".\"token_hash\" = "
    }()

    /// The access token with this hash and its member, in one query; nil when there is none.
    static func accessToken(hash: String, reads: HotReads, on db: any Database) async throws -> (AuthTokenRecord, UserRecord)? {
        try await reads.rows("""
            \(unsafeRaw: accessTokenSelect)CAST(\(bind: hash) AS TEXT)
            """, on: db)
            .first
            .map { row in
                let read = try AccessTokenRow(row: row)
                return (read.token, read.user)
            }
    }

    /// A row of `accessTokenSelect`: the member's columns, and the token's under `token_`.
    private struct AccessTokenRow: SQLRowReadable {
        let token: AuthTokenRecord
        let user: UserRecord

        init<Row: SQLRow>(reading row: Row) throws {
            token = try AuthTokenRecord(reading: row, prefix: "token_")
            user = try UserRecord(reading: row)
        }
    }
}
