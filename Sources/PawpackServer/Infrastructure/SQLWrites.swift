import Fluent
import FluentSQLiteDriver
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import SQLKit

/// The statements of one write transaction, whichever connection runs them.
protocol SQLWriteStatements: Sendable {
    /// The rows the statement answers: none for most writes, what `RETURNING` names for others.
    func rows(_ query: SQLQueryString) async throws -> [any SQLRow]
}

extension SQLWriteStatements {
    func run(_ query: SQLQueryString) async throws {
        _ = try await rows(query)
    }

    func first(_ query: SQLQueryString) async throws -> (any SQLRow)? {
        try await rows(query).first
    }
}

/// A Fluent database in its transaction: PostgreSQL, and SQLite when the own writer is busy.
struct FluentWriteStatements: SQLWriteStatements {
    let db: any Database

    func rows(_ query: SQLQueryString) async throws -> [any SQLRow] {
        try await db.sql.raw(query).all()
    }
}

/// Write transactions for the paths that write most: a chat message with its events, its
/// notification and pushes, and the sockets' acknowledgements.
///
/// On PostgreSQL, and for a caller already in a transaction, they are Fluent transactions. On
/// an SQLite file they run on one connection of Pawpack's own, one transaction at a time, in
/// place on the caller's thread, with `BEGIN IMMEDIATE` and statements prepared once. Fluent's
/// SQLite connections run each statement on a thread pool and prepare it anew, and their
/// deferred transactions take the write lock only at their first write, so two of them spin in
/// SQLiteNIO's busy handler (which retries at once, without sleeping) for as long as the other
/// holds the file: a message's transaction of a dozen statements crossed threads two dozen times
/// while holding it. Here the same statements take tens of microseconds, and writers wait their
/// turn asleep (`AsyncTurn`). When another connection holds the write lock (a Fluent write
/// elsewhere), the transaction goes through Fluent, which waits for it.
final class SQLWrites: Sendable {
    private let writer = NIOLockedValueBox<SQLiteWriter?>(nil)

    init() {}

    /// Writes through a connection of its own to this SQLite file from now on.
    func useOwnConnection(toSQLiteFile path: String, logger: Logger) throws {
        let writer = try SQLiteWriter(path: path, logger: logger)
        self.writer.withLockedValue { $0 = writer }
    }

    /// Closes the own connection once the transaction under way ends; Fluent writes from now on.
    func close() async {
        let current = writer.withLockedValue { current in
            defer { current = nil }
            return current
        }
        await current?.close()
    }


    /// Transactions the own connection committed, those it handed to Fluent because the file
    /// was busy, and the statements SQLite had to prepare again (which should not happen: it
    /// costs as much as not keeping them).
    var counts: (own: Int, busy: Int, reprepared: Int) {
        writer.withLockedValue { $0?.counts } ?? (0, 0, 0)
    }

    /// Runs `body` in one transaction on `db`'s database and commits it; any error rolls it back.
    /// `body` may run twice (the own connection found the file busy part-way, and Fluent runs
    /// it again), so it must only write through the statements it is given.
    func transaction<T: Sendable>(on db: any Database,
                                  _ body: @escaping @Sendable (any SQLWriteStatements) async throws -> T) async throws -> T {
        if db.inTransaction { return try await body(FluentWriteStatements(db: db)) }
        if db is any SQLiteDatabase, let writer = writer.withLockedValue({ $0 }),
           let done = try await writer.transaction(dialect: db.sql, body) {
            return done
        }
        return try await db.transaction { tx in try await body(FluentWriteStatements(db: tx)) }
    }
}

/// The one writing connection and whose turn it is.
private final class SQLiteWriter: Sendable {
    private let connection: SQLiteOwnConnection
    let checkpointer: SQLiteCheckpointer
    private let turn = AsyncTurn()
    private let state = NIOLockedValueBox((closed: false, own: 0, busy: 0, reprepared: 0))

    init(path: String, logger: Logger) throws {
        connection = try SQLiteOwnConnection(path: path, writes: true)
        checkpointer = try SQLiteCheckpointer(path: path, writersTurn: turn, logger: logger)
        connection.afterEachCommit(checkpointer)
    }

    var counts: (own: Int, busy: Int, reprepared: Int) {
        state.withLockedValue { ($0.own, $0.busy, $0.reprepared) }
    }

    /// The body's result once committed; nil when the file was busy (nothing was written).
    func transaction<T: Sendable>(dialect: any SQLDatabase,
                                  _ body: @Sendable (any SQLWriteStatements) async throws -> T) async throws -> T? {
        await turn.take()
        defer { turn.pass() }
        guard !state.withLockedValue({ $0.closed }) else { return nil }
        let statements = OwnWriteStatements(connection: connection, dialect: dialect)
        guard try connection.rows("BEGIN IMMEDIATE", []) != nil else { return busy() }
        do {
            let result = try await body(statements)
            guard try connection.rows("COMMIT", []) != nil else {
                rollBack()
                return busy()
            }
            let reprepared = connection.repreparations
            state.withLockedValue { $0.own += 1; $0.reprepared = reprepared }
            return result
        } catch is OwnWriteStatements.Busy {
            rollBack()
            return busy()
        } catch {
            rollBack()
            throw error
        }
    }

