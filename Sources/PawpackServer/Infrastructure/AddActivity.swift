import Fluent
import Foundation
import PawpackCore
import SQLKit

/// Gives a table listed newest first an `activity` column, its `created_at` in whole
/// microseconds (`ActivityCursor`), and then pages it by `(activity, id)` like chats and
/// notifications: a row arriving or leaving while a member pages moves no other row from one
/// page to another, as an offset would. Both databases compare the integer exactly, which a
/// date read back from SQLite's text or PostgreSQL's microseconds would not guarantee. The
/// rows already there are filled a thousand at a time; `indexes` come after them.
struct AddActivity: AsyncMigration {
    let name: String
    let table: String
    let indexes: [IndexSpec]

    func prepare(on database: any Database) async throws {
        try await database.schema(table).field("activity", .int64, .required, .sql(.default(0))).update()
        let sql = database.sql
        var after: UUID?
        while true {
            var page = sql.select().columns("id", "created_at").from(table).orderBy("id").limit(1_000)
            if let after { page = page.where("id", .greaterThan, after) }
            let rows = try await page.all()
            guard !rows.isEmpty else { break }
            let filled = try rows.map { row in
                (try row.decode(column: "id", as: UUID.self), try row.decode(column: "created_at", as: Date.self))
            }
            try await database.transaction { tx in
                for (id, createdAt) in filled {
                    try await tx.sql.update(table).set("activity", to: ActivityCursor<Void>.activity(at: createdAt)).where("id", .equal, id)
                        .run()
                }
            }
            after = filled.last?.0
        }
        try await AddIndexes(name: name, indexes: indexes).prepare(on: database)
    }

    func revert(on database: any Database) async throws {
        try await AddIndexes(name: name, indexes: indexes).revert(on: database)
        try await database.schema(table).deleteField("activity").update()
    }
}
