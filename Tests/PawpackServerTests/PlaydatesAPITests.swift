import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

/// Playdates through HTTP: dogs near Lyon (and one in Paris) find each other.
@Suite struct PlaydatesAPITests {
    typealias Place = TestServer.Place
    typealias MatchRequests = Operations.ListMatchRequests.Output.Ok.Body.JsonPayload
    typealias Matches = Operations.ListMatches.Output.Ok.Body.JsonPayload
    typealias Passes = Operations.ListPasses.Output.Ok.Body.JsonPayload

    @Test func theDeckShowsNearbyDogsWithReasonsButNeverOwnFarOrTheirPosition() async throws {
        try await TestServer.run { server in
            // given Ada with two dogs and a cat, Bob 2 km north and Cyd in Paris
            let ada = try await server.owner("ada", at: Place.lyon)
            _ = try await server.send(
                .POST, APIPath.pets, object: ["name": "Ada's second", "species": "dog", "estimatedAgeMonths": 20], token: ada.token)
            _ = try await server.owner("bob", at: Place.lyonNorth)
            _ = try await server.owner("cyd", at: Place.paris)
            _ = try await server.send(
                .POST, APIPath.pets, object: ["name": "Whiskers", "species": "cat", "estimatedAgeMonths": 20], token: ada.token)

            // when Ada opens her first dog's deck
            let reply = try await server.request(.GET, APIPath.deck(ada.dogID), token: ada.token)
            let page = try reply.decode(Components.Schemas.DeckPage.self)

            // then only Bob's dog is there, with a rounded distance and reasons, never a position
            #expect(page.names == ["Bob's dog"])
            let card = try #require(page.items.first)
            #expect(card.distance == "2 km")
            #expect((0...100).contains(card.score))
            #expect(card.reasons.last?.contains("2 km") == true)
            #expect(!reply.text.contains("45.782"))
            #expect(!reply.text.contains("bob@example.com"))
        }
    }