    func close() async {
        await turn.take()
        state.withLockedValue { $0.closed = true }
        turn.pass()
        await checkpointer.close()
        connection.close()
    }

    private func busy<T>() -> T? {
        state.withLockedValue { $0.busy += 1 }
        return nil
    }

    private func rollBack() {
        _ = try? connection.rows("ROLLBACK", [])
    }
}

/// Statements on the own writing connection, written out as Fluent's SQLite driver would.
private struct OwnWriteStatements: SQLWriteStatements {
    /// Another connection holds the file: the transaction goes through Fluent instead.
    struct Busy: Error {}

    let connection: SQLiteOwnConnection
    let dialect: any SQLDatabase

    func rows(_ query: SQLQueryString) async throws -> [any SQLRow] {
        let (sql, binds) = try query.sqliteStatement(for: dialect)
        guard let rows = try connection.rows(sql, binds) else { throw Busy() }
        return rows
    }
}

/// Whose turn it is to use something one at a time: a caller that finds it taken waits without
/// holding a thread, and turns pass in the order asked.
final class AsyncTurn: Sendable {
    private struct State {
        var taken = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    func take() async {
        let free = state.withLockedValue { state -> Bool in
            guard !state.taken else { return false }
            state.taken = true
            return true
        }
        if free { return }
        await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                guard state.taken else {
                    state.taken = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Gives the turn to the caller waiting longest, or frees it.
    func pass() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.taken = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Checkpoints the own writer's WAL on a thread of its own, through a connection of its own.
///
/// SQLite checkpoints in the commit that takes the WAL past 1,000 pages: it copies them into
/// the database file and waits for the disk twice, on the thread that committed, which for the
/// own writer is an event loop, so every request and socket on that loop waited too (stalls of
/// 20–70 ms several times a second at 800 messages a second). Here the commit only asks, once
/// the WAL holds 1,000 frames more than the last checkpoint copied, and a passive checkpoint,
/// which neither waits for nor holds up readers and writers, copies them beside the writers.
///
/// SQLite starts the WAL over only when a writer finds every frame copied, which under steady
/// writing never happens: frames come in while a checkpoint copies. So once the WAL holds
/// `restartAt` frames, the checkpoint then takes the writers' turn and copies what came in
/// meanwhile, and the next writer starts the WAL over; writers wait for that part only, asleep.
/// Should the WAL outgrow all this (a reader holding an old snapshot, a slow disk), the commit
/// checkpoints in place as SQLite would.
final class SQLiteCheckpointer: Sendable {
    /// Frames added between two checkpoints (SQLite's default is 1,000).
    let pages: Int
    /// Frames in the WAL past which a checkpoint empties it (4 KiB each: 64 MiB by default).
    let restartAt: Int
    /// Frames past which the committing connection checkpoints in place.
    var inPlaceAt: Int { 4 * restartAt }
    private let connection: SQLiteOwnConnection
    private let writersTurn: AsyncTurn
    private let logger: Logger
    private let thread = NIOThreadPool(numberOfThreads: 1)
    private let state = NIOLockedValueBox(State())

    private struct State {
        var running: Task<Void, Never>?
        /// The frames the last checkpoint left copied.
        var copied = 0
        var closed = false
        var counts = (asked: 0, restarts: 0, inPlace: 0)
    }

    init(path: String, writersTurn: AsyncTurn, pages: Int = 1_000, restartAt: Int = 16_384, logger: Logger) throws {
        connection = try SQLiteOwnConnection(path: path, writes: true)
        self.writersTurn = writersTurn
        self.pages = pages
        self.restartAt = restartAt
        self.logger = logger
        thread.start()
    }

    /// Checkpoints asked for, those that emptied the WAL, and those run in place.
    var counts: (asked: Int, restarts: Int, inPlace: Int) { state.withLockedValue { $0.counts } }

    /// Told after each commit of the writer (`SQLiteOwnConnection.afterEachCommit`); true when
    /// the writer must checkpoint in place.
    func walHolds(_ frames: Int) -> Bool {
        state.withLockedValue { state -> Bool in
            // Fewer than were copied: the WAL started over.
            if frames < state.copied { state.copied = 0 }
            guard !state.closed, frames >= state.copied + pages else { return false }
            guard state.running == nil else {
                guard frames >= inPlaceAt else { return false }
                state.counts.inPlace += 1
                return true
            }
            state.counts.asked += 1
            let restart = frames >= restartAt
            if restart { state.counts.restarts += 1 }
            state.running = Task { await self.checkpoint(restart: restart) }
            return false
        }
    }

    private func checkpoint(restart: Bool) async {
        var done = await checkpoint()
        if restart {
            await writersTurn.take()
            done = await checkpoint()
            writersTurn.pass()
        }
        state.withLockedValue { state in
            if let copied = done?.copied { state.copied = copied }
            state.running = nil
        }
    }

    private func checkpoint() async -> (frames: Int, copied: Int)? {
        let connection = connection
        do {
            return try await thread.runIfActive { try connection.checkpoint() }
        } catch {
            // The WAL keeps what was not copied; the next checkpoint tries again.
            logger.warning("SQLite checkpoint failed", metadata: ["error": "\(error)"])
            return nil
        }
    }

    func close() async {
        let running = state.withLockedValue { state in
            state.closed = true
            return state.running
        }
        await running?.value
        try? await thread.shutdownGracefully()
        connection.close()
    }
}
