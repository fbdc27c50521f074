import Fluent
import Foundation
import Logging
import NIOConcurrencyHelpers
import PawpackCore
import SQLKit

/// What happened, for whom: an event for members' open apps, recorded in the transaction of
/// its cause. Its kind is the contract's `RealtimeEvent.type`; its `data`, written for each
/// recipient, is one of the contract's types as the API answers it (a message knows whether it
/// is "from me"). Each area declares its own kinds beside its API (`RealtimeEventValue.message`
/// is Chats'), and `docs/REALTIME.md` documents each.
struct RealtimeEventValue: Sendable {
    var kind: String
    var data: @Sendable (_ recipient: User.ID, _ mapping: APIMapping) -> any Encodable & Sendable

    /// The bell's count: the one kind a socket's replay keeps only the newest of.
    static let notificationKind = "notification"
}

/// One stored event, as a socket sends it.
struct StoredRealtimeEvent: Sendable, Equatable {
    var user: User.ID
    var seq: Int64
    var kind: String
    var payload: String
    var createdAt: Date

    init(user: User.ID, seq: Int64, kind: String, payload: String, createdAt: Date) {
        self.user = user
        self.seq = seq
        self.kind = kind
        self.payload = payload
        self.createdAt = createdAt
    }

    init(_ record: RealtimeEventRecord) {
        self.init(user: record.$user.id, seq: record.seq, kind: record.kind, payload: record.payload, createdAt: record.createdAt)
    }

    /// `{"id":12,"type":"message","at":"…","data":{…}}`: the payload is JSON already.
    var wireText: String {
        "{\"id\":\(seq),\"type\":\"\(kind)\",\"at\":\"\(Self.timestamp(createdAt))\",\"data\":\(payload)}"
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}

/// The durable side of realtime: an event is a row per recipient, written in the transaction of
/// what caused it, so a crash between commit and delivery loses nothing (the app catches up on
/// reconnect); `deliver` then hands the committed events to the hub.
final class RealtimeEvents: Sendable {
    let hub: RealtimeHub
    let clock: any AppClock
    /// What the events' data is written with: the API's mapping, known once the app is set up.
    /// (In a class: a closure kept in a generic box and read through `inout` is wrapped in one
    /// more reabstraction thunk at each read, and each call then runs through all of them.)
    private let mapping = NIOLockedValueBox<MappingSource?>(nil)

    private final class MappingSource: Sendable {
        let make: @Sendable () -> APIMapping

        init(_ make: @escaping @Sendable () -> APIMapping) { self.make = make }
    }
    private let forgetting = RepeatingTask()
    /// Other instances on the same PostgreSQL database; none on SQLite.
    let fanOut = NIOLockedValueBox<PostgresFanOut?>(nil)
    /// What sockets acknowledged, which spares their members a push.
    let acknowledgements: RealtimeAcknowledgements

    /// Which of a member's sessions are open: a socket whose session is not is closed.
    private let openSessions: OpenSessions

    init(hub: RealtimeHub, clock: any AppClock, writes: SQLWrites, openSessions: @escaping OpenSessions) {
        self.hub = hub
        self.clock = clock
        self.openSessions = openSessions
        acknowledgements = RealtimeAcknowledgements(writes: writes)
    }

    /// Some of the member's sessions ended (call after the commit that ended them): their
    /// sockets are closed here and, through the fan-out, on every other instance, before this
    /// returns here and before any later event is delivered there.
    func sessionsEnded(of user: User.ID, on db: any Database) async {
        await closeEndedSessions(of: user, on: db)
        if let fanOut = fanOut.withLockedValue({ $0 }) { await fanOut.announceSessionsEnded(of: user) }
    }

    /// Closes this instance's sockets of the member whose session is no longer open. When the
    /// sessions cannot be read, every socket of the member is closed: one still signed in
    /// reconnects, one signed out must not keep listening.
    func closeEndedSessions(of user: User.ID, on db: any Database) async {
        guard await hub.count(of: user) > 0 else { return }
        let open = (try? await openSessions(user, db)) ?? []
        await hub.close(socketsOf: user, except: open)
    }

    /// Set once at start-up: the API's mapping, built after the services.
    func use(_ mapping: @escaping @Sendable () -> APIMapping) {
        let source = MappingSource(mapping)
        self.mapping.withLockedValue { $0 = source }
    }

