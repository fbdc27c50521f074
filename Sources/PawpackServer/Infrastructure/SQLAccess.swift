import Fluent
import FluentSQLiteDriver
import SQLKit

extension Database {
    /// This database as plain SQL, for what Fluent's query builder does not say (indexes, the
    /// deck's index reads) or says too slowly (rows read without model decoding). Both drivers
    /// Pawpack runs on, SQLite and PostgreSQL, are SQL databases.
    var sql: any SQLDatabase {
        self as! any SQLDatabase
    }

    /// The rows of a query, for the reads every deck and API request makes. On SQLite they are
    /// collected on the connection's own thread as SQLite steps through them: the general path
    /// (`sql.raw(…).all()`) hands every row to the event loop as a task of its own and then
    /// waits for all of those tasks, which for a page of cards costs more than reading it.
    func rows(_ query: SQLQueryString) async throws -> [any SQLRow] {
        if let sqlite = self as? any SQLiteDatabase {
            return try await sqlite.withConnection { connection in
                try await connection.sql().raw(query).all()
            }
        }
        return try await sql.raw(query).all()
    }
}
