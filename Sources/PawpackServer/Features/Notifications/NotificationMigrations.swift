import Fluent
import Foundation
import PawpackCore

// Append-only: a change to a shipped table is a new migration type added at the end.

enum NotificationMigrations {
    static let all: [any Migration] = [
        CreateNotifications(), CreateNotificationMutes(),
        AddIndexes(
            name: "NotificationIndexes",
            indexes: [
                // The inbox, newest first, and the unread count.
                IndexSpec(name: "notifications_by_user", table: "notifications", columns: ["user_id", "activity"]),
                IndexSpec(name: "notifications_unread", table: "notifications", columns: ["user_id", "read_at"]),
            ]),
        AddNotificationSender(),
        AddIndexes(
            name: "NotificationFloodIndexes",
            indexes: [
                // The last minutes of a member's notifications, which the flood limits count.
                IndexSpec(name: "notifications_by_creation", table: "notifications", columns: ["user_id", "created_at"])
            ]),
    ]
}

/// Who caused each notification, so that the flood limits can count per member. No foreign
/// key: a notification outlives nothing of the sender's, and SQLite cannot add one to a table.
struct AddNotificationSender: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(NotificationRecord.schema).field("from_user_id", .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(NotificationRecord.schema).deleteField("from_user_id").update()
    }
}

struct CreateNotifications: CreatesTable {
    static let table = NotificationRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("body", .string, .required)
            .field("chat_id", .uuid)
            .field("meetup_id", .uuid)
            .field("pet_id", .uuid)
            .field("count", .int, .required)
            .field("activity", .int64, .required)
            .field("created_at", .datetime, .required)
            .field("read_at", .datetime)
            .create()
    }
}

struct CreateNotificationMutes: CreatesTable {
    static let table = NotificationMuteRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .unique(on: "user_id", "kind")
            .create()
    }
}
