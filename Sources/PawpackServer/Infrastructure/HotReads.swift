import Fluent
import FluentSQLiteDriver
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PawpackCore
import SQLKit
import SQLiteKit
import SQLiteNIO
// The copy of SQLite that SQLiteNIO vendors: the same library, and so the same file locks, as
// the connections Fluent writes through.
import VaporCSQLite

/// The reads nearly every API request makes (its access token, the pet it names, the dog
/// opening its deck, a page of cards), run as fast as the database allows.
///
/// On PostgreSQL, and inside a transaction, they are ordinary queries on the `Database` given.
/// On an SQLite file they run on connections of their own (`SQLiteReadConnections`), in place
/// on the calling thread, with each statement prepared once per connection. Fluent's SQLite
/// connections run every statement on a thread pool and hand the answer back: two thread
/// switches and a new statement per query, which at a few hundred deck requests a second cost
/// more than SQLite's reading itself. These reads take from tens of microseconds (a token) to a
/// few hundred (a page of cards), about what encoding the response takes, so running them in
/// place does not hold the caller up any longer than the hand-over did.
///
/// Write a `LIMIT` as a literal (`\(literal: n)`), not a bound value: SQLite plans with the
/// value of a bound `LIMIT`, and so prepares the statement again whenever it is bound anew.
final class HotReads: Sendable {
    private let connections = NIOLockedValueBox<SQLiteReadConnections?>(nil)

    init() {}

    /// Reads through connections of their own to this SQLite file from now on.
    func useOwnConnections(toSQLiteFile path: String) {
        let previous = connections.withLockedValue { current in
            defer { current = SQLiteReadConnections(path: path) }
            return current
        }
        previous?.close()
    }

    /// Closes the connections; reads go through the database given from now on.
    func close() {
        connections.withLockedValue { current in
            defer { current = nil }
            return current
        }?.close()
    }

    /// What the own connections did so far (all zero without them).
    var counts: SQLiteReadConnections.Counts {
        connections.withLockedValue { $0?.counts } ?? .init()
    }

    /// The rows of `query`, as the database would answer it. `db` answers when there are no
    /// own connections, when it is in a transaction (whose uncommitted writes only it sees), or
    /// when SQLite is busy.
    func rows(_ query: SQLQueryString, on db: any Database) async throws -> [any SQLRow] {
        if !db.inTransaction, let own = connections.withLockedValue({ $0 }), db is any SQLiteDatabase {
            let (sql, binds) = try query.sqliteStatement(for: db.sql)
            if let rows = try own.rows(sql, binds) { return rows }
        }
        return try await db.rows(query)
    }

    /// The rows of `query`, each decoded by `decode`, both on a thread of NIO's shared pool
    /// rather than the caller's: for a read of thousands of rows, which on an event loop holds
    /// up every request waiting behind it for as long, and those behind them after
    /// (docs/PERFORMANCE.md, "Moments", step 10). Otherwise as `rows(_:on:)`.
    func rowsAwayFromLoop<Row: Sendable>(
        _ query: SQLQueryString, on db: any Database, decode: @escaping @Sendable (any SQLRow) throws -> Row
    ) async throws -> [Row] {
        if !db.inTransaction, let own = connections.withLockedValue({ $0 }), db is any SQLiteDatabase {
            let (sql, binds) = try query.sqliteStatement(for: db.sql)
            let read = try await NIOThreadPool.singleton.runIfActive { try own.rows(sql, binds).map { try $0.map(decode) } }
            if let read { return read }
        }
        return try await db.rows(query).map(decode)
    }
}

extension SQLQueryString {
    /// The text and values SQLite runs for this query, as Fluent's SQLite driver would send them.
    func sqliteStatement(for db: any SQLDatabase) throws -> (sql: String, binds: [SQLiteData]) {
        var serializer = SQLSerializer(database: db)
        serialize(to: &serializer)
        let encoder = SQLiteDataEncoder()
        // Typed identifiers convert themselves (`IdentifierColumns.swift`), without
        // Foundation's formatting of a UUID's text.
        return (serializer.sql, try serializer.binds.map { try encoder.encode($0) })
    }
}

