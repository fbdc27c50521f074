import Foundation
import PawpackTestSupport
import Testing

/// Playdates through HTTP: dogs near Lyon (and one in Paris) find each other.
@Suite struct PlaydatesAPITests {
    struct Owner {
        var member: TestServer.Member
        var dogID: String
    }

    /// A verified member at a place with one dog (30 months old).
    func owner(_ server: TestServer, _ name: String, latitude: Double, longitude: Double,
               dog: [String: any Sendable] = [:]) async throws -> Owner {
        let member = try await server.member(name, password: "\(name)'s own secret")
        _ = try await server.send(.PUT, "/v1/me/location", object: ["latitude": latitude, "longitude": longitude], token: member.accessToken)
        var body: [String: any Sendable] = ["name": "\(name.capitalized)'s dog", "species": "dog", "estimatedAgeMonths": 30, "weightKg": 14.0]
        body.merge(dog) { _, new in new }
        let reply = try await server.send(.POST, "/v1/pets", object: body, token: member.accessToken)
        let id = try #require((reply.json["card"] as? [String: Any])?["id"] as? String, "\(reply.text)")
        return Owner(member: member, dogID: id)
    }

    func deck(_ server: TestServer, _ owner: Owner, query: String = "") async throws -> [[String: Any]] {
        let reply = try await server.request(.GET, "/v1/pets/\(owner.dogID)/deck\(query)", token: owner.member.accessToken)
        #expect(reply.status == 200, "\(reply.text)")
        return reply.json["items"] as? [[String: Any]] ?? []
    }

    func names(_ cards: [[String: Any]]) -> [String] {
        cards.compactMap { ($0["pet"] as? [String: Any])?["name"] as? String }
    }

    func like(_ server: TestServer, _ owner: Owner, _ target: Owner, decision: String = "like") async throws -> TestServer.Reply {
        try await server.send(.POST, "/v1/pets/\(owner.dogID)/swipes", object: ["targetPetId": target.dogID, "decision": decision],
                              token: owner.member.accessToken)
    }

