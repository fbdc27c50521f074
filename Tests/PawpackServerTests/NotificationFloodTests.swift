import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Nobody can flood another member's inbox and phone by repeating an action: a repeat brings
/// the unread notification up to date, and new ones are limited per sender and in all
/// (`NotificationPolicy`).
@Suite struct NotificationFloodTests {
    static func pushesWaiting(_ server: TestServer, for owner: TestServer.Owner) async throws -> Int {
        try await PushOutboxRecord.query(on: server.app.db).filter(\.$userID == owner.member.userID).count()
    }

    func withDevice(_ server: TestServer, _ owner: TestServer.Owner) async throws {
        let device = try await server.send(
            .POST, APIPath.devices,
            object: [
                "platform": "apns", "token": PushTests.apnsToken, "appId": "org.pawpack.app",
            ], token: owner.token)
        #expect(device.status == 201)
    }

    @Test func aLikeUndoneAndGivenAgainThirtyTimesNotifiesAndPushesOnce() async throws {
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob) = try await server.adaAndBob()
            try await withDevice(server, ada)
            let socket = try await RealtimeTestClient.connect(server, token: ada.token)
            try await RealtimeTests.waitUntil(server, has: 1, socketsOf: ada)
            for _ in 0..<30 {
                _ = try await server.like(bob, ada)
                #expect(try await server.request(.POST, APIPath.undoSwipe(bob.dogID), token: bob.token).status == 204)
            }
            _ = try await server.like(bob, ada)
            #expect(try await server.unreadCount(of: ada) == 1)
            #expect(try await Self.pushesWaiting(server, for: ada) == 1)
            // her app heard of each request, and of one notification
            var notifications = 0
            while let event = try? await socket.next(within: 0.5) {
                if event.eventType == "notification" { notifications += 1 }
            }
            #expect(notifications == 1)
            // the entry says the latest request
            let inbox = try await server.request(.GET, APIPath.notifications, token: ada.token).json["items"] as? [[String: Any]]
            #expect(inbox?.count == 1 && inbox?.first?["kind"] as? String == "match_request")
            await socket.close()
        }
    }

    @Test func aMeetupProposedAndCancelledTwentyTimesNotifiesOnce() async throws {
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob) = try await server.adaAndBob()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let chat = try await server.matched(ada, bob).id
            _ = try await server.request(.POST, APIPath.readAllNotifications, token: bob.token)
            let before = try await server.unreadCount(of: bob)
            for _ in 0..<20 {
                let id = try await server.propose(ada, in: chat).json["id"] as? String ?? ""
                #expect(try await server.request(.POST, APIPath.meetup(id, "cancel"), token: ada.token).status == 200)
            }
            #expect(try await server.unreadCount(of: bob) == before + 1)
        }
    }

    @Test func newNotificationsAreLimitedPerSenderAndInAll() async throws {
        try await TestServer.run(adjust: {
            $0.push.interval = .seconds(3_600)
            $0.notifications.coalesceWindow = 0
            $0.notifications.perSenderPerMinute = 3
            $0.notifications.perRecipientPerMinute = 5
        }) { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            try await withDevice(server, ada)
            for sender in [bob, eve] {
                for _ in 0..<6 {
                    _ = try await server.like(sender, ada)
                    #expect(try await server.request(.POST, APIPath.undoSwipe(sender.dogID), token: sender.token).status == 204)
                }
            }
            // three from Bob, then two from Eve reach the limit in all
            #expect(try await server.unreadCount(of: ada) == 5)
            #expect(try await Self.pushesWaiting(server, for: ada) == 5)
            // a minute later there is room again
            server.clock.advance(by: 61)
            let again = try await server.signedInAgain(eve)
            _ = try await server.like(again, ada)
            #expect(try await server.unreadCount(of: try await server.signedInAgain(ada)) == 6)
        }
    }
}
