import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

/// The inbox through the HTTP API and the realtime socket: requests, matches and messages make
/// notifications (a chat's messages share one while unread), reading the chat reads it, one or
/// all can be marked read, and a muted kind makes none.
@Suite struct NotificationsAPITests {
    typealias Page = Components.Schemas.NotificationPage

    func inbox(_ server: TestServer, _ owner: TestServer.Owner, query: String = "") async throws -> Page {
        try await server.get("/v1/notifications\(query)", token: owner.token, as: Page.self)
    }

    @Test func theInboxCollectsRequestsMatchesAndMessagesOnePerChatWhileUnread() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)

            _ = try await server.like(ada, bob)
            var page = try await inbox(server, bob)
            #expect(page.items.map(\.kind) == [.matchRequest] && page.unreadCount == 1)
            #expect(page.items.first?.body == "Ada's dog would like to play with Bob's dog." && page.items.first?.petId == ada.dogID)
            #expect(try await inbox(server, ada).items.isEmpty, "nobody is told of their own like")

            server.clock.advance(by: 1) // the inbox is newest first
            _ = try await server.like(bob, ada)
            server.clock.advance(by: 1)
            let chat = try #require(try await server.get(APIPath.chats, token: bob.token, as: Components.Schemas.ChatPage.self).items.first)
            let adas = try await inbox(server, ada)
            #expect(adas.items.map(\.kind) == [.match] && adas.items.first?.chatId == chat.id)

            // three messages: one notification that counts them and says the latest
            for text in ["Hi Bob", "Park?", "At ten\nby the lake"] { try await server.say(text, from: ada, in: chat.id) }
            page = try await inbox(server, bob)
            #expect(page.items.map(\.kind) == [.message, .match, .matchRequest])
            #expect(page.items.first?.count == 3 && page.items.first?.body == "At ten by the lake")
            #expect(page.items.first?.title == "Ada (Ada's dog)" && page.unreadCount == 3)

            // the socket told Bob's app each time, with the bell's count
            var counts: [Int] = []
            for _ in 0..<10 {
                let event = try await bobs.next()
                if event.eventType == "notification", let count = event.eventData?["unreadCount"] as? Int { counts.append(count) }
                if counts.count == 5 { break }
            }
            #expect(counts == [1, 2, 3, 3, 3])

            // pages, newest first
            let first = try await inbox(server, bob, query: "?limit=2")
            let rest = try await inbox(server, bob, query: "?limit=2&cursor=\(try #require(first.nextCursor))")
            #expect(first.items.map(\.kind) + rest.items.map(\.kind) == [.message, .match, .matchRequest] && rest.nextCursor == nil)
            #expect(try await server.request(.GET, "/v1/notifications?cursor=nonsense", token: bob.token).status == 422)

            // reading the chat to its end reads its notification; a new message makes a new one
            let last = try #require(
                try await server.get(
                    "/v1/chats/\(chat.id)/messages?limit=1", token: bob.token,
                    as: Components.Schemas.MessagePage.self
                ).items.first)
            #expect(try await server.send(.POST, APIPath.chatRead(chat.id), object: ["messageId": last.id], token: bob.token).status == 204)
            page = try await inbox(server, bob)
            #expect(page.unreadCount == 2 && page.items.first?.read == true)
            server.clock.advance(by: 1)
            try await server.say("Still on?", from: ada, in: chat.id)
            page = try await inbox(server, bob)
            #expect(page.items.map(\.count) == [1, 3, 1, 1] && page.unreadCount == 3)

            // one, then all; someone else's is a 404 and stays unread
            let request = try #require(page.items.first { $0.kind == .matchRequest })
            #expect(try await server.request(.POST, APIPath.readNotification(request.id), token: eve.token).status == 404)
            #expect(try await inbox(server, bob).unreadCount == 3)
            #expect(try await server.request(.POST, APIPath.readNotification(request.id), token: bob.token).status == 204)
            #expect(try await inbox(server, bob).unreadCount == 2)
            #expect(try await server.request(.POST, APIPath.readAllNotifications, token: bob.token).status == 204)
            #expect(try await inbox(server, bob).unreadCount == 0)
            #expect(try await server.request(.GET, APIPath.notifications).status == 401)
            await bobs.close()
        }
    }

    @Test func aMutedKindMakesNoNotificationButTheEventsStillCome() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let muted = try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["message", "review"]], token: bob.token)
            #expect(muted.status == 200)
            #expect(try muted.decode(Components.Schemas.NotificationSettings.self).muted == [.message, .review])
            let unknown = try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["gossip"]], token: bob.token)
            #expect(unknown.status == 400 || unknown.status == 422)
            #expect(
                try await server.get(
                    APIPath.notificationSettings, token: bob.token,
                    as: Components.Schemas.NotificationSettings.self
                ).muted == [.message, .review])

            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)
            try await server.say("Hello", from: ada, in: chat)
            #expect(try await bobs.next().eventType == "message")
            #expect(try await bobs.receivesNothing(), "no notification event either")
            #expect(Set(try await inbox(server, bob).items.map(\.kind)) == [.matchRequest, .match], "only what came before the mute")
            await bobs.close()
        }
    }
}
