import Fluent
import Foundation
import PawpackCore

/// One entry of a member's inbox. Its words are written when it is made, as the push that goes
/// with it says them; the ids let an app open the right screen.
final class NotificationRecord: Model, @unchecked Sendable {
    static let schema = "notifications"

    @ID(custom: .id) var id: Notifications.Notification.ID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "kind") var kind: String
    @Field(key: "title") var title: String
    @Field(key: "body") var body: String
    @OptionalField(key: "chat_id") var chatID: Chats.Chat.ID?
    @OptionalField(key: "meetup_id") var meetupID: Meetups.Meetup.ID?
    /// The other member's dog it is about, for its photo.
    @OptionalField(key: "pet_id") var petID: Pet.ID?
    /// How many events it stands for: messages of one chat collapse into one while unread.
    @Field(key: "count") var count: Int
    /// Its last update in microseconds (`ActivityCursor`): the inbox is newest first.
    @Field(key: "activity") var activity: Int64
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "read_at") var readAt: Date?
    /// Added by `AddNotificationSender`: the member whose action caused it (nil: the server's
    /// own, or made before); the flood limits count by it.
    @OptionalField(key: "from_user_id") var fromUserID: User.ID?

    init() {}
}

/// A kind of notification a member does not want.
final class NotificationMuteRecord: Model, @unchecked Sendable {
    static let schema = "notification_mutes"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "kind") var kind: String

    init() {}
}

// MARK: - Migrations

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
        // What others' inboxes said of a member goes with the member's account.
        DeletedWithParent(name: "notifications_from_their_sender", table: "notifications", column: "from_user_id", parent: "users"),
    ]
}

/// Who caused each notification, so that the flood limits can count per member. Made to go
/// with its sender later (`DeletedWithParent`: SQLite cannot add a foreign key to a table).
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
