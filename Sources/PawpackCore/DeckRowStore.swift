import Foundation

/// The deck index's rows held in memory, by grid cell: what a server that owns its database
/// alone (SQLite, one process) reads instead of the table. The search itself does not change
/// (`Matchmaker.indexedDeck` asks for cell ranges and buckets either way); answering from memory
/// spares each request a few thousand rows stepped through by the database and decoded.
///
/// The rows loaded at once lie in one array in cell order, each occupied cell a run of it, with
/// each row's bucket beside it in a small array of its own. A range of cell numbers is then a
/// binary search and one contiguous walk, and rows of unwanted buckets are passed over without
/// being touched: a deck reads a few hundred ranges, and when each cell was an array of its own,
/// reaching every cell's rows cost more than all the rest of the search.
///
/// Rows put later (a pet edited, an owner moving) go to a small store of per-cell arrays beside
/// it, and the loaded row they replace is marked gone, so an update costs no more than before.
/// Not thread-safe: a value type, guarded by whoever shares it.
package struct DeckRowStore: Sendable {
    package let grid: DeckGrid

    // The rows loaded at once.
    /// Occupied cell numbers, ascending; the rows of `loadedCells[i]` are
    /// `loadedRows[loadedStarts[i]..<loadedStarts[i + 1]]`.
    private var loadedCells: [Int64] = []
    private var loadedStarts: [Int32] = [0]
    private var loadedRows: [DeckIndexRow] = []
    /// Each loaded row's `BucketTable.slot`, `otherSlot` for a bucket outside that layout, or
    /// `goneSlot` once the pet's row was replaced or removed.
    private var loadedSlots: [UInt16] = []
    private var loadedIndexOfPet: [Pet.ID: Int32] = [:]

    // The rows put since, by cell.
    private var laterCells: [Int64] = []
    private var laterRows: [[DeckIndexRow]] = []
    private var cellOfLaterPet: [Pet.ID: Int64] = [:]

    private static let goneSlot = UInt16.max
    private static let otherSlot = UInt16.max - 1

    package init(grid: DeckGrid = .standard) {
        self.grid = grid
    }

    /// A store holding these rows (one per pet: a later row replaces an earlier one), sorted once.
    package init(grid: DeckGrid = .standard, rows: [DeckIndexRow]) {
        self.grid = grid
        var latest: [Pet.ID: (cell: Int64, row: DeckIndexRow)] = [:]
        latest.reserveCapacity(rows.count)
        for row in rows { latest[row.petID] = (grid.cell(of: row.location), row) }
        let sorted = latest.values.sorted { $0.cell < $1.cell }
        loadedRows.reserveCapacity(sorted.count)
        loadedSlots.reserveCapacity(sorted.count)
        loadedIndexOfPet.reserveCapacity(sorted.count)
        for (cell, row) in sorted {
            if loadedCells.last != cell {
                if !loadedCells.isEmpty { loadedStarts.append(Int32(loadedRows.count)) }
                loadedCells.append(cell)
            }
            loadedIndexOfPet[row.petID] = Int32(loadedRows.count)
            loadedRows.append(row)
            loadedSlots.append(BucketTable.slot(row.bucket).map(UInt16.init) ?? Self.otherSlot)
        }
        if !loadedCells.isEmpty { loadedStarts.append(Int32(loadedRows.count)) }
    }

    /// Rows held, one per pet.
    package var count: Int { loadedIndexOfPet.count + cellOfLaterPet.count }

    /// Puts the row in, replacing the pet's earlier row wherever it was.
    package mutating func put(_ row: DeckIndexRow) {
        remove(row.petID)
        let cell = grid.cell(of: row.location)
        let position = Self.firstPosition(of: laterCells, notBelow: cell)
        if position < laterCells.count, laterCells[position] == cell {
            laterRows[position].append(row)
        } else {
            laterCells.insert(cell, at: position)
            laterRows.insert([row], at: position)
        }
        cellOfLaterPet[row.petID] = cell
    }

    /// Takes the pet's row out; nothing when it has none.
    package mutating func remove(_ pet: Pet.ID) {
        if let index = loadedIndexOfPet.removeValue(forKey: pet) {
            loadedSlots[Int(index)] = Self.goneSlot
            return
        }
        guard let cell = cellOfLaterPet.removeValue(forKey: pet) else { return }
        let position = Self.firstPosition(of: laterCells, notBelow: cell)
        guard position < laterCells.count, laterCells[position] == cell else { return }
        laterRows[position].removeAll { $0.petID == pet }
        if laterRows[position].isEmpty {
            laterCells.remove(at: position)
            laterRows.remove(at: position)
        }
    }

    /// The pet's row, if it has one.
    package func row(of pet: Pet.ID) -> DeckIndexRow? {
        if let index = loadedIndexOfPet[pet] { return loadedRows[Int(index)] }
        guard let cell = cellOfLaterPet[pet] else { return nil }
        let position = Self.firstPosition(of: laterCells, notBelow: cell)
        guard position < laterCells.count, laterCells[position] == cell else { return nil }
        return laterRows[position].first { $0.petID == pet }
    }

    /// The rows whose cell lies in one of `ranges` and, unless `buckets` is nil, whose bucket is
    /// one of them: what the table answers to the same ranges and buckets.
    package func rows(in ranges: [ClosedRange<Int64>], buckets: [Int64]?) -> [DeckIndexRow] {
        // Far out, the search asks for a few buckets over many cells: every row of those cells
        // is checked, so the check is a flag looked up by the row's slot, not a hash.
        let wanted = buckets.map(BucketTable.init)
        var found: [DeckIndexRow] = []
        var from = 0
        var lastUpperBound = Int64.min
        for range in ranges {
            // The search asks for ranges in ascending order, so each binary search can start
            // where the last range ended; any other order starts from the beginning.
            if range.lowerBound <= lastUpperBound { from = 0 }
            lastUpperBound = range.upperBound
            var position = Self.firstPosition(of: loadedCells, notBelow: range.lowerBound, from: from)
            from = position
            while position < loadedCells.count, loadedCells[position] <= range.upperBound { position += 1 }
            for index in Int(loadedStarts[from])..<Int(loadedStarts[position]) {
                let slot = loadedSlots[index]
                if slot == Self.goneSlot { continue }
                if let wanted {
                    let keep = slot == Self.otherSlot ? wanted.contains(loadedRows[index].bucket) : wanted.contains(slot: Int(slot))
                    if !keep { continue }
                }
                found.append(loadedRows[index])
            }
            from = position
            var later = Self.firstPosition(of: laterCells, notBelow: range.lowerBound)
            while later < laterCells.count, laterCells[later] <= range.upperBound {
                for row in laterRows[later] where wanted?.contains(row.bucket) ?? true { found.append(row) }
                later += 1
            }
        }
        return found
    }

    /// Every row.
    package var allRows: [DeckIndexRow] {
        loadedRows.indices.filter { loadedSlots[$0] != Self.goneSlot }.map { loadedRows[$0] } + laterRows.flatMap { $0 }
    }

    /// The index of the first cell at or above `cell` in an ascending list, from `start` on
    /// (binary search).
    private static func firstPosition(of cells: [Int64], notBelow cell: Int64, from start: Int = 0) -> Int {
        var low = start
        var high = cells.count
        while low < high {
            let middle = (low + high) / 2
            if cells[middle] < cell { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// A set of buckets as one flag per possible bucket value: a bucket's bits are the play styles,
/// energy and size fields (the low 12 bits of `traits`) and the mode bit, 8,192 values in all.
struct BucketTable {
    private var flags = [Bool](repeating: false, count: slotCount)
    /// Buckets outside that layout, should there ever be any.
    private var others: Set<Int64> = []

    init(_ buckets: [Int64]) {
        for bucket in buckets {
            if let slot = Self.slot(bucket) { flags[slot] = true } else { others.insert(bucket) }
        }
    }

    func contains(_ bucket: Int64) -> Bool {
        if let slot = Self.slot(bucket) { return flags[slot] }
        return others.contains(bucket)
    }

    /// Whether the bucket in this slot is wanted.
    func contains(slot: Int) -> Bool { flags[slot] }

    /// Slots there are: every value of the low 12 bits, with and without the mode bit.
    static let slotCount = 1 << 13
    static let lowBits: Int64 = (1 << 12) - 1
    static let modeBit: Int64 = 1 << DeckIndexRow.modeShift

    static func slot(_ bucket: Int64) -> Int? {
        guard bucket & ~(lowBits | modeBit) == 0 else { return nil }
        return Int(bucket & lowBits) | (bucket & modeBit != 0 ? 1 << 12 : 0)
    }
}

extension DeckIndexRow {
    /// Where the row's dog is.
    package var location: GeoPoint { GeoPoint(latitude: latitude, longitude: longitude) }
}
