import Fluent
import Foundation
import PawpackCore
import SQLKit

// Fluent models are `@unchecked Sendable`: each instance stays in the task that loaded it.

/// The one chat a match opens between the two owners. Its sides follow the match's: `a` is
/// the owner of the dog whose id sorts first (the match decides). An unmatch or a block
/// closes it; the history stays for both.
final class ChatRecord: Model, @unchecked Sendable {
    static let schema = "chats"

    /// One participant's place in the chat.
    enum Side: Sendable { case a, b }

    @ID(custom: .id) var id: Chats.Chat.ID?
    /// The match that opened it, or opened it again; the match row goes on an unmatch.
    @Field(key: "match_id") var matchID: Playdates.Match.ID
    @Parent(key: "pet_a_id") var petA: PetRecord
    @Parent(key: "pet_b_id") var petB: PetRecord
    @Parent(key: "user_a_id") var userA: UserRecord
    @Parent(key: "user_b_id") var userB: UserRecord
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "closed_at") var closedAt: Date?
    /// The newest message's time, or the opening's, in microseconds (`ChatListCursor`).
    @Field(key: "activity") var activity: Int64
    /// How many messages the chat holds; each message's `position` is the count when it came.
    @Field(key: "last_position") var lastPosition: Int
    @OptionalField(key: "last_message_id") var lastMessageID: Chats.Message.ID?
    /// The position each side has read up to, and when it said so.
    @Field(key: "a_read_position") var aReadPosition: Int
    @Field(key: "b_read_position") var bReadPosition: Int
    @OptionalField(key: "a_read_at") var aReadAt: Date?
    @OptionalField(key: "b_read_at") var bReadAt: Date?
    /// The other side's messages each side has not read yet.
    @Field(key: "a_unread") var aUnread: Int
    @Field(key: "b_unread") var bUnread: Int

    init() {}

    /// A chat read with `SELECT *`, column by column: Fluent's decoding reflects over every
    /// property, which cost more than the read on every message sent.
    convenience init(row: any SQLRow) throws {
        self.init()
        id = try row.decode(column: "id", as: Chats.Chat.ID.self)
        matchID = try row.decode(column: "match_id", as: Playdates.Match.ID.self)
        $petA.id = try row.decode(column: "pet_a_id", as: Pet.ID.self)
        $petB.id = try row.decode(column: "pet_b_id", as: Pet.ID.self)
        $userA.id = try row.decode(column: "user_a_id", as: User.ID.self)
        $userB.id = try row.decode(column: "user_b_id", as: User.ID.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        closedAt = try row.decode(column: "closed_at", as: Date?.self)
        activity = try row.decode(column: "activity", as: Int64.self)
        lastPosition = try row.decode(column: "last_position", as: Int.self)
        lastMessageID = try row.decode(column: "last_message_id", as: Chats.Message.ID?.self)
        aReadPosition = try row.decode(column: "a_read_position", as: Int.self)
        bReadPosition = try row.decode(column: "b_read_position", as: Int.self)
        aReadAt = try row.decode(column: "a_read_at", as: Date?.self)
        bReadAt = try row.decode(column: "b_read_at", as: Date?.self)
        aUnread = try row.decode(column: "a_unread", as: Int.self)
        bUnread = try row.decode(column: "b_unread", as: Int.self)
        $id.exists = true
    }

    func side(of user: User.ID) -> Side? {
        if $userA.id == user { return .a }
        if $userB.id == user { return .b }
        return nil
    }

    func user(_ side: Side) -> User.ID { side == .a ? $userA.id : $userB.id }
    func pet(_ side: Side) -> Pet.ID { side == .a ? $petA.id : $petB.id }
    func readPosition(_ side: Side) -> Int { side == .a ? aReadPosition : bReadPosition }
    func readAt(_ side: Side) -> Date? { side == .a ? aReadAt : bReadAt }
    func unread(_ side: Side) -> Int { side == .a ? aUnread : bUnread }
}

extension ChatRecord.Side {
    var other: Self { self == .a ? .b : .a }
    /// The column prefix of this side's read marker and unread count.
    var column: String { self == .a ? "a" : "b" }
}

/// One message: text or a photo, numbered in its chat by `position`.
final class ChatMessageRecord: Model, @unchecked Sendable {
    static let schema = "chat_messages"

    @ID(custom: .id) var id: Chats.Message.ID?
    @Parent(key: "chat_id") var chat: ChatRecord
    @Field(key: "position") var position: Int
    @Parent(key: "sender_id") var sender: UserRecord
    /// The id the sender's app chose, so that sending again after a lost answer finds this
    /// message instead of adding another.
    @Field(key: "client_message_id") var clientMessageID: UUID
    @OptionalField(key: "text") var text: String?
    @OptionalField(key: "photo_key") var photoKey: String?
    @OptionalField(key: "photo_content_type") var photoContentType: String?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

// MARK: - Migrations

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
