import Fluent
import FluentSQLiteDriver
import NIOConcurrencyHelpers
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
    func useOwnConnection(toSQLiteFile path: String) throws {
        let connection = try SQLiteOwnConnection(path: path, writes: true)
        writer.withLockedValue { $0 = SQLiteWriter(connection: connection) }
    }

    /// Closes the own connection once the transaction under way ends; Fluent writes from now on.
    func close() async {
        let current = writer.withLockedValue { current in
            defer { current = nil }
            return current
        }
        await current?.close()
    }

    /// Transactions the own connection committed, and those it handed to Fluent because the
    /// file was busy.
    var counts: (own: Int, busy: Int) {
        writer.withLockedValue { $0?.counts } ?? (0, 0)
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
    private let turn = AsyncTurn()
    private let state = NIOLockedValueBox((closed: false, own: 0, busy: 0))

    init(connection: SQLiteOwnConnection) {
        self.connection = connection
    }

    var counts: (own: Int, busy: Int) { state.withLockedValue { ($0.own, $0.busy) } }

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
            state.withLockedValue { $0.own += 1 }
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
        connection.close()
        turn.pass()
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