    /// Stores the event for each recipient, numbered after their last one; call inside the
    /// transaction of its cause, and `deliver` what it returns once that has committed.
    func record(_ event: RealtimeEventValue, for recipients: [User.ID], on db: any Database) async throws -> [StoredRealtimeEvent] {
        try await record(event, for: recipients, in: FluentWriteStatements(db: db))
    }

    /// `record` among the statements of a transaction under way (`SQLWrites`).
    func record(
        _ event: RealtimeEventValue, for recipients: [User.ID],
        in statements: any SQLWriteStatements
    ) async throws -> [StoredRealtimeEvent] {
        try await record(recipients.map { ($0, event) }, in: statements)
    }

    /// Events of their own for several members (a notification with each one's unread
    /// count), with the same two statements whatever their number; a member named twice gets
    /// the first.
    func record(
        _ events: [(recipient: User.ID, event: RealtimeEventValue)],
        in statements: any SQLWriteStatements
    ) async throws -> [StoredRealtimeEvent] {
        guard let mapping = mapping.withLockedValue({ $0 })?.make(), !events.isEmpty else { return [] }
        let now = clock.now()
        var eventOf: [User.ID: RealtimeEventValue] = [:]
        for (recipient, event) in events where eventOf[recipient] == nil { eventOf[recipient] = event }
        // In one order whatever the cause, so that two transactions raising the same members'
        // counts take their row locks in the same order and never wait on each other.
        let ordered = eventOf.keys.sorted(by: { $0.description < $1.description })
        // One statement reads and raises every recipient's count, under the rows' locks on
        // PostgreSQL, so two events for one member never get the same number.
        let counters = ordered.map { "(\(bind: $0), 1)" as SQLQueryString }.joined(separator: ", ")
        var seqs: [User.ID: Int64] = [:]
        for row in try await statements.rows(
            """
            INSERT INTO "realtime_counters" ("user_id", "last_seq") VALUES \(counters)
            ON CONFLICT ("user_id") DO UPDATE SET "last_seq" = "realtime_counters"."last_seq" + 1
            RETURNING "user_id", "last_seq"
            """)
        {
            seqs[try row.decode(column: "user_id", as: User.ID.self)] = try row.decode(column: "last_seq", as: Int64.self)
        }
        let stored = try ordered.compactMap { recipient -> StoredRealtimeEvent? in
            guard let seq = seqs[recipient], let event = eventOf[recipient] else { return nil }
            return StoredRealtimeEvent(
                user: recipient, seq: seq, kind: event.kind,
                payload: try Self.json(event.data(recipient, mapping)), createdAt: now)
        }
        guard !stored.isEmpty else { return [] }
        let rows = stored.map {
            "(\(bind: UUID.timeOrdered(at: now)), \(bind: $0.user), \(bind: $0.seq), \(bind: $0.kind), \(bind: $0.payload), \(bind: now))"
                as SQLQueryString
        }.joined(separator: ", ")
        try await statements.run(
            """
            INSERT INTO "realtime_events" ("id", "user_id", "seq", "kind", "payload", "created_at") VALUES \(rows)
            """)
        return stored
    }

    /// Hands committed events to the sockets that want them.
    func deliver(_ events: [StoredRealtimeEvent]) async {
        guard !events.isEmpty else { return }
        await hub.deliver(events)
        if let fanOut = fanOut.withLockedValue({ $0 }) { await fanOut.announce(events) }
    }

    /// A member's events after `seq`, oldest first, at most `limit`.
    static func events(of user: User.ID, after seq: Int64, limit: Int, on db: any Database) async throws -> [StoredRealtimeEvent] {
        try await RealtimeEventRecord.query(on: db).filter(\.$user.$id == user).filter(\.$seq > seq)
            .sort(\.$seq).limit(limit).all().map(StoredRealtimeEvent.init)
    }

    /// The member's last event number, 0 before the first.
    static func lastSeq(of user: User.ID, on db: any Database) async throws -> Int64 {
        guard
            let row = try await db.sql.raw(
                """
                SELECT "last_seq" FROM "realtime_counters" WHERE "user_id" = \(bind: user)
                """
            ).first()
        else { return 0 }
        return try row.decode(column: "last_seq", as: Int64.self)
    }

