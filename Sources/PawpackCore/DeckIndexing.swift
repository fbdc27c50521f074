import Foundation

// The candidate index behind the Playdates deck, as pure rules (the server keeps the table).
//
// A deck asks "the best dogs near here". Loading every dog within the preferred distance and
// scoring them all costs time in proportion to the dogs in range, which in a city is tens of
// thousands. The index answers the same question while reading far fewer dogs:
//
// 1. Every dog has one row keyed by the grid cell of its owner's location (`DeckGrid`), with a
//    `bucket` (its play styles, energy, size class and welfare mode) and everything the deck
//    reads packed into one small `payload` (`DeckIndexRow`). A covering database index on
//    (cell, bucket, payload) answers "these cells, these buckets" without touching a table.
// 2. The deck reads cells in growing blocks around the owner (`DeckSearch.radii`): 250 m, then
//    500 m, 1, 2, 4 km … up to the preferred distance; each step reads only the cells the last
//    one did not.
// 3. A bucket fixes the compatibility components with the largest weights, so it bounds the
//    compatibility of every dog in it (`Matchmaker.compatibilityCeiling`). Once the page is
//    full, a dog outside the blocks read so far is farther than the last radius, so it scores at
//    most its bucket's ceiling at that distance; buckets that cannot reach the page's last card
//    are no longer read (`DeckBuckets.alive`), and the search ends when no bucket is left.
//
// Scoring is the same `DeckRanker` the naive path (`Matchmaker.deck` over every dog in range)
// uses, so both give the same page; the core tests check it on generated communities and the
// server's tests on 20,000 seeded dogs.

// MARK: - Grid

/// The world cut into cells of `cellDegrees` of latitude by `cellDegrees` of longitude. A cell's
/// number is `row × columns + column`, so the cells of one row of a block are one range of
/// numbers: a block is read with one `BETWEEN` per row.
package struct DeckGrid: Sendable, Equatable {
    /// 0.0025°: 280 m north–south, about 180 m east–west at 50° N. Small enough that the first
    /// block (250 m around the owner) reads little beyond the circle in a dense city, large
    /// enough that a 25 km deck is a few hundred ranges of cell numbers.
    package static let standard = DeckGrid(cellDegrees: 0.0025)

    package let cellDegrees: Double
    package let rows: Int
    package let columns: Int

    package init(cellDegrees: Double) {
        precondition(cellDegrees > 0 && cellDegrees <= 180, "a cell is more than nothing and at most half the globe")
        self.cellDegrees = cellDegrees
        rows = Int((180 / cellDegrees).rounded(.up))
        columns = Int((360 / cellDegrees).rounded(.up))
    }

    /// A rectangle of cells, both ranges inclusive.
    package struct Block: Sendable, Equatable {
        package var rows: ClosedRange<Int>
        package var columns: ClosedRange<Int>

        package init(rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
            self.rows = rows
            self.columns = columns
        }

        package var cellCount: Int { rows.count * columns.count }
    }

    package func row(ofLatitude latitude: Double) -> Int {
        Self.index(of: latitude + 90, size: cellDegrees, count: rows)
    }

    package func column(ofLongitude longitude: Double) -> Int {
        Self.index(of: longitude + 180, size: cellDegrees, count: columns)
    }

    /// The cell number of a point; the poles and the antimeridian fall in the last row or column.
    package func cell(of point: GeoPoint) -> Int64 {
        Int64(row(ofLatitude: point.latitude)) * Int64(columns) + Int64(column(ofLongitude: point.longitude))
    }

    /// The cells covering every point within `radiusKm` of `center` (through
    /// `Matchmaker.boundingBox`, so also exactly the points the naive path's box lets through).
    package func block(around center: GeoPoint, radiusKm: Double) -> Block {
        let box = Matchmaker.boundingBox(around: center, radiusKm: radiusKm)
        return Block(
            rows: row(ofLatitude: box.latitude.lowerBound)...row(ofLatitude: box.latitude.upperBound),
            columns: column(ofLongitude: box.longitude.lowerBound)...column(ofLongitude: box.longitude.upperBound))
    }

    /// The cell numbers of `block` that are not in `inner`, as ranges: per row, the whole row,
    /// or what lies west and east of `inner`. In ascending order; empty when `inner` covers it.
    package func cellRanges(of block: Block, excluding inner: Block? = nil) -> [ClosedRange<Int64>] {
        // Appended straight to one array: a deck asks for a few hundred rows of cells, and an
        // array of parts for each row cost two allocations a row.
        var ranges: [ClosedRange<Int64>] = []
        ranges.reserveCapacity(2 * block.rows.count)
        for row in block.rows {
            let base = Int64(row) * Int64(columns)
            func add(_ part: ClosedRange<Int>) {
                ranges.append((base + Int64(part.lowerBound))...(base + Int64(part.upperBound)))
            }
            guard let inner, inner.rows.contains(row) else {
                add(block.columns)
                continue
            }
            if block.columns.lowerBound < inner.columns.lowerBound {
                add(block.columns.lowerBound...min(block.columns.upperBound, inner.columns.lowerBound - 1))
            }
            if block.columns.upperBound > inner.columns.upperBound {
                add(max(block.columns.lowerBound, inner.columns.upperBound + 1)...block.columns.upperBound)
            }
        }
        return ranges
    }

    static func index(of offset: Double, size: Double, count: Int) -> Int {
        guard offset.isFinite else { return offset > 0 ? count - 1 : 0 }
        let raw = (offset / size).rounded(.down)
        return Int(Swift.min(Swift.max(raw, 0), Double(count - 1)))
    }
}

