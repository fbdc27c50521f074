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
/// an SQLite file they run on one connection of Pawpack's own, with `BEGIN IMMEDIATE` and
/// statements prepared once, those that arrive together in one transaction (`SQLiteWriter`).
/// Fluent's SQLite connections run each statement on a thread pool and prepare it anew, and their
/// deferred transactions take the write lock only at their first write, so two of them spin in
/// SQLiteNIO's busy handler (which retries at once, without sleeping) for as long as the other
/// holds the file: a message's transaction of a dozen statements crossed threads two dozen times
/// while holding it. Here the same statements take tens of microseconds, and writers wait their
/// turn asleep. When another connection holds the write lock (a Fluent write elsewhere), the
/// transaction goes through Fluent, which waits for it.
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

    struct Counts: Sendable, Equatable {
        /// Transactions the own connection committed.
        var own = 0
        /// Commits they took: transactions that waited together share one.
        var commits = 0
        /// Transactions handed to Fluent because the file was busy.
        var busy = 0
        /// Statements SQLite had to prepare again (which should not happen: it costs as much as
        /// not keeping them).
        var reprepared = 0
        /// Transactions waiting for the next batch now.
        var waiting = 0
        /// The longest a commit took (writing the WAL, and a checkpoint when it ran in place),
        /// and the commits that took more than 10 ms.
        var slowestCommit: Duration = .zero
        var commitsOver10ms = 0

        var slowestCommitMilliseconds: Double {
            Double(slowestCommit.components.seconds) * 1_000 + Double(slowestCommit.components.attoseconds) / 1e15
        }
    }

    var counts: Counts {
        writer.withLockedValue { $0?.counts } ?? Counts()
    }

    /// The own writer's checkpoints so far: asked for, those that emptied the WAL, and those
    /// its commits ran in place (all zero without it).
    var checkpoints: (asked: Int, restarts: Int, inPlace: Int) {
        writer.withLockedValue { $0?.checkpointer.counts } ?? (0, 0, 0)
    }

    /// Runs `body` in one transaction on `db`'s database and commits it; any error rolls it back.
    /// `body` may run more than once (its batch ran again without a body that failed; the own
    /// connection found the file busy part-way, and Fluent runs it again), and in another
    /// caller's task, so it must only write through the statements it is given.
    func transaction<T: Sendable>(
        on db: any Database,
        _ body: @escaping @Sendable (any SQLWriteStatements) async throws -> T
    ) async throws -> T {
        if db.inTransaction { return try await body(FluentWriteStatements(db: db)) }
        if db is any SQLiteDatabase, let writer = writer.withLockedValue({ $0 }),
            let done = try await writer.transaction(dialect: db.sql, body)
        {
            return done
        }
        return try await db.transaction { tx in try await body(FluentWriteStatements(db: tx)) }
    }
}

/// The one writing connection, and the transactions waiting for it.
///
/// Transactions that arrive while another runs queue, and the next to run takes the whole
/// queue into one SQLite transaction, one commit (group commit). Taking turns one transaction
/// at a time, each turn passed was a task resumed on the shared thread pool; under load those
/// resumptions came one after the other while every writer waited, and once a queue formed it
/// stayed: in one bench run in about 25 the writer fell to 300 messages a second, and in
/// another its queue held six seconds of messages. Taken together, a longer queue costs fewer
/// resumptions and commits per transaction, not more, and shared pages (a table's last page, an
/// index's newest) go to the WAL once a batch instead of once a message.
///
/// A body that throws rolls its batch back and keeps its error; the others run again together
/// without it (a body may run more than once: `SQLWrites`).
private final class SQLiteWriter: Sendable {
    private let connection: SQLiteOwnConnection
    let checkpointer: SQLiteCheckpointer
    /// Held by the batch that runs, and by the checkpointer while it starts the WAL over.
    private let turn = AsyncTurn()
    private let state = NIOLockedValueBox(State())
    /// Transactions in one batch at most: a longer queue takes several. The batch's bodies run
    /// one after the other on the thread of the caller that runs it (an event loop), so this
    /// bounds how long that loop's other sockets wait (tens of microseconds a message).
    private static let batchLimit = 64

    private struct State {
        var closed = false
        var counts = SQLWrites.Counts()
        /// Transactions waiting for the next batch.
        var queue: [any QueuedWrite] = []
        /// Someone runs the next batch (or is about to): new transactions queue behind it.
        var leading = false
    }

    init(path: String, logger: Logger) throws {
        connection = try SQLiteOwnConnection(path: path, writes: true)
        checkpointer = try SQLiteCheckpointer(path: path, writersTurn: turn, logger: logger)
        connection.afterEachCommit(checkpointer)
    }

    var counts: SQLWrites.Counts {
        state.withLockedValue { state in
            var counts = state.counts
            counts.waiting = state.queue.count
            return counts
        }
    }

