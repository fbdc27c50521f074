import Fluent
import SQLKit

extension Database {
    /// This database as plain SQL, for what Fluent's query builder does not say (indexes, the
    /// deck's index reads) or says too slowly (rows read without model decoding). Both drivers
    /// Pawpack runs on, SQLite and PostgreSQL, are SQL databases.
    var sql: any SQLDatabase {
        self as! any SQLDatabase
    }
}
