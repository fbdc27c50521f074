import Foundation
import PawpackTestSupport
import Testing

/// Bad input is answered in plain words naming the field, never with the value sent, and
/// dates no one could mean are refused.
@Suite struct PlainErrorsTests {
    @Test func aBadValueIsNamedByItsFieldOrParameterWithoutRepeatingIt() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let cases: [(String, TestServer.Reply, String, String)] = [
                (
                    "a query value", try await server.request(.GET, "/v1/match-requests?direction=sideways", token: ada.token),
                    "direction", "sideways"
                ),
                (
                    "a number in the query", try await server.request(.GET, "/v1/pets/\(ada.dogID)/deck?limit=lots", token: ada.token),
                    "limit", "lots"
                ),
                (
                    "a value of a list",
                    try await server.request(
                        .POST, APIPath.pets, raw: #"{"name": "R", "species": "dragon", "estimatedAgeMonths": 3}"#,
                        token: ada.token), "species", "dragon"
                ),
            ]
            for (what, reply, field, sent) in cases {
                #expect(reply.status == 400, "\(what): \(reply.status) \(reply.text)")
                #expect(reply.json["field"] as? String == field, "\(what): \(reply.text)")
                #expect(
                    !reply.text.contains(sent) && !reply.text.contains("JSON") && !reply.text.contains("Cannot initialize"),
                    "\(what): \(reply.text)")
            }
        }
    }

    @Test func aMemberSentAsNullIsRefusedNotTakenAsLeftOut() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon, member: server.member("ada", city: "Lyon"))
            let cleared = try await server.request(.PATCH, APIPath.me, raw: #"{"displayName": "Ada", "city": null}"#, token: ada.token)
            #expect(cleared.status == 422 && cleared.json["field"] as? String == "city", "\(cleared.text)")
            let nested = try await server.request(
                .PATCH, APIPath.pet(ada.dogID), raw: #"{"environment": {"area": "city", "hasGarden": null}}"#,
                token: ada.token)
            #expect(nested.status == 422 && nested.json["field"] as? String == "environment.hasGarden", "\(nested.text)")
            #expect(try await server.request(.GET, APIPath.me, token: ada.token).json["city"] as? String == "Lyon")
        }
    }

    @Test func longInputIsNeverEchoedBack() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let long = String(repeating: "pawprint", count: 2_000)
            let replies = [
                try await server.send(.POST, APIPath.blocks, object: ["username": long], token: ada.token),
                try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": long], token: ada.token),
                try await server.request(.DELETE, APIPath.block(long), token: ada.token),
                try await server.send(.POST, APIPath.logIn, object: ["email": long + "@example.com", "password": long], token: nil),
                try await server.send(.PATCH, APIPath.me, object: ["displayName": long], token: ada.token),
            ]
            for reply in replies {
                #expect(reply.status >= 400 && reply.status < 500, "\(reply.status)")
                // at most the start of a path, as the problem's `instance`
                #expect(!reply.text.contains(String(repeating: "pawprint", count: 16)), "\(reply.text.prefix(300))")
                #expect(reply.body.count < 2_000)
            }
        }
    }

    @Test func datesNoOneCouldMeanAreRefused() async throws {
        try await TestServer.run { server in
            let old = try await server.signUp(email: "old@example.com", username: "old", dateOfBirth: "1899-12-31")
            #expect(old.status == 422 && old.json["field"] as? String == "dateOfBirth")
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let farAhead = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID),
                object: [
                    "vaccine": "rabies", "givenOn": "2025-06-01", "nextDueOn": "2065-06-01",
                ], token: ada.token)
            #expect(farAhead.status == 422 && farAhead.json["field"] as? String == "nextDueOn", "\(farAhead.text)")
            let sensible = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID),
                object: [
                    "vaccine": "rabies", "givenOn": "2025-06-01", "nextDueOn": "2028-06-01",
                ], token: ada.token)
            #expect(sensible.status == 201)
        }
    }
}
