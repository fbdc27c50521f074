import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

#if canImport(OpenAPIURLSession)
    import OpenAPIURLSession
#else
    import OpenAPIAsyncHTTPClient
#endif

/// The Pawpack Swift SDK: one client per server, async methods, and the session kept for you.
///
/// ```swift
/// let pawpack = PawpackClient(serverURL: URL(string: "https://pawpack.example.org")!,
///                             session: savedSession) { session in keychain.save(session) }
/// try await pawpack.logIn(email: "ada@example.com", password: "a walk in the park")
/// let me = try await pawpack.me()
/// ```
///
/// Signed-in calls refresh an expired access token by themselves, once for all the calls that
/// found it expired. Every failure is a ``PawpackError``. See `docs/SDK.md` for a walk-through.
public final class PawpackClient: Sendable {
    let client: Client
    /// Where the realtime socket is opened.
    let serverURL: URL
    private let store: SessionStore

    /// The transport a client uses unless told otherwise: URLSession on Apple platforms,
    /// AsyncHTTPClient elsewhere (Linux). A request that has no answer after `timeoutSeconds`
    /// fails with ``PawpackError/network(_:)``.
    public static func defaultTransport(timeoutSeconds: Int = 60) -> any ClientTransport {
        #if canImport(OpenAPIURLSession)
            let configuration = URLSessionConfiguration.default
            configuration.timeoutIntervalForRequest = TimeInterval(timeoutSeconds)
            return URLSessionTransport(configuration: .init(session: URLSession(configuration: configuration)))
        #else
            return AsyncHTTPClientTransport(configuration: .init(timeout: .seconds(Int64(timeoutSeconds))))
        #endif
    }

    /// Creates a client.
    /// - Parameters:
    ///   - serverURL: The server's base URL, e.g. `https://pawpack.example.org`.
    ///   - transport: How requests travel; ``defaultTransport(timeoutSeconds:)`` unless you pass another.
    ///   - session: A session saved earlier (for example in the keychain) to resume.
    ///   - onSessionChange: Called with the new session whenever it changes — log in, every
    ///     refresh, log out, or the server ending it (then `nil`) — before the call that changed
    ///     it returns. Save it where you keep secrets: a refresh token works once, so a
    ///     session saved before the last refresh no longer signs in.
    public init(
        serverURL: URL, transport: any ClientTransport = PawpackClient.defaultTransport(),
        session: Session? = nil, onSessionChange: (@Sendable (Session?) -> Void)? = nil
    ) {
        let store = SessionStore(session, onChange: onSessionChange)
        self.store = store
        self.serverURL = serverURL
        self.client = Client(
            serverURL: serverURL, configuration: .pawpack, transport: transport,
            middlewares: [BearerTokenMiddleware(store: store), ProblemMiddleware()])
    }

    /// The current session, to save and pass back to `init` on the next launch.
    public var session: Session? {
        get async { await store.session }
    }

    /// The session now, then each time it changes (`nil` once signed out); for screens that
    /// follow whether the member is signed in.
    public var sessionUpdates: AsyncStream<Session?> {
        get async { await store.updates() }
    }

    /// Whether the server is up and reaches its database.
    public func isHealthy() async -> Bool {
        guard case .ok = try? await client.getHealth() else { return false }
        return true
    }

    // MARK: Calls

    /// Runs one operation, turning what the OpenAPI runtime throws into a ``PawpackError``.
    func send<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as PawpackError {
            throw error
        } catch let error as ClientError {
            // A cancelled task's request fails in the transport's own words (URLError.cancelled,
            // HTTPClientError.cancelled): what the caller asked for was the cancellation.
            if Task.isCancelled || error.underlyingError is CancellationError { throw CancellationError() }
            throw PawpackError(error)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // An answer with a status the call does not expect (`.ok` of a 204): the runtime's own error.
            throw PawpackError.unexpectedResponse(String(describing: error))
        }
    }

    /// Runs a call that needs a session. When the server says its access token is no longer
    /// good, the session is refreshed (once for every call that found the same token stale) and
    /// the call is sent once more.
    func signedIn<T: Sendable>(_ call: () async throws -> T) async throws -> T {
        guard let used = await store.session?.accessToken else { throw PawpackError.notSignedIn }
        do {
            return try await send(call)
        } catch let error as PawpackError where error.problemCode == .tokenExpired || error.problemCode == .unauthenticated {
            _ = try await store.session(replacing: used) { refreshToken in
                try await self.refreshedSession(refreshToken: refreshToken)
            }
            return try await send(call)
        }
    }

    /// A new session for a refresh token; the token is used up either way.
    private func refreshedSession(refreshToken: String) async throws -> Session {
        try await send {
            let ok = try await client.refreshSession(body: .json(.init(refreshToken: refreshToken))).ok
            return try Session(try ok.body.json)
        }
    }

    /// Signs in with what the server answered to a log-in.
    func start(_ session: Session) async {
        await store.set(session)
    }

    /// Forgets the session here.
    func forgetSession() async {
        await store.set(nil)
    }

    /// Rotates the refresh token into a new pair now. Signed-in calls do this by themselves when
    /// needed; an app may call it on launch to find out whether a saved session still works.
    public func refresh() async throws {
        guard let current = await store.session else { throw PawpackError.notSignedIn }
        _ = try await store.session(replacing: current.accessToken) { refreshToken in
            try await self.refreshedSession(refreshToken: refreshToken)
        }
    }
}
