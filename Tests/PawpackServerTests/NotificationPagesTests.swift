import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// The inbox on the web: what it says of each notification, and the kinds a member hears about.
@Suite struct NotificationPagesTests {
    @Test func theInboxNamesTheOwnerShowsTheTimeAndMutesTheKindsLeftUnticked() async throws {
        try await TestServer.run { server in
            // given Ada and Bob matched and vaccinated, and Ada proposing a meet-up
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            #expect(try await server.propose(ada, in: chat, hours: 30, place: "Parc Blandan").status == 201)
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)

            // when Bob opens his inbox, the proposal says who, in one word, with its day and time
            let inbox = try await bobs.get("/notifications")
            #expect(inbox.html.contains("<strong>Meet-up proposed</strong>"))
            #expect(inbox.html.contains("Ada (Ada&#39;s dog) would like to meet Bob&#39;s dog at Parc Blandan."))
            #expect(inbox.html.contains(#"data-style="full""#))
            #expect(!inbox.html.lowercased().contains("playdate proposed"))
            // and every kind is ticked
            for kind in NotificationKind.allCases {
                #expect(
                    inbox.html.contains(#"id="hear-\#(kind.rawValue)" checked"#)
                        || inbox.html.contains(#"id="hear-\#(kind.rawValue)" checked="checked""#), "\(kind)")
            }

            // when he unticks messages and saves
            let kept = NotificationKind.allCases.filter { $0 != .message }.map(\.rawValue)
            let saved = try await bobs.post("/notifications/settings", fields: kept.map { ("hear[]", $0) })
            #expect(saved.location == "/notifications?flash=notification-settings")

            // then a message from Ada adds nothing to his inbox, and the form remembers
            try await server.say("See you there", from: ada, in: chat)
            let after = try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
            #expect(!after.items.contains { $0.kind == .message })
            #expect(!(try await bobs.get("/notifications").html.contains(#"id="hear-message" checked"#)))
            let muted = try await server.get(APIPath.notificationSettings, token: bob.token, as: Components.Schemas.NotificationSettings.self)
            #expect(muted.muted == [.message])
        }
    }

    @Test func whatOthersInboxesSaidOfAMemberGoesWithTheirAccount() async throws {
        try await TestServer.run { server in
            // given Ada and Bob matched, Bob wrote, and Cyd's dog asked Ada's to play
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            try await server.say("Hello Ada!", from: bob, in: chat)
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            _ = try await server.like(cyd, ada)
            let before = try await server.get(APIPath.notifications, token: ada.token, as: Components.Schemas.NotificationPage.self)
            #expect(Set(before.items.map(\.kind)) == [.match, .message, .matchRequest])

            // when Bob deletes his account
            let deleted = try await server.request(.DELETE, APIPath.me, json: ["password": bob.member.password], token: bob.token)
            #expect(deleted.status == 204)

            // then Ada's inbox keeps nothing that spoke of him or his dog; Cyd's request stays
            let after = try await server.get(APIPath.notifications, token: ada.token, as: Components.Schemas.NotificationPage.self)
            #expect(after.items.map(\.kind) == [.matchRequest])
            #expect(after.items.allSatisfy { !$0.body.contains("Bob") && !$0.title.contains("Bob") })
        }
    }
}