// MARK: - Search

/// How far the deck reads, step by step.
package struct DeckSearch: Sendable {
    /// The first block: in a dense city a few hundred dogs, enough to fill a page.
    package var firstRadiusKm = 0.25
    /// Each block's radius is this times the last one's.
    package var growth = 2.0

    package init() {}

    /// The radii read one after the other, the last exactly `maxDistanceKm`.
    package func radii(upTo maxDistanceKm: Double) -> [Double] {
        precondition(firstRadiusKm > 0 && growth > 1, "the blocks must grow from a positive radius")
        var radii: [Double] = []
        var radius = firstRadiusKm
        while radius < maxDistanceKm {
            radii.append(radius)
            radius *= growth
        }
        radii.append(maxDistanceKm)
        return radii
    }
}

/// Every bucket a dog can be in, grouped by its compatibility ceiling for one kind of seeker.
/// The ceilings depend only on the seeker's own bucket, so a server may keep one of these per
/// seeker bucket (`seekerBucket`) instead of building it for every request.
package struct DeckBuckets: Sendable {
    /// Distinct ceilings, highest first, each with its buckets.
    package let groups: [(ceiling: Double, buckets: [Int64])]
    /// The index in `groups` of each bucket, by `BucketTable.slot`; -1 where no bucket is.
    private let groupOfSlot: [Int16]
    /// Every bucket there is: 6 sizes × (1 for puppies + 5 energies × 64 play-style sets).
    package var bucketCount: Int { groups.reduce(0) { $0 + $1.buckets.count } }

    /// The key under which these may be cached: everything of the seeker the ceilings read.
    package static func seekerBucket(_ seeker: DeckDog) -> Int64 {
        DeckIndexRow(seeker).bucket
    }

    package init(seeker: DeckDog, matchmaker: Matchmaker) {
        // Component scores per possible value first (64 + 5 + 6 of them), then every bucket from
        // those: a few thousand additions rather than a few thousand pairings.
        let styleCount = PlayStyle.allCases.count
        let energies: [EnergyLevel?] = [nil] + EnergyLevel.allCases.map { $0 }
        let sizes: [SizeClass?] = [nil] + SizeClass.allCases.map { $0 }
        let playScores = (0..<(1 << styleCount)).map { mask in
            Matchmaker.playStyleMatch(seeker.playStyles, DeckIndexRow.playStyles(mask: Int64(mask))).score
        }
        let energyScores = energies.map { Matchmaker.energyGap(seeker.energy, $0).map { Matchmaker.energyScores[$0] } ?? Matchmaker.neutral }
        let sizeScores: [Double?] = sizes.map { size in
            guard let mine = seeker.effectiveSizeClass, let size else { return Matchmaker.neutral }
            let gap = abs(Matchmaker.sizeIndex(mine) - Matchmaker.sizeIndex(size))
            return gap >= Matchmaker.vetoSizeGap ? nil : Matchmaker.sizeScores[gap]
        }
        var entries: [(ceiling: Double, bucket: Int64)] = []
        for (sizeCode, size) in sizeScores.enumerated() {
            // A puppy's bucket is its size alone: nothing else bounds a puppy pair.
            entries.append(
                (
                    matchmaker.compatibilityCeiling(playScore: 0, energyScore: 0, sizeScore: size, puppyPair: true),
                    DeckIndexRow.bucketBits(playMask: 0, energyCode: 0, sizeCode: Int64(sizeCode), social: false)
                ))
            for (energyCode, energy) in energyScores.enumerated() {
                for (mask, play) in playScores.enumerated() {
                    let ceiling = matchmaker.compatibilityCeiling(
                        playScore: play, energyScore: energy, sizeScore: size,
                        puppyPair: seeker.mode == .puppy)
                    entries.append(
                        (
                            ceiling,
                            DeckIndexRow.bucketBits(
                                playMask: Int64(mask), energyCode: Int64(energyCode),
                                sizeCode: Int64(sizeCode), social: true)
                        ))
                }
            }
        }
        entries.sort { $0.ceiling > $1.ceiling }
        var groups: [(ceiling: Double, buckets: [Int64])] = []
        var groupOfSlot = [Int16](repeating: -1, count: BucketTable.slotCount)
        for entry in entries {
            if groups.last?.ceiling != entry.ceiling { groups.append((entry.ceiling, [])) }
            groups[groups.count - 1].buckets.append(entry.bucket)
            if let slot = BucketTable.slot(entry.bucket) { groupOfSlot[slot] = Int16(groups.count - 1) }
        }
        self.groups = groups
        self.groupOfSlot = groupOfSlot
    }

    /// The group of `bucket` in `groups`; nil for a bucket outside them.
    package func group(ofBucket bucket: Int64) -> Int? {
        guard let slot = BucketTable.slot(bucket), groupOfSlot[slot] >= 0 else { return nil }
        return Int(groupOfSlot[slot])
    }

    /// For each group, the farthest a dog of its buckets can be and still come before `worst`,
    /// the last card of a full page: beyond it even the group's ceiling, combined with the
    /// distance score there, stays behind. +∞ when no distance is too far, negative when every
    /// distance is; nil when the weights do not allow the bound (as in `alive`).
    ///
    /// The inverse of `alive`: the distance score needed is solved for per ceiling, with the same
    /// two millionths of slack, and turned into kilometres through the score's half-life. The
    /// slack in the score is worth far more than any rounding of the logarithm, so a dog this
    /// leaves out could never have joined the page.
    package func farthestKm(before worst: DeckPosition, matchmaker: Matchmaker) -> [Double]? {
        let (compatibilityWeight, distanceWeight) = (matchmaker.compatibilityWeight, matchmaker.distanceWeight)
        let total = compatibilityWeight + distanceWeight
        guard compatibilityWeight > 0, distanceWeight > 0, total > 0 else { return nil }
        let halfLife = matchmaker.distanceHalfLifeKm
        return groups.map { group in
            let needed = ((worst.score - 2e-6) * total - compatibilityWeight * group.ceiling) / distanceWeight
            if needed <= 0 { return .infinity }
            // A dog at no distance scores 1 (0 with no half-life); needing more, none gets there.
            guard needed <= 1, halfLife > 0 else { return -1 }
            return halfLife * Foundation.log2(1 / needed) * (1 + 1e-9) + 1e-9
        }
    }

    /// The buckets whose dogs farther than `km` could still come before `worst`, the last card
    /// of a full page.
    ///
    /// Such a dog scores at most rank(combined(ceiling, distanceScore(km))). Rather than work that
    /// out per bucket, the smallest ceiling that could still reach `worst` is solved for once and
    /// lowered by two millionths (the rank's rounding and then some), so that floating-point
    /// error can only keep a bucket too many, never drop one that could join the page.
    package func alive(fartherThanKm km: Double, worst: DeckPosition, matchmaker: Matchmaker) -> [Int64] {
        let total = matchmaker.compatibilityWeight + matchmaker.distanceWeight
        // The bound below holds for positive weights only (a negative distance weight would
        // favour farther dogs); anything else keeps every bucket.
        guard matchmaker.compatibilityWeight > 0, matchmaker.distanceWeight >= 0, total > 0 else {
            return groups.flatMap(\.buckets)
        }
        let proximity = matchmaker.distanceScore(km: km)
        let needed = ((worst.score - 2e-6) * total - matchmaker.distanceWeight * proximity) / matchmaker.compatibilityWeight
        var result: [Int64] = []
        for group in groups {
            guard group.ceiling >= needed else { break }
            result += group.buckets
        }
        return result
    }
}