/// Read-only connections to one SQLite file, each used by one caller at a time, each keeping
/// its prepared statements. A caller takes an idle connection (or opens one), runs its query to
/// the end and puts the connection back, so there are as many as callers read at once: in a
/// served process about one per thread.
final class SQLiteReadConnections: Sendable {
    let path: String
    private let idle = NIOLockedValueBox<[SQLiteOwnConnection]>([])
    private let closed = NIOLockedValueBox(false)
    private let tally = NIOLockedValueBox(Counts())

    struct Counts: Sendable, Equatable {
        /// Queries answered.
        var own = 0
        /// Queries handed back because SQLite was busy (another connection committing).
        var busy = 0
        /// Runs in which SQLite prepared the statement again.
        var reprepared = 0
    }

    init(path: String) {
        self.path = path
    }

    var counts: Counts { tally.withLockedValue { $0 } }

    /// The rows, or nil when SQLite answered busy (a writer holds the file for its commit;
    /// the caller then asks a connection that waits). Throws SQLite's other errors.
    func rows(_ sql: String, _ binds: [SQLiteData]) throws -> [any SQLRow]? {
        guard let connection = try checkOut() else { return nil }
        defer { checkIn(connection) }
        let before = connection.repreparations
        let rows = try connection.rows(sql, binds)
        tally.withLockedValue {
            if rows == nil { $0.busy += 1 } else { $0.own += 1 }
            $0.reprepared += connection.repreparations - before
        }
        return rows
    }

    /// Closes every idle connection; one in use closes when it comes back.
    func close() {
        closed.withLockedValue { $0 = true }
        for connection in idle.withLockedValue({ list in
            defer { list = [] }
            return list
        }) { connection.close() }
    }

    private func checkOut() throws -> SQLiteOwnConnection? {
        guard !closed.withLockedValue({ $0 }) else { return nil }
        if let connection = idle.withLockedValue({ $0.popLast() }) { return connection }
        return try SQLiteOwnConnection(path: path)
    }

    private func checkIn(_ connection: SQLiteOwnConnection) {
        let keep = closed.withLockedValue { closed in
            closed
                ? false
                : idle.withLockedValue {
                    $0.append(connection)
                    return true
                }
        }
        if !keep { connection.close() }
    }
}

