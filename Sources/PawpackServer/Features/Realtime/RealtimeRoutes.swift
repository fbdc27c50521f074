import Foundation
import NIOCore
import PawpackCore
import Vapor

/// `GET /v1/realtime`: one WebSocket per signed-in app or page, authenticated with the bearer
/// token (apps) or the web session cookie (the web app, whose page must be one of ours:
/// `Origin`). `?after=<id>` resumes after the last event the client saw. `docs/REALTIME.md`.
struct RealtimeRoutes {
    let services: PawpackServices

    func register(on app: Application) {
        app.on(.GET, WebPath.realtime.pathComponents) { req async throws -> Response in
            guard Self.asksForWebSocket(req) else {
                // A plain request: negotiated like any operation, then told what to do instead.
                if let accept = req.headers.first(name: .accept), !accept.isEmpty {
                    let ranges = AcceptHeader(accept)
                    guard
                        ranges.accepts(type: "application", subtype: "json")
                            || ranges.accepts(type: "application", subtype: "problem+json")
                    else { throw Problem.notAcceptable }
                }
                throw Problem(
                    status: 426, code: .upgradeRequired, title: "WebSocket only",
                    detail: "Open /v1/realtime as a WebSocket (Connection: Upgrade, Upgrade: websocket).")
            }
            // Refused before the upgrade, as problems: not signed in, a bad `after`, too many sockets.
            let (user, session, ends) = try await signedIn(req)
            let me = try user.requireID()
            let asked = try after(req)
            if await services.realtime.hub.count(of: me) >= services.config.socketsPerMember {
                throw Problem(
                    status: 429, code: .tooManyRequests, title: "Too many connections",
                    detail: "You have \(services.config.socketsPerMember) connections open; close one first.")
            }
            // Where the socket starts is fixed before the upgrade is answered: an event committed
            // once the app has its socket is then always sent, even if it commits before
            // `onUpgrade` runs (read after it, such an event would count as seen).
            let start = StartingPoint(asked: asked, newest: try await RealtimeEvents.lastSeq(of: me, on: req.db))
            return req.boundedWebSocket(
                maxMessageBytes: Self.maxMessageBytes,
                onUpgrade: { req, socket in
                    await connect(req, socket, member: me, session: session, ends: ends, from: start)
                })
        }
    }

    /// The largest message a client may send (an acknowledgement is some 40 bytes), however
    /// it is fragmented; a larger one closes the socket with 1009.
    static let maxMessageBytes = 4_096

    /// `Connection: Upgrade` and `Upgrade: websocket`, as a WebSocket handshake sends (RFC 6455).
    static func asksForWebSocket(_ req: Request) -> Bool {
        let connection = req.headers[.connection].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return connection.contains("upgrade") && req.headers[.upgrade].contains { $0.lowercased() == "websocket" }
    }

    /// The member behind the bearer token, or the web session (from one of our pages), the
    /// session, and when its access token ends.
    private func signedIn(_ req: Request) async throws -> (UserRecord, SocketSession, ends: Date?) {
        if let token = req.headers.bearerAuthorization?.token {
            let (user, record) = try await services.sessions.authenticate(accessToken: token, on: req.db)
            return (user, .app(record.family), record.expiresAt)
        }
        guard req.originIsPublicURL,
            let token = req.cookies[WebCookie.session]?.string,
            let (user, session) = try await services.sessions.webSession(token: token, on: req.db)
        else {
            throw Problem.unauthenticated
        }
        return (user, .web(try session.requireID()), nil)
    }

    private func after(_ req: Request) throws -> Int64? {
        guard let text = req.query[String.self, at: "after"] else { return nil }
        guard text.utf8.count <= 19, let value = Int64(text), value >= 0 else {
            throw Problem.invalidField("after", "must be the id of an event you received")
        }
        return value
    }

    /// Where a socket starts, fixed as the handshake is answered.
    private struct StartingPoint {
        /// The member's newest event then.
        let newest: Int64
        /// The app gave an id newer than any (the database was replaced): it must start over.
        let resync: Bool
        /// Events after this one are sent: the app's id, or the newest.
        let after: Int64

        init(asked: Int64?, newest: Int64) {
            self.newest = newest
            resync = asked.map { $0 > newest } ?? false
            after = resync ? newest : asked ?? newest
        }
    }

    private func connect(
        _ req: Request, _ socket: WebSocket, member me: User.ID, session: SocketSession, ends: Date?,
        from start: StartingPoint
    ) async {
        // The upgrade can finish while the server shuts down, after its databases are gone;
        // Fluent's `db` traps then, so the database is asked for once and the socket is closed
        // with "going away" (the client reconnects to another instance).
        guard let database = req.application.databases.database(logger: req.logger, on: req.eventLoop) else {
            try? await socket.close(code: .goingAway)
            return
        }
        if start.resync { try? await socket.send(RealtimeConnection.resync) }
        let connection = RealtimeConnection(
            user: me, session: session, socket: socket, after: start.after, newest: start.newest, database: database,
            sendQueueLimit: services.config.socketSendQueueLimit)
        let hub = services.realtime.hub
        switch await hub.register(connection) {
        case .added:
            // Ended between the handshake and now (a sign-out racing the upgrade): closed here.
            await services.realtime.closeEndedSessions(of: me, on: database)
        case .tooManySockets:
            try? await socket.close(code: RealtimeConnection.CloseCode.tooManySockets)
            return
        case .stopping:
            try? await socket.close(code: .goingAway)
            return
        }
        let pingSeconds = Int64(services.config.realtimePingSeconds)
        // An app's socket lasts as long as its access token; it reconnects with the next one.
        let lifetime = ends.map { max(0, $0.timeIntervalSince(services.dependencies.clock.now())) }
        // A socket's handlers are set on its own event loop.
        try? await socket.eventLoop.submit {
            // Heartbeats start at a random moment within the first interval: sockets opened
            // together (every app reconnecting after a restart) would otherwise ping together,
            // thousands in the same few seconds, every interval.
            socket.eventLoop.scheduleTask(in: .milliseconds(Int64.random(in: 0..<(pingSeconds * 1_000)))) {
                socket.pingInterval = .seconds(pingSeconds)
            }
            let acknowledgements = services.realtime.acknowledgements
            socket.onText { _, text in connection.acknowledged(text, by: acknowledgements) }
            socket.onClose.whenComplete { _ in
                connection.closed()
                Task { await hub.unregister(connection) }
            }
            if let lifetime {
                socket.eventLoop.scheduleTask(in: .milliseconds(Int64(lifetime * 1_000))) {
                    _ = socket.close(code: RealtimeConnection.CloseCode.sessionEnded)
                }
            }
            // A web session also ends by going idle, which no request announces: its sockets
            // look every ping interval (an open page makes no requests, so it does not keep
            // the session alive).
            if case .web = session {
                let realtime = services.realtime
                let check = socket.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(pingSeconds), delay: .seconds(pingSeconds)) { _ in
                    Task { await realtime.closeEndedSessions(of: me, on: database) }
                }
                socket.onClose.whenComplete { _ in check.cancel() }
            }
        }.get()
        connection.start()
    }
}
