import Fluent
import SQLKit

/// A plain (non-unique) index, which Fluent's schema builder cannot declare.
struct IndexSpec: Sendable {
    var name: String
    var table: String
    var columns: [String]
}

/// Adds indexes for the lookups a feature makes by a column other than the id: foreign keys
/// above all (neither SQLite nor PostgreSQL indexes them by itself, and a deck page looking up
/// 20 dogs' vaccinations would otherwise read every vaccination there is). `name` identifies the
/// migration, so each list is applied once.
struct AddIndexes: AsyncMigration {
    let name: String
    let indexes: [IndexSpec]

    func prepare(on database: any Database) async throws {
        let sql = database.sql
        for index in indexes {
            try await sql.raw("CREATE INDEX IF NOT EXISTS \(ident: index.name) ON \(ident: index.table) (\(idents: index.columns, joinedBy: ", "))")
                .run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        for index in indexes.reversed() {
            try await sql.raw("DROP INDEX IF EXISTS \(ident: index.name)").run()
        }
    }
}