/// A deck page read through the index, with how much it read.
package struct IndexedDeckPage: Sendable, Equatable {
    package var cards: [DeckCard]
    /// Index rows read, over every step.
    package var dogsRead: Int
    /// Of those, the rows near enough to be turned into dogs and scored.
    package var dogsScored = 0
    /// Queries made (at most one per radius).
    package var steps: Int
}

extension Matchmaker {
    /// The same page as `deck(seeker:candidates:…)` over every dog within the preferred
    /// distance, reading index rows block by block through `read` and stopping as soon as no dog
    /// left unread could join the page. `read(ranges, buckets)` returns the rows whose cell falls
    /// in one of the ranges and, when `buckets` is not nil, whose bucket is one of them.
    ///
    /// Once the page is full, a row is turned into a dog and scored only if it is near enough
    /// for its bucket's ceiling to beat the page's last card (`DeckBuckets.farthestKm`): most
    /// rows read far out are not, and a distance costs a fraction of a score.
    package func indexedDeck(
        seeker: DeckDog, preferences: DeckPreferences, excludedPets: Set<Pet.ID>,
        blockedOwners: Set<User.ID>, today: LocalDate, after: DeckPosition?, limit: Int,
        grid: DeckGrid = .standard, search: DeckSearch = DeckSearch(), buckets: DeckBuckets? = nil,
        read: ([ClosedRange<Int64>], [Int64]?) async throws -> [DeckIndexRow]
    ) async rethrows -> IndexedDeckPage {
        var ranker = DeckRanker(
            matchmaker: self, seeker: seeker, preferences: preferences, excludedPets: excludedPets,
            blockedOwners: blockedOwners, today: today, after: after, limit: limit)
        guard limit > 0 else { return IndexedDeckPage(cards: [], dogsRead: 0, steps: 0) }
        var buckets = buckets
        var readBlock: DeckGrid.Block?
        var readKm = 0.0
        var dogsRead = 0
        var dogsScored = 0
        var steps = 0
        for radius in search.radii(upTo: preferences.maxDistanceKm) {
            var wanted: [Int64]?
            if let worst = ranker.worst {
                let table = buckets ?? DeckBuckets(seeker: seeker, matchmaker: self)
                buckets = table
                let alive = table.alive(fartherThanKm: readKm, worst: worst, matchmaker: self)
                if alive.isEmpty { break }
                if alive.count < table.bucketCount { wanted = alive }
            }
            let block = grid.block(around: seeker.location, radiusKm: radius)
            let ranges = grid.cellRanges(of: block, excluding: readBlock)
            if !ranges.isEmpty {
                let rows = try await read(ranges, wanted)
                dogsRead += rows.count
                steps += 1
                // Once the page is full, a dog farther than its bucket's group can still score is
                // skipped; the distance measured for that is the one the ranker then uses.
                var reach: (table: DeckBuckets, farthestKm: [Double])?
                if let worst = ranker.worst, let table = buckets,
                    let farthest = table.farthestKm(before: worst, matchmaker: self)
                {
                    reach = (table, farthest)
                }
                for row in rows {
                    var knownKm: Double?
                    if let reach, let group = reach.table.group(ofBucket: row.bucket) {
                        let km = ranker.seekerDistances.km(to: row.location)
                        guard km <= reach.farthestKm[group] else { continue }
                        knownKm = km
                    }
                    dogsScored += 1
                    if let dog = row.dog { ranker.consider(dog, knownKm: knownKm) }
                }
            }
            readBlock = block
            readKm = radius
        }
        return IndexedDeckPage(cards: ranker.cards(), dogsRead: dogsRead, dogsScored: dogsScored, steps: steps)
    }
}

