import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static let signUp = "/v1/auth/signup"
    package static let logIn = "/v1/auth/login"
    package static let refresh = "/v1/auth/refresh"
    package static let logOut = "/v1/auth/logout"
    package static let verifyEmail = "/v1/auth/verify-email"
    package static let resendVerification = "/v1/auth/verify-email/resend"
    package static let passwordResetRequest = "/v1/auth/password-reset/request"
    package static let passwordResetConfirm = "/v1/auth/password-reset/confirm"
    package static let me = "/v1/me"
    package static let location = "/v1/me/location"
    package static let password = "/v1/me/password"
    package static let email = "/v1/me/email"
    package static let export = "/v1/me/export"
    package static let blocks = "/v1/blocks"
    package static func block(_ username: String) -> String { "\(blocks)/\(username)" }
}

// Accounts' steps: members signed up, verified and signed in through the API.
extension TestServer {
    package static let password = "a walk in the park"

    /// Signs up through the API and returns the reply.
    @discardableResult
    package func signUp(
        email: String, username: String, password: String = TestServer.password,
        displayName: String = "Alex", dateOfBirth: String = "1990-05-17",
        city: String? = nil, timeZone: String? = nil
    ) async throws -> Reply {
        var body = [
            "email": email, "username": username, "password": password,
            "displayName": displayName, "dateOfBirth": dateOfBirth,
        ]
        body["city"] = city
        body["timeZone"] = timeZone
        return try await request(.POST, "/v1/auth/signup", json: body)
    }

    /// The token of the newest emailed link to `email` whose URL contains `path`.
    package func linkToken(to email: String, path: String = "/verify") -> String? {
        for message in outbox.messages(to: email).reversed() {
            for word in message.text.split(whereSeparator: { $0.isWhitespace })
            where word.contains(path + "?token=") {
                return word.components(separatedBy: "token=").last
            }
        }
        return nil
    }

    /// Signs up, verifies by the emailed link and logs in; returns the session JSON. The email
    /// is `name@example.com` and the display name `Name` unless given.
    package func member(
        _ name: String, password: String = TestServer.password, email: String? = nil,
        displayName: String? = nil, city: String? = nil
    ) async throws -> Member {
        let email = email ?? "\(name)@example.com"
        let signUp = try await signUp(
            email: email, username: name, password: password,
            displayName: displayName ?? name.capitalized, city: city)
        guard signUp.status == 201 else { throw Abort(.internalServerError, reason: "sign-up failed: \(signUp.text)") }
        guard let token = linkToken(to: email) else { throw Abort(.internalServerError, reason: "no verification mail") }
        let verify = try await request(.POST, "/v1/auth/verify-email", json: ["token": token])
        guard verify.status == 200 else { throw Abort(.internalServerError, reason: "verify failed: \(verify.text)") }
        let login = try await request(.POST, "/v1/auth/login", json: ["email": email, "password": password])
        guard login.status == 200 else { throw Abort(.internalServerError, reason: "login failed: \(login.text)") }
        let session = try login.decode(Components.Schemas.Session.self)
        return Member(
            email: email, username: name, password: password, accessToken: session.accessToken,
            refreshToken: session.refreshToken, id: session.account.id)
    }

    package struct Member: Sendable {
        package var email: String
        package var username: String
        package var password: String
        package var accessToken: String
        package var refreshToken: String
        package var id: String

        package var userID: User.ID { User.ID(string: id)! }
    }

    /// The owner signed in again, with a new access token: after the clock moved past the
    /// hour the first one lasts.
    package func signedInAgain(_ owner: Owner) async throws -> Owner {
        let reply = try await request(.POST, "/v1/auth/login", json: ["email": owner.member.email, "password": owner.member.password])
        guard reply.status == 200 else { throw TestFailure("login: \(reply.status) \(reply.text)") }
        let session = try reply.decode(Components.Schemas.Session.self)
        var again = owner
        again.member.accessToken = session.accessToken
        again.member.refreshToken = session.refreshToken
        return again
    }
}

extension TestBrowser {
    /// The sign-up form Ada fills in on the pages.
    package static let adaSignUp = [
        "email": "ada@example.com", "username": "ada", "displayName": "Ada",
        "dateOfBirth": "1990-05-17", "city": "", "password": TestServer.password,
    ]

    /// Ada, signed up through the pages; opening the emailed link signed her in.
    package static func signedUpAda(_ server: TestServer) async throws -> TestBrowser {
        let browser = TestBrowser(server)
        _ = try await browser.get("/signup")
        _ = try await browser.post("/signup", adaSignUp)
        guard let token = server.linkToken(to: "ada@example.com") else { throw TestFailure("no verification mail to Ada") }
        let verified = try await browser.get("/verify?token=\(token)")
        guard verified.location == "/home?flash=verified" else {
            throw TestFailure("verification: \(verified.status) \(verified.location ?? verified.html)")
        }
        return browser
    }
}