    @Test func theDeckShowsNearbyDogsWithReasonsButNeverOwnFarOrTheirPosition() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            _ = try await server.send(.POST, "/v1/pets", object: ["name": "Ada's second", "species": "dog", "estimatedAgeMonths": 20], token: ada.member.accessToken)
            _ = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)      // 2 km north
            _ = try await owner(server, "cyd", latitude: 48.8566, longitude: 2.3522)      // Paris
            _ = try await server.send(.POST, "/v1/pets", object: ["name": "Whiskers", "species": "cat", "estimatedAgeMonths": 20], token: ada.member.accessToken)

            let reply = try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck", token: ada.member.accessToken)
            let cards = reply.json["items"] as? [[String: Any]] ?? []
            #expect(names(cards) == ["Bob's dog"])
            let card = try #require(cards.first)
            #expect(card["distance"] as? String == "2 km")
            #expect(((card["score"] as? Int) ?? -1) >= 0 && ((card["score"] as? Int) ?? 101) <= 100)
            #expect((card["reasons"] as? [String])?.last?.contains("2 km") == true)
            #expect(!reply.text.contains("45.782"))
            #expect(!reply.text.contains("bob@example.com"))
        }
    }

    @Test func theDeckNeedsTheOwnersLocationAndIsTheOwnersAlone() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            #expect(try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck", token: bob.member.accessToken).status == 403)
            #expect(try await server.request(.GET, "/v1/pets/\(ada.dogID)/preferences", token: bob.member.accessToken).status == 403)
            #expect(try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck").status == 401)
            _ = try await server.request(.DELETE, "/v1/me/location", token: ada.member.accessToken)
            let noLocation = try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck", token: ada.member.accessToken)
            #expect(noLocation.status == 409)
            #expect(noLocation.code == "location_needed")
            let badLimit = try await server.request(.GET, "/v1/pets/\(bob.dogID)/deck?limit=500", token: bob.member.accessToken)
            #expect(badLimit.status == 422)
            #expect(badLimit.json["field"] as? String == "limit")
            let badCursor = try await server.request(.GET, "/v1/pets/\(bob.dogID)/deck?cursor=nonsense", token: bob.member.accessToken)
            #expect(badCursor.json["field"] as? String == "cursor")
        }
    }

    @Test func acceptingARequestFromADogPassedOnTakesItOutOfThePassPile() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            _ = try await like(server, bob, ada, decision: "pass")
            #expect(try await like(server, ada, bob).status == 201)
            let incoming = try await server.request(.GET, "/v1/match-requests?direction=incoming", token: bob.member.accessToken)
            let requestID = try #require((incoming.json["items"] as? [[String: Any]])?.first?["id"] as? String)
            let accepted = try await server.request(.POST, "/v1/match-requests/\(requestID)/accept", token: bob.member.accessToken)
            #expect(accepted.status == 200, "\(accepted.text)")
            let pile = try await server.request(.GET, "/v1/pets/\(bob.dogID)/passes", token: bob.member.accessToken)
            #expect((pile.json["items"] as? [Any])?.isEmpty == true, "\(pile.text)")
            let again = try await server.request(.POST, "/v1/pets/\(bob.dogID)/passes/\(ada.dogID)/like", token: bob.member.accessToken)
            #expect(again.status == 404)
        }
    }

    @Test func aLikeAsksTheOtherOwnerAndASecondLikeIsAFriendly409() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            let liked = try await like(server, ada, bob)
            #expect(liked.status == 201)
            #expect((liked.json["request"] as? [String: Any])?["status"] as? String == "pending")
            #expect(liked.json["match"] == nil)

            let again = try await like(server, ada, bob)
            #expect(again.status == 409)
            #expect(again.code == "already_requested")
            #expect((again.json["detail"] as? String)?.contains("Wait for their answer") == true)

            #expect(try await deck(server, ada).isEmpty)
            let outgoing = try await server.request(.GET, "/v1/match-requests?direction=outgoing", token: ada.member.accessToken)
            #expect((outgoing.json["items"] as? [Any])?.count == 1)
            let incoming = try await server.request(.GET, "/v1/match-requests?direction=incoming", token: bob.member.accessToken)
            let requestID = try #require((incoming.json["items"] as? [[String: Any]])?.first?["id"] as? String)

            // only the recipient answers
            #expect(try await server.request(.POST, "/v1/match-requests/\(requestID)/accept", token: ada.member.accessToken).status == 404)
            let accepted = try await server.request(.POST, "/v1/match-requests/\(requestID)/accept", token: bob.member.accessToken)
            #expect(accepted.status == 200)
            #expect(accepted.json["otherOwnerDisplayName"] as? String == "Ada")

            for side in [ada, bob] {
                let matches = try await server.request(.GET, "/v1/matches", token: side.member.accessToken)
                #expect((matches.json["items"] as? [Any])?.count == 1)
            }
            #expect(try await deck(server, bob).isEmpty)
        }
    }

    @Test func twoLikesMakeAMatchAtOnce() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            _ = try await like(server, ada, bob)
            let back = try await like(server, bob, ada)
            #expect(back.status == 201)
            let match = try #require(back.json["match"] as? [String: Any])
            #expect((match["otherPet"] as? [String: Any])?["name"] as? String == "Ada's dog")
            let pending = try await server.request(.GET, "/v1/match-requests?direction=incoming", token: bob.member.accessToken)
            #expect((pending.json["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func aPassIsNeverShownAgainUntilUndoneOrLikedFromThePile() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            #expect(try await like(server, ada, bob, decision: "pass").status == 201)
            #expect(try await deck(server, ada).isEmpty)
            #expect(try await like(server, ada, bob, decision: "pass").code == "already_swiped")

            #expect(try await server.request(.POST, "/v1/pets/\(ada.dogID)/swipes/undo", token: ada.member.accessToken).status == 204)
            #expect(names(try await deck(server, ada)) == ["Bob's dog"])

            _ = try await like(server, ada, bob, decision: "pass")
            let pile = try await server.request(.GET, "/v1/pets/\(ada.dogID)/passes", token: ada.member.accessToken)
            #expect(((pile.json["items"] as? [[String: Any]])?.first?["name"] as? String) == "Bob's dog")
            let liked = try await server.request(.POST, "/v1/pets/\(ada.dogID)/passes/\(bob.dogID)/like", token: ada.member.accessToken)
            #expect(liked.status == 201)
            #expect((liked.json["request"] as? [String: Any])?["status"] as? String == "pending")
            let emptyPile = try await server.request(.GET, "/v1/pets/\(ada.dogID)/passes", token: ada.member.accessToken)
            #expect((emptyPile.json["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func rejectingOrCancellingEndsTheRequest() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            let first = try await like(server, ada, bob)
            let requestID = try #require((first.json["request"] as? [String: Any])?["id"] as? String)
            #expect(try await server.request(.POST, "/v1/match-requests/\(requestID)/cancel", token: bob.member.accessToken).status == 404)
            #expect(try await server.request(.POST, "/v1/match-requests/\(requestID)/cancel", token: ada.member.accessToken).status == 204)
            #expect(names(try await deck(server, ada)) == ["Bob's dog"])

            let second = try await like(server, ada, bob)
            let secondID = try #require((second.json["request"] as? [String: Any])?["id"] as? String)
            #expect(try await server.request(.POST, "/v1/match-requests/\(secondID)/reject", token: bob.member.accessToken).status == 204)
            #expect(try await server.request(.POST, "/v1/match-requests/\(secondID)/accept", token: bob.member.accessToken).status == 404)
            let matches = try await server.request(.GET, "/v1/matches", token: ada.member.accessToken)
            #expect((matches.json["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func blockingHidesBothWaysAndEndsMatches() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            _ = try await like(server, ada, bob)
            _ = try await like(server, bob, ada)
            let blocked = try await server.send(.POST, "/v1/blocks", object: ["username": "ada"], token: bob.member.accessToken)
            #expect(blocked.status == 204)
            for side in [ada, bob] {
                let matches = try await server.request(.GET, "/v1/matches", token: side.member.accessToken)
                #expect((matches.json["items"] as? [Any])?.isEmpty == true)
            }
            _ = try await owner(server, "cyd", latitude: 45.7700, longitude: 4.8357)
            #expect(names(try await deck(server, ada)) == ["Cyd's dog"])
            #expect(names(try await deck(server, bob)) == ["Cyd's dog"])
            #expect(try await like(server, ada, bob).status == 404)
            let unknown = try await server.send(.POST, "/v1/blocks", object: ["username": "nobody"], token: bob.member.accessToken)
            #expect(unknown.status == 404)
        }
    }

    @Test func aGuardianOpeningTheDeckBringsTheirOwnBlocksAndTheOwnerKeepsTheirs() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            _ = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            let cyd = try await owner(server, "cyd", latitude: 45.7700, longitude: 4.8357)
            let gus = try await server.member("gus", password: "gus's own secret")
            _ = try await server.send(.POST, "/v1/pets/\(ada.dogID)/guardians", object: ["username": "gus"], token: ada.member.accessToken)
            let invitations = try await server.request(.GET, "/v1/guardian-invitations", token: gus.accessToken)
            let invitation = try #require((invitations.json["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await server.request(.POST, "/v1/guardian-invitations/\(invitation)/accept", token: gus.accessToken).status == 204)
            // Gus blocked Bob; Cyd blocked Ada.
            #expect(try await server.send(.POST, "/v1/blocks", object: ["username": "bob"], token: gus.accessToken).status == 204)
            #expect(try await server.send(.POST, "/v1/blocks", object: ["username": "ada"], token: cyd.member.accessToken).status == 204)

            let asGus = Owner(member: gus, dogID: ada.dogID)
            #expect(names(try await deck(server, asGus)).isEmpty, "Bob blocked by the guardian, Cyd blocking the owner")
            #expect(names(try await deck(server, ada)) == ["Bob's dog"])
        }
    }

    @Test func unmatchingEndsTheMatchForBothAndOnlyParticipantsMay() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            let bob = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            let cyd = try await owner(server, "cyd", latitude: 45.7700, longitude: 4.8357)
            _ = try await like(server, ada, bob)
            let match = try await like(server, bob, ada)
            let matchID = try #require((match.json["match"] as? [String: Any])?["id"] as? String)
            #expect(try await server.request(.DELETE, "/v1/matches/\(matchID)", token: cyd.member.accessToken).status == 404)
            #expect(try await server.request(.DELETE, "/v1/matches/\(matchID)", token: ada.member.accessToken).status == 204)
            let bobs = try await server.request(.GET, "/v1/matches", token: bob.member.accessToken)
            #expect((bobs.json["items"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func preferencesAreSavedValidatedAndOverriddenPerRequest() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            _ = try await owner(server, "bob", latitude: 45.7820, longitude: 4.8357)
            let defaults = try await server.request(.GET, "/v1/pets/\(ada.dogID)/preferences", token: ada.member.accessToken)
            #expect(defaults.json["maxDistanceKm"] as? Double == 25)
            let bad = try await server.send(.PUT, "/v1/pets/\(ada.dogID)/preferences", object: ["maxDistanceKm": 0], token: ada.member.accessToken)
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "maxDistanceKm")
            let near = try await server.send(.PUT, "/v1/pets/\(ada.dogID)/preferences", object: ["maxDistanceKm": 1], token: ada.member.accessToken)
            #expect(near.status == 200)
            #expect(try await deck(server, ada).isEmpty)
            #expect(names(try await deck(server, ada, query: "?maxDistanceKm=3")) == ["Bob's dog"])
            _ = try await server.send(.PUT, "/v1/pets/\(ada.dogID)/preferences", object: ["maxDistanceKm": 10, "sexes": ["female"]], token: ada.member.accessToken)
            #expect(try await deck(server, ada).isEmpty)  // Bob's dog's sex is unknown
        }
    }

    @Test func pagingWalksTheWholeDeckWithoutRepeats() async throws {
        try await TestServer.run { server in
            let ada = try await owner(server, "ada", latitude: 45.7640, longitude: 4.8357)
            var expected: Set<String> = []
            for (index, name) in ["bob", "cyd", "dee", "eve", "fay"].enumerated() {
                _ = try await owner(server, name, latitude: 45.7640 + Double(index + 1) * 0.01, longitude: 4.8357)
                expected.insert("\(name.capitalized)'s dog")
            }
            let whole = names(try await deck(server, ada, query: "?limit=50"))
            var seen: [String] = []
            var cursor: String?
            repeat {
                let query = "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let reply = try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck\(query)", token: ada.member.accessToken)
                seen += names(reply.json["items"] as? [[String: Any]] ?? [])
                cursor = reply.json["nextCursor"] as? String
            } while cursor != nil && seen.count < 20
            #expect(seen == whole)
            #expect(Set(seen) == expected)
            #expect(seen.count == expected.count)
        }
    }
}
