import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A phone, tablet or browser a member receives pushes on. A token belongs to one device, so
/// it is unique: the same token registered again (a phone handed to someone else, an app
/// reinstalled) moves to whoever registered it last.
final class DeviceRecord: Model, @unchecked Sendable {
    static let schema = "devices"

    @ID(custom: .id) var id: Devices.Device.ID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "platform") var platform: String
    /// The APNs device token, the FCM registration token, or the Web Push endpoint.
    @Field(key: "token") var token: String
    /// The bundle id (APNs) or sender id (FCM).
    @OptionalField(key: "app_id") var appID: String?
    /// APNs only: production or sandbox.
    @OptionalField(key: "environment") var environment: String?
    /// Web Push only: the browser's P-256 key and auth secret (base64url).
    @OptionalField(key: "web_p256dh") var webP256DH: String?
    @OptionalField(key: "web_auth") var webAuth: String?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// One push to send to one device: written in the transaction of its notification, deleted
/// once the service took it, dropped after its deadline, or tried again at `due_at`.
final class PushOutboxRecord: Model, @unchecked Sendable {
    static let schema = "push_outbox"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "device_id") var device: DeviceRecord
    @Field(key: "user_id") var userID: User.ID
    @Field(key: "notification_id") var notificationID: Notifications.Notification.ID
    @Field(key: "kind") var kind: String
    @Field(key: "title") var title: String
    @Field(key: "body") var body: String
    /// The page of the web app to open, which apps map to their own screen.
    @Field(key: "path") var path: String
    /// Pushes with the same key replace each other on the device (one chat's messages).
    @OptionalField(key: "collapse_key") var collapseKey: String?
    /// The unread count, for the app's badge.
    @Field(key: "badge") var badge: Int
    /// A message waits this long for a socket to acknowledge the realtime event of this number;
    /// if one did, its owner saw it in the app and nothing is pushed.
    @OptionalField(key: "ack_seq") var ackSeq: Int64?
    /// The pet a Care notification is about: its push offers "Mark as fed".
    @OptionalField(key: "pet_id") var petID: Pet.ID?
    @Field(key: "due_at") var dueAt: Date
    @Field(key: "attempts") var attempts: Int
    @Field(key: "deadline") var deadline: Date
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

// MARK: - Migrations

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
        AddPushPet(),
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

/// A push names the pet of its notification, so a feeding reminder's push can answer it
/// ("Mark as fed") without opening the app.
struct AddPushPet: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PushOutboxRecord.schema).field("pet_id", .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(PushOutboxRecord.schema).deleteField("pet_id").update()
    }
}
