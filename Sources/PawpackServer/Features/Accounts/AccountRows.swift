import Fluent
import Foundation
import PawpackCore
import SQLKit

// Account records read from plain SQL rows, column by column: every API request reads its
// access token and its member, and Fluent's model decoding reflects over every property of
// every row (see `PetRows.swift`). Each initialiser reads every column its model declares and
// marks the record as loaded, so saving it later updates the row.

extension UserRecord: SQLRowReadable {
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = User.ID(try row.decode(column: "id", as: UUID.self))
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
        locationOffsetNorth = try row.decode(column: "location_offset_north", as: Double?.self)
        locationOffsetEast = try row.decode(column: "location_offset_east", as: Double?.self)
        timeZone = try row.decode(column: "time_zone", as: String?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        updatedAt = try row.decode(column: "updated_at", as: Date.self)
        $id.exists = true
    }

}

extension AuthTokenRecord {
    /// The token's columns, each under `prefix` + its name (to read it beside its user's row).
    convenience init<Row: SQLRow>(reading row: Row, prefix: String) throws {
        self.init()
        id = Identifier(try row.decode(column: prefix + "id", as: UUID.self))
        $user.id = User.ID(try row.decode(column: prefix + "user_id", as: UUID.self))
        kind = try row.decode(column: prefix + "kind", asRawValueOf: Kind.self)
        tokenHash = try row.decode(column: prefix + "token_hash", as: String.self)
        family = AppSession.ID(try row.decode(column: prefix + "family", as: UUID.self))
        expiresAt = try row.decode(column: prefix + "expires_at", as: Date.self)
        usedAt = try row.decode(column: prefix + "used_at", as: Date?.self)
        createdAt = try row.decode(column: prefix + "created_at", as: Date.self)
        lastUsedAt = try row.decode(column: prefix + "last_used_at", as: Date.self)
        $id.exists = true
    }

    /// The access token with this hash and its member, in one query; nil when there is none.
    /// Every API request runs it.
    ///
    /// The kind is part of the text and the hash is compared through a CAST (which changes
    /// nothing for text): a value bound bare in a join makes SQLite prepare the statement anew
    /// each time a new value is bound, as it tries the value against the join's terms
    /// (`HotReadsTests` counts repreparations).
    static func accessToken(hash: String, reads: HotReads, on db: any Database) async throws -> (AuthTokenRecord, UserRecord)? {
        try await reads.rows(
            """
            SELECT "users".*,
                "auth_tokens"."id" AS "token_id", "auth_tokens"."user_id" AS "token_user_id",
                "auth_tokens"."kind" AS "token_kind", "auth_tokens"."token_hash" AS "token_token_hash",
                "auth_tokens"."family" AS "token_family", "auth_tokens"."expires_at" AS "token_expires_at",
                "auth_tokens"."used_at" AS "token_used_at", "auth_tokens"."created_at" AS "token_created_at",
                "auth_tokens"."last_used_at" AS "token_last_used_at"
            FROM "auth_tokens" JOIN "users" ON "users"."id" = "auth_tokens"."user_id"
            WHERE "auth_tokens"."kind" = 'access' AND "auth_tokens"."token_hash" = CAST(\(bind: hash) AS TEXT)
            """, on: db
        )
        .first
        .map { row in
            let read = try AccessTokenRow(row: row)
            return (read.token, read.user)
        }
    }

    /// A row of `accessToken(hash:reads:on:)`: the member's columns, and the token's under `token_`.
    private struct AccessTokenRow: SQLRowReadable {
        let token: AuthTokenRecord
        let user: UserRecord

        init<Row: SQLRow>(reading row: Row) throws {
            token = try AuthTokenRecord(reading: row, prefix: "token_")
            user = try UserRecord(reading: row)
        }
    }
}
