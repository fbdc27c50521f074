import Foundation
import PawpackTestSupport
import Testing

@Suite struct SignUpAndVerificationTests {
    @Test func signingUpCreatesAnUnverifiedAccountAndEmailsAVerificationLink() async throws {
        try await TestServer.run { server in
            // when
            let reply = try await server.signUp(email: "Ada@Example.com", username: "Ada", city: "Lyon")
            // then
            #expect(reply.status == 201)
            #expect(reply.json["email"] as? String == "ada@example.com")
            #expect(reply.json["username"] as? String == "ada")
            #expect(reply.json["emailVerified"] as? Bool == false)
            #expect(reply.json["city"] as? String == "Lyon")
            #expect(reply.json["passwordHash"] == nil)
            let mail = try #require(server.outbox.messages(to: "ada@example.com").last)
            #expect(mail.subject.contains("Verify"))
            #expect(mail.text.contains("http://pawpack.test/verify?token="))
        }
    }

    @Test func aNewMemberBringsTheirTimeZoneAndAnUnknownOneIsNamed() async throws {
        try await TestServer.run { server in
            let reply = try await server.signUp(email: "ada@example.com", username: "ada", timeZone: "America/Sao_Paulo")
            #expect(reply.status == 201)
            #expect(reply.json["timeZone"] as? String == "America/Sao_Paulo")
            let before = try await server.rowCounts()
            let bad = try await server.signUp(email: "bob@example.com", username: "bob", timeZone: "Mars/Olympus_Mons")
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "timeZone")
            #expect(try await server.rowCounts() == before)
        }
    }

    @Test func loginBeforeVerificationAnswersEmailNotVerified() async throws {
        try await TestServer.run { server in
            try await server.signUp(email: "ada@example.com", username: "ada")
            let login = try await server.request(
                .POST, APIPath.logIn,
                json: ["email": "ada@example.com", "password": TestServer.password])
            #expect(login.status == 403)
            #expect(login.code == "email_not_verified")
            #expect(login.headers.first(name: "Content-Type") == "application/problem+json")
            #expect(login.json["accessToken"] == nil)
        }
    }

    @Test func badSignUpFieldsAreNamedAndNothingIsWritten() async throws {
        try await TestServer.run { server in
            let before = try await server.rowCounts()
            let reply = try await server.signUp(
                email: "nope", username: "x", password: "short",
                displayName: "Ada", dateOfBirth: "1990-13-40")
            #expect(reply.status == 422)
            #expect(reply.code == "validation_failed")
            let fields = (reply.json["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["email", "username", "password", "dateOfBirth"])
            #expect(try await server.rowCounts() == before)
            #expect(server.outbox.all.isEmpty)
        }
    }

    @Test func aMissingFieldOrMalformedJSONIsA400NamingTheField() async throws {
        try await TestServer.run { server in
            let missing = try await server.request(.POST, APIPath.signUp, json: ["email": "ada@example.com"])
            #expect(missing.status == 400)
            #expect(missing.code == "invalid_request")
            #expect(missing.json["field"] as? String == "password")

            let malformed = try await server.request(.POST, APIPath.signUp, raw: "{\"email\": ")
            #expect(malformed.status == 400)
            #expect(malformed.code == "invalid_request")

            let wrongType = try await server.request(.POST, APIPath.logIn, raw: #"{"email": 5, "password": "x"}"#)
            #expect(wrongType.status == 400)
            #expect(wrongType.json["field"] as? String == "email")
        }
    }

    @Test func underThirteensAreRefusedWithAClearCode() async throws {
        try await TestServer.run { server in
            // now is 2026-03-01; this child turns 13 on 2026-03-02
            let reply = try await server.signUp(email: "kid@example.com", username: "kid", dateOfBirth: "2013-03-02")
            #expect(reply.status == 422)
            #expect(reply.code == "too_young")
            #expect(reply.json["field"] as? String == "dateOfBirth")
            #expect(try await server.rowCounts()["users"] == 0)
        }
    }

    @Test func aRegisteredEmailIsAnsweredAsANewOneAndItsOwnerIsToldByMail() async throws {
        try await TestServer.run { server in
            let first = try await server.signUp(email: "ada@example.com", username: "ada")
            // when someone signs up again with Ada's address
            let sameEmail = try await server.signUp(email: "ADA@example.com", username: "other")
            // then the answer has the shape and status of a new account's, with nothing kept
            #expect(sameEmail.status == first.status)
            #expect(sameEmail.json.keys.sorted() == first.json.keys.sorted())
            #expect(sameEmail.json["username"] as? String == "other" && sameEmail.json["id"] as? String != first.json["id"] as? String)
            #expect(try await server.rowCounts()["users"] == 1)
            // and Ada, not the one signing up, is told, with no link that signs anyone in
            let mails = server.outbox.messages(to: "ada@example.com")
            #expect(mails.count == 2)
            #expect(mails.last?.subject.contains("tried to sign up") == true)
            #expect(mails.last?.text.contains("token=") == false)
            // and a username is still for one member only, whatever the address
            let sameName = try await server.signUp(email: "other@example.com", username: "Ada")
            #expect(sameName.status == 409)
            #expect(sameName.code == "username_taken")
            #expect(try await server.rowCounts()["users"] == 1)
        }
    }

    @Test func mailCannotBeUsedToFloodAnAddressOrFromOneClient() async throws {
        // four mails to an address an hour, seven requests that send mail from a client
        try await TestServer.run(adjust: {
            $0.mailsPerRecipientPerHour = 4
            $0.mailRequestsPerClientPerHour = 7
        }) { server in
            let ada = try await server.member("ada") // one request (her sign-up), one mail to her
            let before = server.outbox.messages(to: ada.email).count
            // when one client asks for reset links for Ada again and again
            var statuses: [Int] = []
            for _ in 0..<6 {
                statuses.append(try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email]).status)
            }
            // then every answer is the same, but only three more mails reach her this hour
            #expect(statuses == Array(repeating: 202, count: 6))
            #expect(server.outbox.messages(to: ada.email).count == before + 3)
            // and the client may not make more mail be sent, to anyone
            let seventh = try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": "bob@example.com"])
            #expect(seventh.status == 429 && seventh.code == "too_many_requests")
            let signUp = try await server.signUp(email: "cyd@example.com", username: "cyd")
            #expect(signUp.status == 429)
            #expect(server.outbox.messages(to: "cyd@example.com").isEmpty)
            // an hour later, both limits have passed
            server.clock.advance(by: 60 * 60 + 1)
            #expect(try await server.request(.POST, APIPath.passwordResetRequest, json: ["email": ada.email]).status == 202)
            #expect(server.outbox.messages(to: ada.email).count == before + 4)
        }
    }

    @Test func aDisplayNameInAMailIsNeverALink() async throws {
        try await TestServer.run { server in
            _ = try await server.signUp(email: "ada@example.com", username: "ada", displayName: "Win at evil.example/prize")
            let mail = try #require(server.outbox.messages(to: "ada@example.com").last)
            #expect(!mail.text.contains("evil.example"))
        }
    }

    @Test func aVerificationLinkWorksOnce() async throws {
        try await TestServer.run { server in
            try await server.signUp(email: "ada@example.com", username: "ada")
            let token = try #require(server.linkToken(to: "ada@example.com"))
            let first = try await server.request(.POST, APIPath.verifyEmail, json: ["token": token])
            #expect(first.status == 200)
            #expect(first.json["emailVerified"] as? Bool == true)
            let second = try await server.request(.POST, APIPath.verifyEmail, json: ["token": token])
            #expect(second.status == 400)
            #expect(second.code == "invalid_token")
        }
    }

    @Test func aTamperedOrExpiredVerificationLinkIsRefused() async throws {
        try await TestServer.run { server in
            try await server.signUp(email: "ada@example.com", username: "ada")
            let token = try #require(server.linkToken(to: "ada@example.com"))
            // change one character in the middle of the signature (the last one may hold only padding bits)
            var characters = Array(token)
            let index = characters.count - 10
            characters[index] = characters[index] == "A" ? "B" : "A"
            let tampered = String(characters)
            #expect(try await server.request(.POST, APIPath.verifyEmail, json: ["token": tampered]).code == "invalid_token")

            server.clock.advance(by: 48 * 3600 + 1)
            let expired = try await server.request(.POST, APIPath.verifyEmail, json: ["token": token])
            #expect(expired.status == 400)
            #expect(expired.code == "invalid_token")
            let login = try await server.request(
                .POST, APIPath.logIn,
                json: ["email": "ada@example.com", "password": TestServer.password])
            #expect(login.code == "email_not_verified")
        }
    }

    @Test func resendingTheLinkWaitsAMinuteAndNeverRevealsWhoIsAMember() async throws {
        try await TestServer.run { server in
            try await server.signUp(email: "ada@example.com", username: "ada")
            #expect(server.outbox.messages(to: "ada@example.com").count == 1)

            let tooSoon = try await server.request(.POST, APIPath.resendVerification, json: ["email": "ada@example.com"])
            #expect(tooSoon.status == 202)
            #expect(server.outbox.messages(to: "ada@example.com").count == 1)

            server.clock.advance(by: 61)
            let later = try await server.request(.POST, APIPath.resendVerification, json: ["email": "ada@example.com"])
            #expect(later.status == 202)
            #expect(server.outbox.messages(to: "ada@example.com").count == 2)

            let stranger = try await server.request(.POST, APIPath.resendVerification, json: ["email": "who@example.com"])
            #expect(stranger.status == 202)
            #expect(server.outbox.messages(to: "who@example.com").isEmpty)

            let bad = try await server.request(.POST, APIPath.resendVerification, json: ["email": "not an email"])
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "email")
        }
    }
}
