import Fluent
import Foundation
import PawpackCore

// Fluent models are `@unchecked Sendable`: each instance stays in the task that loaded it.

/// The one chat a match opens between the two owners. Its sides follow the match's: `a` is
/// the owner of the dog that sorts first (`PlaydateService.pair`). An unmatch or a block
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
