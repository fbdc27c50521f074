import Fluent
import Foundation
import PawpackCore
import SQLKit

// Append-only: a change to a shipped table is a new migration type added at the end.

enum PushMigrations {
    static let all: [any Migration] = [
        CreateDevices(), CreatePushOutbox(),
        AddIndexes(
            name: "PushIndexes",
            indexes: [
                IndexSpec(name: "devices_by_user", table: "devices", columns: ["user_id", "created_at"]),
                // The worker reads what is due, oldest first.
                IndexSpec(name: "push_outbox_due", table: "push_outbox", columns: ["due_at"]),
                IndexSpec(name: "push_outbox_by_device", table: "push_outbox", columns: ["device_id"]),
            ]),
        // A newer push of a notification replaces the one waiting (every chat message), and the
        // worker drops what is past its deadline each round.
        AddIndexes(
            name: "PushOutboxIndexes",
            indexes: [
                IndexSpec(name: "push_outbox_by_notification", table: "push_outbox", columns: ["notification_id"]),
                IndexSpec(name: "push_outbox_deadline", table: "push_outbox", columns: ["deadline"]),
            ]),
    ]
}

struct CreateDevices: CreatesTable {
    static let table = DeviceRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("platform", .string, .required)
            .field("token", .string, .required)
            .field("app_id", .string)
            .field("environment", .string)
            .field("web_p256dh", .string)
            .field("web_auth", .string)
            .field("created_at", .datetime, .required)
            .unique(on: "platform", "token")
            .create()
    }
}

struct CreatePushOutbox: CreatesTable {
    static let table = PushOutboxRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("device_id", .uuid, .required, .references(DeviceRecord.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("notification_id", .uuid, .required, .references(NotificationRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("title", .string, .required)
            .field("body", .string, .required)
            .field("path", .string, .required)
            .field("collapse_key", .string)
            .field("badge", .int, .required)
            .field("ack_seq", .int64)
            .field("due_at", .datetime, .required)
            .field("attempts", .int, .required)
            .field("deadline", .datetime, .required)
            .field("created_at", .datetime, .required)
            .create()
    }
}
