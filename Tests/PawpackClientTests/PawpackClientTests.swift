import Foundation
import PawpackClient
import PawpackCore
import PawpackTestSupport
import Testing

/// The SDK against a live in-process server, over real HTTP.
@Suite struct PawpackClientTests {
    let birthday = LocalDate(year: 1990, month: 5, day: 17)!

    @Test func anAppSignsUpVerifiesLogsInAndManagesTheAccount() async throws {
        try await TestServer.run { server in
            let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!)
            #expect(await pawpack.isHealthy())

            // sign up and verify
            let created = try await pawpack.signUp(
                email: "ada@example.com", password: TestServer.password,
                username: "ada", displayName: "Ada", dateOfBirth: birthday, city: "Lyon", timeZone: "Europe/Paris")
            #expect(created.emailVerified == false)
            #expect(created.timeZone == "Europe/Paris")
            #expect(created.dateOfBirth == birthday)
            let token = try #require(server.linkToken(to: "ada@example.com"))
            let verified = try await pawpack.verifyEmail(token: token)
            #expect(verified.emailVerified)

            // log in and use the session
            let account = try await pawpack.logIn(email: "ada@example.com", password: TestServer.password)
            #expect(account.id == created.id)
            #expect(try await pawpack.me().username == "ada")
            let renamed = try await pawpack.updateProfile(displayName: "Ada L.", city: "")
            #expect(renamed.displayName == "Ada L.")
            #expect(renamed.city == nil)
            let moved = try await pawpack.updateProfile(timeZone: "Asia/Tokyo")
            #expect(moved.timeZone == "Asia/Tokyo")
            #expect(moved.displayName == "Ada L.")
            #expect(try await pawpack.updateProfile(timeZone: "").timeZone == nil)
            let export = try await pawpack.exportData()
            #expect(export.account.id == created.id)
            #expect(export.sessions.map(\.kind) == [.app])

            // delete
            try await pawpack.deleteAccount(password: TestServer.password)
            #expect(await pawpack.session == nil)
            await #expect(throws: PawpackError.self) {
                try await pawpack.logIn(email: "ada@example.com", password: TestServer.password)
            }
        }
    }

    @Test func anExpiredAccessTokenIsRefreshedOnItsOwn() async throws {
        try await TestServer.run { server in
            let member = try await server.member("ada")
            let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await pawpack.logIn(email: member.email, password: member.password)
            let first = try #require(await pawpack.session)

            server.clock.advance(by: 3601)
            #expect(try await pawpack.me().username == "ada")
            let second = try #require(await pawpack.session)
            #expect(second.accessToken != first.accessToken)
            #expect(second.refreshToken != first.refreshToken)
        }
    }

    @Test func serverProblemsArriveAsPawpackErrorsWithTheirCodeAndField() async throws {
        try await TestServer.run { server in
            let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!)
            do {
                _ = try await pawpack.signUp(
                    email: "ada@example.com", password: "short", username: "ada",
                    displayName: "Ada", dateOfBirth: birthday)
                Issue.record("a short password was accepted")
            } catch let error as PawpackError {
                #expect(error.status == 422)
                #expect(error.problemCode == .validationFailed)
                #expect(error.field == "password")
            }
            await #expect(throws: PawpackError.notSignedIn, "me() without a session") { try await pawpack.me() }
            _ = try await pawpack.signUp(
                email: "bob@example.com", password: TestServer.password, username: "bob",
                displayName: "Bob", dateOfBirth: birthday)
            do {
                try await pawpack.logIn(email: "bob@example.com", password: TestServer.password)
                Issue.record("an unverified account logged in")
            } catch let error as PawpackError {
                #expect(error.status == 403)
                #expect(error.problemCode == .emailNotVerified)
            }
        }
    }

    @Test func aSavedSessionResumesAndLogOutEndsItOnTheServer() async throws {
        try await TestServer.run { server in
            let member = try await server.member("ada")
            let first = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await first.logIn(email: member.email, password: member.password)
            let saved = try #require(await first.session)
            let data = try JSONEncoder().encode(saved)

            let resumed = PawpackClient(
                serverURL: URL(string: server.baseURL)!,
                session: try JSONDecoder().decode(Session.self, from: data))
            #expect(try await resumed.me().username == "ada")
            try await resumed.logOut()
            #expect(await resumed.session == nil)
            await #expect(throws: PawpackError.notSignedIn) { try await first.me() }
        }
    }
}
