import Crypto
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Devices and pushes: registered through the API, written with their notification, sent by
/// the worker to local HTTPS services that check every request as APNs, FCM and a browser's
/// push service document them, tried again after 5xx, dropped after their deadline, and never
/// sent for a message its owner saw in the app.
@Suite struct PushTests {
    static let apnsToken = String(repeating: "ab", count: 32)

    func register(
        _ server: TestServer, _ owner: TestServer.Owner, platform: String = "apns",
        token: String = PushTests.apnsToken, appId: String = "org.pawpack.app"
    ) async throws -> TestServer.Reply {
        try await server.send(
            .POST, APIPath.devices, object: ["platform": platform, "token": token, "appId": appId],
            token: owner.token)
    }

    func deliver(_ server: TestServer) async {
        await server.app.pawpack.push.deliverDue(on: server.app.db)
    }

    func waiting(_ server: TestServer) async throws -> Int {
        try await PushOutboxRecord.query(on: server.app.db).count()
    }

    @Test func aDeviceIsRegisteredOncePerTokenAndOnlyItsOwnerUnregistersIt() async throws {
        // No worker rounds after the first: the test reads the pushes waiting.
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob) = try await server.adaAndBob()

            // registered, then the same token again is the same device
            let first = try await register(server, ada)
            #expect(first.status == 201, "\(first.text)")
            let device = try first.decode(Components.Schemas.Device.self)
            #expect(device.platform == .apns && device.appId == "org.pawpack.app" && device.environment == .production)
            let again = try await register(server, ada)
            #expect(try again.status == 200 && (again.decode(Components.Schemas.Device.self)).id == device.id)
            #expect(try await server.get(APIPath.devices, token: ada.token, as: Components.Schemas.DeviceList.self).items.count == 1)

            // a bad token or app id is refused, naming the field, and changes nothing
            let bad = try await register(server, ada, token: "not hex")
            #expect(bad.status == 422 && bad.json["errors"].debugDescription.contains("token"))
            let noApp = try await register(server, ada, platform: "fcm", token: "fcm-token", appId: "")
            #expect(noApp.status == 422 && noApp.json["errors"].debugDescription.contains("appId"))
            #expect(try await server.get(APIPath.devices, token: ada.token, as: Components.Schemas.DeviceList.self).items.count == 1)

