import Fluent
import Foundation
import PawpackTestSupport
import Testing

@Suite struct LoginAndSessionTests {
    @Test func loginReturnsTokensThatOpenMe() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            #expect(ada.accessToken.hasPrefix("ppa_"))
            #expect(ada.refreshToken.hasPrefix("ppr_"))
            let me = try await server.request(.GET, "/v1/me", token: ada.accessToken)
            #expect(me.status == 200)
            #expect(me.json["username"] as? String == "ada")
            #expect(me.json["emailVerified"] as? Bool == true)
        }
    }

    @Test func meWithoutOrWithAForgedTokenIs401() async throws {
        try await TestServer.run { server in
            _ = try await server.member("ada")
            let none = try await server.request(.GET, "/v1/me")
            #expect(none.status == 401)
            #expect(none.code == "unauthenticated")
            let forged = try await server.request(.GET, "/v1/me", token: "ppa_forged")
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
            let wrong = try await server.request(.POST, "/v1/auth/login", json: ["email": "ada@example.com", "password": "not the password"])
            let unknown = try await server.request(.POST, "/v1/auth/login", json: ["email": "bob@example.com", "password": "not the password"])
            #expect(wrong.status == 401)
            #expect(unknown.status == 401)
            #expect(wrong.json["detail"] as? String == unknown.json["detail"] as? String)
            #expect(wrong.code == "invalid_credentials")
        }
    }

    @Test func fiveFailuresLockTheAccountForFiveMinutesEvenForTheRightPassword() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            for _ in 0..<4 {
                let reply = try await server.request(.POST, "/v1/auth/login", json: ["email": ada.email, "password": "wrong password!"])
                #expect(reply.status == 401)
            }
            let fifth = try await server.request(.POST, "/v1/auth/login", json: ["email": ada.email, "password": "wrong password!"])
            #expect(fifth.status == 429)
            #expect(fifth.code == "account_locked")
            #expect(fifth.headers.first(name: "Retry-After") == "300")

            server.clock.advance(by: 120)
            let right = try await server.request(.POST, "/v1/auth/login", json: ["email": ada.email, "password": ada.password])
            #expect(right.status == 429)
            #expect(right.headers.first(name: "Retry-After") == "180")

            server.clock.advance(by: 181)
            let after = try await server.request(.POST, "/v1/auth/login", json: ["email": ada.email, "password": ada.password])
            #expect(after.status == 200)
        }
    }

    @Test func oneAddressMayFailOnlySoOftenAcrossAccounts() async throws {
        try await TestServer.run(adjust: { $0.failedLoginsPerAddress = 3 }) { server in
            _ = try await server.member("ada")
            for name in ["bob", "cy", "di"] {
                let reply = try await server.request(.POST, "/v1/auth/login", json: ["email": "\(name)@example.com", "password": "guess guess"])
                #expect(reply.status == 401)
            }
            let blocked = try await server.request(.POST, "/v1/auth/login", json: ["email": "ada@example.com", "password": TestServer.password])
            #expect(blocked.status == 429)
            #expect(blocked.code == "too_many_attempts")
            #expect(Int(blocked.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)

            server.clock.advance(by: 301)
            let later = try await server.request(.POST, "/v1/auth/login", json: ["email": "ada@example.com", "password": TestServer.password])
            #expect(later.status == 200)
        }
    }

    @Test func refreshRotatesThePairAndRetiresTheOldOne() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let refreshed = try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": ada.refreshToken])
            #expect(refreshed.status == 200)
            let newAccess = try #require(refreshed.json["accessToken"] as? String)
            #expect(newAccess != ada.accessToken)
            #expect(try await server.request(.GET, "/v1/me", token: ada.accessToken).status == 401)
            #expect(try await server.request(.GET, "/v1/me", token: newAccess).status == 200)
        }
    }

    @Test func reusingARefreshTokenRevokesTheWholeSession() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let refreshed = try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": ada.refreshToken])
            let newAccess = try #require(refreshed.json["accessToken"] as? String)
            let newRefresh = try #require(refreshed.json["refreshToken"] as? String)

            let replay = try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": ada.refreshToken])
            #expect(replay.status == 401)
            #expect(try await server.request(.GET, "/v1/me", token: newAccess).status == 401)
            #expect(try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": newRefresh]).status == 401)
        }
    }

    @Test func accessTokensExpireAfterAnHourAndRefreshAfterThirtyIdleDays() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            server.clock.advance(by: 3600)
            let expired = try await server.request(.GET, "/v1/me", token: ada.accessToken)
            #expect(expired.status == 401)
            #expect(expired.code == "token_expired")
            let refreshed = try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": ada.refreshToken])
            #expect(refreshed.status == 200)
            let refresh = try #require(refreshed.json["refreshToken"] as? String)

            server.clock.advance(by: 30 * 86_400)
            let idle = try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": refresh])
            #expect(idle.status == 401)
        }
    }

    @Test func logoutRevokesTheSessionOnly() async throws {
        try await TestServer.run { server in
            let phone = try await server.member("ada")
            let laptop = try await server.request(.POST, "/v1/auth/login", json: ["email": phone.email, "password": phone.password])
            let laptopToken = try #require(laptop.json["accessToken"] as? String)

            #expect(try await server.request(.POST, "/v1/auth/logout").status == 401)
            let out = try await server.request(.POST, "/v1/auth/logout", token: phone.accessToken)
            #expect(out.status == 204)
            #expect(try await server.request(.GET, "/v1/me", token: phone.accessToken).status == 401)
            #expect(try await server.request(.POST, "/v1/auth/refresh", json: ["refreshToken": phone.refreshToken]).status == 401)
            #expect(try await server.request(.GET, "/v1/me", token: laptopToken).status == 200)
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
