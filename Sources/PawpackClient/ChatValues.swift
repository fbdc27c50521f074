import Foundation
import PawpackAPI
import PawpackCore

/// The chat a match opens between the two owners. After an unmatch or a block it stays,
/// closed: the history can be read, nothing more sent.
public struct Chat: Sendable, Equatable, Identifiable {
    public typealias ID = Chats.Chat.ID

    public var id: ID
    /// The match that opened it; gone after an unmatch.
    public var matchID: Match.ID
    /// Your dog.
    public var myPet: PetCard
    public var otherPet: PetCard
    public var otherOwnerDisplayName: String
    public var lastMessage: ChatMessage?
    /// The other member's messages you have not marked read.
    public var unreadCount: Int
    /// How far the other member has read: a message's ``ChatMessage/position``, 0 for nothing.
    public var theirReadPosition: Int
    public var theirReadAt: Date?
    public var isClosed: Bool
    public var lastActivityAt: Date

    init(_ dto: Components.Schemas.Chat) throws {
        id = try serverID(dto.id)
        matchID = try serverID(dto.matchId)
        myPet = try PetCard(dto.myPet)
        otherPet = try PetCard(dto.otherPet)
        otherOwnerDisplayName = dto.otherOwnerDisplayName
        lastMessage = try dto.lastMessage.map(ChatMessage.init)
        unreadCount = dto.unreadCount
        theirReadPosition = dto.theirReadPosition
        theirReadAt = dto.theirReadAt
        isClosed = dto.closed
        lastActivityAt = dto.lastActivityAt
    }

    /// Whether the other member has read this message of yours.
    public func hasBeenRead(_ message: ChatMessage) -> Bool {
        message.position <= theirReadPosition
    }
}

/// One message: text or a photo.
public struct ChatMessage: Sendable, Equatable, Identifiable {
    public typealias ID = Chats.Message.ID

    /// A photo in a chat, served to the chat's two members only.
    public struct Photo: Sendable, Equatable {
        public var url: URL
        public var contentType: String
    }

    public var id: ID
    public var chatID: Chat.ID
    /// The id your app chose when sending (``PawpackClient/send(_:in:id:)``).
    public var clientMessageID: UUID
    /// 1 for the chat's first message, then 2, 3…
    public var position: Int
    public var isFromMe: Bool
    public var text: String?
    public var photo: Photo?
    public var createdAt: Date

    init(_ dto: Components.Schemas.ChatMessage) throws {
        id = try serverID(dto.id)
        chatID = try serverID(dto.chatId)
        guard let clientID = UUID(text: dto.clientMessageId) else {
            throw PawpackError.malformed("unreadable message id \(dto.clientMessageId)")
        }
        clientMessageID = clientID
        position = dto.position
        isFromMe = dto.fromMe
        text = dto.text
        photo = try dto.photo.map {
            guard let url = URL(string: $0.url) else { throw PawpackError.malformed("unreadable photo address \($0.url)") }
            return Photo(url: url, contentType: $0.contentType)
        }
        createdAt = dto.createdAt
    }
}

/// A page of a list, newest first; pass `nextCursor` back for the next one (nil on the last).
public struct Page<Item: Sendable & Equatable>: Sendable, Equatable {
    public var items: [Item]
    public var nextCursor: String?
}
