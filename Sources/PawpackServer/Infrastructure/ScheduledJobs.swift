import Fluent
import Foundation
import Logging
import NIOConcurrencyHelpers
import SQLKit
import SQLiteKit

/// Work done on a schedule (meet-ups expire, reminders go out). Every instance runs the loop;
/// on PostgreSQL each round runs only where a session advisory lock is taken, so many
/// instances never do the same round at once. The jobs themselves change rows only from the
/// state they expect, so a round run twice would still change nothing twice.
final class ScheduledJobs: Sendable {
    struct Job: Sendable {
        var name: String
        var run: @Sendable (any Database) async throws -> Void
    }

    /// The areas' jobs (`Area.jobs`), given once their services exist.
    private let jobList = NIOLockedValueBox<[Job]>([])
    private let loop = RepeatingTask()

    var jobs: [Job] { jobList.withLockedValue { $0 } }

    func use(_ jobs: [Job]) {
        jobList.withLockedValue { $0 = jobs }
    }

    /// Runs every job now and then every `interval`, until `stop`.
    func start(every interval: Duration, on db: any Database, logger: Logger) {
        loop.start(every: interval) { await self.runAll(on: db, logger: logger) }
    }

    /// Stops the loop, waiting for a round under way to finish.
    func stop() async {
        await loop.stop()
    }

    /// One round of every job; a failing job is logged and the others still run.
    func runAll(on db: any Database, logger: Logger) async {
        for job in jobs {
            do {
                try await Self.runExclusively(job.name, on: db, job.run)
            } catch {
                // In full: PostgresNIO's plain description of an error says nothing of it. Jobs
                // bind only ids and times, nothing secret.
                logger.error("scheduled job failed", metadata: ["job": "\(job.name)", "error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Runs `body` on one connection holding the job's advisory lock on PostgreSQL (false when
    /// another instance holds it), or simply runs it on SQLite, whose one process owns the file.
    @discardableResult
    static func runExclusively(
        _ name: String, on db: any Database,
        _ body: @escaping @Sendable (any Database) async throws -> Void
    ) async throws -> Bool {
        guard !(db is any SQLiteDatabase) else {
            try await body(db)
            return true
        }
        // Fluent runs the closure in a task of its own, which a cancelled caller (a stop) would
        // not reach: the body runs in a task this one cancels.
        let body = CancellableBody(body)
        return try await withTaskCancellationHandler {
            try await db.withConnection { connection in
                let sql = connection.sql
                // One lock per job and schema: advisory locks are the database's, so communities kept in
                // schemas of one database do not wait on each other.
                let key = "pawpack.job.\(name)."
                guard
                    let row = try await sql.raw(
                        """
                        SELECT pg_try_advisory_lock(hashtext(\(bind: key) || current_schema())) AS "locked"
                        """
                    ).first(), try row.decode(column: "locked", as: Bool.self)
                else { return false }
                do {
                    try await body.run(on: connection)
                } catch {
                    _ = try? await sql.raw("SELECT pg_advisory_unlock(hashtext(\(bind: key) || current_schema()))").run()
                    throw error
                }
                try await sql.raw("SELECT pg_advisory_unlock(hashtext(\(bind: key) || current_schema()))").run()
                return true
            }
        } onCancel: {
            body.cancel()
        }
    }
}

/// A job's body run in a task that its caller's cancellation reaches across a hop Fluent makes.
private final class CancellableBody: Sendable {
    private let body: @Sendable (any Database) async throws -> Void
    private let state = NIOLockedValueBox<(task: Task<Void, any Error>?, cancelled: Bool)>((nil, false))

    init(_ body: @escaping @Sendable (any Database) async throws -> Void) {
        self.body = body
    }

    func run(on db: any Database) async throws {
        let task = Task { try await body(db) }
        if state.withLockedValue({
            $0.task = task
            return $0.cancelled
        }) {
            task.cancel()
        }
        try await task.value
    }

    func cancel() {
        state.withLockedValue {
            $0.cancelled = true
            return $0.task
        }?.cancel()
    }
}
