import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static func deck(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/deck" }
    package static func preferences(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/preferences" }
    package static func swipes(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/swipes" }
    package static func undoSwipe(_ pet: some CustomStringConvertible) -> String { swipes(pet) + "/undo" }
    package static func passes(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/passes" }
    package static func likeFromPasses(_ pet: some CustomStringConvertible, _ passed: some CustomStringConvertible) -> String {
        passes(pet) + "/\(passed)/like"
    }
    package static let matchRequests = "/v1/match-requests"
    package static func acceptRequest(_ request: some CustomStringConvertible) -> String { "\(matchRequests)/\(request)/accept" }
    package static func rejectRequest(_ request: some CustomStringConvertible) -> String { "\(matchRequests)/\(request)/reject" }
    package static func cancelRequest(_ request: some CustomStringConvertible) -> String { "\(matchRequests)/\(request)/cancel" }
    package static let matches = "/v1/matches"
    package static func match(_ match: some CustomStringConvertible) -> String { "\(matches)/\(match)" }
}

// Playdates' steps: decks, likes, matches.
extension TestServer {
    /// A page of the owner's dog's deck; `query` starts with `?`.
    package func deck(_ owner: Owner, query: String = "") async throws -> Components.Schemas.DeckPage {
        let reply = try await request(.GET, "/v1/pets/\(owner.dogID)/deck\(query)", token: owner.token)
        guard reply.status == 200 else { throw TestFailure("deck: \(reply.status) \(reply.text)") }
        return try reply.decode(Components.Schemas.DeckPage.self)
    }

    /// The owner's dog likes (or passes on) the other's dog.
    package func swipe(_ owner: Owner, on other: Owner, decision: String = "like") async throws -> Reply {
        try await send(
            .POST, "/v1/pets/\(owner.dogID)/swipes", object: ["targetPetId": other.dogID, "decision": decision],
            token: owner.token)
    }

    /// The owner's dog likes the other's, which must work; what it led to.
    package func like(_ owner: Owner, _ other: Owner) async throws -> Components.Schemas.SwipeResult {
        let reply = try await swipe(owner, on: other)
        guard reply.status == 201 else { throw TestFailure("like: \(reply.status) \(reply.text)") }
        return try reply.decode(Components.Schemas.SwipeResult.self)
    }

    /// The two owners' dogs like each other, which makes a match and opens its chat; the chat.
    package func matched(_ owner: Owner, _ other: Owner) async throws -> Components.Schemas.Chat {
        _ = try await like(owner, other)
        guard try await like(other, owner).match != nil else { throw TestFailure("no match") }
        let chats = try await get("/v1/chats", token: owner.token, as: Components.Schemas.ChatPage.self)
        guard let chat = chats.items.first(where: { $0.otherPet.id == other.dogID && $0.myPet.id == owner.dogID }) else {
            throw TestFailure("no chat after the match")
        }
        return chat
    }
}
