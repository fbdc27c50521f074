import Foundation
import PawpackTestSupport
import Testing
import Vapor

/// Every signed-in operation, without a token and with another member's token.
@Suite struct AuthorizationTests {
    /// (method, path, body) of every operation that needs a signed-in member.
    static let signedInOperations: [(HTTPMethod, String, [String: String]?)] = [
        (.GET, APIPath.me, nil),
        (.PATCH, APIPath.me, ["displayName": "Mallory"]),
        (.DELETE, APIPath.me, ["password": TestServer.password]),
        (.GET, APIPath.export, nil),
        (.POST, APIPath.email, ["newEmail": "mallory@example.com", "password": TestServer.password]),
        (.POST, APIPath.password, ["currentPassword": TestServer.password, "newPassword": "a stolen new password"]),
        (.POST, APIPath.logOut, nil),
    ]

    @Test func everySignedInOperationAnswers401WithoutAValidTokenAndChangesNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let before = try await server.rowCounts()
            for (method, path, body) in Self.signedInOperations {
                for token in [nil, "ppa_not-a-real-token", ada.refreshToken] {
                    let reply = try await server.request(method, path, json: body, token: token)
                    #expect(reply.status == 401, "\(method) \(path) with \(token ?? "no token")")
                    #expect(reply.headers.first(name: "Content-Type") == "application/problem+json")
                }
            }
            #expect(try await server.rowCounts() == before)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).json["displayName"] as? String == "Ada")
        }
    }

    @Test func anotherMembersTokenOnlyEverReachesThatMember() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let me = try await server.request(.GET, APIPath.me, token: bob.accessToken)
            #expect(me.json["email"] as? String == bob.email)
            let export = try await server.request(.GET, APIPath.export, token: bob.accessToken)
            #expect(!export.text.contains(ada.email))
            _ = try await server.request(.PATCH, APIPath.me, json: ["displayName": "Bobby"], token: bob.accessToken)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).json["displayName"] as? String == "Ada")
            // Ada's password with Bob's token changes nothing of anyone's
            let stolen = try await server.request(
                .POST, APIPath.password,
                json: ["currentPassword": ada.password, "newPassword": "taken over now"],
                token: bob.accessToken)
            #expect(stolen.status == 403)
            #expect(try await server.request(.POST, APIPath.logIn, json: ["email": ada.email, "password": ada.password]).status == 200)
        }
    }

    @Test func publicOperationsRefuseBadInputByName() async throws {
        try await TestServer.run { server in
            let cases: [(String, [String: String], String)] = [
                (APIPath.passwordResetRequest, ["email": "not an email"], "email"),
                (APIPath.logIn, ["email": "", "password": ""], "email"),
                (APIPath.refresh, [:], "refreshToken"),
                (APIPath.verifyEmail, [:], "token"),
                (APIPath.passwordResetConfirm, ["token": "x"], "newPassword"),
            ]
            for (path, body, field) in cases {
                let reply = try await server.request(.POST, path, json: body)
                #expect([400, 422].contains(reply.status), "\(path)")
                #expect(reply.json["field"] as? String == field, "\(path)")
            }
            let garbage = try await server.request(.POST, APIPath.refresh, json: ["refreshToken": "ppr_garbage"])
            #expect(garbage.status == 401)
            #expect(try await server.rowCounts()["users"] == 0)
        }
    }
}
