import Fluent

/// A migration that creates one table (`table`), whose revert drops it: the revert written once.
protocol CreatesTable: AsyncMigration {
    static var table: String { get }
}

extension CreatesTable {
    func revert(on database: any Database) async throws {
        try await database.schema(Self.table).delete()
    }
}
