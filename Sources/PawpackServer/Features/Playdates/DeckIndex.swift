import Fluent
import Foundation
import NIOConcurrencyHelpers
import PawpackCore
import SQLKit
import SQLiteKit
import SQLiteNIO

/// The deck's candidate index: the table `deck_index`, one row per dog whose owner has a
/// location, keyed by grid cell and covering every column the deck reads (see
/// `PawpackCore/DeckIndexing.swift` for how the deck searches it).
///
/// The pets and users tables stay the truth; this table is derived from them and kept in step
/// by the services that change them, in the same transaction: pets created, edited, switched to
/// Social Mode or deleted (`refresh(_:)`, `remove(pets:)`), owners moving or clearing their
/// location (`refresh(dogsOf:)`). `CreateDeckIndex` builds it from existing data, and
/// `rebuild(on:)` can build it again at any time.
///
/// On SQLite the deck reads a copy of the rows kept in memory (`ResidentDeckRows`); each writer
/// hands the pets it touched to `committed(_:on:)` once its transaction has committed.
struct DeckIndex: Sendable {
    static let table = "deck_index"
    static let columns = ["pet_id", "owner_id", "cell", "bucket", "payload"]
    /// Rows per INSERT: 5 parameters each stays far below SQLite's and PostgreSQL's limits.
    static let insertBatch = 1_000

    let grid: DeckGrid
    /// Bucket ceilings per seeker bucket: a pure function of it, and a few thousand values to
    /// work out, so each kind of seeker pays for it once per process.
    private let bucketTables = NIOLockedValueBox([Int64: DeckBuckets]())

    /// The rows in memory, when this process owns its database: SQLite (`PawpackServices.init`).
    let resident: ResidentDeckRows?

    init(grid: DeckGrid = .standard, rowsInMemory: Bool = false) {
        self.grid = grid
        resident = rowsInMemory ? ResidentDeckRows(grid: grid) : nil
    }

    /// How the deck widens its search. Each step of a search through the table is a query, so
    /// the rings double; from memory a step costs no round trip, so they grow by a quarter: a
    /// bucket still alive at one radius is then read a shorter way past where it stops being.
    func search(fromTable: Bool) -> DeckSearch {
        var search = DeckSearch()
        if resident != nil, !fromTable { search.growth = 1.25 }
        return search
    }

    func buckets(for seeker: DeckDog, matchmaker: Matchmaker) -> DeckBuckets {
        let key = DeckBuckets.seekerBucket(seeker)
        if let known = bucketTables.withLockedValue({ $0[key] }) { return known }
        let table = DeckBuckets(seeker: seeker, matchmaker: matchmaker)
        bucketTables.withLockedValue { $0[key] = table }
        return table
    }

    // MARK: Rows from records

    /// A dog as the deck sees it. The mode is the owner's switch: switching is only possible
    /// while the rules hold, and re-checking every candidate's vaccinations per request would
    /// cost a query per dog.
    static func deckDog(_ pet: PetRecord, location: GeoPoint) throws -> DeckDog {
        // Only the fields matching reads: the whole profile also decodes the personality's JSON,
        // and every deck request starts here.
        DeckDog(
            id: try pet.requireID(), ownerID: pet.$owner.id, location: location, birthDate: pet.birthLocalDate,
            sex: pet.sex, neutered: pet.neutered, sizeClass: SizeClass.effective(given: pet.sizeClass, weightKg: pet.weightKg),
            weightKg: pet.weightKg, playStyles: pet.playStyles, energy: pet.energy,
            environment: pet.environment, mode: pet.socialSince == nil ? .puppy : .social)
    }

    /// The index row of a pet, or nil when it has none: not a dog, or no location to put it at.
    static func row(for pet: PetRecord, location: GeoPoint?) throws -> DeckIndexRow? {
        guard pet.species == .dog, let location else { return nil }
        return DeckIndexRow(try deckDog(pet, location: location))
    }

    // MARK: Keeping in step

    /// Rewrites the rows of these pets, as saved, at their owners' locations; returns the pets
    /// to hand to `committed` after the transaction.
    @discardableResult
    func refresh(_ pets: [PetRecord], on db: any Database) async throws -> [Pet.ID] {
        guard !pets.isEmpty else { return [] }
        let owners = Array(Set(pets.map { $0.$owner.id }))
        var locations: [User.ID: GeoPoint] = [:]
        for owner in try await UserRecord.query(on: db).filter(\.$id ~~ owners).all() {
            locations[try owner.requireID()] = owner.location
        }
        return try await rewrite(pets, locations: locations, on: db)
    }

