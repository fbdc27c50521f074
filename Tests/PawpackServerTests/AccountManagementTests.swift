import Foundation
import PawpackTestSupport
import Testing

@Suite struct AccountManagementTests {
    @Test func theOwnerChangesDisplayNameCityAndUsername() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let reply = try await server.request(
                .PATCH, APIPath.me, json: ["displayName": "Ada L.", "city": "Turin", "username": "Ada_L"],
                token: ada.accessToken)
            #expect(reply.status == 200)
            #expect(reply.json["displayName"] as? String == "Ada L.")
            #expect(reply.json["city"] as? String == "Turin")
            #expect(reply.json["username"] as? String == "ada_l")

            let cleared = try await server.request(.PATCH, APIPath.me, json: ["city": ""], token: ada.accessToken)
            #expect(cleared.json["city"] == nil)
            #expect(cleared.json["displayName"] as? String == "Ada L.")
        }
    }

    @Test func aBadOrTakenUsernameChangesNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.member("bob")
            let taken = try await server.request(.PATCH, APIPath.me, json: ["username": "bob", "displayName": "Changed"], token: ada.accessToken)
            #expect(taken.status == 409)
            #expect(taken.code == "username_taken")
            let bad = try await server.request(.PATCH, APIPath.me, json: ["username": "no spaces", "displayName": "Changed"], token: ada.accessToken)
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "username")
            let me = try await server.request(.GET, APIPath.me, token: ada.accessToken)
            #expect(me.json["username"] as? String == "ada")
            #expect(me.json["displayName"] as? String == "Ada")
            #expect(try await server.request(.PATCH, APIPath.me, json: ["city": "Rome"]).status == 401)
        }
    }

    @Test func theOwnerSetsAndClearsTheirTimeZoneAndABadOneChangesNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let set = try await server.request(.PATCH, APIPath.me, json: ["timeZone": " Europe/Oslo "], token: ada.accessToken)
            #expect(set.status == 200)
            #expect(set.json["timeZone"] as? String == "Europe/Oslo")
            for bad in ["Nowhere/Land", "CET+1", "Europe/Oslo; DROP", String(repeating: "A/", count: 40)] {
                let refused = try await server.request(
                    .PATCH, APIPath.me, json: ["timeZone": bad, "displayName": "Changed"], token: ada.accessToken)
                #expect(refused.status == 422, "\(bad): \(refused.status)")
                #expect(refused.json["field"] as? String == "timeZone", "\(bad): \(refused.text)")
            }
            let me = try await server.request(.GET, APIPath.me, token: ada.accessToken)
            #expect(me.json["timeZone"] as? String == "Europe/Oslo")
            #expect(me.json["displayName"] as? String == "Ada")
            let cleared = try await server.request(.PATCH, APIPath.me, json: ["timeZone": ""], token: ada.accessToken)
            #expect(cleared.status == 200)
            #expect(cleared.json["timeZone"] == nil)
        }
    }

    @Test func changingThePasswordSignsOutOtherSessionsButKeepsThisOne() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let other = try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password])
            let otherToken = try #require(other.json["accessToken"] as? String)

            let wrong = try await server.request(
                .POST, APIPath.password,
                json: ["currentPassword": "not my password", "newPassword": "a brand new secret"], token: ada.accessToken)
            #expect(wrong.status == 403)
            #expect(wrong.json["field"] as? String == "currentPassword")
            let weak = try await server.request(
                .POST, APIPath.password,
                json: ["currentPassword": ada.password, "newPassword": "1234567890"], token: ada.accessToken)
            #expect(weak.status == 422)
            #expect(weak.json["field"] as? String == "newPassword")
            #expect(try await server.request(.GET, APIPath.me, token: otherToken).status == 200)

            let changed = try await server.request(
                .POST, APIPath.password,
                json: ["currentPassword": ada.password, "newPassword": "a brand new secret"], token: ada.accessToken)
            #expect(changed.status == 204)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 200)
            #expect(try await server.request(.GET, APIPath.me, token: otherToken).status == 401)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password]).status == 401)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": "a brand new secret"]).status == 200)
            #expect(server.outbox.messages(to: ada.email).last?.subject.contains("password was changed") == true)
        }
    }

    @Test func aNewEmailTakesEffectOnlyOnceVerifiedAndTheOldAddressIsTold() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let wrong = try await server.request(
                .POST, APIPath.email, json: ["newEmail": "ada@new.example", "password": "wrong password"], token: ada.accessToken)
            #expect(wrong.status == 403)
            let started = try await server.request(
                .POST, APIPath.email, json: ["newEmail": "Ada@New.example", "password": ada.password], token: ada.accessToken)
            #expect(started.status == 202)
            #expect(server.outbox.messages(to: ada.email).last?.text.contains("ada@new.example") == true)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).json["email"] as? String == ada.email)

            let token = try #require(server.linkToken(to: "ada@new.example"))
            let verified = try await server.request(.POST, APIPath.verifyEmail, json: ["token": token])
            #expect(verified.status == 200)
            #expect(verified.json["email"] as? String == "ada@new.example")
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": "ada@new.example", "password": ada.password]).status == 200)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password]).status == 401)
        }
    }

    @Test func anEmailOfAnotherAccountCannotBeTaken() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob")
            let reply = try await server.request(
                .POST, APIPath.email, json: ["newEmail": bob.email, "password": ada.password], token: ada.accessToken)
            #expect(reply.status == 409)
            #expect(reply.code == "email_taken")
            let bad = try await server.request(.POST, APIPath.email, json: ["newEmail": "nope", "password": ada.password], token: ada.accessToken)
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "newEmail")
            #expect(try await server.request(.POST, APIPath.email, json: ["newEmail": "x@y.example", "password": "p"]).status == 401)
        }
    }

    @Test func aPasswordResetLinkSetsANewPasswordOnceAndSignsOutEverywhere() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let unknown = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": "nobody@example.com"])
            #expect(unknown.status == 202)
            #expect(server.outbox.messages(to: "nobody@example.com").isEmpty)

            let requested = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email])
            #expect(requested.status == 202)
            let token = try #require(server.linkToken(to: ada.email, path: "/reset-password"))

            let weak = try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": token, "newPassword": "short"])
            #expect(weak.status == 422)
            #expect(weak.json["field"] as? String == "newPassword")

            let done = try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": token, "newPassword": "my fresh start"])
            #expect(done.status == 204)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 401)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": "my fresh start"]).status == 200)
            let again = try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": token, "newPassword": "another new one"])
            #expect(again.code == "invalid_token")
        }
    }

    @Test func aNewResetLinkLeavesTheEarlierOneWorkingUntilOneIsUsed() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email])
            let first = try #require(server.linkToken(to: ada.email, path: "/reset-password"))
            // when someone else asks for another link minutes later
            server.clock.advance(by: 5 * 60)
            _ = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email])
            let second = try #require(server.linkToken(to: ada.email, path: "/reset-password"))
            #expect(first != second)
            // then a verification link cannot reset, the first link still does, and then the second no longer
            let verifyToken = try #require(server.linkToken(to: ada.email, path: "/verify"))
            #expect(
                try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": verifyToken, "newPassword": "my fresh start"]).code
                    == "invalid_token")
            #expect(
                try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": first, "newPassword": "my fresh start"]).status
                    == 204)
            #expect(
                try await server.request(.POST, APIPath.passwordResetConfirm, json: ["token": second, "newPassword": "another start"]).code
                    == "invalid_token")
        }
    }

    @Test func exportHoldsTheAccountAndItsSessionsButNoSecrets() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let reply = try await server.request(.GET, APIPath.export, token: ada.accessToken)
            #expect(reply.status == 200)
            let account = reply.json["account"] as? [String: Any]
            #expect(account?["email"] as? String == ada.email)
            #expect((reply.json["sessions"] as? [[String: Any]])?.count == 1)
            #expect(!reply.text.contains("password"))
            #expect(!reply.text.contains(ada.accessToken))
            #expect(try await server.request(.GET, APIPath.export).status == 401)
        }
    }

    @Test func deletingTheAccountRemovesEveryRowItOwnedAndNothingElse() async throws {
        try await TestServer.run { server in
            // given another member with a password of his own, whose rows must survive
            let bob = try await server.member("bob", password: "bob's own secret")
            let before = try await server.rowCounts()
            // and Ada, with two app sessions, a pending email change and a reset link
            let ada = try await server.member("ada")
            _ = try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password])
            _ = try await server.request(
                .POST, APIPath.email, json: ["newEmail": "ada2@example.com", "password": ada.password], token: ada.accessToken)
            _ = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email])
            #expect(try await server.rowCounts() != before)

            // when a wrong password is given, nothing goes
            let wrong = try await server.request(.DELETE, APIPath.me, json: ["password": "wrong password"], token: ada.accessToken)
            #expect(wrong.status == 403)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 200)

            // when Bob's token is used with Ada's password, only Bob is checked — and refused
            let crossed = try await server.request(.DELETE, APIPath.me, json: ["password": ada.password], token: bob.accessToken)
            #expect(crossed.status == 403)

            // when Ada deletes with her password
            let deleted = try await server.request(.DELETE, APIPath.me, json: ["password": ada.password], token: ada.accessToken)
            #expect(deleted.status == 204)

            // then every table is back to exactly Bob's rows
            #expect(try await server.rowCounts() == before)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 401)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password]).status == 401)
            #expect(try await server.request(.GET, APIPath.me, token: bob.accessToken).status == 200)
            #expect(try await server.request(.DELETE, APIPath.me, json: ["password": ada.password]).status == 401)
        }
    }
}
