import Foundation
import PawpackCore
import Testing

/// The candidate index: rows keep what the deck reads, the grid covers every dog in range, the
/// bucket ceilings never undercut a real score, and the indexed deck gives the very page the
/// deck over every dog in range gives, while reading fewer dogs where they are dense.
@Suite struct DeckIndexingTests: DogFixtures {
    /// What the deck reads of a dog: its size class as the deck uses it (given, or implied by
    /// the weight). The index stores that.
    func asTheDeckReadsIt(_ dog: DeckDog) -> DeckDog {
        var copy = dog
        copy.sizeClass = dog.effectiveSizeClass
        return copy
    }

    @Test func aRowKeepsEveryFieldTheDeckReadsInItsPayload() {
        var random = SeededRandom(seed: 0x1D3C)
        for _ in 0..<500 {
            let dog = randomDog(&random, near: home, withinKm: 30, owners: [])
            let row = DeckIndexRow(dog)
            #expect(row.payload.count == DeckIndexRow.payloadSize)
            #expect(DeckIndexRow(payload: row.payload) == row)
            #expect(row.dog == asTheDeckReadsIt(dog))
        }
        // The household flags the generated dogs never set.
        var household = dog(2)
        household.environment = PetEnvironment(area: .rural, hasGarden: false, livesWithOtherPets: true, livesWithChildren: true)
        #expect(DeckIndexRow(payload: DeckIndexRow(household).payload)?.dog == household)
        // Not a payload, and a row written with a code this version does not know.
        #expect(DeckIndexRow(payload: [UInt8](repeating: 0, count: 71)) == nil)
        var unknown = DeckIndexRow(dog(1))
        unknown.traits |= 7 << 6 // energy code 7: no such level
        #expect(unknown.dog == nil)
    }

    @Test func theBlockAroundAPointHoldsEveryPointWithinTheRadius() {
        var random = SeededRandom(seed: 0x6A1D)
        let grid = DeckGrid.standard
        let centres = [
            home, GeoPoint(latitude: 69.6492, longitude: 18.9553),
            GeoPoint(latitude: -41.2865, longitude: 179.99), GeoPoint(latitude: 89.99, longitude: 10),
        ]
        for centre in centres {
            for radius in [0.25, 1, 7.5, 25] {
                let ranges = grid.cellRanges(of: grid.block(around: centre, radiusKm: radius))
                for _ in 0..<200 {
                    let point = destination(
                        centre, km: Double.random(in: 0...radius, using: &random),
                        bearingDegrees: Double.random(in: 0..<360, using: &random))
                    let cell = grid.cell(of: point)
                    #expect(ranges.contains { $0.contains(cell) }, "\(point) within \(radius) km of \(centre)")
                }
            }
        }
    }

    @Test func aRingIsTheBiggerBlockWithoutTheSmallerOne() {
        let grid = DeckGrid(cellDegrees: 0.5)
        let inner = grid.block(around: home, radiusKm: 40)
        let outer = grid.block(around: home, radiusKm: 120)
        func cells(_ ranges: [ClosedRange<Int64>]) -> [Int64] { ranges.flatMap { Array($0) } }
        let ring = cells(grid.cellRanges(of: outer, excluding: inner))
        let whole = cells(grid.cellRanges(of: outer))
        let middle = cells(grid.cellRanges(of: inner))
        #expect(Set(ring).isDisjoint(with: middle))
        #expect(Set(ring).union(middle) == Set(whole))
        #expect(ring.count + middle.count == whole.count)
        #expect(whole.count == outer.cellCount)
        #expect(grid.cellRanges(of: inner, excluding: inner).isEmpty)
    }

    @Test func theRadiiGrowByDoublingAndEndAtTheMaximumDistance() {
        #expect(DeckSearch().radii(upTo: 25) == [0.25, 0.5, 1, 2, 4, 8, 16, 25])
        #expect(DeckSearch().radii(upTo: 1) == [0.25, 0.5, 1])
        #expect(DeckSearch().radii(upTo: 0.1) == [0.1])
    }