    /// Rewrites the rows of every dog of this owner, as saved (after the location changed).
    @discardableResult
    func refresh(dogsOf owner: UserRecord, on db: any Database) async throws -> [Pet.ID] {
        let ownerID = try owner.requireID()
        let pets = try await PetRecord.query(on: db).filter(\.$owner.$id == ownerID).all()
        return try await rewrite(pets, locations: owner.location.map { [ownerID: $0] } ?? [:], on: db)
    }

    func remove(pets ids: [Pet.ID], on db: any Database) async throws {
        guard !ids.isEmpty else { return }
        try await db.sql.delete(from: Self.table).where("pet_id", .in, ids).run()
    }

    private func rewrite(_ pets: [PetRecord], locations: [User.ID: GeoPoint], on db: any Database) async throws -> [Pet.ID] {
        let ids = try pets.map { try $0.requireID() }
        try await remove(pets: ids, on: db)
        try await insert(pets.compactMap { try Self.row(for: $0, location: locations[$0.$owner.id]) }, on: db)
        return ids
    }

    /// Brings the rows in memory in step with the table for these pets, once the transaction
    /// that rewrote their rows has committed. `db` is not that transaction.
    func committed(_ pets: [Pet.ID], on db: any Database) async {
        await resident?.sync(pets) { ids in try await self.rows(of: ids, on: db) }
    }

    /// Loads the rows into memory now rather than on the first deck read (a no-op without them).
    func warm(on db: any Database) async throws {
        try await resident?.load { try await self.allRows(on: db) }
    }

    /// Adds rows (in batches; the caller makes sure they are not there yet).
    func insert(_ rows: [DeckIndexRow], on db: any Database) async throws {
        var start = 0
        while start < rows.count {
            let batch = rows[start..<min(start + Self.insertBatch, rows.count)]
            let insert = db.sql.insert(into: Self.table).columns(Self.columns)
            for row in batch {
                insert.values(
                    [
                        row.petID, row.ownerID,
                        grid.cell(of: row.location),
                        row.bucket, Data(row.payload),
                    ] as [any Encodable & Sendable])
            }
            try await insert.run()
            start += Self.insertBatch
        }
    }

    /// Empties the index and builds it again from every dog with a located owner, a page of
    /// owners at a time.
    func rebuild(on db: any Database) async throws {
        try await db.sql.delete(from: Self.table).run()
        var lastOwner: User.ID?
        while true {
            var query = UserRecord.query(on: db).filter(\.$latitude != nil).sort(\.$id).limit(1_000)
            if let lastOwner { query = query.filter(\.$id > lastOwner) }
            let owners = try await query.all()
            guard let last = owners.last else {
                resident?.forget()
                return
            }
            var locations: [User.ID: GeoPoint] = [:]
            for owner in owners { locations[try owner.requireID()] = owner.location }
            let pets = try await PetRecord.query(on: db).filter(\.$owner.$id ~~ Array(locations.keys))
                .filter(\.$species == .dog).all()
            try await insert(pets.compactMap { try Self.row(for: $0, location: locations[$0.$owner.id]) }, on: db)
            lastOwner = last.id
        }
    }

    // MARK: Reading

