import Fluent
import Foundation
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

@Suite struct LoginAndSessionTests {
    @Test func loginReturnsTokensThatOpenMe() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            #expect(ada.accessToken.hasPrefix("ppa_"))
            #expect(ada.refreshToken.hasPrefix("ppr_"))
            let me = try await server.request(.GET, APIPath.me, token: ada.accessToken)
            #expect(me.status == 200)
            #expect(me.json["username"] as? String == "ada")
            #expect(me.json["emailVerified"] as? Bool == true)
        }
    }

    @Test func meWithoutOrWithAForgedTokenIs401() async throws {
        try await TestServer.run { server in
            _ = try await server.member("ada")
            let none = try await server.request(.GET, APIPath.me)
            #expect(none.status == 401)
            #expect(none.code == "unauthenticated")
            let forged = try await server.request(.GET, APIPath.me, token: "ppa_forged")
            #expect(forged.status == 401)
        }
    }

    @Test func tokensAreStoredOnlyAsHashes() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let rows = try await server.app.db.query(AnyTokenRow.self).all()
            #expect(!rows.isEmpty)
            #expect(rows.allSatisfy { $0.tokenHash != ada.accessToken && $0.tokenHash != ada.refreshToken })
        }
    }

    @Test func aWrongPasswordIsA401AndAnUnknownEmailLooksTheSame() async throws {
        try await TestServer.run { server in
            _ = try await server.member("ada")
            let wrong = try await server.request(.POST, APIPath.logIn, json: ["email": "ada@example.com", "password": "not the password"])
            let unknown = try await server.request(.POST, APIPath.logIn, json: ["email": "bob@example.com", "password": "not the password"])
            #expect(wrong.status == 401)
            #expect(unknown.status == 401)
            #expect(wrong.json["detail"] as? String == unknown.json["detail"] as? String)
            #expect(wrong.code == "invalid_credentials")
        }
    }

    /// Behind the proxy at 127.0.0.1 (the tests' own address), clients named by `X-Forwarded-For`.
    static func behindAProxy(_ config: inout Config) { config.trustedProxies = TrustedProxies("127.0.0.1, ::1")! }

    static func logIn(_ server: TestServer, _ email: String, _ password: String, from client: String) async throws -> TestServer.Reply {
        try await server.request(
            .POST, APIPath.logIn, json: ["email": email, "password": password],
            headers: [("X-Forwarded-For", client)])
    }

    @Test func fiveFailuresLockTheGuessingClientOutOfThatAccountOnly() async throws {
        try await TestServer.run(adjust: Self.behindAProxy) { server in
            let ada = try await server.member("ada")
            let (guesser, owner) = ("203.0.113.9", "198.51.100.7")
            for _ in 0..<4 {
                #expect(try await Self.logIn(server, ada.email, "wrong password!", from: guesser).status == 401)
            }
            let fifth = try await Self.logIn(server, ada.email, "wrong password!", from: guesser)
            #expect(fifth.status == 429)
            #expect(fifth.code == "account_locked")
            #expect(fifth.headers.first(name: "Retry-After") == "300")

            // the guesser is locked out even with the right password; Ada, elsewhere, is not
            server.clock.advance(by: 120)
            let right = try await Self.logIn(server, ada.email, ada.password, from: guesser)
            #expect(right.status == 429)
            #expect(right.headers.first(name: "Retry-After") == "180")
            #expect(try await Self.logIn(server, ada.email, ada.password, from: owner).status == 200)

            server.clock.advance(by: 181)
            #expect(try await Self.logIn(server, ada.email, ada.password, from: guesser).status == 200)
        }
    }

    @Test func anAddressWithoutAnAccountIsAnsweredAlikeLockedOrNot() async throws {
        try await TestServer.run(adjust: Self.behindAProxy) { server in
            let ada = try await server.member("ada")
            var answers: [String: [String]] = [:]
            for email in [ada.email, "nobody@example.com"] {
                for _ in 0..<6 {
                    let reply = try await Self.logIn(server, email, "wrong password!", from: "203.0.113.9")
                    answers[email, default: []].append("\(reply.status) \(reply.code ?? "") \(reply.headers.first(name: "Retry-After") ?? "")")
                }
            }
            #expect(answers[ada.email] == answers["nobody@example.com"])
            #expect(answers[ada.email]?.last == "429 account_locked 300")
        }
    }

    @Test func oneAddressMayFailOnlySoOftenAcrossAccountsWithoutLockingOutOthers() async throws {
        try await TestServer.run(adjust: {
            Self.behindAProxy(&$0)
            $0.failedLoginsPerAddress = 3
        }) { server in
            _ = try await server.member("ada")
            for name in ["bob", "cy", "di"] {
                #expect(try await Self.logIn(server, "\(name)@example.com", "guess guess", from: "203.0.113.9").status == 401)
            }
            let blocked = try await Self.logIn(server, "ada@example.com", TestServer.password, from: "203.0.113.9")
            #expect(blocked.status == 429)
            #expect(blocked.code == "too_many_attempts")
            #expect(Int(blocked.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
            // another client behind the same proxy signs in
            #expect(try await Self.logIn(server, "ada@example.com", TestServer.password, from: "198.51.100.7").status == 200)

            server.clock.advance(by: 301)
            #expect(try await Self.logIn(server, "ada@example.com", TestServer.password, from: "203.0.113.9").status == 200)
        }
    }

    @Test func forwardingHeadersCountOnlyFromTrustedProxies() async throws {
        // given a server that trusts no proxy: a client cannot pick its address
        try await TestServer.run(adjust: { $0.failedLoginsPerAddress = 2 }) { server in
            _ = try await server.member("ada")
            for forged in ["203.0.113.1", "203.0.113.2"] {
                #expect(try await Self.logIn(server, "bob@example.com", "guess guess", from: forged).status == 401)
            }
            #expect(try await Self.logIn(server, "ada@example.com", TestServer.password, from: "203.0.113.3").status == 429)
        }
        // and the proxies' list is read as addresses and networks
        let proxies = try #require(TrustedProxies("10.0.0.0/8, 2001:db8::/32, 192.0.2.1"))
        var headers = HTTPHeaders([("X-Forwarded-For", "198.51.100.1, 203.0.113.5, 10.1.2.3")])
        #expect(proxies.client(peer: "10.9.9.9", headers: headers) == "203.0.113.5")
        #expect(proxies.client(peer: "198.51.100.200", headers: headers) == "198.51.100.200")
        headers = HTTPHeaders([("Forwarded", #"for=192.0.2.43:4711, for="[2001:db8:cafe::17]:4711""#)])
        #expect(proxies.client(peer: "2001:db8::1", headers: headers) == "192.0.2.43")
        #expect(TrustedProxies("10.0.0.0/33") == nil && TrustedProxies("proxy.example") == nil)
    }

    @Test func refreshRotatesThePairAndRetiresTheOldOne() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let refreshed = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.refreshToken])
            #expect(refreshed.status == 200)
            let newAccess = try #require(refreshed.json["accessToken"] as? String)
            #expect(newAccess != ada.accessToken)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 401)
            #expect(try await server.request(.GET, APIPath.me, token: newAccess).status == 200)
        }
    }

    @Test func reusingARefreshTokenRevokesTheWholeSession() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let refreshed = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.refreshToken])
            let newAccess = try #require(refreshed.json["accessToken"] as? String)
            let newRefresh = try #require(refreshed.json["refreshToken"] as? String)

            let replay = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.refreshToken])
            #expect(replay.status == 401)
            #expect(try await server.request(.GET, APIPath.me, token: newAccess).status == 401)
            #expect(try await server.request(.POST, APIPath.refresh, json: ["refreshToken": newRefresh]).status == 401)
        }
    }

    @Test func accessTokensExpireAfterAnHourAndRefreshAfterThirtyIdleDays() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            server.clock.advance(by: 3600)
            let expired = try await server.request(.GET, APIPath.me, token: ada.accessToken)
            #expect(expired.status == 401)
            #expect(expired.code == "token_expired")
            let refreshed = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": ada.refreshToken])
            #expect(refreshed.status == 200)
            let refresh = try #require(refreshed.json["refreshToken"] as? String)

            server.clock.advance(by: 30 * 86_400)
            let idle = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": refresh])
            #expect(idle.status == 401)
        }
    }

    @Test func logoutRevokesTheSessionOnly() async throws {
        try await TestServer.run { server in
            let phone = try await server.member("ada")
            let laptop = try await server.request(.POST, APIPath.logIn, json: ["email": phone.email, "password": phone.password])
            let laptopToken = try #require(laptop.json["accessToken"] as? String)

            #expect(try await server.request(.POST, APIPath.logOut).status == 401)
            let out = try await server.request(.POST, APIPath.logOut, token: phone.accessToken)
            #expect(out.status == 204)
            #expect(try await server.request(.GET, APIPath.me, token: phone.accessToken).status == 401)
            #expect(try await server.request(.POST, APIPath.refresh, json: ["refreshToken": phone.refreshToken]).status == 401)
            #expect(try await server.request(.GET, APIPath.me, token: laptopToken).status == 200)
        }
    }
}

/// Reads `auth_tokens` without the server's model, to look at what is stored.
final class AnyTokenRow: Model, @unchecked Sendable {
    static let schema = "auth_tokens"
    @ID(key: .id) var id: UUID?
    @Field(key: "token_hash") var tokenHash: String
    init() {}
}
