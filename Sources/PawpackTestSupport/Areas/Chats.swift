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

extension TestServer {
    /// Ada in Lyon's centre and Bob 2 km north, each with a dog: where most tests start.
    package func adaAndBob() async throws -> (ada: Owner, bob: Owner) {
        (try await owner("ada", at: Place.lyon), try await owner("bob", at: Place.lyonNorth))
    }

    /// Ada and Bob, their dogs matched; the chat the match opened.
    package func adaAndBobMatched() async throws -> (ada: Owner, bob: Owner, chat: String) {
        let (ada, bob) = try await adaAndBob()
        return (ada, bob, try await matched(ada, bob).id)
    }
}