/// One `sqlite3` handle of Pawpack's own, with its statements prepared once: read-only for the
/// hot reads, or the one writer of `SQLWrites`. Not thread-safe: `SQLiteReadConnections` and
/// `SQLWrites` give it to one caller at a time.
final class SQLiteOwnConnection: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]
    /// Statements SQLite prepared again on its own (after a schema change, or because a bound
    /// value may change the plan), which costs as much as not keeping them.
    private(set) var repreparations = 0

    private final class PreparedStatement {
        let handle: OpaquePointer
        /// Column positions by name, read once: the statement's text fixes them.
        let columns: SQLiteReadRow.Columns

        init(handle: OpaquePointer) {
            self.handle = handle
            var names: [String] = []
            for index in 0..<sqlite_nio_sqlite3_column_count(handle) {
                names.append(sqlite_nio_sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "")
            }
            columns = SQLiteReadRow.Columns(names: names)
        }
    }

    init(path: String, writes: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI | SQLITE_OPEN_EXRESCODE
        let opened = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard opened == SQLITE_OK, let handle else {
            if let handle { sqlite_nio_sqlite3_close(handle) }
            throw SQLiteReadError(code: opened, message: "could not open \(path)")
        }
        self.handle = handle
        // No busy handler: a busy file answers at once, and the caller asks elsewhere rather
        // than wait on its thread. `query_only` makes sure a reading connection never writes.
        //
        // A reading connection does not map the file. In WAL mode SQLite drops a connection's
        // cache and, when it maps the file, unmaps all of it, at the start of every read after
        // another connection committed: with a message every millisecond that is nearly every
        // read, and the `munmap`, the new mapping and its page faults were a twentieth of the
        // server's CPU. Reading pages with `pread` costs less then, and the same when nothing
        // is written (`bench deck`, in docs/PERFORMANCE.md).
        //
        // The writing connection checks foreign keys as Fluent's connections do. Its page cache
        // stays at SQLite's default: at the end of every transaction SQLite walks the cache's
        // whole hash table, which at 64 MiB was a twentieth of the server's CPU at 500 messages
        // a second, and the pages it writes are found through the memory map anyway (its own
        // commits do not unmap it). Its commits append to the WAL without waiting for the disk
        // (`synchronous = NORMAL`, SQLite's advice for WAL): the next checkpoint, or any commit
        // through Fluent, syncs them. A crash of the server loses nothing; a power cut can lose
        // the last moments' messages.
        let pragmas =
            writes
            ? ["PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL", "PRAGMA mmap_size = 2147418112"]
            : ["PRAGMA query_only = 1", "PRAGMA mmap_size = 0"]
        if writes {
            // The file grows 8 MiB at a time rather than page by page: a connection that maps
            // the file maps it anew whenever its size changed.
            var chunk: Int32 = 8 << 20
            sqlite_nio_sqlite3_file_control(handle, "main", SQLITE_FCNTL_CHUNK_SIZE, &chunk)
        }
        for pragma in pragmas {
            let done = sqlite_nio_sqlite3_exec(handle, pragma, nil, nil, nil)
            guard done == SQLITE_OK else {
                close()
                throw SQLiteReadError(code: done, message: "could not set \(pragma)")
            }
        }
    }

    /// The rows of one query, or nil when the file is busy.
    func rows(_ sql: String, _ binds: [SQLiteData]) throws -> [any SQLRow]? {
        guard let statement = try prepared(sql) else { return nil }
        let handle = statement.handle
        // Resetting ends the read transaction: left open, it would hold a writer back. The
        // values bound stay until the next run binds every parameter again: clearing them
        // (`sqlite3_clear_bindings`) marks a statement whose plan looked at a value bound as
        // expired, and the SQLite that SQLiteNIO bundles (3.54) looks at the values of common
        // terms (a `column = ?` checked row by row, a `LIMIT ?`), so most statements were
        // prepared again at every run (`bench care`: most of the Care tab's statements, each time).
        defer { sqlite_nio_sqlite3_reset(handle) }
        for (offset, value) in binds.enumerated() {
            try check(bind(value, at: Int32(offset + 1), in: handle))
        }
        var rows: [any SQLRow] = []
        while true {
            let stepped = sqlite_nio_sqlite3_step(handle)
            switch stepped {
            case SQLITE_ROW:
                var values: [SQLiteData] = []
                values.reserveCapacity(statement.columns.count)
                for index in 0..<Int32(statement.columns.count) { values.append(value(at: index, in: handle)) }
                rows.append(SQLiteReadRow(columns: statement.columns, values: values))
            case SQLITE_DONE:
                // Read and cleared: how often SQLite had to prepare this statement again because
                // of the values bound (a statement without any is prepared again only after a
                // change of the schema, which is SQLite doing its job).
                let again = Int(sqlite_nio_sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 1))
                if !binds.isEmpty { repreparations += again }
                return rows
            case let code where Self.isBusy(code):
                return nil
            default:
                try check(stepped)
            }
        }
    }

    /// Copies what the WAL holds into the database file as far as no reader still needs it,
    /// without waiting for anyone (a passive checkpoint); a busy file is left for the next time.
    /// Answers how many frames the WAL holds and how many of them are copied now; nil when
    /// the file was busy (left for the next time).
    func checkpoint() throws -> (frames: Int, copied: Int)? {
        var (frames, copied): (Int32, Int32) = (0, 0)
        let done = sqlite_nio_sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
        guard !Self.isBusy(done) else { return nil }
        try check(done)
        return (Int(frames), Int(copied))
    }

    /// Replaces SQLite's automatic checkpoint after a commit by `checkpointer`, told the pages
    /// the WAL then holds; it runs inside the commit, so it must return at once, and when it
    /// answers true the committing connection checkpoints then and there.
    func afterEachCommit(_ checkpointer: SQLiteCheckpointer) {
        sqlite_nio_sqlite3_wal_hook(
            handle,
            { context, handle, _, pages in
                guard let context, let handle else { return SQLITE_OK }
                if Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().walHolds(Int(pages)) {
                    // As SQLite's own hook does, on the connection that committed.
                    _ = sqlite_nio_sqlite3_wal_checkpoint_v2(handle, "main", SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    func close() {
        for statement in statements.values { sqlite_nio_sqlite3_finalize(statement.handle) }
        statements = [:]
        if let handle { sqlite_nio_sqlite3_close(handle) }
        handle = nil
    }

    deinit { close() }

    private func prepared(_ sql: String) throws -> PreparedStatement? {
        if let known = statements[sql] { return known }
        // A handful of texts are read here (the cards' differ only in the length of their id
        // lists); should a caller ever send many, the kept statements start over.
        if statements.count >= Self.statementsKept {
            for statement in statements.values { sqlite_nio_sqlite3_finalize(statement.handle) }
            statements = [:]
        }
        var statement: OpaquePointer?
        let code = sqlite_nio_sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        if Self.isBusy(code) { return nil }
        try check(code)
        guard let statement else { throw SQLiteReadError(code: code, message: "empty statement: \(sql)") }
        let prepared = PreparedStatement(handle: statement)
        statements[sql] = prepared
        return prepared
    }

    private func bind(_ value: SQLiteData, at index: Int32, in statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let number): sqlite_nio_sqlite3_bind_int64(statement, index, Int64(number))
        case .float(let number): sqlite_nio_sqlite3_bind_double(statement, index, number)
        case .text(let text): sqlite_nio_sqlite3_bind_text64(statement, index, text, UInt64(text.utf8.count), Self.transient, UInt8(SQLITE_UTF8))
        case .blob(let bytes):
            bytes.withUnsafeReadableBytes {
                sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), Self.transient)
            }
        case .null: sqlite_nio_sqlite3_bind_null(statement, index)
        }
    }

    private func value(at index: Int32, in statement: OpaquePointer) -> SQLiteData {
        switch sqlite_nio_sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT:
            return .float(sqlite_nio_sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            guard let text = sqlite_nio_sqlite3_column_text(statement, index) else { return .null }
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            if let bytes = sqlite_nio_sqlite3_column_blob(statement, index) {
                buffer.writeBytes(UnsafeRawBufferPointer(start: bytes, count: count))
            }
            return .blob(buffer)
        default:
            return .null
        }
    }

    private func check(_ code: Int32) throws {
        guard code != SQLITE_OK, code != SQLITE_ROW, code != SQLITE_DONE else { return }
        let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "SQLite error"
        throw SQLiteReadError(code: code, message: message)
    }

    private static let statementsKept = 64

    /// Busy or locked, with or without an extended code.
    private static func isBusy(_ code: Int32) -> Bool {
        code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED
    }

    /// Tells SQLite to copy a bound value: ours lives only for the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

struct SQLiteReadError: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    var description: String { "SQLite error \(code): \(message)" }
}

