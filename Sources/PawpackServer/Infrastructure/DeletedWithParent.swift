import Fluent
import SQLKit

/// Makes the rows of `table` whose `column` names a row of `parent` go when that row goes, as
/// a foreign key with `ON DELETE CASCADE` would: for a column added without one (the inbox's
/// `chat_id`, since the inbox is below the areas whose rows it names). Deletion then has one
/// source of truth, the database, also for rows deleted by another row's cascade.
///
/// PostgreSQL gets the foreign key itself (rows already pointing at nothing are removed
/// first). SQLite cannot add a constraint to an existing table without rebuilding it, which
/// its documentation warns against for a table others refer to; it gets a trigger, which
/// SQLite also fires for rows its cascades delete. `name` identifies the migration, the
/// constraint and the trigger.
struct DeletedWithParent: AsyncMigration {
    let name: String
    let table: String
    let column: String
    let parent: String

    func prepare(on database: any Database) async throws {
        let sql = database.sql
        if sql.dialect.name == "sqlite" {
            try await sql.raw(
                """
                CREATE TRIGGER IF NOT EXISTS \(ident: name) AFTER DELETE ON \(ident: parent) FOR EACH ROW
                BEGIN DELETE FROM \(ident: table) WHERE \(ident: column) = OLD."id"; END
                """
            ).run()
        } else {
            try await sql.raw(
                """
                DELETE FROM \(ident: table) WHERE \(ident: column) IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM \(ident: parent) WHERE \(ident: parent)."id" = \(ident: table).\(ident: column))
                """
            ).run()
            try await sql.raw(
                """
                ALTER TABLE \(ident: table) ADD CONSTRAINT \(ident: name)
                    FOREIGN KEY (\(ident: column)) REFERENCES \(ident: parent) ("id") ON DELETE CASCADE
                """
            ).run()
        }
        // Each deleted parent looks its rows up by this column.
        try await sql.raw("CREATE INDEX IF NOT EXISTS \(ident: name + "_index") ON \(ident: table) (\(ident: column))").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("DROP INDEX IF EXISTS \(ident: name + "_index")").run()
        if sql.dialect.name == "sqlite" {
            try await sql.raw("DROP TRIGGER IF EXISTS \(ident: name)").run()
        } else {
            try await sql.raw("ALTER TABLE \(ident: table) DROP CONSTRAINT IF EXISTS \(ident: name)").run()
        }
    }
}
