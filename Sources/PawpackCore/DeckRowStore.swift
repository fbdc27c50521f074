import Foundation

/// The deck index's rows held in memory, by grid cell: what a server that owns its database
/// alone (SQLite, one process) reads instead of the table. The search itself does not change
/// (`Matchmaker.indexedDeck` asks for cell ranges and buckets either way); answering from memory
/// spares each request a few thousand rows stepped through by the database and decoded.
///
/// Occupied cells are kept in ascending order, each with its rows, so a range of cell numbers
/// is a binary search and a walk over the cells that hold dogs, however wide the range is.
/// Not thread-safe: a value type, guarded by whoever shares it.
public struct DeckRowStore: Sendable {
    public let grid: DeckGrid
    /// Occupied cell numbers, ascending; `cells[i]` holds the rows of `numbers[i]`.
    private var numbers: [Int64] = []
    private var cells: [[DeckIndexRow]] = []
    /// Where each pet's row is, to replace or remove it.
    private var cellOfPet: [Pet.ID: Int64] = [:]

    public init(grid: DeckGrid = .standard) {
        self.grid = grid
    }

    /// A store holding these rows (one per pet: a later row replaces an earlier one). Sorts once
    /// rather than inserting cell by cell, which at a million rows would move the cell list
    /// around for every new cell.
    public init(grid: DeckGrid = .standard, rows: [DeckIndexRow]) {
        self.grid = grid
        var latest: [Pet.ID: (cell: Int64, row: DeckIndexRow)] = [:]
        latest.reserveCapacity(rows.count)
        for row in rows { latest[row.petID] = (grid.cell(of: row.location), row) }
        let sorted = latest.values.sorted { $0.cell < $1.cell }
        cellOfPet.reserveCapacity(sorted.count)
        for (cell, row) in sorted {
            if numbers.last == cell {
                cells[cells.count - 1].append(row)
            } else {
                numbers.append(cell)
                cells.append([row])
            }
            cellOfPet[row.petID] = cell
        }
    }

    /// Rows held, one per pet.
    public var count: Int { cellOfPet.count }

    /// Puts the row in, replacing the pet's earlier row wherever it was.
    public mutating func put(_ row: DeckIndexRow) {
        remove(row.petID)
        let cell = grid.cell(of: row.location)
        let position = firstPosition(notBelow: cell)
        if position < numbers.count, numbers[position] == cell {
            cells[position].append(row)
        } else {
            numbers.insert(cell, at: position)
            cells.insert([row], at: position)
        }
        cellOfPet[row.petID] = cell
    }

    /// Takes the pet's row out; nothing when it has none.
    public mutating func remove(_ pet: Pet.ID) {
        guard let cell = cellOfPet.removeValue(forKey: pet) else { return }
        let position = firstPosition(notBelow: cell)
        guard position < numbers.count, numbers[position] == cell else { return }
        cells[position].removeAll { $0.petID == pet }
        if cells[position].isEmpty {
            numbers.remove(at: position)
            cells.remove(at: position)
        }
    }

    /// The pet's row, if it has one.
    public func row(of pet: Pet.ID) -> DeckIndexRow? {
        guard let cell = cellOfPet[pet] else { return nil }
        let position = firstPosition(notBelow: cell)
        guard position < numbers.count, numbers[position] == cell else { return nil }
        return cells[position].first { $0.petID == pet }
    }

    /// The rows whose cell lies in one of `ranges` and, unless `buckets` is nil, whose bucket is
    /// one of them: what the table answers to the same ranges and buckets.
    public func rows(in ranges: [ClosedRange<Int64>], buckets: [Int64]?) -> [DeckIndexRow] {
        // Far out, the search asks for a few buckets over many cells: every row of those cells
        // is checked, so the check is an array lookup rather than hashing.
        let wanted = buckets.map(BucketTable.init)
        var found: [DeckIndexRow] = []
        for range in ranges {
            var position = firstPosition(notBelow: range.lowerBound)
            while position < numbers.count, numbers[position] <= range.upperBound {
                if let wanted {
                    for row in cells[position] where wanted.contains(row.bucket) { found.append(row) }
                } else {
                    found += cells[position]
                }
                position += 1
            }
        }
        return found
    }

    /// Every row, in cell order.
    public var allRows: [DeckIndexRow] { cells.flatMap { $0 } }

    /// The index of the first occupied cell at or above `cell` (binary search).
    private func firstPosition(notBelow cell: Int64) -> Int {
        var low = 0, high = numbers.count
        while low < high {
            let middle = (low + high) / 2
            if numbers[middle] < cell { low = middle + 1 } else { high = middle }
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
    public var location: GeoPoint { GeoPoint(latitude: latitude, longitude: longitude) }
}