    /// The body's result once committed; nil when the file was busy (nothing was written).
    func transaction<T: Sendable>(
        dialect: any SQLDatabase,
        _ body: @escaping @Sendable (any SQLWriteStatements) async throws -> T
    ) async throws -> T? {
        let write = QueuedTransaction(statements: OwnWriteStatements(connection: connection, dialect: dialect), body: body)
        let leads = await withCheckedContinuation { continuation in
            let now = state.withLockedValue { state -> Bool in
                state.queue.append(write)
                guard state.leading else {
                    state.leading = true
                    return true
                }
                write.waiting = continuation
                return false
            }
            if now { continuation.resume(returning: true) }
        }
        if leads { await runBatch() }
        return try write.outcome()
    }

    /// Runs what is queued, tells each caller, and wakes the first of those who queued
    /// meanwhile to run the next batch.
    private func runBatch() async {
        await turn.take()
        let (batch, closed) = state.withLockedValue { state in
            let batch = Array(state.queue.prefix(Self.batchLimit))
            state.queue.removeFirst(batch.count)
            return (batch, state.closed)
        }
        if closed {
            for write in batch { write.finish(.busy) }
        } else {
            await commit(batch)
        }
        turn.pass()
        let next = state.withLockedValue { state -> (any QueuedWrite)? in
            guard let next = state.queue.first else {
                state.leading = false
                return nil
            }
            return next
        }
        for write in batch { write.wake(leading: false) }
        next?.wake(leading: true)
    }

    /// One transaction for the batch. A body that fails keeps its error (it ran after the ones
    /// before it, as it would have alone), and the batch runs again without it.
    private func commit(_ batch: [any QueuedWrite]) async {
        var batch = batch
        while !batch.isEmpty {
            do {
                guard try connection.rows("BEGIN IMMEDIATE", []) != nil else { return allBusy(batch) }
            } catch {
                return batch.forEach { $0.finish(.failed(error)) }
            }
            var failed: Int?
            for (index, write) in batch.enumerated() {
                switch await write.run() {
                case .done:
                    continue
                case .busy:
                    rollBack()
                    return allBusy(batch)
                case .failed:
                    failed = index
                }
                break
            }
            if let failed {
                rollBack()
                batch.remove(at: failed)
                continue
            }
            var took = Duration.zero
            do {
                let started = ContinuousClock.now
                let committed = try connection.rows("COMMIT", []) != nil
                took = ContinuousClock.now - started
                guard committed else {
                    rollBack()
                    return allBusy(batch)
                }
            } catch {
                rollBack()
                return batch.forEach { $0.finish(.failed(error)) }
            }
            let reprepared = connection.repreparations
            state.withLockedValue { state in
                state.counts.own += batch.count
                state.counts.commits += 1
                state.counts.reprepared = reprepared
                state.counts.slowestCommit = max(state.counts.slowestCommit, took)
                if took > .milliseconds(10) { state.counts.commitsOver10ms += 1 }
            }
            return
        }
    }

    func close() async {
        await turn.take()
        state.withLockedValue { $0.closed = true }
        turn.pass()
        await checkpointer.close()
        connection.close()
    }

    private func allBusy(_ batch: [any QueuedWrite]) {
        state.withLockedValue { $0.counts.busy += batch.count }
        for write in batch { write.finish(.busy) }
    }

    private func rollBack() {
        _ = try? connection.rows("ROLLBACK", [])
    }
}

/// How a transaction's body ended in its batch.
private enum WriteOutcome {
    case done, busy
    case failed(any Error)
}

/// A transaction waiting in the writer's queue, whatever its result's type.
private protocol QueuedWrite: AnyObject, Sendable {
    /// Runs the body among the batch's statements and keeps what it answered.
    func run() async -> WriteOutcome
    /// Sets the outcome without running (a busy file, a closed writer, a failed BEGIN).
    func finish(_ outcome: WriteOutcome)
    /// Tells a waiting caller its batch ended (or that it runs the next one).
    func wake(leading: Bool)
}

private final class QueuedTransaction<T: Sendable>: QueuedWrite, @unchecked Sendable {
    // Set by the caller before it queues, or under the writer's lock; read by the batch that
    // runs it, which the caller then waits for: never two at once.
    let statements: OwnWriteStatements
    let body: @Sendable (any SQLWriteStatements) async throws -> T
    var waiting: CheckedContinuation<Bool, Never>?
    private var result: Result<T, any Error>?
    private var busy = false

    init(statements: OwnWriteStatements, body: @escaping @Sendable (any SQLWriteStatements) async throws -> T) {
        self.statements = statements
        self.body = body
    }

    func run() async -> WriteOutcome {
        busy = false
        do {
            result = .success(try await body(statements))
            return .done
        } catch is OwnWriteStatements.Busy {
            finish(.busy)
            return .busy
        } catch {
            result = .failure(error)
            return .failed(error)
        }
    }

    func finish(_ outcome: WriteOutcome) {
        switch outcome {
        case .done: break
        case .busy:
            busy = true
            result = nil
        case .failed(let error): result = .failure(error)
        }
    }

