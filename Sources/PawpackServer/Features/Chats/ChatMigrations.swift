import Fluent
import PawpackCore

// Append-only: a change to a shipped table is a new migration type added at the end.

enum ChatMigrations {
    static let all: [any Migration] = [
        CreateChats(), CreateChatMessages(),
        AddIndexes(
            name: "ChatLookupIndexes",
            indexes: [
                // A member's chats, newest activity first, on either side.
                IndexSpec(name: "chats_by_user_a", table: "chats", columns: ["user_a_id", "activity"]),
                IndexSpec(name: "chats_by_user_b", table: "chats", columns: ["user_b_id", "activity"]),
                IndexSpec(name: "chats_by_pet_b", table: "chats", columns: ["pet_b_id"]),
            ]),
        // A chat's notifications go with it.
        DeletedWithParent(name: "notifications_with_their_chat", table: "notifications", column: "chat_id", parent: "chats"),
    ]
}

struct CreateChats: CreatesTable {
    static let table = ChatRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("match_id", .uuid, .required)
            .field("pet_a_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("pet_b_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("user_a_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("user_b_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .field("closed_at", .datetime)
            .field("activity", .int64, .required)
            .field("last_position", .int, .required)
            .field("last_message_id", .uuid)
            .field("a_read_position", .int, .required)
            .field("b_read_position", .int, .required)
            .field("a_read_at", .datetime)
            .field("b_read_at", .datetime)
            .field("a_unread", .int, .required)
            .field("b_unread", .int, .required)
            .unique(on: "pet_a_id", "pet_b_id")
            .create()
    }
}

struct CreateChatMessages: CreatesTable {
    static let table = ChatMessageRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("chat_id", .uuid, .required, .references(ChatRecord.schema, "id", onDelete: .cascade))
            .field("position", .int, .required)
            .field("sender_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("client_message_id", .uuid, .required)
            .field("text", .string)
            .field("photo_key", .string)
            .field("photo_content_type", .string)
            .field("created_at", .datetime, .required)
            .unique(on: "chat_id", "position")
            .unique(on: "sender_id", "client_message_id")
            .create()
    }
}
