import Foundation
import NIOWebSocket
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// A realtime socket lives no longer than the session it was opened with: every way a session
/// ends closes its sockets at once with 4004, and nothing more reaches them.
@Suite struct SocketSessionTests {
    static let signedOut = WebSocketErrorCode.unknown(4004)

    /// Ada and Bob matched, with Ada's phone listening.
    func adaListening(_ server: TestServer) async throws -> (
        ada: TestServer.Owner, bob: TestServer.Owner, chat: String,
        socket: RealtimeTestClient
    ) {
        let (ada, bob, chat) = try await server.adaAndBobMatched()
        let socket = try await RealtimeTestClient.connect(server, token: ada.token)
        try await RealtimeTests.waitUntil(server, has: 1, socketsOf: ada)
        return (ada, bob, chat, socket)
    }

    /// The socket was closed as signed out, and a message Bob sends then reaches nobody there.
    func expectSignedOut(
        _ socket: RealtimeTestClient, _ server: TestServer, bob: TestServer.Owner, chat: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        #expect(try await socket.closedByServer() == Self.signedOut, sourceLocation: sourceLocation)
        _ = try await server.say("still there?", from: bob, in: chat)
        #expect(try await socket.receivesNothing(for: 0.3), sourceLocation: sourceLocation)
    }

    @Test func signingOutClosesThatAppsSocketOnly() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat, socket) = try await adaListening(server)
            // her tablet is signed in too, with a session of its own
            let tablet = try await server.signedInAgain(ada)
            let tablets = try await RealtimeTestClient.connect(server, token: tablet.token)
            try await RealtimeTests.waitUntil(server, has: 2, socketsOf: ada)

            let out = try await server.request(.POST, APIPath.logOut, token: ada.token)
            #expect(out.status == 204)
            try await expectSignedOut(socket, server, bob: bob, chat: chat)
            // the tablet's session goes on, and it hears Bob
            #expect(try await tablets.next().eventType == "message")
            await #expect(throws: (any Error).self, "the old token opens no socket") {
                try await RealtimeTestClient.connect(server, token: ada.token)
            }
            await tablets.close()
        }
    }

    @Test func aNewPasswordClosesEveryOtherSessionsSocket() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat, socket) = try await adaListening(server)
            let tablet = try await server.signedInAgain(ada)
            let tablets = try await RealtimeTestClient.connect(server, token: tablet.token)
            try await RealtimeTests.waitUntil(server, has: 2, socketsOf: ada)

            let changed = try await server.send(
                .POST, APIPath.password,
                object: [
                    "currentPassword": ada.member.password, "newPassword": "a-brand-new-long-password",
                ], token: tablet.token)
            #expect(changed.status == 204)
            try await expectSignedOut(socket, server, bob: bob, chat: chat)
            #expect(try await tablets.next().eventType == "message", "the session that changed it stays")
            await tablets.close()
        }
    }

    @Test func aRefreshTokenUsedTwiceClosesItsSessionsSocket() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat, socket) = try await adaListening(server)
            let first = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.member.refreshToken])
            #expect(first.status == 200)
            // the stolen copy of the old refresh token is presented: the whole session ends
            let stolen = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.member.refreshToken])
            #expect(stolen.status == 401)
            try await expectSignedOut(socket, server, bob: bob, chat: chat)
        }
    }

    @Test func deletingTheAccountClosesItsSockets() async throws {
        try await TestServer.run { server in
            let (ada, _, _, socket) = try await adaListening(server)
            let deleted = try await server.send(.DELETE, APIPath.me, object: ["password": ada.member.password], token: ada.token)
            #expect(deleted.status == 204)
            #expect(try await socket.closedByServer() == Self.signedOut)
        }
    }

    /// A page's socket, opened with the browser's cookie from our own origin.
    func pageSocket(_ server: TestServer, _ browser: TestBrowser) async throws -> RealtimeTestClient {
        try await RealtimeTestClient.connect(
            server, token: nil,
            headers: [
                ("Cookie", browser.cookieHeader ?? ""), ("Origin", server.config.publicBaseURL),
            ])
    }

    @Test func signingOutOfTheWebAppClosesThePagesSocket() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let socket = try await pageSocket(server, browser)
            let phone = try await RealtimeTestClient.connect(server, token: ada.token)
            try await RealtimeTests.waitUntil(server, has: 2, socketsOf: ada)

            _ = try await browser.get("/")
            let out = try await browser.post("/logout", [:])
            #expect(out.status == 303)
            try await expectSignedOut(socket, server, bob: bob, chat: chat)
            #expect(try await phone.next().eventType == "message", "the app's own session goes on")
            await phone.close()
        }
    }

    @Test func aWebSessionThatGoesIdleClosesItsSocket() async throws {
        try await TestServer.run(adjust: { $0.realtimePingSeconds = 1 }) { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let socket = try await pageSocket(server, browser)
            try await RealtimeTests.waitUntil(server, has: 1, socketsOf: ada)
            // an open page makes no requests: an hour later the session has ended
            #expect(try await socket.receivesNothing(for: 1.5), "not before")
            #expect(!socket.socket.isClosed)
            server.clock.advance(by: 61 * 60)
            #expect(try await socket.closedByServer(within: 5) == Self.signedOut)
        }
    }

    @Test(.enabled(if: TestServer.postgresURL != nil, "two instances share a PostgreSQL database"))
    func signingOutThroughOneInstanceClosesTheSocketHeldByAnother() async throws {
        try await TestServer.run { first in
            try await TestServer.run(sharing: first) { second in
                let ada = try await first.owner("ada", at: TestServer.Place.lyon)
                let bob = try await first.owner("bob", at: TestServer.Place.lyonNorth)
                let chat = try await first.matched(ada, bob).id
                let socket = try await RealtimeTestClient.connect(second, token: ada.token)
                try await RealtimeTests.waitUntil(second, has: 1, socketsOf: ada)
                try await first.instancesListening(2)

                #expect(try await first.request(.POST, APIPath.logOut, token: ada.token).status == 204)
                #expect(try await socket.closedByServer() == Self.signedOut)
                _ = try await first.say("still there?", from: bob, in: chat)
                #expect(try await socket.receivesNothing(for: 0.5))
            }
        }
    }
}
