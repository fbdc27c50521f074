import Foundation
import NIOConcurrencyHelpers
import PawpackCore

/// The `deck_index` table's rows kept in this process's memory (`DeckRowStore`), for a server
/// that owns its database alone: SQLite, where one `pawpack serve` runs per database file.
/// PostgreSQL instances are many and stateless, so they read the table.
///
/// The table stays the truth, and the copy only ever takes rows from it:
/// - it is loaded from the table on the first deck read (or when `pawpack serve` warms it);
/// - after a transaction that rewrote some pets' rows commits, `sync` reads those rows again
///   and puts them in the copy. Loading and syncing run one at a time, in the order they were
///   asked for, and each reads the table after the commit it follows, so the copy always ends
///   as the table is. A failed read drops the copy, and the next deck read loads it again.
final class ResidentDeckRows: Sendable {
    private let store = NIOLockedValueBox<DeckRowStore?>(nil)
    private let updates = OneAtATime()
    let grid: DeckGrid

    init(grid: DeckGrid) {
        self.grid = grid
    }

    var isLoaded: Bool { store.withLockedValue { $0 != nil } }

    /// Rows held, or nil when not loaded.
    var count: Int? { store.withLockedValue { $0?.count } }

    /// Every row held, or nil when not loaded.
    var rows: [DeckIndexRow]? { store.withLockedValue { $0?.allRows } }

    /// The rows in these ranges and buckets, loading the copy first if it is not there.
    func rows(
        in ranges: [ClosedRange<Int64>], buckets: [Int64]?,
        loadingWith readAll: @escaping @Sendable () async throws -> [DeckIndexRow]
    ) async throws -> [DeckIndexRow] {
        while true {
            // Copied out under the lock; the deck turns the few it needs into dogs after.
            if let rows = store.withLockedValue({ $0?.rows(in: ranges, buckets: buckets) }) { return rows }
            try await load(readAll)
        }
    }

    /// Loads the copy from the table unless it is there already.
    func load(_ readAll: @escaping @Sendable () async throws -> [DeckIndexRow]) async throws {
        try await updates.run {
            guard !self.isLoaded else { return }
            let loaded = DeckRowStore(grid: self.grid, rows: try await readAll())
            self.store.withLockedValue { $0 = loaded }
        }
    }

    /// Brings these pets' rows in step with the table, after a commit that changed them.
    func sync(_ pets: [Pet.ID], reading rowsOf: @escaping @Sendable ([Pet.ID]) async throws -> [DeckIndexRow]) async {
        guard !pets.isEmpty else { return }
        try? await updates.run {
            // Not loaded: the load will read the table as it is by then.
            guard self.isLoaded else { return }
            do {
                let rows = try await rowsOf(pets)
                self.store.withLockedValue { store in
                    for pet in pets { store?.remove(pet) }
                    for row in rows { store?.put(row) }
                }
            } catch {
                self.forget()
            }
        }
    }

    /// Drops the copy; the next deck read loads it from the table again.
    func forget() {
        store.withLockedValue { $0 = nil }
    }
}
