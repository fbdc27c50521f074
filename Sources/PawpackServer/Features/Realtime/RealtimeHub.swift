import Fluent
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import PawpackCore
import Vapor

/// The sockets of this process, by member: committed events go to their recipient's sockets.
/// Each connection puts its own events in order (`RealtimeConnection`).
actor RealtimeHub {
    private var connections: [User.ID: [ObjectIdentifier: RealtimeConnection]] = [:]
    let socketsPerMember: Int

    init(socketsPerMember: Int) {
        self.socketsPerMember = socketsPerMember
    }

    /// Set by `closeAll`: a socket whose upgrade finishes as the server stops is not kept open.
    private var stopping = false

    enum Registration {
        case added
        case tooManySockets
        case stopping
    }

    /// Adds the connection, unless its member has as many as allowed or the server is stopping.
    func register(_ connection: RealtimeConnection) -> Registration {
        guard !stopping else { return .stopping }
        var mine = connections[connection.user] ?? [:]
        guard mine.count < socketsPerMember else { return .tooManySockets }
        mine[ObjectIdentifier(connection)] = connection
        connections[connection.user] = mine
        return .added
    }

    func unregister(_ connection: RealtimeConnection) {
        connections[connection.user]?[ObjectIdentifier(connection)] = nil
        if connections[connection.user]?.isEmpty == true { connections[connection.user] = nil }
    }

    func count(of user: User.ID) -> Int { connections[user]?.count ?? 0 }

    /// Closes every socket cleanly (1001, going away) as the server stops: apps reconnect to
    /// another instance, or to this one when it is back, with the last id they saw.
    /// The closes are sent together and waited for `closeWait` at most: a peer that stopped
    /// reading (its TCP window full) never lets a close frame out, and must not hold up the stop.
    func closeAll() async {
        stopping = true
        let all = connections.values.flatMap(\.values)
        connections = [:]
        guard let loop = all.first?.socket.eventLoop else { return }
        let closes = all.map { connection in
            connection.closed()
            return connection.socket.close(code: .goingAway)
        }
        // Whichever comes first completes it (a promise completed again stays as it was).
        let closedOrLate = loop.makePromise(of: Void.self)
        EventLoopFuture.andAllComplete(closes, on: loop).cascade(to: closedOrLate)
        loop.scheduleTask(in: Self.closeWait) { closedOrLate.succeed() }
        try? await closedOrLate.futureResult.get()
    }

    static let closeWait = TimeAmount.seconds(2)

    /// Closes the member's sockets whose session is not among `open` (4004: signed out) and
    /// stops sending to them at once.
    func close(socketsOf user: User.ID, except open: Set<SocketSession>) {
        guard let mine = connections[user] else { return }
        for (key, connection) in mine where !open.contains(connection.session) {
            connections[user]?[key] = nil
            connection.close(RealtimeConnection.CloseCode.signedOut)
        }
        if connections[user]?.isEmpty == true { connections[user] = nil }
    }

    func connections(of user: User.ID) -> [RealtimeConnection] { Array(connections[user]?.values ?? [:].values) }

    func deliver(_ events: [StoredRealtimeEvent]) {
        for (user, theirs) in Dictionary(grouping: events, by: \.user) {
            for connection in connections[user]?.values ?? [:].values {
                connection.offer(theirs)
            }
        }
    }
}

/// One member's socket. Events are sent in their order without gaps or repeats: live ones as
/// they come, and when one is missing (events of one member committed by two instances, or the
/// catch-up after a reconnect) the missing ones are read from the database first. A socket
/// that does not read what it is sent is closed: its app catches up when it reconnects.
final class RealtimeConnection: Sendable {
    /// Close codes a client sees (RFC 6455 leaves 4000–4999 to applications).
    enum CloseCode {
        /// The client read too slowly; reconnect with the last id seen.
        static let tooSlow = WebSocketErrorCode.unknown(4001)
        /// The access token expired; refresh it, then reconnect.
        static let sessionEnded = WebSocketErrorCode.unknown(4003)
        /// The session ended (signed out, the password changed, the account deleted, revoked):
        /// sign in again. Reconnecting with the same tokens is refused.
        static let signedOut = WebSocketErrorCode.unknown(4004)
        /// The member has as many sockets open as allowed.
        static let tooManySockets = WebSocketErrorCode.unknown(4008)
    }

    private struct State {
        var lastSent: Int64
        var pending: [Int64: StoredRealtimeEvent] = [:]
        var draining = false
        /// Read the database before sending anything more (a gap, or the first catch-up).
        var fillNeeded = false
        var closed = false
        var filledOnce = false
        /// Notification events sent and not yet acknowledged, oldest first: a push waits for
        /// those alone, so only an acknowledgement that covers one is written.
        var notificationsUnacknowledged: [Int64] = []
    }

    /// Notification events remembered per socket until acknowledged; an app that never
    /// acknowledges forgets the oldest.
    private static let unacknowledgedKept = 256

    let user: User.ID
    /// The session it was opened with; it closes when that ends.
    let session: SocketSession
    let socket: WebSocket
    private let database: any Database
    private let sendQueueLimit: Int
    private let state: NIOLockedValueBox<State>

    /// The member's newest event as the socket was opened: the events after `lastSeen` up to
    /// it exist, or were forgotten.
    private let newestAtStart: Int64

    init(
        user: User.ID, session: SocketSession, socket: WebSocket, after lastSeen: Int64, newest: Int64,
        database: any Database, sendQueueLimit: Int
    ) {
        self.user = user
        self.session = session
        self.socket = socket
        self.database = database
        self.sendQueueLimit = sendQueueLimit
        newestAtStart = newest
        state = NIOLockedValueBox(State(lastSent: lastSeen, fillNeeded: true))
    }

