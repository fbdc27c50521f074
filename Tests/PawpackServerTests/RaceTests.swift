import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Requests that race answer exactly what the same requests sent one after the other get, on
/// SQLite and on PostgreSQL: never a 500, never two successes where one is possible.
@Suite struct RaceTests {
    /// Requests sent at once: a dozen on PostgreSQL, where the races happen. On the tests'
    /// in-memory SQLite (no WAL) transactions waiting on each other's locks can hold SQLite's
    /// threads in sqlite-nio's busy handler, which retries without sleeping and starves the
    /// whole test process (docs/SECURITY.md, "Known limits"); there they go one after another,
    /// which pins the sequential answers the races must match.
    static let crowd = TestServer.postgresURL == nil ? 1 : 12

    /// The same request sent `count` times at once (one after another on SQLite: `crowd`); the
    /// replies, in no order.
    func atOnce(_ count: Int, _ request: @escaping @Sendable () async throws -> TestServer.Reply) async throws -> [TestServer.Reply] {
        guard Self.crowd > 1 else {
            var replies: [TestServer.Reply] = []
            for _ in 0..<count { replies.append(try await request()) }
            return replies
        }
        return try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
            for _ in 0..<count { group.addTask { try await request() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func identicalLikesAtOnceStoreOneRequestAndTheRestAnswerAlreadyRequested() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let replies = try await atOnce(12) { try await server.swipe(bob, on: ada) }
            #expect(replies.filter { $0.status == 201 }.count == 1)
            #expect(
                replies.filter { $0.status == 409 && $0.code == "already_requested" }.count == 11,
                "\(replies.map { "\($0.status) \($0.code ?? "")" })")
            let requests = try await server.request(.GET, "/v1/match-requests?direction=incoming", token: ada.token)
            #expect((requests.json["items"] as? [Any])?.count == 1)
        }
    }

    @Test func twoUndosAtOnceUndoOneSwipeAndTheSecondFindsNothingLeft() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(bob, ada)
            let replies = try await atOnce(2) {
                try await server.request(.POST, APIPath.undoSwipe(bob.dogID), token: bob.token)
            }
            #expect(replies.map(\.status).sorted() == [204, 409], "\(replies.map { "\($0.status) \($0.text)" })")
            // the like is gone, once: Ada's dog is back in the deck
            #expect(try await server.deck(bob).items.map(\.pet.id).contains(ada.dogID))
        }
    }

    @Test func aRequestAcceptedTwiceAtOnceMakesOneMatch() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let request = try #require(try await server.like(bob, ada).request)
            let replies = try await atOnce(4) {
                try await server.request(.POST, APIPath.acceptRequest(request.id), token: ada.token)
            }
            #expect(replies.filter { $0.status == 200 }.count == 1)
            #expect(replies.filter { $0.status == 404 }.count == 3, "\(replies.map { "\($0.status) \($0.text)" })")
            let chats = try await server.get(APIPath.chats, token: ada.token, as: Components.Schemas.ChatPage.self)
            #expect(chats.items.count == 1)
        }
    }

    @Test func aBlockSentTwiceAtOnceIsOneBlockAndBothAreTold204() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            _ = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let replies = try await atOnce(6) {
                try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: ada.token)
            }
            #expect(replies.map(\.status) == Array(repeating: 204, count: 6), "\(replies.map { "\($0.status) \($0.text)" })")
            let blocks = try await server.request(.GET, APIPath.blocks, token: ada.token).json["items"] as? [Any]
            #expect(blocks?.count == 1)
        }
    }

    @Test func mutesSavedAtOnceEndAsTheLastOneSaved() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let replies = try await atOnce(6) {
                try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["match", "review"]], token: ada.token)
            }
            #expect(replies.allSatisfy { $0.status == 200 }, "\(replies.map { "\($0.status) \($0.text)" })")
            let settings = try await server.request(.GET, APIPath.notificationSettings, token: ada.token).json
            #expect((settings["muted"] as? [String])?.sorted() == ["match", "review"])
        }
    }

    @Test func proposalsAndReviewsAtOnceKeepOneAndTellTheOtherWhy() async throws {
        try await TestServer.run { server in
            var ada = try await server.owner("ada", at: TestServer.Place.lyon)
            var bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let chat = try await server.matched(ada, bob).id
            // both owners propose at the same moment: one proposal waits, the other is told so
            let (a, b) = (ada, bob)
            let proposals = try await atOnce(2) { [counter = Counter()] in
                try await server.propose(await counter.next() == 0 ? a : b, in: chat, hours: 1)
            }
            #expect(proposals.map(\.status).sorted() == [201, 409], "\(proposals.map { "\($0.status) \($0.text)" })")
            #expect(proposals.contains { $0.code == "meetup_pending" })
            let meetup = try #require(proposals.first { $0.status == 201 }?.json["id"] as? String)
            // whoever's proposal it is, the other owner accepts it (the proposer's try is refused)
            let accepted = try await [ada, bob].asyncMap {
                try await server.request(.POST, APIPath.meetup(meetup, "accept"), token: $0.token).status
            }
            #expect(accepted.sorted() == [200, 409], "\(accepted)")
            server.clock.advance(by: 2 * 3_600)
            (ada, bob) = (try await server.signedInAgain(ada), try await server.signedInAgain(bob))
            #expect(try await server.request(.POST, APIPath.meetup(meetup, "complete"), token: bob.token).status == 200)
            // one review twice at once: kept once, the other "already reviewed"
            let token = ada.token
            let reviews = try await atOnce(2) {
                try await server.send(.POST, APIPath.meetupReviews(meetup), object: ["rating": 5], token: token)
            }
            #expect(reviews.map(\.status).sorted() == [201, 409], "\(reviews.map { "\($0.status) \($0.text)" })")
            #expect(reviews.contains { $0.code == "already_reviewed" })
        }
    }

    @Test func aMessageIDSentAgainWithAnotherTextIsRefusedAndTheSameTextGetsTheFirstMessage() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let id = UUID()
            let first = try await server.say("Park at ten?", from: ada, in: chat, id: id)
            let retry = try await server.send(
                .POST, APIPath.messages(chat),
                object: ["id": id.uuidString, "text": "  Park at ten?  "], token: ada.token)
            #expect(retry.status == 200 && retry.json["id"] as? String == first.id, "a retry gets the first message")
            let reused = try await server.send(
                .POST, APIPath.messages(chat),
                object: ["id": id.uuidString, "text": "Actually, eleven"], token: ada.token)
            #expect(reused.status == 409 && reused.code == "idempotency_key_reused")
            #expect((reused.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "id")
            let messages = try await server.get(APIPath.messages(chat), token: bob.token, as: Components.Schemas.MessagePage.self)
            #expect(messages.items.map(\.text) == ["Park at ten?"])
        }
    }
}

/// Hands out 0, 1, 2… to requests sent at once, so that each can play another member.
actor Counter {
    private var value = 0
    func next() -> Int {
        defer { value += 1 }
        return value
    }
}