    /// The rows of the dogs located in these cell ranges (and of these buckets, unless nil): from
    /// the rows in memory when there are, else (or when `fromTable`) from the table's covering
    /// index alone.
    func rows(
        in ranges: [ClosedRange<Int64>], buckets: [Int64]?, fromTable: Bool = false,
        on db: any Database
    ) async throws -> [DeckIndexRow] {
        guard !ranges.isEmpty, buckets?.isEmpty != true else { return [] }
        if let resident, !fromTable {
            return try await resident.rows(in: ranges, buckets: buckets) { try await self.allRows(on: db) }
        }
        // The ranges and buckets are integers this server computed: written into the text as
        // literals, the planner sees plain index ranges.
        let cells = ranges.map { "cell BETWEEN \(literal: $0.lowerBound) AND \(literal: $0.upperBound)" as SQLQueryString }
        let bucketFilter: SQLQueryString =
            buckets.map {
                " AND bucket IN (\($0.map { "\(literal: $0)" as SQLQueryString }.joined(separator: ", ")))"
            } ?? ""
        if db is any SQLiteDatabase {
            // SQLite: one statement with the ranges OR-ed, which it reads as index ranges.
            return try await payloads(
                """
                SELECT payload FROM deck_index WHERE (\(cells.joined(separator: " OR ")))\(bucketFilter)
                """, on: db)
        }
        // PostgreSQL: one index-only scan per range. Given the ranges OR-ed together it picks a
        // bitmap scan, which visits the table's pages — in random order, for thousands of rows.
        let scans = cells.map { "SELECT payload, bucket FROM deck_index WHERE \($0)" as SQLQueryString }
        return try await payloads(
            """
            SELECT payload FROM (\(scans.joined(separator: " UNION ALL "))) AS found WHERE TRUE\(bucketFilter)
            """, on: db)
    }

    /// Every row of the table, in cell order (to load the rows into memory).
    func allRows(on db: any Database) async throws -> [DeckIndexRow] {
        try await payloads("SELECT payload FROM deck_index ORDER BY cell", on: db)
    }

    /// The rows of these pets, those that have one.
    func rows(of pets: [Pet.ID], on db: any Database) async throws -> [DeckIndexRow] {
        var rows: [DeckIndexRow] = []
        for start in stride(from: 0, to: pets.count, by: Self.insertBatch) {
            let slice = pets[start..<min(start + Self.insertBatch, pets.count)]
            rows += try await db.sql.select().column("payload").from(Self.table).where("pet_id", .in, Array(slice)).all()
                .compactMap { try $0.decode(column: "payload", as: Data.self).withUnsafeBytes { DeckIndexRow(payload: $0) } }
        }
        return rows
    }

    /// The rows of a statement that selects `payload`. On SQLite each row is decoded on the
    /// connection's own thread as SQLite steps through them: the general path hands every row
    /// to the event loop one by one, and at thousands of rows those hand-overs cost more than
    /// SQLite's reading.
    private func payloads(_ query: SQLQueryString, on db: any Database) async throws -> [DeckIndexRow] {
        if let sqlite = db as? any SQLiteDatabase {
            var serializer = SQLSerializer(database: db.sql)
            query.serialize(to: &serializer)
            let (statement, binds) = (serializer.sql, try serializer.binds.map { try SQLiteDataEncoder().encode($0) })
            let found = RowsFound()
            try await sqlite.withConnection { connection in
                try await connection.query(statement, binds) { row in
                    if case .blob(let bytes)? = row.column("payload"),
                        let decoded = bytes.withUnsafeReadableBytes({ DeckIndexRow(payload: $0) })
                    {
                        found.rows.append(decoded)
                    }
                }
            }
            return found.rows
        }
        return try await db.sql.raw(query).all().compactMap { row in
            try row.decode(column: "payload", as: Data.self).withUnsafeBytes { DeckIndexRow(payload: $0) }
        }
    }

    func count(on db: any Database) async throws -> Int {
        try await db.sql.select().column(SQLFunction("COUNT", args: SQLLiteral.all), as: "n").from(Self.table)
            .first()?.decode(column: "n", as: Int.self) ?? 0
    }
}

/// Creates `deck_index` with its covering index and fills it from the pets already there.
struct CreateDeckIndex: CreatesTable {
    static let table = DeckIndex.table

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .field("pet_id", .uuid, .identifier(auto: false), .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("owner_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("cell", .int64, .required)
            .field("bucket", .int64, .required)
            .field("payload", .data, .required)
            .create()
        let sql = database.sql
        // The deck reads cells, filters on buckets and takes the payload, all from this index, so
        // a read never visits the table itself (an index-only scan).
        try await sql.raw("CREATE INDEX deck_index_by_cell ON deck_index (cell, bucket, payload)").run()
        try await sql.raw("CREATE INDEX deck_index_by_owner ON deck_index (owner_id)").run()
        try await DeckIndex().rebuild(on: database)
    }
}

/// Rows collected by a query's row callback, which SQLite calls one row after the other on a
/// single thread and never after the query has finished.
private final class RowsFound: @unchecked Sendable {
    var rows: [DeckIndexRow] = []
}