/// A row read by `SQLiteOwnConnection`, decoded like the rows of Fluent's SQLite driver
/// (`SQLiteDataDecoder`). Its own type because SQLiteNIO's `SQLiteRow` cannot be made outside
/// that package.
struct SQLiteReadRow: SQLRow {
    /// The names of a statement's columns and where each is; the first of a repeated name wins,
    /// as in SQLiteNIO's rows.
    final class Columns: Sendable {
        let names: [String]
        let positions: [String: Int]

        init(names: [String]) {
            self.names = names
            positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }

        var count: Int { names.count }
    }

    let columns: Columns
    let values: [SQLiteData]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.positions[column] != nil }

    func decodeNil(column: String) throws -> Bool {
        columns.positions[column].map { values[$0] == .null } ?? true
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let position = columns.positions[column] else { throw MissingColumn(column: column) }
        let value = values[position]
        if let read = Self.converted(value, as: D.self) { return read }
        return try SQLiteDataDecoder().decode(D.self, from: value)
    }

    /// The column types records read most, converted as `SQLiteDataDecoder` converts them but
    /// without its dynamic casts and nested decoders, which cost more than reading the row. Nil
    /// for any other type, or a value that does not convert: the decoder then answers, with its
    /// error. The type is matched by identity against metadata looked up once, and each case
    /// casts a value of its own concrete type: generic helpers here looked up `Optional<T>`'s
    /// metadata at run time on every column, which cost as much as the conversion.
    private static func converted<D>(_ value: SQLiteData, as type: D.Type) -> D? {
        // Each `unsafeBitCast` is the identity: the case matched `D` to that very type.
        switch ObjectIdentifier(D.self) {
        case Types.string:
            return String(sqliteData: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalString:
            if case .null = value { return unsafeBitCast(String?.none, to: D.self) }
            return String(sqliteData: value).map { unsafeBitCast(Optional($0), to: D.self) }
        case Types.uuid:
            return UUID(sqliteText: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalUUID:
            if case .null = value { return unsafeBitCast(UUID?.none, to: D.self) }
            return UUID(sqliteText: value).map { unsafeBitCast(Optional($0), to: D.self) }
        case Types.date:
            return Date(sqliteData: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalDate:
            if case .null = value { return unsafeBitCast(Date?.none, to: D.self) }
            return Date(sqliteData: value).map { unsafeBitCast(Optional($0), to: D.self) }
        case Types.int:
            return Int(sqliteData: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalInt:
            if case .null = value { return unsafeBitCast(Int?.none, to: D.self) }
            return Int(sqliteData: value).map { unsafeBitCast(Optional($0), to: D.self) }
        case Types.double:
            return Double(sqliteData: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalDouble:
            if case .null = value { return unsafeBitCast(Double?.none, to: D.self) }
            return Double(sqliteData: value).map { unsafeBitCast(Optional($0), to: D.self) }
        case Types.bool:
            return Bool(sqliteData: value).map { unsafeBitCast($0, to: D.self) }
        case Types.optionalBool:
            if case .null = value { return unsafeBitCast(Bool?.none, to: D.self) }
            return Bool(sqliteData: value).map { unsafeBitCast(Optional($0), to: D.self) }
        default:
            // A typed identifier (`Pet.ID`, `User.ID?`…): a UUID's text too. Its decoder built a
            // nested decoder per column: a fifth of decoding the Care tab's feeds.
            guard let identifier = D.self as? any SQLiteUUIDReadable.Type else { return nil }
            return read(identifier, from: value)
        }
    }

    private static func read<T: SQLiteUUIDReadable, D>(_ type: T.Type, from value: SQLiteData) -> D? {
        T(sqliteUUID: value).map { unsafeBitCast($0, to: D.self) }
    }

    private enum Types {
        static let string = ObjectIdentifier(String.self), optionalString = ObjectIdentifier(String?.self)
        static let uuid = ObjectIdentifier(UUID.self), optionalUUID = ObjectIdentifier(UUID?.self)
        static let date = ObjectIdentifier(Date.self), optionalDate = ObjectIdentifier(Date?.self)
        static let int = ObjectIdentifier(Int.self), optionalInt = ObjectIdentifier(Int?.self)
        static let double = ObjectIdentifier(Double.self), optionalDouble = ObjectIdentifier(Double?.self)
        static let bool = ObjectIdentifier(Bool.self), optionalBool = ObjectIdentifier(Bool?.self)
    }

    struct MissingColumn: Error, CustomStringConvertible {
        let column: String
        var description: String { "no column \(column) in the row" }
    }
}

/// A value stored as a UUID's text, read without `SQLiteDataDecoder`.
protocol SQLiteUUIDReadable {
    init?(sqliteUUID value: SQLiteData)
}

extension Identifier: SQLiteUUIDReadable {
    init?(sqliteUUID value: SQLiteData) {
        guard let uuid = UUID(sqliteText: value) else { return nil }
        self.init(uuid)
    }
}

extension Optional: SQLiteUUIDReadable where Wrapped: SQLiteUUIDReadable {
    init?(sqliteUUID value: SQLiteData) {
        if case .null = value {
            self = nil
            return
        }
        guard let wrapped = Wrapped(sqliteUUID: value) else { return nil }
        self = wrapped
    }
}

extension UUID {
    /// A UUID stored as text, as Fluent stores it in SQLite (and `Decodable` reads it).
    fileprivate init?(sqliteText value: SQLiteData) {
        guard case .text(let text) = value else { return nil }
        self.init(text: text)
    }
}