// MARK: - Rows

/// A dog as one small row of the index: the location, the birth date as a day number, the
/// weight, and every other field the deck reads packed into one integer (`traits`). Stored as
/// the cell, the `bucket` and the `payload` (all of it in 72 bytes).
package struct DeckIndexRow: Sendable, Equatable {
    package var petID: Pet.ID
    package var ownerID: User.ID
    package var latitude: Double
    package var longitude: Double
    package var traits: Int64
    package var birthDay: Int
    package var weightKg: Double?

    package init(
        petID: Pet.ID, ownerID: User.ID, latitude: Double, longitude: Double, traits: Int64,
        birthDay: Int, weightKg: Double?
    ) {
        self.petID = petID
        self.ownerID = ownerID
        self.latitude = latitude
        self.longitude = longitude
        self.traits = traits
        self.birthDay = birthDay
        self.weightKg = weightKg
    }

    // Bit layout of `traits`, lowest bits first. Each optional field uses 0 for "not given" and
    // its case index + 1 otherwise. Append new fields above the last; never move one.
    static let playStylesShift: Int64 = 0 // 6 bits, one per PlayStyle.allCases
    static let energyShift: Int64 = 6 // 3 bits
    static let sizeShift: Int64 = 9 // 3 bits
    static let sexShift: Int64 = 12 // 2 bits
    static let neuteredShift: Int64 = 14 // 2 bits: 0 unknown, 1 no, 2 yes
    static let areaShift: Int64 = 16 // 2 bits: 0 no environment given
    static let gardenShift: Int64 = 18 // 1 bit
    static let otherPetsShift: Int64 = 19 // 1 bit
    static let modeShift: Int64 = 20 // 1 bit: 0 puppy, 1 social
    static let childrenShift: Int64 = 21 // 1 bit

    package init(_ dog: DeckDog) {
        var traits: Int64 = 0
        traits |= Self.playMask(dog.playStyles) << Self.playStylesShift
        traits |= Self.code(dog.energy, in: EnergyLevel.allCases) << Self.energyShift
        // The size the deck uses: given, or implied by the weight. Filters and scores read only that.
        traits |= Self.code(dog.effectiveSizeClass, in: SizeClass.allCases) << Self.sizeShift
        traits |= (Self.code(dog.sex, in: PetSex.allCases) - 1) << Self.sexShift
        traits |= (dog.neutered.map { $0 ? 2 : 1 } ?? 0) << Self.neuteredShift
        if let environment = dog.environment {
            traits |= Self.code(environment.area, in: HomeArea.allCases) << Self.areaShift
            traits |= (environment.hasGarden ? 1 : 0) << Self.gardenShift
            traits |= (environment.livesWithOtherPets ? 1 : 0) << Self.otherPetsShift
            traits |= (environment.livesWithChildren ? 1 : 0) << Self.childrenShift
        }
        traits |= (dog.mode == .social ? 1 : 0) << Self.modeShift
        self.init(
            petID: dog.id, ownerID: dog.ownerID, latitude: dog.location.latitude,
            longitude: dog.location.longitude, traits: traits, birthDay: dog.birthDate.dayNumber,
            weightKg: dog.weightKg)
    }

    /// The bits of `traits` that fix the compatibility ceiling: for a dog in Social Mode its
    /// play styles, energy and size class; for a puppy only its size class (a puppy pair is
    /// matched on age and size), so all puppies of one size share a bucket.
    package var bucket: Int64 {
        let social = field(Self.modeShift, bits: 1) == 1
        return Self.bucketBits(
            playMask: social ? field(Self.playStylesShift, bits: Self.playStyleBits) : 0,
            energyCode: social ? field(Self.energyShift, bits: 3) : 0,
            sizeCode: field(Self.sizeShift, bits: 3), social: social)
    }

    /// A bucket laid out like `traits`, so a social dog's bucket is its traits' bits.
    static func bucketBits(playMask: Int64, energyCode: Int64, sizeCode: Int64, social: Bool) -> Int64 {
        playMask << playStylesShift | energyCode << energyShift | sizeCode << sizeShift | (social ? 1 : 0) << modeShift
    }

    /// One bit per `PlayStyle.allCases`, in that order.
    static let playStyleBits = Int64(PlayStyle.allCases.count)

    static func playMask(_ styles: [PlayStyle]) -> Int64 {
        var mask: Int64 = 0
        for (bit, style) in PlayStyle.allCases.enumerated() where styles.contains(style) { mask |= 1 << Int64(bit) }
        return mask
    }

    /// The play styles a bitmask of `PlayStyle.allCases` stands for. Every dog read from the
    /// index needs its list, so each of the few possible lists is built once and shared.
    static func playStyles(mask: Int64) -> [PlayStyle] {
        guard mask >= 0, mask < Int64(playStyleLists.count) else { return listOfPlayStyles(mask: mask) }
        return playStyleLists[Int(mask)]
    }

    private static let playStyleLists = (0..<(Int64(1) << playStyleBits)).map(listOfPlayStyles)

    private static func listOfPlayStyles(mask: Int64) -> [PlayStyle] {
        PlayStyle.allCases.enumerated().filter { mask & (1 << Int64($0.offset)) != 0 }.map(\.element)
    }

    // MARK: Payload

    /// Bytes of a payload: pet id 16, owner id 16, latitude 8, longitude 8, traits 8, birth day
    /// 8, weight 8 (NaN when not given); numbers little-endian.
    package static let payloadSize = 72

    /// Everything in one value, so that the database hands back one column per dog.
    package var payload: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.payloadSize)
        withUnsafeBytes(of: petID.rawValue.uuid) { bytes += $0 }
        withUnsafeBytes(of: ownerID.rawValue.uuid) { bytes += $0 }
        for word in [
            latitude.bitPattern, longitude.bitPattern, UInt64(bitPattern: traits),
            UInt64(bitPattern: Int64(birthDay)), (weightKg ?? .nan).bitPattern,
        ] {
            withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// The row a payload holds; nil when it is not a payload (wrong size).
    package init?(payload bytes: [UInt8]) {
        guard let row = bytes.withUnsafeBytes({ DeckIndexRow(payload: $0) }) else { return nil }
        self = row
    }

    /// The row a payload holds, read in place (no copy: the deck reads thousands per request).
    package init?(payload bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.payloadSize else { return nil }
        func word(at offset: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        func uuid(at offset: Int) -> UUID {
            UUID(uuid: bytes.loadUnaligned(fromByteOffset: offset, as: uuid_t.self))
        }
        let weight = Double(bitPattern: word(at: 64))
        self.init(
            petID: Pet.ID(uuid(at: 0)), ownerID: User.ID(uuid(at: 16)),
            latitude: Double(bitPattern: word(at: 32)), longitude: Double(bitPattern: word(at: 40)),
            traits: Int64(bitPattern: word(at: 48)), birthDay: Int(Int64(bitPattern: word(at: 56))),
            weightKg: weight.isNaN ? nil : weight)
    }

    /// The dog this row stands for; nil when the row holds a code this version does not know
    /// (a row written by a newer server), so a bad row is left out rather than misread.
    package var dog: DeckDog? {
        guard let birthDate = LocalDate(dayNumber: birthDay),
            let sex = Self.value(field(Self.sexShift, bits: 2) + 1, in: PetSex.allCases)
        else { return nil }
        let styles = Self.playStyles(mask: field(Self.playStylesShift, bits: Self.playStyleBits))
        let energy = field(Self.energyShift, bits: 3)
        let size = field(Self.sizeShift, bits: 3)
        let neutered = field(Self.neuteredShift, bits: 2)
        let area = field(Self.areaShift, bits: 2)
        var environment: PetEnvironment?
        if area != 0 {
            guard let home = Self.value(area, in: HomeArea.allCases) else { return nil }
            environment = PetEnvironment(
                area: home, hasGarden: field(Self.gardenShift, bits: 1) == 1,
                livesWithOtherPets: field(Self.otherPetsShift, bits: 1) == 1,
                livesWithChildren: field(Self.childrenShift, bits: 1) == 1)
        }
        guard energy == 0 || Self.value(energy, in: EnergyLevel.allCases) != nil,
            size == 0 || Self.value(size, in: SizeClass.allCases) != nil, neutered <= 2
        else { return nil }
        return DeckDog(
            id: petID, ownerID: ownerID, location: GeoPoint(latitude: latitude, longitude: longitude),
            birthDate: birthDate, sex: sex, neutered: neutered == 0 ? nil : neutered == 2,
            sizeClass: Self.value(size, in: SizeClass.allCases), weightKg: weightKg, playStyles: styles,
            energy: Self.value(energy, in: EnergyLevel.allCases), environment: environment,
            mode: field(Self.modeShift, bits: 1) == 1 ? .social : .puppy)
    }

    private func field(_ shift: Int64, bits: Int64) -> Int64 {
        (traits >> shift) & ((1 << bits) - 1)
    }

    /// 0 for nil, else the case's index + 1.
    private static func code<T: Equatable>(_ value: T?, in cases: [T]) -> Int64 {
        guard let value, let index = cases.firstIndex(of: value) else { return 0 }
        return Int64(index + 1)
    }

    /// The case a code stands for; nil for 0 or a code past the last case.
    private static func value<T>(_ code: Int64, in cases: [T]) -> T? {
        guard code >= 1, code <= Int64(cases.count) else { return nil }
        return cases[Int(code - 1)]
    }
}
