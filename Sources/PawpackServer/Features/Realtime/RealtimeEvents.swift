import Fluent
import Logging
import Foundation
import NIOConcurrencyHelpers
import PawpackCore
import SQLKit

/// What happened, for whom: the services say it in their own values; `RealtimePayloads` writes
/// it as the contract's JSON for each recipient. `docs/REALTIME.md` documents each kind.
enum RealtimeEventValue: Sendable {
    case message(ChatMessageValue)
    case read(chat: Chats.Chat.ID, reader: User.ID, position: Int, at: Date)
    /// A request the recipient's dog received.
    case matchRequest(MatchRequestValue)
    /// A match, seen from the side of the member whose dog is `myPet`.
    case match(MatchValue, chat: Chats.Chat.ID?)
    case chatClosed(Chats.Chat.ID)
    /// A meet-up proposed or changed, for both participants.
    case meetup(MeetupValue)
    /// A new notification, or one that counts one more message, with the unread count.
    case notification(NotificationValue, unreadCount: Int)

    var kind: String {
        switch self {
        case .message: "message"
        case .read: "read"
        case .matchRequest: "match_request"
        case .match: "match"
        case .chatClosed: "chat_closed"
        case .meetup: "meetup"
        case .notification: "notification"
        }
    }
}

/// Writes an event's `data` for one recipient (the contract's types, as the API answers them).
protocol RealtimePayloadWriter: Sendable {
    func payload(of event: RealtimeEventValue, for recipient: User.ID) throws -> String
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
    private let writer = NIOLockedValueBox<(any RealtimePayloadWriter)?>(nil)
    private let forgetting = RepeatingTask()
    /// Other instances on the same PostgreSQL database; none on SQLite.
    let fanOut = NIOLockedValueBox<PostgresFanOut?>(nil)
    /// What sockets acknowledged, which spares their members a push.
    let acknowledgements = RealtimeAcknowledgements()

    init(hub: RealtimeHub, clock: any AppClock) {
        self.hub = hub
        self.clock = clock
    }

    /// Set once at start-up: the writer is the API's mapping, built after the services.
    func use(_ payloadWriter: any RealtimePayloadWriter) {
        writer.withLockedValue { $0 = payloadWriter }
    }

    /// Stores the event for each recipient, numbered after their last one; call inside the
    /// transaction of its cause, and `deliver` what it returns once that has committed.
    func record(_ event: RealtimeEventValue, for recipients: [User.ID], on db: any Database) async throws -> [StoredRealtimeEvent] {
        guard let writer = writer.withLockedValue({ $0 }) else { return [] }
        let now = clock.now()
        var stored: [StoredRealtimeEvent] = []
        // In one order whatever the cause, so that two transactions raising the same members'
        // counts take their row locks in the same order and never wait on each other.
        for recipient in Set(recipients).sorted(by: { $0.description < $1.description }) {
            // One statement reads and raises the member's count, under the row's lock on
            // PostgreSQL, so two events for one member never get the same number.
            guard let row = try await db.sql.raw("""
                INSERT INTO "realtime_counters" ("user_id", "last_seq") VALUES (\(bind: recipient), 1)
                ON CONFLICT ("user_id") DO UPDATE SET "last_seq" = "realtime_counters"."last_seq" + 1
                RETURNING "last_seq"
                """).first() else { continue }
            let event = StoredRealtimeEvent(user: recipient, seq: try row.decode(column: "last_seq", as: Int64.self),
                                            kind: event.kind, payload: try writer.payload(of: event, for: recipient),
                                            createdAt: now)
            let record = RealtimeEventRecord()
            record.$user.id = recipient
            record.seq = event.seq
            record.kind = event.kind
            record.payload = event.payload
            record.createdAt = now
            try await record.create(on: db)
            stored.append(event)
        }
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
        guard let row = try await db.sql.raw("""
            SELECT "last_seq" FROM "realtime_counters" WHERE "user_id" = \(bind: user)
            """).first() else { return 0 }
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

    /// Everything kept for a member, for the deletion of their account.
    static func deleteRows(of user: User.ID, on db: any Database) async throws {
        try await RealtimeEventRecord.query(on: db).filter(\.$user.$id == user).delete()
        try await db.sql.raw(#"DELETE FROM "realtime_counters" WHERE "user_id" = \#(bind: user)"#).run()
    }
}

/// The events each member's sockets acknowledged (`{"type":"ack","id":N}`), kept as the highest
/// id per member in `realtime_counters`: a message whose push is due is not pushed when its
/// event was acknowledged, as its member saw it in the app. Written a batch at a time, at most
/// five times a second, rather than one statement per acknowledgement.
actor RealtimeAcknowledgements {
    private var pending: [User.ID: Int64] = [:]
    private var writing: Task<Void, Never>?
    /// Where the sockets' acknowledgements go (the one they came with).
    private var database: (any Database)?
    private let logger = Logger(label: "pawpack.realtime")

    func acknowledge(_ seq: Int64, by user: User.ID, on db: any Database) {
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
        do {
            try await db.transaction { tx in
                for (user, seq) in batch {
                    try await tx.sql.raw("""
                        UPDATE "realtime_counters" SET "acked_seq" = \(bind: seq)
                        WHERE "user_id" = \(bind: user) AND "acked_seq" < \(bind: seq) AND "last_seq" >= \(bind: seq)
                        """).run()
                }
            }
        } catch {
            // A lost acknowledgement costs a push that was not needed, nothing more.
            logger.warning("acknowledgements not written", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