    /// Sends what happened after the id the app gave, then live events.
    func start() {
        drainIfIdle()
    }

    /// An event the app says it received (`{"type":"ack","id":N}`): counted only when this
    /// socket was sent it, and written only when it covers a notification event.
    func acknowledged(_ text: String, by acknowledgements: RealtimeAcknowledgements) {
        guard let ack = try? JSONDecoder().decode(Acknowledgement.self, from: Data(text.utf8)), ack.type == "ack",
            ack.id > 0
        else { return }
        let coversNotification = state.withLockedValue { state -> Bool in
            guard ack.id <= state.lastSent else { return false }
            let covered = state.notificationsUnacknowledged.prefix { $0 <= ack.id }.count
            state.notificationsUnacknowledged.removeFirst(covered)
            return covered > 0
        }
        guard coversNotification else { return }
        let (user, database) = (user, database)
        Task { await acknowledgements.acknowledge(ack.id, by: user, on: database) }
    }

    private struct Acknowledgement: Decodable {
        var type: String
        var id: Int64
    }

    /// Committed events for this member; sent in order once every earlier one is.
    func offer(_ events: [StoredRealtimeEvent]) {
        let tooSlow = state.withLockedValue { state -> Bool in
            for event in events where event.seq > state.lastSent { state.pending[event.seq] = event }
            return state.pending.count > sendQueueLimit
        }
        if tooSlow { close(CloseCode.tooSlow) } else { drainIfIdle() }
    }

    /// Stops sending at once (nothing queued goes out) and closes the socket with `code`.
    func close(_ code: WebSocketErrorCode) {
        state.withLockedValue {
            $0.closed = true
            $0.pending = [:]
        }
        socket.eventLoop.execute { _ = self.socket.close(code: code) }
    }

    func closed() {
        state.withLockedValue { $0.closed = true }
    }

    /// The text to send before anything else when the app's last id is older than what is
    /// kept, or newer than any event: it must read its state again (`resync`).
    static let resync = #"{"type":"resync"}"#

    private func drainIfIdle() {
        let start = state.withLockedValue { state -> Bool in
            guard !state.draining, !state.closed else { return false }
            state.draining = true
            return true
        }
        if start { Task { await drain() } }
    }

    private func drain() async {
        while true {
            let step = state.withLockedValue { state -> (batch: [StoredRealtimeEvent], after: Int64)? in
                guard !state.closed else {
                    state.draining = false
                    return nil
                }
                var batch: [StoredRealtimeEvent] = []
                while let next = state.pending.removeValue(forKey: state.lastSent + 1) {
                    batch.append(next)
                    state.lastSent = next.seq
                    if next.kind == RealtimeEventValue.notificationKind {
                        state.notificationsUnacknowledged.append(next.seq)
                    }
                }
                let over = state.notificationsUnacknowledged.count - Self.unacknowledgedKept
                if over > 0 { state.notificationsUnacknowledged.removeFirst(over) }
                // Something later than the next id waits: the next one is in the database.
                if batch.isEmpty, !state.pending.isEmpty { state.fillNeeded = true }
                guard !batch.isEmpty || state.fillNeeded else {
                    state.draining = false
                    return nil
                }
                return (batch, state.lastSent)
            }
            guard let step else { return }
            if step.batch.isEmpty {
                await fill(after: step.after)
            } else {
                await send(step.batch.map(\.wireText))
            }
        }
    }

    /// Reads the events after `seq` from the database into the queue.
    private func fill(after seq: Int64) async {
        let page = 100
        do {
            let missed = try await RealtimeEvents.events(of: user, after: seq, limit: page, on: database)
            let firstFill = state.withLockedValue { state in
                defer { state.filledOnce = true }
                return !state.filledOnce
            }
            // On the first read, events after the app's id that are not there any more were
            // forgotten (retention; all of them when none is left up to the newest): the app must
            // read its state again, and what is kept follows from the first kept one on.
            var forgottenUpTo: Int64?
            if firstFill {
                if let oldest = missed.first?.seq {
                    if oldest > seq + 1 { forgottenUpTo = oldest - 1 }
                } else if seq < newestAtStart {
                    forgottenUpTo = newestAtStart
                }
            }
            if forgottenUpTo != nil { await send([Self.resync]) }
            state.withLockedValue { state in
                if let forgottenUpTo { state.lastSent = max(state.lastSent, forgottenUpTo) }
                for event in missed where event.seq > state.lastSent { state.pending[event.seq] = event }
                if missed.count < page { state.fillNeeded = false }
                // Nothing older than what waits will come any more: it is next.
                if !state.fillNeeded, let oldest = state.pending.keys.min(), oldest > state.lastSent + 1 {
                    state.lastSent = oldest - 1
                }
            }
        } catch {
            close(.unexpectedServerError)
        }
    }

    /// Writes the texts and waits until they are written out: a socket whose reader keeps up
    /// drains as fast as events come, one that does not lets them wait in `pending`, which is
    /// bounded (`offer`).
    private func send(_ texts: [String]) async {
        let socket = socket
        let written = socket.eventLoop.flatSubmit { [state] () -> EventLoopFuture<Void> in
            var last = socket.eventLoop.makeSucceededVoidFuture()
            // Closed since the batch was taken (its session ended): not a word more.
            guard !state.withLockedValue({ $0.closed }) else { return last }
            for text in texts {
                let promise = socket.eventLoop.makePromise(of: Void.self)
                socket.send(text, promise: promise)
                last = promise.futureResult
            }
            return last
        }
        do {
            try await written.get()
        } catch {
            state.withLockedValue { $0.closed = true }
        }
    }
}