    /// The oldest event still kept for the member, nil when none is.
    static func oldestSeq(of user: User.ID, on db: any Database) async throws -> Int64? {
        try await RealtimeEventRecord.query(on: db).filter(\.$user.$id == user).sort(\.$seq).first()?.seq
    }

    /// Forgets old events now and every hour, until `stopForgetting`. Each instance may do it:
    /// deleting what is already gone changes nothing.
    func startForgetting(retention: TimeInterval, on db: any Database, logger: Logger) {
        forgetting.start(every: .seconds(3_600)) {
            do {
                try await self.forgetOld(retention: retention, on: db)
            } catch {
                logger.error("could not forget old realtime events", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops forgetting, waiting for a deletion under way to finish.
    func stopForgetting() async {
        await forgetting.stop()
    }

    /// Forgets events older than the retention period.
    func forgetOld(retention: TimeInterval, on db: any Database) async throws {
        try await RealtimeEventRecord.query(on: db).filter(\.$createdAt < clock.now().addingTimeInterval(-retention)).delete()
    }

}

/// The events each member's sockets acknowledged (`{"type":"ack","id":N}`), kept as the highest
/// id per member in `realtime_counters`: a message whose push is due is not pushed when its
/// event was acknowledged, as its member saw it in the app. Only acknowledgements that cover a
/// notification event come here (`RealtimeConnection`), the only ones a push waits for; they are
/// written a batch at a time, at most five times a second, one statement per batch.
actor RealtimeAcknowledgements {
    private var pending: [User.ID: Int64] = [:]
    private var writing: Task<Void, Never>?
    /// Where the sockets' acknowledgements go (the one they came with).
    private var database: (any Database)?
    private let writes: SQLWrites
    private let logger = Logger(label: "pawpack.realtime")
    /// Members per statement: two values each, far below either database's limit on them.
    private static let batchLimit = 500

    init(writes: SQLWrites) {
        self.writes = writes
    }

    /// Set by `stop`: nothing more is written once the server stops.
    private var stopped = false

    func acknowledge(_ seq: Int64, by user: User.ID, on db: any Database) {
        guard !stopped else { return }
        pending[user] = max(pending[user] ?? 0, seq)
        database = db
        guard writing == nil else { return }
        writing = Task { await self.writeWhilePending(on: db) }
    }

    /// Writes what was acknowledged until now (a push round reads it next). Only that: a steady
    /// stream of acknowledgements never keeps it waiting.
    func flush() async {
        guard let database else { return }
        await write(takingPending(), on: database)
    }

    /// Writes what is pending and stops, as the server stops: a write still under way as the
    /// database's pools close would hold a connection past them.
    func stop() async {
        stopped = true
        await writing?.value
    }

    private func writeWhilePending(on db: any Database) async {
        while !pending.isEmpty {
            await write(takingPending(), on: db)
            try? await Task.sleep(for: .milliseconds(200))
        }
        writing = nil
    }

    private func takingPending() -> [User.ID: Int64] {
        defer { pending = [:] }
        return pending
    }

    /// Never above the member's last event: an id the server did not give counts for nothing;
    /// nor below what is written, so two batches may land in any order.
    private func write(_ batch: [User.ID: Int64], on db: any Database) async {
        guard !batch.isEmpty else { return }
        let chunks = stride(from: 0, to: batch.count, by: Self.batchLimit).map {
            Array(batch.dropFirst($0).prefix(Self.batchLimit))
        }
        do {
            try await writes.transaction(on: db) { statements in
                for chunk in chunks {
                    let acks = chunk.map { "(\(bind: $0.key), \(bind: $0.value))" as SQLQueryString }.joined(separator: ", ")
                    try await statements.run(
                        """
                        WITH "acks" ("user_id", "seq") AS (VALUES \(acks))
                        UPDATE "realtime_counters" SET "acked_seq" = "acks"."seq" FROM "acks"
                        WHERE "realtime_counters"."user_id" = "acks"."user_id" AND "realtime_counters"."acked_seq" < "acks"."seq"
                            AND "realtime_counters"."last_seq" >= "acks"."seq"
                        """)
                }
            }
        } catch {
            // A lost acknowledgement costs a push that was not needed, nothing more.
            logger.warning("acknowledgements not written", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

extension RealtimeEvents {
    /// An event's data as JSON, keys sorted, dates in ISO 8601: as the API writes them.
    static func json(_ value: any Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
