import Foundation
import HTTPTypes
import OpenAPIRuntime
import PawpackClient
import PawpackCore
import PawpackTestSupport
import Testing

/// The SDK's session: refreshed once for all the calls that found it expired, every change
/// reported to the app, resumed from what the app saved, and failures that say what happened.
@Suite struct PawpackClientSessionTests {
    @Test func manyCallsOnAnExpiredTokenShareOneRefreshAndTheSessionSurvives() async throws {
        try await TestServer.run { server in
            // given an app signed in, its access token expired an hour later
            let (_, pawpack, transport) = try await Self.appWithAnExpiredToken(server)

            // when twenty calls start at once
            let names = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await pawpack.me().username } }
                return try await group.reduce(into: []) { $0.append($1) }
            }

            // then all succeed, the server saw exactly one refresh, and the session still works
            #expect(names == Array(repeating: "ada", count: 20))
            #expect(transport.count(of: "refreshSession") == 1)
            #expect(try await pawpack.me().username == "ada")
            #expect(transport.count(of: "refreshSession") == 1)
        }
    }

    @Test func theAppHearsOfEverySessionChangeAndResumesFromWhatItSaved() async throws {
        try await TestServer.run { server in
            let member = try await server.member("ada")
            let saved = SavedSessions()
            let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!) { saved.append($0) }
            let updates = await pawpack.sessionUpdates

            // log in, a refresh, log out: each reaches the app, in order
            try await pawpack.logIn(email: member.email, password: member.password)
            #expect(saved.all.count == 1)
            server.clock.advance(by: 3601)
            _ = try await pawpack.me()
            #expect(saved.all.count == 2)
            let refreshed = try #require(saved.all.last ?? nil)
            #expect(refreshed != saved.all.first ?? nil)

            // a new launch resumes from the session saved last, without logging in
            let relaunched = PawpackClient(serverURL: URL(string: server.baseURL)!, session: refreshed)
            #expect(try await relaunched.me().username == "ada")

            try await pawpack.logOut()
            #expect(saved.all.count == 3)
            #expect(saved.all.last == .some(nil))
            var streamed: [Session?] = []
            for await session in updates {
                streamed.append(session)
                if streamed.count == 4 { break }
            }
            #expect(streamed == [nil] + saved.all, "the stream starts with the session it found, then each change")
        }
    }

    @Test func aSessionEndedOnTheServerSignsTheAppOutAndSaysSo() async throws {
        try await TestServer.run { server in
            // given the same member signed in on two phones
            let member = try await server.member("ada")
            let saved = SavedSessions()
            let phone = PawpackClient(serverURL: URL(string: server.baseURL)!) { saved.append($0) }
            try await phone.logIn(email: member.email, password: member.password)
            let other = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await other.logIn(email: member.email, password: member.password)

            // when the password changes on the other phone, which signs out every other session
            try await other.changePassword(current: member.password, new: "a brand new leash")

            // then the first phone's next call says it is signed out, and its app hears of it
            await #expect(throws: PawpackError.notSignedIn) { try await phone.me() }
            #expect(await phone.session == nil)
            #expect(saved.all.last == .some(nil))
            await #expect(throws: PawpackError.notSignedIn) { try await phone.myPets() }
            #expect(try await other.me().username == "ada")
        }
    }

    @Test func aRefreshTheServerCouldNotAnswerKeepsTheSessionForTheNextCall() async throws {
        try await TestServer.run { server in
            // given an expired access token, and a server that fails the first refresh (503)
            let saved = SavedSessions()
            let (_, pawpack, transport) = try await Self.appWithAnExpiredToken(server) { saved.append($0) }
            transport.answerNextRefresh { Self.problem(status: 503, code: "server_busy") }

            // then the call fails with the server's problem, and the session stays
            do {
                _ = try await pawpack.me()
                Issue.record("a call went through on a refresh that failed")
            } catch let error as PawpackError {
                #expect(error.status == 503)
            }
            #expect(await pawpack.session != nil)
            #expect(saved.all.count == 1, "the app was told of no change")

            // and the next call refreshes and works
            #expect(try await pawpack.me().username == "ada")
            #expect(saved.all.count == 2)
        }
    }

    @Test func aLogInWhileARefreshIsOnItsWayIsNotUndoneByIt() async throws {
        try await TestServer.run { server in
            // given an expired access token, and a refresh held on its way to the server
            let (member, pawpack, transport) = try await Self.appWithAnExpiredToken(server)
            let (gate, release) = AsyncStream<Void>.makeStream()
            transport.answerNextRefresh {
                for await _ in gate { break }
                return nil // then the real refresh, once released
            }
            let call = Task { try await pawpack.me() }
            while transport.count(of: "refreshSession") == 0 { try await Task.sleep(for: .milliseconds(5)) }

            // when the member logs in again meanwhile, and then the refresh gets through
            try await pawpack.logIn(email: member.email, password: member.password)
            let loggedIn = try #require(await pawpack.session)
            release.yield(())

            // then the waiting call goes on with the new log-in, which stays
            #expect(try await call.value.username == "ada")
            #expect(await pawpack.session == loggedIn)
            #expect(try await pawpack.me().username == "ada")
        }
    }

    /// Ada's app signed in, an hour later: its access token has expired, its refresh token not.
    static func appWithAnExpiredToken(
        _ server: TestServer, onSessionChange: (@Sendable (Session?) -> Void)? = nil
    ) async throws -> (TestServer.Member, PawpackClient, RecordingTransport) {
        let member = try await server.member("ada")
        let transport = RecordingTransport()
        let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!, transport: transport, onSessionChange: onSessionChange)
        try await pawpack.logIn(email: member.email, password: member.password)
        server.clock.advance(by: 3601)
        return (member, pawpack, transport)
    }

    /// An answer as the server gives a problem.
    static func problem(status: Int, code: String) -> (HTTPResponse, HTTPBody?) {
        let body = #"{"code":"\#(code)","detail":"Try again.","status":\#(status),"title":"Busy","type":"urn:pawpack:problem:\#(code)"}"#
        return (HTTPResponse(status: .init(code: status), headerFields: [.contentType: "application/problem+json"]), HTTPBody(body))
    }

    @Test func aServerThatCannotBeReachedIsANetworkFailure() async throws {
        // Nothing listens on port 1 of this machine. AsyncHTTPClient tries again to connect
        // until the request's time is up; a short one keeps the test short.
        let pawpack = PawpackClient(
            serverURL: URL(string: "http://127.0.0.1:1")!,
            transport: PawpackClient.defaultTransport(timeoutSeconds: 2))
        do {
            _ = try await pawpack.logIn(email: "ada@example.com", password: "a walk in the park")
            Issue.record("a log-in reached nobody and succeeded")
        } catch let error as PawpackError {
            guard case .network = error else {
                Issue.record("expected a network failure, got \(error)")
                return
            }
            #expect(error.status == nil)
        }
        #expect(await pawpack.isHealthy() == false)
    }
}

