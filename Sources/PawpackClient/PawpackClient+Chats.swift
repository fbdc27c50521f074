import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Chats: one per match between the two owners. Only the two can list, read or post in it.

extension PawpackClient {
    /// Your chats, newest activity first.
    public func chats(limit: Int = 20, cursor: String? = nil) async throws -> Page<Chat> {
        try await signedIn {
            switch try await client.listChats(query: .init(limit: limit, cursor: cursor)) {
            case .ok(let ok):
                let page = try ok.body.json
                return Page(items: try page.items.map(Chat.init), nextCursor: page.nextCursor)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    public func chat(_ id: Chat.ID) async throws -> Chat {
        try await signedIn {
            try Chat(try await client.getChat(path: .init(chatId: id.description)).ok.body.json)
        }
    }

    /// A chat's messages, newest first.
    public func messages(in chat: Chat.ID, limit: Int = 30, cursor: String? = nil) async throws -> Page<ChatMessage> {
        try await signedIn {
            switch try await client.listMessages(path: .init(chatId: chat.description), query: .init(limit: limit, cursor: cursor)) {
            case .ok(let ok):
                let page = try ok.body.json
                return Page(items: try page.items.map(ChatMessage.init), nextCursor: page.nextCursor)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Sends a text message. Keep `id` until the answer arrives: sending again with the same id
    /// after a lost answer returns the message already sent instead of sending it twice. A
    /// closed chat answers `chat_closed`.
    @discardableResult
    public func send(_ text: String, in chat: Chat.ID, id: UUID = UUID()) async throws -> ChatMessage {
        try await signedIn {
            switch try await client.sendMessage(
                path: .init(chatId: chat.description),
                body: .json(.init(id: id.text(uppercase: false), text: text)))
            {
            case .created(let created): return try ChatMessage(try created.body.json)
            case .ok(let ok): return try ChatMessage(try ok.body.json)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Sends a photo (JPEG, PNG, WebP or HEIC); the server removes its metadata, the location
    /// included. Idempotent by `id` like ``send(_:in:id:)``.
    @discardableResult
    public func sendPhoto(_ image: Data, in chat: Chat.ID, id: UUID = UUID()) async throws -> ChatMessage {
        try await signedIn {
            let parts: MultipartBody<Operations.SendChatPhoto.Input.Body.MultipartFormPayload> = [
                .id(.init(payload: .init(body: HTTPBody(id.text(uppercase: false))))),
                .photo(.init(payload: .init(body: HTTPBody(image)), filename: "photo")),
            ]
            switch try await client.sendChatPhoto(path: .init(chatId: chat.description), body: .multipartForm(parts)) {
            case .created(let created): return try ChatMessage(try created.body.json)
            case .ok(let ok): return try ChatMessage(try ok.body.json)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Marks the chat read up to this message; the other member sees how far you read.
    public func markRead(upTo message: ChatMessage.ID, in chat: Chat.ID) async throws {
        try await signedIn {
            _ = try await client.markChatRead(
                path: .init(chatId: chat.description),
                body: .json(.init(messageId: message.description))
            ).noContent
        }
    }
}
