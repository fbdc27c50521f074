import Fluent
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PawpackCore
import PostgresKit
import PostgresNIO
import SQLKit

/// Realtime between instances on one PostgreSQL database. Each instance announces the events it
/// delivered on a channel (`NOTIFY`, after their commit) and listens on that channel with a
/// connection of its own; an announcement about a member whose socket this instance holds is
/// read from the database and handed to the hub, which puts it in order with the rest. A lost
/// announcement (a restarted listener) costs nothing but time: the next event shows the gap,
/// and the socket reads what it missed.
final class PostgresFanOut: Sendable {
    /// Channels are per database: the instances of one community share this one.
    let channel = "pawpack_events"
    /// Announcements from this instance are not read back.
    let instance = String(UUID().uuidString.prefix(8))
    private let configuration: PostgresConnection.Configuration
    private let hub: RealtimeHub
    /// Closes this instance's sockets of sessions that ended (`RealtimeEvents.closeEndedSessions`).
    private let closeEndedSessions: @Sendable (User.ID, any Database) async -> Void
    private let database: @Sendable () -> (any Database)?
    private let listening = NIOLockedValueBox<Task<Void, Never>?>(nil)

    init(
        configuration: SQLPostgresConfiguration, hub: RealtimeHub,
        closeEndedSessions: @escaping @Sendable (User.ID, any Database) async -> Void,
        database: @escaping @Sendable () -> (any Database)?
    ) {
        self.configuration = configuration.coreConfiguration
        self.hub = hub
        self.closeEndedSessions = closeEndedSessions
        self.database = database
    }

    /// Tells the other instances which events were delivered here: "instance user:seq,user:seq…",
    /// in announcements well under PostgreSQL's 8,000 bytes.
    func announce(_ events: [StoredRealtimeEvent]) async {
        guard let db = database() else { return }
        for batch in stride(from: 0, to: events.count, by: 100).map({ Array(events[$0..<min($0 + 100, events.count)]) }) {
            let payload = instance + " " + batch.map { "\($0.user):\($0.seq)" }.joined(separator: ",")
            try? await db.sql.raw("SELECT pg_notify(\(bind: channel), \(bind: payload))").run()
        }
    }

    /// Tells the other instances that sessions of the member ended: "instance !sessions user".
    /// Notifications reach a listener in the order they were sent, so an event announced after
    /// this finds the ended session's sockets closed.
    func announceSessionsEnded(of user: User.ID) async {
        guard let db = database() else { return }
        try? await db.sql.raw("SELECT pg_notify(\(bind: channel), \(bind: "\(instance) \(Self.sessionsEnded) \(user)"))").run()
    }

    private static let sessionsEnded = "!sessions"

    /// Listens until `stop`, connecting again a second after a failure.
    func start(on eventLoop: any EventLoop, logger: Logger) {
        let task = Task {
            var attempt = 0
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        on: eventLoop, configuration: configuration,
                        id: 1, logger: logger
                    ).get()
                    attempt = 0
                    do {
                        try await connection.listen(on: channel) { notifications in
                            for try await notification in notifications {
                                guard let database = self.database() else { continue }
                                await self.received(notification.payload, database: database)
                            }
                        }
                    } catch {
                        // Closed below whatever ended the listening: a connection must be closed
                        // before it goes.
                        try? await connection.close()
                        throw error
                    }
                    try? await connection.close()
                } catch {
                    if Task.isCancelled { break }
                    attempt += 1
                    if attempt == 1 { logger.warning("realtime listener lost its connection", metadata: ["error": "\(error)"]) }
                }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        listening.withLockedValue {
            $0?.cancel()
            $0 = task
        }
    }

    /// Stops listening and waits for the connection to close.
    func stop() async {
        let task = listening.withLockedValue { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    private func received(_ payload: String, database: any Database) async {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != instance else { return }
        if parts[1].hasPrefix(Self.sessionsEnded + " ") {
            if let user = User.ID(string: String(parts[1].dropFirst(Self.sessionsEnded.count + 1))) {
                await closeEndedSessions(user, database)
            }
            return
        }
        var wanted: [User.ID: [Int64]] = [:]
        for item in parts[1].split(separator: ",") {
            let pair = item.split(separator: ":")
            guard pair.count == 2, let user = User.ID(string: String(pair[0])), let seq = Int64(pair[1]) else { continue }
            wanted[user, default: []].append(seq)
        }
        for (user, seqs) in wanted where await hub.count(of: user) > 0 {
            guard
                let events = try? await RealtimeEventRecord.query(on: database).filter(\.$user.$id == user)
                    .filter(\.$seq ~~ seqs).all()
            else { continue }
            await hub.deliver(events.map(StoredRealtimeEvent.init))
        }
    }
}
