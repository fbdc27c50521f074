import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// A block refuses every interaction between the two members, from either side, through one
/// rule (`InteractionRules`), and tells the other member nothing.
@Suite struct BlockTests {
    @Test func afterABlockEveryOperationBetweenTheTwoIsRefusedBothWaysAndNobodyIsNotified() async throws {
        try await TestServer.run { server in
            var ada = try await server.owner("ada", at: TestServer.Place.lyon)
            var bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let chat = try await server.matched(ada, bob).id
            // a playdate that took place, one that waits, and a request from Bob's second dog
            let done = try await server.propose(ada, in: chat, hours: 1).json["id"] as? String ?? ""
            #expect(try await server.request(.POST, APIPath.meetup(done, "accept"), token: bob.token).status == 200)
            server.clock.advance(by: 2 * 3_600)
            (ada, bob) = (try await server.signedInAgain(ada), try await server.signedInAgain(bob))
            #expect(try await server.request(.POST, APIPath.meetup(done, "complete"), token: bob.token).status == 200)
            let waiting = try await server.propose(bob, in: chat, hours: 5).json["id"] as? String ?? ""
            let bobsSecond = try await server.owner("bob", at: TestServer.Place.lyonNorth, member: bob.member)
            try await server.vaccinate(bobsSecond)
            let request = try #require(try await server.like(bobsSecond, ada).request)
            let adasThird = try await server.owner("ada", at: TestServer.Place.lyon, member: ada.member)

            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: ada.token).status == 204)
            let inboxes = try await [ada, bob].asyncMap { try await server.unreadCount(of: $0) }

            // every way one could reach the other, from either side
            for (me, them, mine, theirs) in [(ada, bob, adasThird, bobsSecond), (bob, ada, bobsSecond, adasThird)] {
                let attempts: [(String, TestServer.Reply)] = [
                    ("review", try await server.send(.POST, APIPath.meetupReviews(done), object: ["rating": 1], token: me.token)),
                    (
                        "message",
                        try await server.send(
                            .POST, APIPath.messages(chat),
                            object: ["id": UUID().uuidString, "text": "hello?"], token: me.token)
                    ),
                    ("propose", try await server.propose(me, in: chat)),
                    ("accept meet-up", try await server.request(.POST, APIPath.meetup(waiting, "accept"), token: me.token)),
                    ("cancel meet-up", try await server.request(.POST, APIPath.meetup(waiting, "cancel"), token: me.token)),
                    ("like", try await server.swipe(mine, on: them)),
                    ("like the other way", try await server.swipe(mine, on: theirs)),
                    ("accept request", try await server.request(.POST, APIPath.acceptRequest(request.id), token: me.token)),
                ]
                for (what, reply) in attempts {
                    #expect((400..<500).contains(reply.status), "\(me.member.username): \(what) answered \(reply.status)")
                }
                // a review in particular: the 404 of a thing that does not exist
                #expect(attempts[0].1.status == 404 && attempts[0].1.code == "not_found")
            }
            #expect(try await [ada, bob].asyncMap { try await server.unreadCount(of: $0) } == inboxes, "nobody heard of any of it")
            let reviews = try await server.request(.GET, APIPath.petReviews(bob.dogID), token: bob.token)
            #expect((reviews.json["items"] as? [Any])?.isEmpty == true)
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
