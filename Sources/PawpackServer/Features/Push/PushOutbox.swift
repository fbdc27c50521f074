import Fluent
import Foundation
import Logging
import NIOConcurrencyHelpers
import PawpackCore
import SQLKit

/// Pushes, delivered durably: a notification writes one row per device of its member in its
/// own transaction (`enqueue`), so a crash between the commit and the send loses nothing; a
/// worker sends what is due (`deliverDue`), tries again with a growing delay after 429, 5xx
/// and network errors, drops a push after its deadline and forgets a device whose token the
/// service says is gone. A message first waits a few seconds: if one of its member's sockets
/// acknowledged it, they saw it in the app and are not buzzed as well.
final class PushOutbox: Sendable {
    let providers: PushProviders
    let acknowledgements: RealtimeAcknowledgements
    let clock: any AppClock
    let logger: Logger
    private let loop = RepeatingTask()
    private let rounds = OneAtATime()
    /// Pushes sent at once in a round: APNs and FCM take many on one HTTP/2 connection.
    static let concurrentSends = 16
    static let batchSize = 200

    init(providers: PushProviders, acknowledgements: RealtimeAcknowledgements, clock: any AppClock, logger: Logger) {
        self.providers = providers
        self.acknowledgements = acknowledgements
        self.clock = clock
        self.logger = logger
    }

    /// Writes a push of each notification for each of its member's devices, in the caller's
    /// transaction, with three statements whatever their number. A message's push waits for the
    /// acknowledgement of its realtime event (`ackSeq`); a newer push of the same notification
    /// replaces one that has not gone yet.
    func enqueue(_ notifications: [NotificationService.Stored], in statements: any SQLWriteStatements) async throws {
        guard !notifications.isEmpty else { return }
        var devicesOf: [User.ID: [Devices.Device.ID]] = [:]
        for row in try await statements.rows(
            """
            SELECT "id", "user_id" FROM "devices" WHERE "user_id" IN (\(binds: Array(Set(notifications.map(\.user)))))
            """)
        {
            devicesOf[try row.decode(column: "user_id", as: User.ID.self), default: []].append(
                try row.decode(column: "id", as: Devices.Device.ID.self))
        }
        let pushed = notifications.filter { devicesOf[$0.user] != nil }
        guard !pushed.isEmpty else { return }
        try await statements.run(
            """
            DELETE FROM "push_outbox" WHERE "notification_id" IN (\(binds: pushed.map(\.value.id))) AND "attempts" = 0
            """)
        let now = clock.now()
        let rows = pushed.flatMap { stored -> [SQLQueryString] in
            let notification = stored.value
            let due = stored.ackSeq == nil ? now : now.addingTimeInterval(PushRules.acknowledgementWindow)
            let collapseKey = notification.kind == .message ? notification.chat?.description : nil
            return devicesOf[stored.user, default: []].map { device in
                """
                (\(bind: UUID()), \(bind: device), \(bind: stored.user), \(bind: notification.id), \(bind: notification.kind.rawValue),
                 \(bind: notification.title), \(bind: notification.body), \(bind: notification.opens), \(bind: collapseKey),
                 \(bind: stored.unread), \(bind: stored.ackSeq), \(bind: due), 0, \(bind: now.addingTimeInterval(PushRules.deadline)),
                 \(bind: now), \(bind: notification.pet))
                """ as SQLQueryString
            }
        }.joined(separator: ", ")
        try await statements.run(
            """
            INSERT INTO "push_outbox" ("id", "device_id", "user_id", "notification_id", "kind", "title", "body", "path",
                "collapse_key", "badge", "ack_seq", "due_at", "attempts", "deadline", "created_at", "pet_id")
            VALUES \(rows)
            """)
    }

    // MARK: The worker

    /// Sends what is due now and then every `interval`, until `stop`.
    func start(every interval: Duration, on db: any Database) {
        loop.start(every: interval) { await self.deliverDue(on: db) }
    }

    /// Stops the loop, waiting for a round under way.
    func stop() async {
        await loop.stop()
    }