            // Bob cannot remove Ada's device: the same 404 as a device that does not exist
            let foreign = try await server.request(.DELETE, APIPath.device(device.id), token: bob.token)
            let missingID = UUID().uuidString.lowercased()
            let missing = try await server.request(.DELETE, APIPath.device(missingID), token: bob.token)
            // (each names its own address in `instance`; nothing else differs)
            #expect(
                foreign.status == 404
                    && foreign.text.replacingOccurrences(of: "\(device.id)", with: "ID")
                        == missing.text.replacingOccurrences(of: "\(missingID)", with: "ID"),
                "\(foreign.text) \(missing.text)")

            // the phone handed to Bob: the token moves to him, Ada's pending pushes with it do not
            _ = try await server.like(bob, ada)
            #expect(try await waiting(server) == 1)
            let moved = try await register(server, bob)
            #expect(moved.status == 201)
            #expect(try await server.get(APIPath.devices, token: ada.token, as: Components.Schemas.DeviceList.self).items.isEmpty)
            #expect(try await waiting(server) == 0, "Ada's push must never reach the phone now Bob's")

            // unregistered by its owner
            let bobs = try moved.decode(Components.Schemas.Device.self)
            #expect(try await server.request(.DELETE, APIPath.device(bobs.id), token: bob.token).status == 204)
            #expect(try await server.get(APIPath.devices, token: bob.token, as: Components.Schemas.DeviceList.self).items.isEmpty)
        }
    }

    @Test func aServerWithAPNsTakesDevicesOfItsOwnAppsOnly() async throws {
        try await LocalAPNs.run(clock: PinnedClock(TestServer.startDate)) { apns in
            try await TestServer.run(adjust: { config in
                config.environment = .production
                config.push.apns = apns.settings
            }) { server in
                let ada = try await server.owner("ada", at: TestServer.Place.lyon)
                #expect(try await register(server, ada).status == 201)
                let other = try await register(server, ada, token: String(repeating: "cd", count: 32), appId: "com.example.other")
                #expect(other.status == 422 && other.json["errors"].debugDescription.contains("appId"))
                let fcm = try await register(server, ada, platform: "fcm", token: "fcm-token", appId: "123")
                #expect(fcm.status == 422, "no FCM is set up on this server")
            }
        }
    }

    @Test func apnsGetsEachPushAsAppleDocumentsItWithAProviderTokenMadeEvery50Minutes() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalAPNs.run(clock: clock) { apns in
            try await TestServer.run(adjust: { $0.push.apns = apns.settings }) { server in
                let (ada, bob) = try await server.adaAndBob()
                #expect(try await register(server, ada).status == 201)

                // when Bob's dog likes Ada's, her phone is told
                _ = try await server.like(bob, ada)
                await deliver(server)
                let first = try #require(apns.all.first)
                #expect(apns.all.count == 1 && first.token == Self.apnsToken)
                #expect(first.headers["apns-topic"] == "org.pawpack.app" && first.headers["apns-push-type"] == "alert")
                #expect(first.headers["apns-priority"] == "10" && UUID(uuidString: first.headers["apns-id"] ?? "") != nil)
                let aps = try #require(first.payload["aps"] as? [String: any Sendable])
                let alert = try #require(aps["alert"] as? [String: any Sendable])
                #expect(alert["body"] as? String == "Bob's dog would like to play with Ada's dog.")
                #expect(aps["badge"] as? Int == 1 && first.payload["path"] as? String == "/playdates/requests")
                #expect(try await waiting(server) == 0)

                // the match a minute later goes with the same provider token
                server.clock.advance(by: 60)
                clock.advance(by: 60)
                _ = try await server.like(ada, bob)
                await deliver(server)
                #expect(apns.all.count == 2 && apns.all[1].providerToken == first.providerToken)

                // 51 minutes on, a new one (APNs refuses one an hour old); a message's push
                // first waits for an acknowledgement that does not come
                server.clock.advance(by: 51 * 60)
                clock.advance(by: 51 * 60)
                let bobAgain = try await server.signedInAgain(bob)
                let chat = try #require(
                    try await server.get(
                        APIPath.chats, token: bobAgain.token,
                        as: Components.Schemas.ChatPage.self
                    ).items.first)
                try await server.say("Park at ten?", from: bobAgain, in: chat.id)
                server.clock.advance(by: 4)
                clock.advance(by: 4)
                await deliver(server)
                try #require(apns.all.count == 3)
                #expect(apns.all[2].providerToken != first.providerToken)
                #expect(apns.all[2].headers["apns-collapse-id"] == chat.id)
                let third = try #require(apns.all[2].payload["aps"] as? [String: any Sendable])
                #expect((third["alert"] as? [String: any Sendable])?["body"] as? String == "Park at ten?")
                #expect(third["thread-id"] as? String == chat.id)
            }
        }
    }

    @Test func aGoneTokenIsForgottenAServerErrorIsRetriedLaterAndAPushTooLateIsDropped() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalAPNs.run(clock: clock) { apns in
            try await TestServer.run(adjust: { $0.push.apns = apns.settings }) { server in
                let (ada, bob) = try await server.adaAndBob()
                let gone = String(repeating: "0f", count: 32)
                #expect(try await register(server, ada).status == 201)
                #expect(try await register(server, ada, token: gone).status == 201)
                apns.replies.script(gone, [(410, #"{"reason":"Unregistered","timestamp":1772366400000}"#, [])])
                apns.replies.script(Self.apnsToken, [(503, #"{"reason":"ServiceUnavailable"}"#, [])])

                _ = try await server.like(bob, ada)
                await deliver(server)
                // the gone token's device is forgotten; the other push waits for its next try
                let devices = try await server.get(APIPath.devices, token: ada.token, as: Components.Schemas.DeviceList.self)
                #expect(devices.items.count == 1)
                let waitingNow = try await waiting(server)
                #expect(apns.all.isEmpty && waitingNow == 1)
                await deliver(server)
                #expect(apns.all.isEmpty, "not before its delay")

                // 5 seconds (±20 %) later it goes
                server.clock.advance(by: 7)
                clock.advance(by: 7)
                await deliver(server)
                let waitingAfter = try await waiting(server)
                #expect(apns.all.count == 1 && waitingAfter == 0)

                // a push that fails until its deadline (a day) is dropped, not tried for ever
                apns.replies.script(Self.apnsToken, Array(repeating: (503, #"{"reason":"ServiceUnavailable"}"#, []), count: 40))
                _ = try await server.like(ada, bob)
                await deliver(server)
                #expect(try await waiting(server) == 1 && apns.replies.remaining(for: Self.apnsToken) == 39)
                server.clock.advance(by: 25 * 3_600)
                clock.advance(by: 25 * 3_600)
                await deliver(server)
                #expect(try await waiting(server) == 0 && apns.all.count == 1)
                #expect(apns.replies.remaining(for: Self.apnsToken) == 39, "a push past its deadline is not tried again")
            }
        }
    }

    @Test func fcmGetsOneAccessTokenForManyPushesAndAnUnregisteredTokenIsForgotten() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalFCM.run(clock: clock) { fcm in
            try await TestServer.run(adjust: { $0.push.fcm = fcm.settings }) { server in
                let (ada, bob) = try await server.adaAndBob()
                #expect(try await register(server, ada, platform: "fcm", token: "ada-phone", appId: fcm.senderID).status == 201)
                #expect(try await register(server, ada, platform: "fcm", token: "ada-old-phone", appId: fcm.senderID).status == 201)
                fcm.replies.script("ada-old-phone", [LocalFCM.unregistered])

                _ = try await server.like(bob, ada)
                await deliver(server)
                #expect(fcm.all.count == 1 && fcm.tokensIssued == 1)
                let message = try #require(fcm.all.first?.message)
                #expect(message["token"] as? String == "ada-phone")
                #expect((message["notification"] as? [String: any Sendable])?["title"] as? String == "New playdate request")
                #expect((message["data"] as? [String: any Sendable])?["path"] as? String == "/playdates/requests")
                let devices = try await server.get(APIPath.devices, token: ada.token, as: Components.Schemas.DeviceList.self)
                #expect(devices.items.count == 1, "the unregistered token's device is forgotten")

                // a second push reuses the access token; an outage is retried
                fcm.replies.script("ada-phone", [LocalFCM.unavailable])
                server.clock.advance(by: 60)
                clock.advance(by: 60)
                _ = try await server.like(ada, bob)
                await deliver(server)
                let waitingNow = try await waiting(server)
                #expect(fcm.all.count == 1 && waitingNow == 1)
                server.clock.advance(by: 7)
                clock.advance(by: 7)
                await deliver(server)
                #expect(fcm.all.count == 2 && fcm.tokensIssued == 1 && fcm.all[1].accessToken == fcm.all[0].accessToken)
            }
        }
    }

    @Test func webPushArrivesEncryptedWithVAPIDAndAnEndedSubscriptionIsForgotten() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalWebPush.run(clock: clock) { browser in
            try await TestServer.run(adjust: { $0.push.webPushHosts = [browser.host] }) { server in
                let (ada, bob) = try await server.adaAndBob()
                let services = server.app.pawpack
                // the inbox page's script subscribes this browser, with the page's CSRF token
                let page = try await TestBrowser.signedIn(server, as: ada.member)
                _ = try await page.get("/notifications")
                func subscribe(_ endpoint: String, _ keys: (p256dh: String, auth: String)) async throws -> TestBrowser.Page {
                    try await page.post("/notifications/push", ["endpoint": endpoint, "p256dh": keys.p256dh, "auth": keys.auth])
                }
                for name in ["phone", "old-laptop"] {
                    let subscription = browser.subscription(name)
                    #expect(try await subscribe(subscription.endpoint, (subscription.p256dh, subscription.auth)).status == 201)
                }
                let again = browser.subscription("phone")
                #expect(try await subscribe(again.endpoint, (again.p256dh, again.auth)).status == 200, "the same browser is one device")
                browser.replies.script("old-laptop", [(410, "", [])])

                _ = try await server.like(bob, ada)
                await deliver(server)
                let received = try #require(browser.all.first)
                #expect(browser.all.count == 1)
                #expect(received.payload["title"] as? String == "New playdate request")
                #expect(received.payload["path"] as? String == "/playdates/requests")
                #expect(received.vapidKey == services.push.providers.vapidPublicKey)
                #expect(received.headers["urgency"] == "normal" && Int(received.headers["ttl"] ?? "") ?? 0 > 0)
                let devices = try await services.devices.devices(of: ada.member.userID, on: server.app.db)
                #expect(devices.count == 1, "the ended subscription is forgotten")

                // an endpoint that is not a known push service is refused: the server would post there
                let keys = browser.subscription()
                let inside = try await subscribe("https://10.0.0.1/internal", (keys.p256dh, keys.auth))
                #expect(inside.status == 422 && inside.html.contains("known push service"))
                #expect(try await services.devices.devices(of: ada.member.userID, on: server.app.db).count == 1)

                // and turning notifications off forgets this browser
                let phone = browser.subscription("phone")
                #expect(try await page.post("/notifications/push/off", ["endpoint": phone.endpoint]).status == 204)
                #expect(try await services.devices.devices(of: ada.member.userID, on: server.app.db).isEmpty)
            }
        }
    }

    @Test func aMessageSeenInTheAppIsNotPushedButOneMissedIs() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let chat = try await server.matched(ada, bob)
            #expect(try await register(server, bob).status == 201)
            let log = try #require(server.app.pawpack.push.providers.developmentLog)
            await deliver(server)
            let before = log.all.count

            // Bob's app is open: it acknowledges the message's notification event
            let socket = try await RealtimeTestClient.connect(server, token: bob.token)
            try await server.say("Park at ten?", from: ada, in: chat.id)
            var acknowledged: Int64 = 0
            for _ in 0..<5 {
                let event = try await socket.next()
                if event.eventType == "notification", let id = event["id"] as? Int {
                    acknowledged = Int64(id)
                    break
                }
            }
            try await socket.send(#"{"type":"ack","id":\#(acknowledged)}"#)
            #expect(try await server.acknowledged(bob.member.userID, reaching: acknowledged), "the acknowledgement was never written")
            server.clock.advance(by: 4)
            await deliver(server)
            #expect(log.all.count == before, "a message seen in the app does not buzz the phone too")
            #expect(try await waiting(server) == 0)
            await socket.close()

            // the app closed: the next message is pushed once no socket acknowledged it in time
            try await server.say("Or at eleven?", from: ada, in: chat.id)
            await deliver(server)
            #expect(log.all.count == before, "a message waits a few seconds for an acknowledgement")
            server.clock.advance(by: 4)
            await deliver(server)
            let pushed = try #require(log.all.last)
            #expect(log.all.count == before + 1 && pushed.message.kind == .message)
            #expect(pushed.message.body == "Or at eleven?" && pushed.message.collapseKey == chat.id)
            #expect(pushed.message.path == "/chats/\(chat.id)")
        }
    }

    @Test func inDevelopmentPushesAreListedOnDevPush() async throws {
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth, dog: ["name": "<b>Rex</b>"])
            #expect(try await register(server, ada).status == 201)
            _ = try await server.like(bob, ada)
            await deliver(server)
            let page = try await TestBrowser(server).get("/dev/push")
            #expect(page.status == 200 && page.html.contains("New playdate request"))
            #expect(page.html.contains("&lt;b&gt;Rex&lt;/b&gt; would like to play") && !page.html.contains("<b>Rex</b>"))
            #expect(page.html.contains("href=\"/playdates/requests\""))
        }
    }

    @Test func aPushIsARowCommittedWithItsNotificationSentByTheNextRound() async throws {
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob) = try await server.adaAndBob()
            #expect(try await register(server, ada).status == 201)
            let log = try #require(server.app.pawpack.push.providers.developmentLog)
            // the worker is stopped, as if the process died after the commit
            await server.app.pawpack.push.stop()
            _ = try await server.like(bob, ada)
            let row = try #require(try await PushOutboxRecord.query(on: server.app.db).first())
            #expect(row.kind == "match_request" && row.attempts == 0 && log.all.isEmpty)
            // a worker started again sends it
            server.app.pawpack.push.start(every: .seconds(3_600), on: server.app.db)
            for _ in 0..<50 where log.all.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
            #expect(log.all.count == 1 && log.all.first?.message.id == row.id)
        }
    }

    @Test func theEncryptionIsRFC8291sExampleToTheByte() throws {
        // RFC 8291, Appendix A: the same keys and salt give the same message.
        func bytes(_ text: String) throws -> Data { try #require(Data(base64URLEncoded: text)) }
        let server = try P256.KeyAgreement.PrivateKey(rawRepresentation: try bytes("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"))
        let encrypted = try WebPushEncryption.encrypt(
            Data("When I grow up, I want to be a watermelon".utf8),
            browserKey: try bytes("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"),
            authSecret: try bytes("BTBZMqHH6r4Tts7J_aSIgg"), serverKey: server, salt: try bytes("DGv6ra1nlYgDCS1FRnbzlw"))
        #expect(
            encrypted
                == (try bytes(
                    "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
                )))
    }
}