    @Test func aBucketsCeilingIsNeverBelowTheCompatibilityOfADogInIt() throws {
        var random = SeededRandom(seed: 0xCE11)
        var exact = 0
        var socialPairs = 0
        var socialGap = 0.0
        for _ in 0..<300 {
            let seeker = randomDog(&random, near: home, withinKm: 1, owners: [])
            let buckets = DeckBuckets(seeker: seeker, matchmaker: matchmaker)
            let ceilingOf = Dictionary(
                buckets.groups.flatMap { group in group.buckets.map { ($0, group.ceiling) } },
                uniquingKeysWith: { first, _ in first })
            #expect(ceilingOf.count == buckets.bucketCount)
            for _ in 0..<40 {
                let candidate = randomDog(&random, near: home, withinKm: 10, owners: [])
                let actual = matchmaker.card(seeker: seeker, candidate: candidate, today: today).compatibility
                let ceiling = try #require(ceilingOf[DeckIndexRow(candidate).bucket])
                #expect(ceiling >= actual, "\(candidate) for \(seeker)")
                if abs(ceiling - actual) < 1e-12 { exact += 1 }
                // What a bucket leaves open: for two social dogs the pairing (0.15) and the
                // environment (0.10); for a puppy pair the age (0.5).
                let puppyPair = seeker.mode == .puppy || candidate.mode == .puppy
                #expect(ceiling - actual <= (puppyPair ? 0.5 : 0.25) + 1e-9)
                if !puppyPair {
                    socialPairs += 1
                    socialGap += ceiling - actual
                }
            }
        }
        // A real bound, not "1 for everyone": close on average, and sometimes exact.
        #expect(socialPairs > 5_000)
        #expect(socialGap / Double(socialPairs) < 0.15, "mean gap \(socialGap / Double(socialPairs))")
        #expect(exact > 500)
    }

    /// A dog farther than its group's reach could never come before the page's last card: at
    /// its real distance, even its bucket's ceiling scores behind it. And the reach is a real
    /// bound: finite for some groups, and within a few metres of the distance where that
    /// ceiling would draw level.
    @Test func aDogBeyondItsBucketsReachNeverBeatsThePagesLastCard() throws {
        var random = SeededRandom(seed: 0xFA2)
        var beyond = 0
        var finite = 0
        for _ in 0..<200 {
            let seeker = randomDog(&random, near: home, withinKm: 1, owners: [])
            let buckets = DeckBuckets(seeker: seeker, matchmaker: matchmaker)
            let worst = DeckPosition(score: Double.random(in: 0.3...0.95, using: &random), petID: Pet.ID())
            let reach = try #require(buckets.farthestKm(before: worst, matchmaker: matchmaker))
            #expect(reach.count == buckets.groups.count)
            for (group, km) in zip(buckets.groups, reach) where km.isFinite && km > 0 {
                finite += 1
                // Where the ceiling draws level: a hair inside scores at least the last card,
                // a hair outside falls behind.
                let score = { (km: Double) in
                    (matchmaker.compatibilityWeight * group.ceiling
                        + matchmaker.distanceWeight * pow(0.5, km / matchmaker.distanceHalfLifeKm))
                        / (matchmaker.compatibilityWeight + matchmaker.distanceWeight)
                }
                #expect(score(max(km - 0.01, 0)) >= worst.score - 1e-5)
                #expect(score(km + 0.01) < worst.score)
            }
            for _ in 0..<50 {
                let candidate = randomDog(&random, near: home, withinKm: 40, owners: [])
                let row = DeckIndexRow(candidate)
                let group = try #require(buckets.group(ofBucket: row.bucket))
                let km = Matchmaker.haversineKm(seeker.location, candidate.location)
                guard km > reach[group] else { continue }
                beyond += 1
                let card = matchmaker.card(seeker: seeker, candidate: candidate, today: today)
                #expect(card.rank < worst.score, "\(candidate) at \(km) km, reach \(reach[group])")
            }
        }
        #expect(finite > 1_000)
        #expect(beyond > 2_000)
    }

