import Foundation
import NIOWebSocket
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// `/v1/realtime` through real WebSocket clients against the running server: who hears what,
/// catching up after a reconnect, and what is refused.
@Suite struct RealtimeTests {
    /// A WebSocket handshake sent byte by byte (an HTTP client library would not send one), and
    /// the answer's status and problem code.
    func handshake(_ server: TestServer, _ path: String = APIPath.realtime, headers: [(String, String)] = [])
        async throws -> (status: Int, code: String?, field: String?)
    {
        let connection = try RawConnection(port: server.port)
        let host = headers.contains { $0.0 == "Host" } ? [] : ["Host: 127.0.0.1:\(server.port)"]
        let lines =
            ["GET \(path) HTTP/1.1"] + host + [
                "Connection: Upgrade", "Upgrade: websocket",
                "Sec-WebSocket-Version: 13", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            ] + headers.map { "\($0): \($1)" }
        await connection.write(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8))
        guard case .response(let status, _, let body) = await connection.response() else { throw TestFailure("no answer") }
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        return (status, json?["code"] as? String, ((json?["errors"] as? [[String: Any]])?.first)?["field"] as? String)
    }

    /// A fresh access token for the member (after the test's clock jumped past the old one's end).
    func logIn(_ server: TestServer, _ owner: TestServer.Owner) async throws -> String {
        try await server.request(.POST, APIPath.logIn, json: ["email": owner.member.email, "password": owner.member.password])
            .decode(Components.Schemas.Session.self).accessToken
    }

    @Test func aMessageReachesBothMembersSocketsAndNobodyElses() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let chat = try await server.matched(ada, bob).id
            let adas = try await RealtimeTestClient.connect(server, token: ada.token)
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)
            let eves = try await RealtimeTestClient.connect(server, token: eve.token)

            let sent = try await server.say("Park at ten?", from: ada, in: chat)
            let heard = try await bobs.next()
            #expect(heard.eventType == "message")
            #expect(heard.eventData?["id"] as? String == sent.id)
            #expect(heard.eventData?["text"] as? String == "Park at ten?")
            #expect(heard.eventData?["fromMe"] as? Bool == false)
            // and the notification that came with it, for Bob only: the bell's count
            let told = try await bobs.next()
            #expect(
                told.eventType == "notification" && told.eventData?["unreadCount"] as? Int == 3,
                "the request, the match and the message")
            #expect((told.eventData?["notification"] as? [String: Any])?["body"] as? String == "Park at ten?")
            let echoed = try await adas.next()
            #expect(echoed.eventType == "message" && echoed.eventData?["fromMe"] as? Bool == true)
            #expect(try await eves.receivesNothing())

            // Bob reads it: Ada hears how far
            _ = try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": sent.id], token: bob.token)
            let receipt = try await adas.next()
            #expect(receipt.eventType == "read")
            #expect(receipt.eventData?["position"] as? Int == 1 && receipt.eventData?["byMe"] as? Bool == false)
            #expect(try await bobs.next().eventData?["byMe"] as? Bool == true)
            #expect(try await eves.receivesNothing(for: 0.2))
            for client in [adas, bobs, eves] { await client.close() }
        }
    }

    @Test(.enabled(if: TestServer.postgresURL != nil, "two instances share a PostgreSQL database"))
    func aMessageSentThroughOneInstanceReachesASocketHeldByAnother() async throws {
        try await TestServer.run { first in
            try await TestServer.run(sharing: first) { second in
                let ada = try await first.owner("ada", at: TestServer.Place.lyon)
                let bob = try await first.owner("bob", at: TestServer.Place.lyonNorth)
                let chat = try await first.matched(ada, bob).id
                // Bob's phone holds its socket on the second instance; Ada writes through the first
                let bobs = try await RealtimeTestClient.connect(second, token: bob.token)
                let adas = try await RealtimeTestClient.connect(first, token: ada.token)
                try await first.instancesListening(2)
                for text in ["one", "two", "three"] { try await first.say(text, from: ada, in: chat) }
                // each message with the notification it adds to
                let heard = try await bobs.next(6)
                #expect(heard.compactMap { $0.eventData?["text"] as? String } == ["one", "two", "three"])
                #expect(heard.compactMap(\.eventType) == Array(repeating: ["message", "notification"], count: 3).flatMap { $0 })
                #expect(try await adas.next(3).compactMap { $0.eventData?["fromMe"] as? Bool } == [true, true, true])

                // and back: Bob answers through the second instance, Ada's socket on the first hears it
                let reply = try await second.say("four", from: bob, in: chat)
                #expect(try await adas.next().eventData?["id"] as? String == reply.id)
                #expect(try await adas.next().eventType == "notification")
                #expect(try await bobs.next().eventData?["text"] as? String == "four")
                #expect(try await bobs.receivesNothing(), "each event once")
                #expect(try await adas.receivesNothing(for: 0.1), "each event once")
                for client in [adas, bobs] { await client.close() }
            }
        }
    }

    @Test func aLikeAndAMatchRaiseTheirEvents() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let adas = try await RealtimeTestClient.connect(server, token: ada.token)
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)

            _ = try await server.like(ada, bob)
            let request = try await bobs.next()
            #expect(request.eventType == "match_request")
            #expect((request.eventData?["fromPet"] as? [String: Any])?["name"] as? String == "Ada's dog")
            let told = try await bobs.next()
            #expect((told.eventData?["notification"] as? [String: Any])?["kind"] as? String == "match_request")
            #expect(try await adas.receivesNothing(for: 0.2), "the one who liked is not told of her own like")

            _ = try await server.like(bob, ada)
            let (adaHeard, bobHeard) = (try await adas.next(), try await bobs.next())
            #expect(adaHeard.eventType == "match" && bobHeard.eventType == "match")
            for client in [adas, bobs] {
                #expect((try await client.next().eventData?["notification"] as? [String: Any])?["kind"] as? String == "match")
            }
            let chat = try await server.get(APIPath.chats, token: ada.token, as: Components.Schemas.ChatPage.self).items.first?.id
            #expect(adaHeard.eventData?["chatId"] as? String == chat)
            #expect(((adaHeard.eventData?["match"] as? [String: Any])?["myPet"] as? [String: Any])?["name"] as? String == "Ada's dog")
            #expect(((bobHeard.eventData?["match"] as? [String: Any])?["myPet"] as? [String: Any])?["name"] as? String == "Bob's dog")
            for client in [adas, bobs] { await client.close() }
        }
    }

    @Test func aReconnectWithTheLastIDGetsExactlyWhatItMissedThenLiveEvents() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let first = try await RealtimeTestClient.connect(server, token: bob.token)
            try await server.say("one", from: ada, in: chat)
            let lastSeen = try #require(try await first.next().eventID)
            await first.close()

            // while Bob is away, the notification of "one" and three messages with theirs
            for text in ["two", "three", "four"] { try await server.say(text, from: ada, in: chat) }
            let again = try await RealtimeTestClient.connect(server, token: bob.token, after: lastSeen)
            let missed = try await again.next(7)
            #expect(missed.compactMap { $0.eventData?["text"] as? String } == ["two", "three", "four"])
            #expect(missed.compactMap(\.eventID) == Array(lastSeen + 1...lastSeen + 7))
            #expect(missed.compactMap(\.eventType) == ["notification"] + Array(repeating: ["message", "notification"], count: 3).flatMap { $0 })
            let counted = missed.last?.eventData?["notification"] as? [String: Any]
            #expect(counted?["count"] as? Int == 4, "a chat's unread messages share one notification")
            try await server.say("five", from: ada, in: chat)
            let live = try await again.next()
            #expect(live.eventData?["text"] as? String == "five" && live.eventID == lastSeen + 8)
            #expect(try await again.next().eventType == "notification")
            #expect(try await again.receivesNothing(), "nothing twice")

            // from the start: everything kept, in order (Ada's request, the match, five messages,
            // each with its notification)
            let all = try await RealtimeTestClient.connect(server, token: bob.token, after: 0)
            let everything = try await all.next(14)
            #expect(
                everything.compactMap(\.eventType)
                    == (["match_request", "match"] + Array(repeating: "message", count: 5))
                    .flatMap { [$0, "notification"] })
            #expect(everything.compactMap(\.eventID) == Array(1...14))
            // an id the server never gave: start over
            let future = try await RealtimeTestClient.connect(server, token: bob.token, after: 1_000)
            #expect(try await future.next().eventType == "resync")
            for client in [again, all, future] { await client.close() }
        }
    }

    @Test func eventsOlderThanTheRetentionAreForgottenAndAnAppSoFarBehindIsToldToResync() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            try await server.say("old news", from: ada, in: chat)
            server.clock.advance(by: 8 * 86_400)
            var adaNow = ada
            adaNow.member.accessToken = try await logIn(server, ada)
            try await server.say("fresh", from: adaNow, in: chat)
            try await server.app.pawpack.realtime.forgetOld(retention: server.config.eventRetention, on: server.app.db)

            let behind = try await RealtimeTestClient.connect(server, token: try await logIn(server, bob), after: 0)
            #expect(try await behind.next().eventType == "resync")
            #expect(try await behind.next().eventData?["text"] as? String == "fresh")
            await behind.close()
        }
    }

    @Test func anAppAwayLongerThanTheRetentionStartsOverThenGetsEverythingKeptInOrder() async throws {
        try await TestServer.run(adjust: { $0.messagesPerMinute = 1_000 }) { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            // Bob's events: the request and the match (1–4), "old news" (5, 6); he saw up to 5
            try await server.say("old news", from: ada, in: chat)
            server.clock.advance(by: 8 * 86_400)
            try await server.app.pawpack.realtime.forgetOld(retention: server.config.eventRetention, on: server.app.db)
            var adaNow = ada
            adaNow.member.accessToken = try await logIn(server, ada)
            let bobsToken = try await logIn(server, bob)

            // every event after his id is gone: he is told to start over, then hears what comes
            let away = try await RealtimeTestClient.connect(server, token: bobsToken, after: 5)
            #expect(try await away.next().eventType == "resync")
            try await server.say("fresh", from: adaNow, in: chat)
            let fresh = try await away.next()
            #expect(fresh.eventData?["text"] as? String == "fresh" && fresh.eventID == 7)
            await away.close()

            // more than a page of events kept after those forgotten: all of them, in order
            for number in 1...55 { try await server.say("\(number)", from: adaNow, in: chat) }
            let behind = try await RealtimeTestClient.connect(server, token: bobsToken, after: 3)
            #expect(try await behind.next().eventType == "resync")
            let kept = try await behind.next(112)
            #expect(kept.compactMap(\.eventID) == Array(7...118))
            #expect(kept.compactMap { $0.eventData?["text"] as? String } == ["fresh"] + (1...55).map { "\($0)" })
            #expect(try await behind.receivesNothing(for: 0.2))
            await behind.close()
        }
    }

    @Test func aBlockClosesTheChatLiveAndNothingMoreReachesTheBlockedMember() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: ada.token).status == 204)
            let closed = try await bobs.next()
            #expect(closed.eventType == "chat_closed" && closed.eventData?["chatId"] as? String == chat)

            // whatever Ada tries now, Bob hears nothing
            _ = try await server.send(.POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": "psst"], token: ada.token)
            _ = try await server.swipe(ada, on: bob)
            #expect(try await bobs.receivesNothing())
            await bobs.close()
        }
    }

    @Test func theSocketIsRefusedWithoutASessionWithABadIDAndBeyondTheLimit() async throws {
        try await TestServer.run(adjust: { $0.socketsPerMember = 2 }) { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let anonymous = try await handshake(server)
            #expect(anonymous.status == 401 && anonymous.code == "unauthenticated")
            #expect(try await handshake(server, headers: [("Authorization", "Bearer not-a-token")]).status == 401)
            let badAfter = try await handshake(server, "/v1/realtime?after=-3", headers: [("Authorization", "Bearer \(ada.token)")])
            #expect(badAfter.status == 422 && badAfter.field == "after")
            let plain = try await server.request(.GET, APIPath.realtime, token: ada.token)
            #expect(plain.status == 426 && plain.code == "upgrade_required")

            // a web page of another site cannot use a member's cookie; one of ours can
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let cookie = try #require(browser.cookieHeader)
            let crossSite = try await handshake(server, headers: [("Cookie", cookie), ("Origin", "https://evil.example")])
            #expect(crossSite.status == 401)
            let noOrigin = try await handshake(server, headers: [("Cookie", cookie)])
            #expect(noOrigin.status == 401)
            // the Host header is the requester's to choose: an origin that only matches it is not ours
            let rebound = try await handshake(
                server,
                headers: [
                    ("Cookie", cookie), ("Origin", "http://rebound.example:\(server.port)"),
                    ("Host", "rebound.example:\(server.port)"),
                ])
            #expect(rebound.status == 401)
            #expect(
                try await handshake(server, headers: [("Cookie", cookie), ("Origin", "https://pawpack.test")]).status == 401,
                "another scheme is another origin")
            let ours = try await handshake(server, headers: [("Cookie", cookie), ("Origin", server.config.publicBaseURL)])
            #expect(ours.status == 101)
            #expect(
                try await handshake(server, headers: [("Cookie", cookie), ("Origin", "http://PAWPACK.test:80")]).status == 101,
                "the same origin, written with its default port")

            let first = try await RealtimeTestClient.connect(server, token: ada.token)
            let second = try await RealtimeTestClient.connect(server, token: ada.token)
            try await Self.waitUntil(server, has: 2, socketsOf: ada)
            #expect(try await handshake(server, headers: [("Authorization", "Bearer \(ada.token)")]).status == 429)
            await first.close()
            try await Self.waitUntil(server, has: 1, socketsOf: ada)
            let again = try await RealtimeTestClient.connect(server, token: ada.token)
            await again.close()
            await second.close()
        }
    }

    @Test func stoppingTheServerClosesEverySocketAsGoingAway() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let phone = try await RealtimeTestClient.connect(server, token: ada.token)
            let laptop = try await RealtimeTestClient.connect(server, token: ada.token)
            try await Self.waitUntil(server, has: 2, socketsOf: ada)
            await server.app.pawpack.realtime.hub.closeAll()
            #expect(try await phone.closedByServer() == .goingAway)
            #expect(try await laptop.closedByServer() == .goingAway)
            #expect(await server.app.pawpack.realtime.hub.count(of: ada.member.userID) == 0)
            // a socket whose upgrade finishes as the server stops is not kept open either
            let late = try await RealtimeTestClient.connect(server, token: ada.token)
            #expect(try await late.closedByServer() == .goingAway)
            #expect(await server.app.pawpack.realtime.hub.count(of: ada.member.userID) == 0)
        }
    }

    /// Until the server holds `count` sockets of the member (a socket registers just after its
    /// upgrade is answered).
    static func waitUntil(_ server: TestServer, has count: Int, socketsOf owner: TestServer.Owner) async throws {
        let hub = server.app.pawpack.realtime.hub
        let deadline = ContinuousClock.now + .seconds(5)
        var held = await hub.count(of: owner.member.userID)
        while held != count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            held = await hub.count(of: owner.member.userID)
        }
        guard held == count else { throw TestFailure("\(held) sockets held, not \(count)") }
    }

    @Test func aSocketThatFallsTooFarBehindIsClosedAndCatchesUpOnReconnect() async throws {
        try await TestServer.run(adjust: { $0.socketSendQueueLimit = 4 }) { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)
            let me = bob.member.userID
            var registered: RealtimeConnection?
            for _ in 0..<200 where registered == nil {
                registered = await server.app.pawpack.realtime.hub.connections(of: me).first
                try await Task.sleep(for: .milliseconds(10))
            }
            let connection = try #require(registered)

            // more events at once than the socket may hold waiting: it is closed as too slow
            let events = (1...10).map { number in
                StoredRealtimeEvent(user: me, seq: 1_000 + Int64(number), kind: "message", payload: "{}", createdAt: Date())
            }
            connection.offer(events)
            #expect(try await bobs.closedByServer() == .unknown(4001))

            // and on reconnect it reads what it missed from the kept events
            try await server.say("still there?", from: ada, in: chat)
            // (after the request, the match and their notifications)
            let back = try await RealtimeTestClient.connect(server, token: bob.token, after: 4)
            #expect(try await back.next().eventData?["text"] as? String == "still there?")
            await back.close()
        }
    }
}