/// Sessions an app saved, in order.
final class SavedSessions: @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [Session?] = []

    func append(_ session: Session?) { lock.withLock { sessions.append(session) } }
    var all: [Session?] { lock.withLock { sessions } }
}

/// The SDK's default transport, counting the operations it carries; the next refresh can be
/// answered by the test instead of the server, or held back before it goes.
final class RecordingTransport: ClientTransport, @unchecked Sendable {
    typealias Answer = @Sendable () async throws -> (HTTPResponse, HTTPBody?)?
    private let inner = PawpackClient.defaultTransport()
    private let lock = NSLock()
    private var operations: [String] = []
    private var nextRefresh: Answer?

    /// `answer` runs in place of the next refresh's trip to the server; a nil it returns sends
    /// the refresh on after all.
    func answerNextRefresh(_ answer: @escaping Answer) { lock.withLock { nextRefresh = answer } }

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let scripted = lock.withLock { () -> Answer? in
            operations.append(operationID)
            guard operationID == "refreshSession" else { return nil }
            defer { nextRefresh = nil }
            return nextRefresh
        }
        if let scripted, let answer = try await scripted() { return answer }
        return try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
    }

    func count(of operation: String) -> Int { lock.withLock { operations.filter { $0 == operation }.count } }
    var sent: Set<String> { lock.withLock { Set(operations) } }
}
