import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static let chats = "/v1/chats"
    package static func chat(_ chat: some CustomStringConvertible) -> String { "\(chats)/\(chat)" }
    package static func messages(_ chat: some CustomStringConvertible) -> String { self.chat(chat) + "/messages" }
    package static func chatPhotos(_ chat: some CustomStringConvertible) -> String { self.chat(chat) + "/photos" }
    package static func chatRead(_ chat: some CustomStringConvertible) -> String { self.chat(chat) + "/read" }
}

extension TestServer {
    /// A text message the owner must manage to send; what was stored.
    @discardableResult
    package func say(_ text: String, from owner: Owner, in chat: String, id: UUID = UUID()) async throws -> Components.Schemas.ChatMessage {
        let reply = try await send(.POST, "/v1/chats/\(chat)/messages", object: ["id": id.uuidString, "text": text], token: owner.token)
        guard reply.status == 201 else { throw TestFailure("message: \(reply.status) \(reply.text)") }
        return try reply.decode(Components.Schemas.ChatMessage.self)
    }
}