    /// One round: every push due now. Rounds of this process run one after the other, and on
    /// PostgreSQL one instance at a time (`ScheduledJobs.runExclusively`).
    func deliverDue(on db: any Database) async {
        try? await rounds.run {
            // What this process's sockets acknowledged counts in this round.
            await self.acknowledgements.flush()
            do {
                try await ScheduledJobs.runExclusively("push", on: db) { db in
                    // A stop cancels the round: what is not sent stays in the outbox for the next start.
                    while !Task.isCancelled, try await self.round(on: db) == Self.batchSize {}
                }
            } catch {
                self.logger.error("push round failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Sends one batch of due pushes; how many were due.
    private func round(on db: any Database) async throws -> Int {
        let now = clock.now()
        // News of a day ago is no longer news: dropped unsent, also when it never got its first
        // try (the service was down, or said to wait).
        let late = try await PushOutboxRecord.query(on: db).filter(\.$deadline <= now).count()
        if late > 0 {
            try await PushOutboxRecord.query(on: db).filter(\.$deadline <= now).delete()
            logger.warning("pushes dropped after their deadline", metadata: ["count": "\(late)"])
        }
        let due = try await PushOutboxRecord.query(on: db).filter(\.$dueAt <= now).sort(\.$dueAt).limit(Self.batchSize)
            .with(\.$device).all()
        guard !due.isEmpty else { return 0 }
        let seen = try await Self.seen(due, on: db)
        var outcomes: [(PushOutboxRecord, PushOutcome?)] = []
        await withTaskGroup(of: (PushOutboxRecord, PushOutcome?).self) { group in
            var running = 0
            for row in due {
                guard !Task.isCancelled else { break }
                if running == Self.concurrentSends, let done = await group.next() {
                    outcomes.append(done)
                    running -= 1
                }
                // Seen in the app, or read, before its push went: nothing to send.
                let skip = row.id.map(seen.contains) ?? false
                group.addTask { (row, skip ? nil : await self.send(row, now: now)) }
                running += 1
            }
            for await done in group { outcomes.append(done) }
        }
        for (row, outcome) in outcomes {
            // Cut short by a stop: not an attempt, the push stays as it was.
            if Task.isCancelled, case .retry = outcome { continue }
            try await apply(outcome, to: row, now: now, on: db)
        }
        return due.count
    }

    /// The rows whose member saw them already: a message acknowledged on a socket, or any
    /// notification read before its push went.
    private static func seen(_ rows: [PushOutboxRecord], on db: any Database) async throws -> Set<UUID> {
        let users = Set(rows.filter { $0.ackSeq != nil }.map(\.userID))
        var acknowledged: [User.ID: Int64] = [:]
        if !users.isEmpty {
            for row in try await db.sql.raw(
                """
                SELECT "user_id", "acked_seq" FROM "realtime_counters" WHERE "user_id" IN (\(binds: Array(users)))
                """
            ).all() {
                acknowledged[try row.decode(column: "user_id", as: User.ID.self)] = try row.decode(column: "acked_seq", as: Int64.self)
            }
        }
        let read = Set(
            try await NotificationRecord.query(on: db).filter(\.$id ~~ Set(rows.map(\.notificationID)))
                .filter(\.$readAt != nil).all().map { try $0.requireID() })
        return Set(
            try rows.filter { row in
                read.contains(row.notificationID) || row.ackSeq.map { (acknowledged[row.userID] ?? 0) >= $0 } == true
            }.map { try $0.requireID() })
    }

    private func send(_ row: PushOutboxRecord, now: Date) async -> PushOutcome {
        let device = row.device
        let platform = PushPlatform(rawValue: device.platform) ?? .apns
        let message = PushMessage(
            id: row.id ?? UUID(), kind: NotificationKind(rawValue: row.kind) ?? .message,
            title: row.title, body: row.body, path: row.path, collapseKey: row.collapseKey,
            badge: row.badge, expiresAt: row.deadline, notification: row.notificationID.rawValue, pet: row.petID?.rawValue)
        let target = PushTarget(
            device: device.id ?? .init(), platform: platform, token: device.token, appID: device.appID,
            environment: device.environment.flatMap(APNsEnvironment.init) ?? .production,
            webKeys: device.webP256DH.flatMap { key in device.webAuth.map { WebPushKeys(p256dh: key, auth: $0) } })
        providers.developmentLog?.record(message, to: target, of: row.userID, at: now)
        guard let provider = providers.provider(for: platform) else { return .delivered }
        return await provider.send(message, to: target)
    }

    private func apply(_ outcome: PushOutcome?, to row: PushOutboxRecord, now: Date, on db: any Database) async throws {
        let metadata: Logger.Metadata = ["platform": "\(row.device.platform)", "kind": "\(row.kind)", "attempts": "\(row.attempts + 1)"]
        switch outcome {
        case nil, .delivered:
            try await row.delete(on: db)
        case .rejected(let reason):
            logger.warning("push refused for good", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            try await row.delete(on: db)
        case .invalidToken(let reason):
            logger.info("device forgotten: its token is gone", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
            try await db.transaction { tx in try await DeviceService.delete([row.$device.id], on: tx) }
        case .retry(let reason, let after):
            let attempts = row.attempts + 1
            let next = now.addingTimeInterval(
                max(
                    PushRules.retryDelay(afterAttempts: attempts, jitter: .random(in: 0...1)),
                    min(after ?? 0, 3_600)))
            guard next < row.deadline else {
                logger.warning("push dropped after its deadline", metadata: metadata.merging(["reason": "\(reason)"]) { $1 })
                try await row.delete(on: db)
                return
            }
            row.attempts = attempts
            row.dueAt = next
            try await row.save(on: db)
        }
    }
}
