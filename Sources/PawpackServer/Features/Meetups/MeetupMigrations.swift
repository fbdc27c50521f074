import Fluent
import Foundation
import PawpackCore
import SQLKit

// Append-only: a change to a shipped table is a new migration type added at the end.

enum MeetupMigrations {
    static let all: [any Migration] = [
        CreateMeetups(), CreateOnePendingMeetupPerChat(),
        AddIndexes(
            name: "MeetupIndexes",
            indexes: [
                IndexSpec(name: "meetups_by_chat", table: "meetups", columns: ["chat_id", "starts_at"]),
                IndexSpec(name: "meetups_by_proposer", table: "meetups", columns: ["proposer_id", "starts_at"]),
                IndexSpec(name: "meetups_by_invitee", table: "meetups", columns: ["invitee_id", "starts_at"]),
                // The scheduler's expiries and reminders.
                IndexSpec(name: "meetups_due", table: "meetups", columns: ["status", "starts_at"]),
            ]),
        // A meet-up's notifications go with it.
        DeletedWithParent(name: "notifications_with_their_meetup", table: "notifications", column: "meetup_id", parent: "meetups"),
    ]
}

struct CreateMeetups: CreatesTable {
    static let table = MeetupRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("chat_id", .uuid, .required, .references(ChatRecord.schema, "id", onDelete: .cascade))
            .field("proposer_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("proposer_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("invitee_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("invitee_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("starts_at", .datetime, .required)
            .field("place_name", .string, .required)
            .field("latitude", .double, .required)
            .field("longitude", .double, .required)
            .field("note", .string)
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("changed_by", .uuid)
            .field("reminded_at", .datetime)
            .create()
    }
}

/// At most one pending proposal per chat, even when both owners propose at the same moment:
/// a partial unique index, which SQLite and PostgreSQL write alike.
struct CreateOnePendingMeetupPerChat: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw(
            """
            CREATE UNIQUE INDEX IF NOT EXISTS "meetups_one_pending_per_chat" ON "meetups" ("chat_id") WHERE "status" = 'pending'
            """
        ).run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw(#"DROP INDEX IF EXISTS "meetups_one_pending_per_chat""#).run()
    }
}
