import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Holds the session between calls, refreshes it once for everyone, and tells the app about
/// every change. An actor because an app makes many calls at once.
actor SessionStore {
    private(set) var session: Session?
    /// The refresh that replaces the access token it names; callers that found the same token
    /// expired wait for it rather than start their own.
    private var refreshing: (replacing: String, task: Task<Session, any Error>)?
    private let onChange: (@Sendable (Session?) -> Void)?
    private var observers: [UUID: AsyncStream<Session?>.Continuation] = [:]

    init(_ session: Session?, onChange: (@Sendable (Session?) -> Void)?) {
        self.session = session
        self.onChange = onChange
    }

    /// Replaces the session (a log-in, a log-out) and tells the app, before any caller goes on
    /// with it. A refresh still on its way no longer counts: it was for the session replaced.
    func set(_ new: Session?) {
        refreshing = nil
        store(new)
    }

    private func store(_ new: Session?) {
        guard new != session else { return }
        session = new
        onChange?(new)
        for observer in observers.values { observer.yield(new) }
    }

    /// A stream of the session: the current one first, then every change.
    func updates() -> AsyncStream<Session?> {
        let (stream, continuation) = AsyncStream<Session?>.makeStream(bufferingPolicy: .unbounded)
        let id = UUID()
        observers[id] = continuation
        continuation.yield(session)
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        return stream
    }

    private func stopObserving(_ id: UUID) {
        observers[id] = nil
    }

    /// A session whose access token is not `stale`, for a call the server refused with it.
    ///
    /// A refresh token works once: the server takes a second use as theft and ends the session.
    /// So of all the calls that found the same token expired, the first runs the one refresh and
    /// the others wait for its result; a call that comes after the token was replaced gets the
    /// current session at once. When the server refuses the refresh token (401), the session is
    /// over: it is forgotten (the app hears of it) and the callers get `notSignedIn`. Any other
    /// failure — the network, a server error — keeps it, to try again on the next call. A session
    /// replaced while the refresh was on its way (a log-out, another log-in) is left as it is.
    func session(
        replacing stale: String,
        refresh: @escaping @Sendable (_ refreshToken: String) async throws -> Session
    ) async throws -> Session {
        if let running = refreshing, running.replacing == stale {
            return try await running.task.value
        }
        guard let current = session else { throw PawpackError.notSignedIn }
        guard current.accessToken == stale else { return current }
        // Runs on this actor between its awaits: the new session is stored before any waiting
        // caller resumes, so none of them sends the stale token again.
        let task = Task { () async throws -> Session in
            defer { if self.refreshing?.replacing == stale { self.refreshing = nil } }
            let outcome: Result<Session, any Error>
            do { outcome = .success(try await refresh(current.refreshToken)) } catch { outcome = .failure(error) }
            guard self.session?.refreshToken == current.refreshToken else {
                // Replaced meanwhile: what is there now is what the caller goes on with.
                guard let now = self.session else { throw PawpackError.notSignedIn }
                return now
            }
            switch outcome {
            case .success(let fresh):
                self.store(fresh)
                return fresh
            case .failure(let error as PawpackError) where error.status == 401:
                self.store(nil)
                throw PawpackError.notSignedIn
            case .failure(let error):
                throw error
            }
        }
        refreshing = (stale, task)
        return try await task.value
    }
}

/// Adds `Authorization: Bearer …` to every request while signed in.
struct BearerTokenMiddleware: ClientMiddleware {
    let store: SessionStore

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        var request = request
        if let token = await store.session?.accessToken {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}
