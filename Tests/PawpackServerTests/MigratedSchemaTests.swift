import Foundation
import PawpackTestSupport
import SQLKit
import Testing

@testable import PawpackServer

/// The schema every migration of every area builds on a fresh database, kept in the repository
/// (`Schema/`): a shipped migration is never edited, and this is what says so when one is. A
/// new migration changes the file on purpose: run the test with `PAWPACK_WRITE_SCHEMA=1` to
/// write it again, and read the diff.
@Suite struct MigratedSchemaTests {
    @Test func theMigrationsBuildTheSchemaKeptInTheRepository() async throws {
        try await TestServer.run { server in
            guard let sql = server.app.db as? any SQLDatabase else { throw TestFailure("the database does not speak SQL") }
            let (name, schema): (String, String)
            if case .postgres = server.config.database {
                name = "postgres.txt"
                schema = try await Self.postgresSchema(sql)
            } else {
                name = "sqlite.txt"
                schema = try await Self.sqliteSchema(sql)
            }
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Schema/\(name)")
            if ProcessInfo.processInfo.environment["PAWPACK_WRITE_SCHEMA"] == "1" {
                try schema.write(to: file, atomically: true, encoding: .utf8)
            }
            let kept = try String(contentsOf: file, encoding: .utf8)
            #expect(schema == kept, "the migrated schema differs from Schema/\(name): a shipped migration changed?")
        }
    }

    /// Every table, index and trigger with the SQL that made it, by name.
    static func sqliteSchema(_ sql: any SQLDatabase) async throws -> String {
        try await sql.raw(
            """
            SELECT type, name, tbl_name, sql FROM sqlite_master
            WHERE name NOT LIKE 'sqlite_%' AND name != '_fluent_migrations' ORDER BY type, name
            """
        ).all().map { row in
            let sql = try row.decode(column: "sql", as: String?.self) ?? ""
            return "\(try row.decode(column: "type", as: String.self)) \(try row.decode(column: "name", as: String.self)) "
                + "on \(try row.decode(column: "tbl_name", as: String.self)):\n  \(sql)\n"
        }.joined()
    }

    /// Every column (type, nullability, default), constraint and index, by table.
    static func postgresSchema(_ sql: any SQLDatabase) async throws -> String {
        let columns = try await sql.raw(
            """
            SELECT table_name, column_name, data_type, is_nullable, COALESCE(column_default, '') AS column_default
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name != '_fluent_migrations'
            ORDER BY table_name, column_name
            """
        ).all().map { row in
            "column \(try row.decode(column: "table_name", as: String.self)).\(try row.decode(column: "column_name", as: String.self)): "
                + "\(try row.decode(column: "data_type", as: String.self)) nullable \(try row.decode(column: "is_nullable", as: String.self)) "
                + "default \(try row.decode(column: "column_default", as: String.self))\n"
        }
        let constraints = try await sql.raw(
            """
            SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
            FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
            AND conrelid::regclass::text != '_fluent_migrations' ORDER BY 1, 2
            """
        ).all().map { row in
            "constraint \(try row.decode(column: "table_name", as: String.self)) \(try row.decode(column: "conname", as: String.self)): "
                + "\(try row.decode(column: "definition", as: String.self))\n"
        }
        let indexes = try await sql.raw(
            """
            SELECT tablename, indexname, indexdef FROM pg_indexes
            WHERE schemaname = current_schema() AND tablename != '_fluent_migrations' ORDER BY 1, 2
            """
        ).all().map { row in
            "index \(try row.decode(column: "tablename", as: String.self)) \(try row.decode(column: "indexname", as: String.self)): "
                + "\(try row.decode(column: "indexdef", as: String.self))\n"
        }
        let triggers = try await sql.raw(
            """
            SELECT event_object_table, trigger_name, event_manipulation FROM information_schema.triggers
            WHERE trigger_schema = current_schema() ORDER BY 1, 2, 3
            """
        ).all().map { row in
            "trigger \(try row.decode(column: "event_object_table", as: String.self)) \(try row.decode(column: "trigger_name", as: String.self)) "
                + "\(try row.decode(column: "event_manipulation", as: String.self))\n"
        }
        return (columns + constraints + indexes + triggers).joined()
    }
}