    // MARK: The indexed deck is the deck

    /// A dense town: `count` dogs within 3 km of `centre` and the rest up to 40 km out.
    func town(_ random: inout SeededRandom, around centre: GeoPoint, count: Int) -> [DeckDog] {
        (0..<count).map { index in
            randomDog(&random, near: centre, withinKm: index % 3 == 0 ? 40 : 3, owners: [])
        }
    }

    /// Reads like the server: the dogs whose cell is in a range and whose bucket is wanted.
    func reader(_ dogs: [DeckDog], grid: DeckGrid) -> ([ClosedRange<Int64>], [Int64]?) -> [DeckIndexRow] {
        let rows = dogs.map { (cell: grid.cell(of: $0.location), row: DeckIndexRow($0)) }
        return { ranges, buckets in
            let wanted = buckets.map(Set.init)
            return rows.filter { entry in
                ranges.contains { $0.contains(entry.cell) } && (wanted?.contains(entry.row.bucket) ?? true)
            }.map(\.row)
        }
    }

    @Test func theIndexedDeckGivesTheSamePagesAsTheDeckOverEveryDog() async {
        var random = SeededRandom(seed: 0x1DE7)
        let grid = DeckGrid.standard
        let centres = [home, GeoPoint(latitude: -41.2865, longitude: 179.99)]
        var pages = 0
        var indexedReads = 0
        var naiveReads = 0
        var rowsScored = 0
        var rowsRead = 0
        for round in 0..<24 {
            let centre = centres[round % centres.count]
            let dogs = town(&random, around: centre, count: 1_500)
            let seeker = dogs[round]
            let preferences = round % 3 == 0 ? DeckPreferences() : randomPreferences(&random)
            let excluded: Set<Pet.ID> = Set(dogs.prefix(60).suffix(20).map(\.id)).union([seeker.id])
            let blocked: Set<User.ID> = [dogs[70].ownerID]
            let read = reader(dogs, grid: grid)
            let inRange = dogs.filter {
                Matchmaker.haversineKm(seeker.location, $0.location) <= preferences.maxDistanceKm
            }.map(asTheDeckReadsIt)
            var after: DeckPosition?
            for _ in 0..<3 {
                let limit = [1, 7, 20][pages % 3]
                let expected = matchmaker.deck(
                    seeker: seeker, candidates: inRange, preferences: preferences,
                    excludedPets: excluded, blockedOwners: blocked, today: today,
                    after: after, limit: limit)
                let page = await matchmaker.indexedDeck(
                    seeker: seeker, preferences: preferences, excludedPets: excluded,
                    blockedOwners: blocked, today: today, after: after,
                    limit: limit, grid: grid
                ) { ranges, buckets in read(ranges, buckets) }
                #expect(page.cards == expected, "round \(round), page after \(String(describing: after))")
                #expect(page.dogsScored <= page.dogsRead)
                rowsScored += page.dogsScored
                rowsRead += page.dogsRead
                if preferences == DeckPreferences() {
                    indexedReads += page.dogsRead
                    naiveReads += inRange.count
                }
                pages += 1
                guard let last = expected.last else { break }
                after = matchmaker.position(of: last)
            }
        }
        #expect(pages >= 48)
        // In a dense town with default preferences the index reads well under half the dogs.
        #expect(naiveReads > 0)
        #expect(Double(indexedReads) < Double(naiveReads) * 0.5, "read \(indexedReads) of \(naiveReads)")
        // Rows beyond their bucket's reach are read but never scored.
        #expect(rowsScored < rowsRead, "scored \(rowsScored) of \(rowsRead)")
    }
}

/// The rows a server holds in memory answer ranges and buckets exactly as the table does,
/// through rows put in, moved, replaced and removed.
@Suite struct DeckRowStoreTests: DogFixtures {
    let grid = DeckGrid.standard

