import Foundation
import PawpackAPI
import PawpackCore
import Vapor

// What many tests start from: members who own a dog somewhere, their decks and their swipes,
// through the HTTP API and read as the contract's types.

/// A test's own failure, thrown where a step it depends on went wrong.
package struct TestFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}

extension TestServer {
    /// A member with one dog.
    package struct Owner: Sendable {
        package var member: Member
        package var dogID: String

        package init(member: Member, dogID: String) {
            self.member = member
            self.dogID = dogID
        }

        package var dog: Pet.ID { Pet.ID(string: dogID)! }
        package var token: String { member.accessToken }
    }

    /// Places the tests put owners at.
    package enum Place {
        /// Lyon's centre.
        package static let lyon = GeoPoint(latitude: 45.7640, longitude: 4.8357)
        /// 2 km north of Lyon's centre.
        package static let lyonNorth = GeoPoint(latitude: 45.7820, longitude: 4.8357)
        /// 700 m north of Lyon's centre.
        package static let lyonNear = GeoPoint(latitude: 45.7700, longitude: 4.8357)
        package static let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
    }

    /// A verified member living at `place` (`member`, or a new one named `name`) with one dog,
    /// "Name's dog", 30 months old and 14 kg; `dog` adds to or replaces fields of its profile.
    package func owner(
        _ name: String, at place: GeoPoint, dog: [String: any Sendable] = [:],
        member existing: Member? = nil
    ) async throws -> Owner {
        let member: Member
        if let existing { member = existing } else { member = try await self.member(name, password: "\(name)'s own secret") }
        let located = try await send(
            .PUT, "/v1/me/location", object: ["latitude": place.latitude, "longitude": place.longitude],
            token: member.accessToken)
        guard located.status == 200 else { throw TestFailure("location of \(name): \(located.text)") }
        var profile: [String: any Sendable] = [
            "name": "\(name.capitalized)'s dog", "species": "dog",
            "estimatedAgeMonths": 30, "weightKg": 14.0,
        ]
        profile.merge(dog) { _, new in new }
        let created = try await send(.POST, "/v1/pets", object: profile, token: member.accessToken)
        guard created.status == 201 else { throw TestFailure("dog of \(name): \(created.text)") }
        return Owner(member: member, dogID: try created.decode(Components.Schemas.PetView.self).card.id)
    }

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

    /// A text message the owner must manage to send; what was stored.
    @discardableResult
    package func say(_ text: String, from owner: Owner, in chat: String, id: UUID = UUID()) async throws -> Components.Schemas.ChatMessage {
        let reply = try await send(.POST, "/v1/chats/\(chat)/messages", object: ["id": id.uuidString, "text": text], token: owner.token)
        guard reply.status == 201 else { throw TestFailure("message: \(reply.status) \(reply.text)") }
        return try reply.decode(Components.Schemas.ChatMessage.self)
    }

    /// The owner signed in again, with a new access token: after the clock moved past the
    /// hour the first one lasts.
    package func signedInAgain(_ owner: Owner) async throws -> Owner {
        let reply = try await request(.POST, "/v1/auth/login", json: ["email": owner.member.email, "password": owner.member.password])
        guard reply.status == 200 else { throw TestFailure("login: \(reply.status) \(reply.text)") }
        let session = try reply.decode(Components.Schemas.Session.self)
        var again = owner
        again.member.accessToken = session.accessToken
        again.member.refreshToken = session.refreshToken
        return again
    }

    /// Records a combined core dose a month before the tests' start, which puts an adult dog
    /// (the owners' dogs are 30 months old) in Social Mode by itself.
    package func vaccinate(_ owner: Owner, dog: String? = nil) async throws {
        let dose = try await send(
            .POST, "/v1/pets/\(dog ?? owner.dogID)/vaccinations",
            object: ["vaccine": "dhpp", "givenOn": "2026-02-01"], token: owner.token)
        guard dose.status == 201 else { throw TestFailure("dose: \(dose.status) \(dose.text)") }
    }

    /// The owner proposes a meet-up in the chat, `hours` from now at a park in Lyon; the reply.
    package func propose(
        _ owner: Owner, in chat: String, hours: Double = 2, place: String = "Parc de la Tête d'Or",
        extra: [String: any Sendable] = [:]
    ) async throws -> Reply {
        var body: [String: any Sendable] = [
            "startsAt": Date(timeInterval: hours * 3_600, since: clock.now()).formatted(Date.ISO8601FormatStyle()),
            "placeName": place, "latitude": 45.7772, "longitude": 4.8554,
        ]
        body.merge(extra) { _, new in new }
        return try await send(.POST, "/v1/chats/\(chat)/meetups", object: body, token: owner.token)
    }

    /// The member's unread notifications, as the bell counts them.
    package func unreadCount(of owner: Owner) async throws -> Int {
        let inbox = try await request(.GET, "/v1/notifications", token: owner.token)
        guard inbox.status == 200, let count = inbox.json["unreadCount"] as? Int else {
            throw TestFailure("notifications: \(inbox.status) \(inbox.text)")
        }
        return count
    }

    /// A GET that must answer 200, read as `T`.
    package func get<T: Decodable>(_ path: String, token: String, as type: T.Type) async throws -> T {
        let reply = try await request(.GET, path, token: token)
        guard reply.status == 200 else { throw TestFailure("GET \(path): \(reply.status) \(reply.text)") }
        return try reply.decode(T.self)
    }
}

/// A test image shipped with the Core tests (`Tests/PawpackCoreTests/Fixtures`).
package func fixture(_ name: String) throws -> Data {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try Data(contentsOf: package.appendingPathComponent("Tests/PawpackCoreTests/Fixtures").appendingPathComponent(name))
}

extension Components.Schemas.DeckPage {
    /// The dogs' names, best first.
    package var names: [String] { items.map(\.pet.name) }
}
