import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var chats: ChatService { services.chats }

    func listChats(_ input: Operations.ListChats.Input) async throws -> Operations.ListChats.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 20
        guard (1...50).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 50") }
        let page = try await chats.chats(auth.user, limit: limit, cursor: input.query.cursor, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(.init(body: .json(.init(items: page.items.map { Components.Schemas.Chat($0, viewer: me, mapping) }, nextCursor: page.next?.text))))
    }

    func getChat(_ input: Operations.GetChat.Input) async throws -> Operations.GetChat.Output {
        let auth = try await authenticated()
        let chat = try await chats.chat(auth.user, id: try pathID(input.path.chatId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Chat(chat, viewer: try auth.user.requireID(), mapping))))
    }

    func listMessages(_ input: Operations.ListMessages.Input) async throws -> Operations.ListMessages.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 30
        guard (1...100).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 100") }
        let page = try await chats.messages(
            auth.user, chat: try pathID(input.path.chatId), limit: limit,
            cursor: input.query.cursor, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(
            .init(body: .json(.init(items: page.items.map { Components.Schemas.ChatMessage($0, viewer: me, mapping) }, nextCursor: page.next?.text))))
    }

    func sendMessage(_ input: Operations.SendMessage.Input) async throws -> Operations.SendMessage.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let chatID: Chats.Chat.ID = try pathID(input.path.chatId)
        guard let clientID = UUID(text: body.id) else { throw Problem.invalidField("id", "must be a UUID") }
        let sent = try await chats.send(auth.user, chat: chatID, clientMessageID: clientID, text: body.text, on: auth.request.db)
        let message = Components.Schemas.ChatMessage(sent.message, viewer: try auth.user.requireID(), mapping)
        return sent.created ? .created(.init(body: .json(message))) : .ok(.init(body: .json(message)))
    }

    func sendChatPhoto(_ input: Operations.SendChatPhoto.Input) async throws -> Operations.SendChatPhoto.Output {
        let auth = try await authenticated()
        let chatID: Chats.Chat.ID = try pathID(input.path.chatId)
        guard case .multipartForm(let parts) = input.body else { throw Problem.unsupportedBody }
        let limit = services.config.maximumUploadBytes
        var photo: Data?
        var clientID: UUID?
        try await Self.readForm(parts, parts: "the message id in a part named `id` and the image in one named `photo`") { part in
            switch part {
            case .photo(let file):
                photo = try await Self.collect(file.payload.body, upTo: limit)
                return photo == nil ? ImageSanitizerError.tooLarge(limit: limit).problem(limit: limit) : nil
            case .id(let field):
                let text = try await Self.collect(field.payload.body, upTo: 64).map { String(decoding: $0, as: UTF8.self) }
                clientID = text.flatMap { UUID(text: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }
                return clientID == nil ? Problem.invalidField("id", "must be a UUID") : nil
            case .undocumented(let other):
                _ = try await Self.collect(other.body, upTo: 0)
                return nil
            }
        }
        guard let clientID else { throw Problem.invalidField("id", "is required") }
        guard let photo else { throw Problem.invalidField("photo", "is required") }
        let sent = try await chats.sendPhoto(auth.user, chat: chatID, clientMessageID: clientID, data: photo, on: auth.request.db)
        let message = Components.Schemas.ChatMessage(sent.message, viewer: try auth.user.requireID(), mapping)
        return sent.created ? .created(.init(body: .json(message))) : .ok(.init(body: .json(message)))
    }

    func markChatRead(_ input: Operations.MarkChatRead.Input) async throws -> Operations.MarkChatRead.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let chatID: Chats.Chat.ID = try pathID(input.path.chatId)
        guard let messageID = Chats.Message.ID(string: body.messageId) else {
            throw Problem.invalidField("messageId", "must be a message id")
        }
        try await chats.markRead(auth.user, chat: chatID, upTo: messageID, on: auth.request.db)
        return .noContent(.init())
    }
}

// MARK: Mapping

extension Components.Schemas.Chat {
    init(_ chat: ChatValue, viewer: User.ID, _ mapping: APIMapping) {
        self.init(
            id: chat.id.description, matchId: chat.match.description, myPet: Components.Schemas.PetCard(chat.myPet, mapping),
            otherPet: Components.Schemas.PetCard(chat.otherPet, mapping),
            otherOwnerDisplayName: chat.otherPet.ownerDisplayName,
            lastMessage: chat.lastMessage.map { Components.Schemas.ChatMessage($0, viewer: viewer, mapping) }, unreadCount: chat.unreadCount,
            theirReadPosition: chat.theirReadPosition, theirReadAt: chat.theirReadAt, closed: chat.closed,
            lastActivityAt: chat.activityAt)
    }
}

extension Components.Schemas.ChatMessage {
    init(_ message: ChatMessageValue, viewer: User.ID, _ mapping: APIMapping) {
        self.init(
            id: message.id.description, chatId: message.chat.description,
            clientMessageId: message.clientMessageID.text(uppercase: false), position: message.position,
            fromMe: message.sender == viewer, text: message.text,
            photo: message.photoKey.map { key in
                .init(url: mapping.baseURL + WebPath.media(key), contentType: message.photoContentType ?? "")
            },
            createdAt: message.createdAt)
    }
}

// MARK: Realtime events

extension RealtimeEventValue {
    static func message(_ message: ChatMessageValue) -> Self {
        Self(kind: "message") { recipient, mapping in Components.Schemas.ChatMessage(message, viewer: recipient, mapping) }
    }

    /// The reader read the chat up to `position`.
    static func read(chat: Chats.Chat.ID, reader: User.ID, position: Int, at: Date) -> Self {
        Self(kind: "read") { recipient, _ in
            Components.Schemas.RealtimeReadReceipt(chatId: chat.description, position: position, byMe: reader == recipient, at: at)
        }
    }

    static func chatClosed(_ chat: Chats.Chat.ID) -> Self {
        Self(kind: "chat_closed") { _, _ in Components.Schemas.RealtimeChatClosed(chatId: chat.description) }
    }
}