    /// What the table answers: every row whose cell is in a range and whose bucket is wanted.
    func expected(_ rows: [Pet.ID: DeckIndexRow], in ranges: [ClosedRange<Int64>], buckets: Set<Int64>?) -> Set<Pet.ID> {
        Set(
            rows.values.filter { row in
                let cell = grid.cell(of: row.location)
                return ranges.contains { $0.contains(cell) } && buckets.map { $0.contains(row.bucket) } != false
            }.map(\.petID))
    }

    @Test func theStoreAnswersRangesAndBucketsAsTheTableWould() {
        var random = SeededRandom(seed: 0x5702)
        let dogs = (0..<3_000).map { _ in randomDog(&random, near: home, withinKm: 3, owners: []) }
        var truth = Dictionary(uniqueKeysWithValues: dogs.map { ($0.id, DeckIndexRow($0)) })
        // Built at once (with a duplicate: the later row wins), then changed row by row.
        var stale = DeckIndexRow(dogs[0])
        stale.latitude += 1
        var store = DeckRowStore(grid: grid, rows: [stale] + dogs.map(DeckIndexRow.init))
        #expect(store.count == dogs.count)
        #expect(store.row(of: dogs[0].id) == truth[dogs[0].id])
        for step in 0..<600 {
            let dog = dogs[Int.random(in: 0..<dogs.count, using: &random)]
            switch step % 3 {
            case 0: // moved, maybe into a cell nobody was in
                var moved = randomDog(&random, near: home, withinKm: 6, owners: [])
                moved.id = dog.id
                let row = DeckIndexRow(moved)
                store.put(row)
                truth[dog.id] = row
            case 1:
                store.remove(dog.id)
                truth[dog.id] = nil
            default: // put back as it was
                store.put(DeckIndexRow(dog))
                truth[dog.id] = DeckIndexRow(dog)
            }
        }
        #expect(store.count == truth.count)
        #expect(Set(store.allRows.map(\.petID)) == Set(truth.keys))
        store.remove(Pet.ID(UUID())) // not there: nothing happens
        #expect(store.count == truth.count)

        for radius in [0.2, 0.5, 1.5, 4, 8] {
            let inner = grid.block(around: home, radiusKm: radius / 2)
            let ranges = grid.cellRanges(of: grid.block(around: home, radiusKm: radius), excluding: inner)
            let everyBucket = Set(truth.values.map(\.bucket))
            // A third of the buckets there are, and a value outside the bucket layout.
            let someBuckets = Set(everyBucket.shuffled(using: &random).prefix(everyBucket.count / 3)).union([1 << 40])
            for buckets in [nil, someBuckets, []] as [Set<Int64>?] {
                let answered = store.rows(in: ranges, buckets: buckets.map(Array.init))
                #expect(answered.count == Set(answered.map(\.petID)).count, "no row twice")
                #expect(Set(answered.map(\.petID)) == expected(truth, in: ranges, buckets: buckets))
                #expect(answered.allSatisfy { truth[$0.petID] == $0 }, "the latest row of each pet")
            }
        }
        // A range as wide as the world walks only the cells that hold dogs.
        #expect(Set(store.rows(in: [0...Int64.max], buckets: nil).map(\.petID)) == Set(truth.keys))
        // Ranges in any order, overlapping or not, answer as in ascending order.
        let ranges = grid.cellRanges(of: grid.block(around: home, radiusKm: 2))
        let ascending = Set(store.rows(in: ranges, buckets: nil).map(\.petID))
        #expect(!ascending.isEmpty)
        #expect(Set(store.rows(in: ranges.reversed(), buckets: nil).map(\.petID)) == ascending)
        #expect(Set(store.rows(in: ranges.shuffled(using: &random), buckets: nil).map(\.petID)) == ascending)
        // A store built from the same rows at once answers the same.
        let rebuilt = DeckRowStore(grid: grid, rows: Array(truth.values))
        #expect(Set(rebuilt.rows(in: ranges, buckets: nil).map(\.petID)) == ascending)
    }
}