    func wake(leading: Bool) {
        let waiting = waiting
        self.waiting = nil
        waiting?.resume(returning: leading)
    }

    /// The committed result; nil when the file was busy.
    func outcome() throws -> T? {
        guard !busy, let result else { return nil }
        return try result.get()
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
/// `restartAt` frames, the checkpoint copies again beside the writers until little is left, then
/// takes the writers' turn and copies the rest, and the next writer starts the WAL over; writers
/// wait for that last part only, asleep.
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
        /// The frames the last checkpoint left copied, and those the WAL held at the last commit.
        var copied = 0
        var frames = 0
        var closed = false
        var counts = (asked: 0, restarts: 0, inPlace: 0)
        /// The nice value of the checkpoints' thread, once set.
        var nice: Int32?
    }

    /// The checkpoints' thread runs at the lowest priority, in the time the requests leave. A
    /// checkpoint copies a thousand pages into the database file and syncs it, and the kernel's
    /// work for each page written made that a burst of 40–120 ms of one core every few seconds
    /// under the Care bench's writes. At the event loops' priority the burst took a core from
    /// them, and every request in those milliseconds waited: stalls of 60–200 ms every three
    /// seconds (docs/PERFORMANCE.md, "Care", step 10). The price is on a machine saturated for
    /// long: a checkpoint then waits for the time the others leave, and while it holds the
    /// checkpoint lock the commits cannot checkpoint in place, so the WAL may pass `inPlaceAt`
    /// until the load eases; it starts over as soon as the checkpoint is through.
    static let nice: Int32 = 19

    /// Passive checkpoints at most before a restart's last part, and the frames that may be
    /// left for that part.
    private static let catchUpPasses = 6
    private static let leftForTheWriters = 64

    init(
        path: String, writersTurn: AsyncTurn, pages: Int = 1_000, restartAt: Int = 16_384,
        nice: Int32 = SQLiteCheckpointer.nice, logger: Logger
    ) throws {
        connection = try SQLiteOwnConnection(path: path, writes: true)
        self.writersTurn = writersTurn
        self.pages = pages
        self.restartAt = restartAt
        self.logger = logger
        thread.start()
        #if os(Linux)
            // Linux keeps a nice value per thread, and `who` 0 names the calling one.
            thread.submit { [state] _ in
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
                let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                state.withLockedValue { $0.nice = nice }
            }
        #endif
    }

    /// The nice value the checkpoints' thread runs at, once it is set (on Linux).
    var threadNice: Int32? { state.withLockedValue { $0.nice } }

    /// Checkpoints asked for, those that emptied the WAL, and those run in place.
    var counts: (asked: Int, restarts: Int, inPlace: Int) { state.withLockedValue { $0.counts } }

    /// Told after each commit of the writer (`SQLiteOwnConnection.afterEachCommit`); true when
    /// the writer must checkpoint in place.
    func walHolds(_ frames: Int) -> Bool {
        state.withLockedValue { state -> Bool in
            state.frames = frames
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
            // Beside the writers first, until little is left to copy (each pass copies what
            // came in during the one before): the part they wait for copies and syncs only that.
            var passes = 1
            while passes < Self.catchUpPasses, let left = framesLeft(after: done), left > Self.leftForTheWriters {
                done = await checkpoint()
                passes += 1
            }
            await writersTurn.take()
            if let left = framesLeft(after: done), left <= Self.leftForTheWriters {
                done = checkpointHere()
            } else {
                // Not caught up (a pass found the file busy, or writing outran them): the rest
                // is copied on a thread of NIO's shared pool, not on the event loop holding the
                // turn, nor on the checkpoints' own thread, whose lowest priority would keep
                // every writer waiting for as long as the machine stays busy.
                done = await checkpoint(on: .singleton)
            }
            writersTurn.pass()
        }
        state.withLockedValue { state in
            if let copied = done?.copied { state.copied = copied }
            state.running = nil
        }
    }

    /// The frames the WAL holds that this checkpoint did not copy; nil when it did not run.
    private func framesLeft(after done: (frames: Int, copied: Int)?) -> Int? {
        done.map { done in state.withLockedValue { $0.frames } - done.copied }
    }

    /// A checkpoint beside the writers, on the checkpointer's own thread unless told otherwise.
    private func checkpoint(on pool: NIOThreadPool? = nil) async -> (frames: Int, copied: Int)? {
        do {
            return try await (pool ?? thread).runIfActive { self.checkpointHere() }
        } catch {
            // The thread refuses only once the checkpointer is closing.
            return nil
        }
    }

    /// The part writers wait for, when at most `leftForTheWriters` frames are left, run on the
    /// thread that holds their turn (an event loop, for the few milliseconds of its copy and
    /// syncs): handed to the checkpoint's own thread and back, it waited for a thread of the
    /// shared pool to carry on while every writer waited for it.
    private func checkpointHere() -> (frames: Int, copied: Int)? {
        do {
            return try connection.checkpoint()
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