    @Test func theDeckNeedsTheOwnersLocationAndIsTheOwnersAlone() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            #expect(try await server.request(.GET, APIPath.deck(ada.dogID), token: bob.token).status == 403)
            #expect(try await server.request(.GET, APIPath.preferences(ada.dogID), token: bob.token).status == 403)
            #expect(try await server.request(.GET, APIPath.deck(ada.dogID)).status == 401)
            _ = try await server.request(.DELETE, APIPath.location, token: ada.token)
            let noLocation = try await server.request(.GET, APIPath.deck(ada.dogID), token: ada.token)
            #expect(noLocation.status == 409)
            #expect(noLocation.code == "location_needed")
            let badLimit = try await server.request(.GET, "/v1/pets/\(bob.dogID)/deck?limit=500", token: bob.token)
            #expect(badLimit.status == 422)
            #expect(try badLimit.decode(Components.Schemas.Problem.self).field == "limit")
            let badCursor = try await server.request(.GET, "/v1/pets/\(bob.dogID)/deck?cursor=nonsense", token: bob.token)
            #expect(try badCursor.decode(Components.Schemas.Problem.self).field == "cursor")
        }
    }

    @Test func acceptingARequestFromADogPassedOnTakesItOutOfThePassPile() async throws {
        try await TestServer.run { server in
            // given Bob passed on Ada's dog, and then Ada's dog liked Bob's
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.swipe(bob, on: ada, decision: "pass")
            _ = try await server.like(ada, bob)

            // when Bob accepts the request
            let incoming = try await server.get("/v1/match-requests?direction=incoming", token: bob.token, as: MatchRequests.self)
            let request = try #require(incoming.items.first)
            let accepted = try await server.request(.POST, APIPath.acceptRequest(request.id), token: bob.token)
            #expect(accepted.status == 200, "\(accepted.text)")

            // then Ada's dog has left his pass pile, and cannot be liked from it again
            #expect(try await server.get(APIPath.passes(bob.dogID), token: bob.token, as: Passes.self).items.isEmpty)
            let again = try await server.request(.POST, APIPath.likeFromPasses(bob.dogID, ada.dogID), token: bob.token)
            #expect(again.status == 404)
        }
    }

    @Test func aLikeAsksTheOtherOwnerAndASecondLikeIsAFriendly409() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let liked = try await server.like(ada, bob)
            #expect(liked.request?.status == .pending)
            #expect(liked.match == nil)

            let again = try await server.swipe(ada, on: bob)
            #expect(again.status == 409)
            #expect(again.code == "already_requested")
            #expect(try again.decode(Components.Schemas.Problem.self).detail.contains("Wait for their answer"))

            #expect(try await server.deck(ada).items.isEmpty)
            #expect(try await server.get("/v1/match-requests?direction=outgoing", token: ada.token, as: MatchRequests.self).items.count == 1)
            let incoming = try await server.get("/v1/match-requests?direction=incoming", token: bob.token, as: MatchRequests.self)
            let requestID = try #require(incoming.items.first?.id)

            // only the recipient answers
            #expect(try await server.request(.POST, APIPath.acceptRequest(requestID), token: ada.token).status == 404)
            let accepted = try await server.request(.POST, APIPath.acceptRequest(requestID), token: bob.token)
            #expect(accepted.status == 200)
            #expect(try accepted.decode(Components.Schemas.Match.self).otherOwnerDisplayName == "Ada")

            for side in [ada, bob] {
                #expect(try await server.get(APIPath.matches, token: side.token, as: Matches.self).items.count == 1)
            }
            #expect(try await server.deck(bob).items.isEmpty)
        }
    }

    @Test func twoLikesMakeAMatchAtOnce() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(ada, bob)
            let back = try await server.like(bob, ada)
            let match = try #require(back.match)
            #expect(match.otherPet.name == "Ada's dog")
            #expect(try await server.get("/v1/match-requests?direction=incoming", token: bob.token, as: MatchRequests.self).items.isEmpty)
        }
    }

    @Test func aPassIsNeverShownAgainUntilUndoneOrLikedFromThePile() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            #expect(try await server.swipe(ada, on: bob, decision: "pass").status == 201)
            #expect(try await server.deck(ada).items.isEmpty)
            #expect(try await server.swipe(ada, on: bob, decision: "pass").code == "already_swiped")

            #expect(try await server.request(.POST, APIPath.undoSwipe(ada.dogID), token: ada.token).status == 204)
            #expect(try await server.deck(ada).names == ["Bob's dog"])

            _ = try await server.swipe(ada, on: bob, decision: "pass")
            #expect(try await server.get(APIPath.passes(ada.dogID), token: ada.token, as: Passes.self).items.map(\.name) == ["Bob's dog"])
            let liked = try await server.request(.POST, APIPath.likeFromPasses(ada.dogID, bob.dogID), token: ada.token)
            #expect(liked.status == 201)
            #expect(try liked.decode(Components.Schemas.SwipeResult.self).request?.status == .pending)
            #expect(try await server.get(APIPath.passes(ada.dogID), token: ada.token, as: Passes.self).items.isEmpty)
        }
    }

    @Test func rejectingOrCancellingEndsTheRequest() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let first = try #require(try await server.like(ada, bob).request)
            #expect(try await server.request(.POST, APIPath.cancelRequest(first.id), token: bob.token).status == 404)
            #expect(try await server.request(.POST, APIPath.cancelRequest(first.id), token: ada.token).status == 204)
            #expect(try await server.deck(ada).names == ["Bob's dog"])

            let second = try #require(try await server.like(ada, bob).request)
            #expect(try await server.request(.POST, APIPath.rejectRequest(second.id), token: bob.token).status == 204)
            #expect(try await server.request(.POST, APIPath.acceptRequest(second.id), token: bob.token).status == 404)
            #expect(try await server.get(APIPath.matches, token: ada.token, as: Matches.self).items.isEmpty)
        }
    }

    @Test func blockingHidesBothWaysAndEndsMatches() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(ada, bob)
            _ = try await server.like(bob, ada)
            let blocked = try await server.send(.POST, APIPath.blocks, object: ["username": "ada"], token: bob.token)
            #expect(blocked.status == 204)
            for side in [ada, bob] {
                #expect(try await server.get(APIPath.matches, token: side.token, as: Matches.self).items.isEmpty)
            }
            _ = try await server.owner("cyd", at: Place.lyonNear)
            #expect(try await server.deck(ada).names == ["Cyd's dog"])
            #expect(try await server.deck(bob).names == ["Cyd's dog"])
            #expect(try await server.swipe(ada, on: bob).status == 404)
            let unknown = try await server.send(.POST, APIPath.blocks, object: ["username": "nobody"], token: bob.token)
            #expect(unknown.status == 404)
        }
    }

    @Test func aBlockHidesEachMembersDogsAndPhotosFromTheOtherUntilLifted() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: Place.lyon)
            let bob = try await server.owner("bob", at: Place.lyonNear)
            let photo = try await server.upload(
                APIPath.photos(ada.dogID),
                parts: [
                    .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))
                ], token: ada.token)
            let url = try #require((photo.json["url"] as? String).flatMap(URL.init(string:))?.path)
            #expect(try await server.request(.GET, APIPath.pet(ada.dogID), token: bob.token).status == 200)
            #expect(try await server.request(.GET, url, token: bob.token).status == 200)

            // when Ada blocks Bob, each one's dog, and Ada's photo, are gone for the other
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: ada.token).status == 204)
            for (viewer, pet) in [(bob, ada.dogID), (ada, bob.dogID)] {
                let hidden = try await server.request(.GET, APIPath.pet(pet), token: viewer.token)
                #expect(hidden.status == 404 && hidden.code == "not_found")
            }
            #expect(try await server.request(.GET, url, token: bob.token).status == 404)
            #expect(try await server.request(.GET, url, token: ada.token).status == 200)

            // and only Ada lists the block, and only she can lift it
            let adaList = try await server.get(APIPath.blocks, token: ada.token, as: Operations.ListBlocks.Output.Ok.Body.JsonPayload.self)
            #expect(adaList.items.map(\.username) == ["bob"])
            #expect(
                try await server.get(APIPath.blocks, token: bob.token, as: Operations.ListBlocks.Output.Ok.Body.JsonPayload.self)
                    .items.isEmpty)
            #expect(try await server.request(.DELETE, "/v1/blocks/ada", token: bob.token).status == 404)
            #expect(try await server.request(.DELETE, "/v1/blocks/bob", token: ada.token).status == 204)
            #expect(try await server.request(.GET, APIPath.pet(ada.dogID), token: bob.token).status == 200)
            #expect(try await server.request(.GET, url, token: bob.token).status == 200)
        }
    }

    @Test func aGuardianOpeningTheDeckBringsTheirOwnBlocksAndTheOwnerKeepsTheirs() async throws {
        try await TestServer.run { server in
            // given Gus guards Ada's dog, Gus blocked Bob and Cyd blocked Ada
            let ada = try await server.owner("ada", at: Place.lyon)
            _ = try await server.owner("bob", at: Place.lyonNorth)
            let cyd = try await server.owner("cyd", at: Place.lyonNear)
            let gus = try await server.member("gus", password: "gus's own secret")
            _ = try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "gus"], token: ada.token)
            let invitations = try await server.get(
                APIPath.guardianInvitations, token: gus.accessToken,
                as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self)
            let invitation = try #require(invitations.items.first?.id)
            #expect(try await server.request(.POST, APIPath.acceptInvitation(invitation), token: gus.accessToken).status == 204)
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: gus.accessToken).status == 204)
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "ada"], token: cyd.token).status == 204)

            // then Gus acting for the dog sees neither, and Ada still sees Bob's dog
            let asGus = TestServer.Owner(member: gus, dogID: ada.dogID)
            #expect(try await server.deck(asGus).items.isEmpty, "Bob blocked by the guardian, Cyd blocking the owner")
            #expect(try await server.deck(ada).names == ["Bob's dog"])
        }
    }

    @Test func unmatchingEndsTheMatchForBothAndOnlyParticipantsMay() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: Place.lyonNear)
            _ = try await server.like(ada, bob)
            let match = try #require(try await server.like(bob, ada).match)
            #expect(try await server.request(.DELETE, APIPath.match(match.id), token: cyd.token).status == 404)
            #expect(try await server.request(.DELETE, APIPath.match(match.id), token: ada.token).status == 204)
            #expect(try await server.get(APIPath.matches, token: bob.token, as: Matches.self).items.isEmpty)
        }
    }

    @Test func preferencesAreSavedValidatedAndOverriddenPerRequest() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: Place.lyon)
            _ = try await server.owner("bob", at: Place.lyonNorth)
            let defaults = try await server.get(
                APIPath.preferences(ada.dogID), token: ada.token,
                as: Components.Schemas.DeckPreferences.self)
            #expect(defaults.maxDistanceKm == 25)
            let bad = try await server.send(.PUT, APIPath.preferences(ada.dogID), object: ["maxDistanceKm": 0], token: ada.token)
            #expect(bad.status == 422)
            #expect(try bad.decode(Components.Schemas.Problem.self).field == "maxDistanceKm")
            let near = try await server.send(.PUT, APIPath.preferences(ada.dogID), object: ["maxDistanceKm": 1], token: ada.token)
            #expect(near.status == 200)
            #expect(try await server.deck(ada).items.isEmpty)
            #expect(try await server.deck(ada, query: "?maxDistanceKm=3").names == ["Bob's dog"])
            _ = try await server.send(
                .PUT, APIPath.preferences(ada.dogID), object: ["maxDistanceKm": 10, "sexes": ["female"]], token: ada.token)
            #expect(try await server.deck(ada).items.isEmpty) // Bob's dog's sex is unknown
        }
    }

    @Test func pagingWalksTheWholeDeckWithoutRepeats() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: Place.lyon)
            var expected: Set<String> = []
            for (index, name) in ["bob", "cyd", "dee", "eve", "fay"].enumerated() {
                _ = try await server.owner(name, at: .init(latitude: 45.7640 + Double(index + 1) * 0.01, longitude: 4.8357))
                expected.insert("\(name.capitalized)'s dog")
            }
            let whole = try await server.deck(ada, query: "?limit=50").names
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await server.deck(ada, query: "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
                seen += page.names
                cursor = page.nextCursor
            } while cursor != nil && seen.count < 20
            #expect(seen == whole)
            #expect(Set(seen) == expected)
            #expect(seen.count == expected.count)
        }
    }
}
