import Foundation
import PawpackCore

/// The dogs, places and generators the matchmaking and index tests share: a suite that needs
/// them conforms, rather than making another suite to borrow its helpers. Generated dogs come
/// from `SeededRandom`, so a failing case can be replayed.
protocol DogFixtures {}

extension DogFixtures {
    var matchmaker: Matchmaker { Matchmaker() }
    /// The pinned clock: 1 March 2026.
    var today: LocalDate { LocalDate(year: 2026, month: 3, day: 1)! }
    /// Lyon, where the seeking dog lives.
    var home: GeoPoint { GeoPoint(latitude: 45.7640, longitude: 4.8357) }
    var paris: GeoPoint { GeoPoint(latitude: 48.8566, longitude: 2.3522) }
    var london: GeoPoint { GeoPoint(latitude: 51.5074, longitude: -0.1278) }

    func padded(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: Swift.max(0, 12 - digits.count)) + digits
    }

    /// A fixed id ending in `number`, so that ids sort as their numbers do.
    func petID(_ number: Int) -> Pet.ID {
        Pet.ID(UUID(uuidString: "00000000-0000-0000-0000-" + padded(number))!)
    }

    func ownerID(_ number: Int) -> User.ID {
        User.ID(UUID(uuidString: "10000000-0000-0000-0000-" + padded(number))!)
    }

    /// The point `km` kilometres due north of `origin` (home unless given).
    func north(_ km: Double, of origin: GeoPoint? = nil) -> GeoPoint {
        let from = origin ?? home
        return GeoPoint(latitude: from.latitude + km / Matchmaker.earthRadiusKm * 180 / .pi, longitude: from.longitude)
    }

    /// The first of the month `months` months before today: exactly that many whole months ago.
    func born(monthsAgo months: Int) -> LocalDate {
        let index = today.year * 12 + (today.month - 1) - months
        return LocalDate(year: index / 12, month: index % 12 + 1, day: 1)!
    }

    /// Unless told otherwise: a social, neutered female, medium (18 kg), loves chase games, high
    /// energy, suburban with a garden, three years old, at home, owned by owner `number`.
    func dog(
        _ number: Int, owner: Int? = nil, at location: GeoPoint? = nil, ageMonths: Int = 36,
        sex: PetSex = .female, neutered: Bool? = true, size: SizeClass? = .medium, weightKg: Double? = 18,
        playStyles: [PlayStyle] = [.chase], energy: EnergyLevel? = .high,
        environment: PetEnvironment? = PetEnvironment(area: .suburb, hasGarden: true),
        mode: WelfareMode = .social
    ) -> DeckDog {
        DeckDog(
            id: petID(number), ownerID: ownerID(owner ?? number), location: location ?? home,
            birthDate: born(monthsAgo: ageMonths), sex: sex, neutered: neutered, sizeClass: size,
            weightKg: weightKg, playStyles: playStyles, energy: energy, environment: environment, mode: mode)
    }

    /// The dog whose deck it is: a neutered male who loves chase and fetch, otherwise as `dog`.
    var seeker: DeckDog { dog(0, sex: .male, playStyles: [.chase, .fetch]) }

    /// An intact female 3 km north who loves chase games and has very high energy.
    var typicalCandidate: DeckDog {
        dog(1, at: north(3), sex: .female, neutered: false, playStyles: [.chase], energy: .veryHigh)
    }

    func passes(
        _ candidate: DeckDog, _ preferences: DeckPreferences = DeckPreferences(), seeker: DeckDog? = nil,
        excluded: Set<Pet.ID> = [], blocked: Set<User.ID> = []
    ) -> Bool {
        matchmaker.passesHardFilters(
            seeker: seeker ?? self.seeker, candidate: candidate, preferences: preferences,
            excludedPets: excluded, blockedOwners: blocked, today: today)
    }

    func card(_ candidate: DeckDog, seeker: DeckDog? = nil) -> DeckCard {
        matchmaker.card(seeker: seeker ?? self.seeker, candidate: candidate, today: today)
    }

    func compatibility(_ candidate: DeckDog, seeker: DeckDog? = nil) -> Double {
        card(candidate, seeker: seeker).compatibility
    }

    func deck(
        _ candidates: [DeckDog], _ preferences: DeckPreferences = DeckPreferences(), seeker: DeckDog? = nil,
        after: DeckPosition? = nil, limit: Int = 1_000
    ) -> [DeckCard] {
        matchmaker.deck(
            seeker: seeker ?? self.seeker, candidates: candidates, preferences: preferences,
            excludedPets: [], blockedOwners: [], today: today, after: after, limit: limit)
    }

    func problem(_ preferences: DeckPreferences) -> Problem? {
        do {
            _ = try preferences.validated()
            return nil
        } catch { return error }
    }

    /// The point `km` from `origin` along `bearingDegrees` (clockwise from north), on the
    /// matchmaker's sphere, with its longitude brought back into -180...180.
    func destination(_ origin: GeoPoint, km: Double, bearingDegrees: Double) -> GeoPoint {
        let angle = km / Matchmaker.earthRadiusKm
        let lat1 = origin.latitude * .pi / 180
        let lon1 = origin.longitude * .pi / 180
        let bearing = bearingDegrees * .pi / 180
        let sinLat2 = sin(lat1) * cos(angle) + cos(lat1) * sin(angle) * cos(bearing)
        let lat2 = asin(Swift.min(1, Swift.max(-1, sinLat2)))
        let lon2 = lon1 + atan2(sin(bearing) * sin(angle) * cos(lat1), cos(angle) - sin(lat1) * sin(lat2))
        return GeoPoint(
            latitude: Swift.min(90, Swift.max(-90, lat2 * 180 / .pi)),
            longitude: normalizedLongitude(lon2 * 180 / .pi))
    }

    func normalizedLongitude(_ degrees: Double) -> Double {
        var longitude = degrees
        while longitude > 180 { longitude -= 360 }
        while longitude < -180 { longitude += 360 }
        return longitude
    }

    // MARK: Generators

    func chance(_ probability: Double, _ random: inout SeededRandom) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    func randomUUID(_ random: inout SeededRandom) -> UUID {
        let high: UInt64 = random.next()
        let low: UInt64 = random.next()
        return UUID(
            uuid: (
                byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3),
                byte(high, 4), byte(high, 5), byte(high, 6), byte(high, 7),
                byte(low, 0), byte(low, 1), byte(low, 2), byte(low, 3),
                byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)
            ))
    }

    func byte(_ word: UInt64, _ index: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: word >> (8 * index))
    }

    func randomSubset<Value: CaseIterable & Hashable>(
        of type: Value.Type,
        _ random: inout SeededRandom
    ) -> Set<Value> {
        var subset = Set<Value>()
        for value in Value.allCases {
            if chance(0.5, &random) { subset.insert(value) }
        }
        return subset
    }

    /// A dog up to `spread` km from `origin`, owned by one of `owners` (a new owner when empty),
    /// any age up to 20 years, with every optional field sometimes missing; a quarter in Puppy Mode.
    func randomDog(
        _ random: inout SeededRandom, near origin: GeoPoint, withinKm spread: Double,
        owners: [User.ID]
    ) -> DeckDog {
        let distance = Double.random(in: 0...spread, using: &random)
        let bearing = Double.random(in: 0..<360, using: &random)
        let location = destination(origin, km: distance, bearingDegrees: bearing)
        let id = Pet.ID(randomUUID(&random))
        var owner = User.ID(randomUUID(&random))
        if !owners.isEmpty { owner = owners[Int.random(in: 0..<owners.count, using: &random)] }
        let birthDate = today.adding(days: -Int.random(in: 0...7_300, using: &random))
        let sex = PetSex.allCases.randomElement(using: &random)!
        let neuteredRoll = Int.random(in: 0..<3, using: &random)
        let neutered: Bool? = neuteredRoll == 0 ? nil : neuteredRoll == 1
        var size: SizeClass?
        if chance(0.7, &random) { size = SizeClass.allCases.randomElement(using: &random) }
        var weight: Double?
        if chance(0.7, &random) { weight = (Double.random(in: 1...90, using: &random) * 10).rounded() / 10 }
        var styles: [PlayStyle] = []
        for style in PlayStyle.allCases {
            if chance(0.3, &random) { styles.append(style) }
        }
        var energy: EnergyLevel?
        if chance(0.8, &random) { energy = EnergyLevel.allCases.randomElement(using: &random) }
        var environment: PetEnvironment?
        if chance(0.7, &random) {
            let area = HomeArea.allCases.randomElement(using: &random)!
            let garden = chance(0.5, &random)
            environment = PetEnvironment(area: area, hasGarden: garden)
        }
        let mode: WelfareMode = chance(0.25, &random) ? .puppy : .social
        return DeckDog(
            id: id, ownerID: owner, location: location, birthDate: birthDate, sex: sex, neutered: neutered,
            sizeClass: size, weightKg: weight, playStyles: styles, energy: energy,
            environment: environment, mode: mode)
    }

    /// Preferences with each filter sometimes set; sets may come out empty (meaning any) and
    /// age and weight bounds may be one-sided.
    func randomPreferences(_ random: inout SeededRandom) -> DeckPreferences {
        var preferences = DeckPreferences(maxDistanceKm: Double.random(in: 1...60, using: &random))
        if chance(0.4, &random) {
            let first = Int.random(in: 0...240, using: &random)
            let second = Int.random(in: 0...240, using: &random)
            if chance(0.8, &random) { preferences.minAgeMonths = Swift.min(first, second) }
            if chance(0.8, &random) { preferences.maxAgeMonths = Swift.max(first, second) }
        }
        if chance(0.4, &random) { preferences.sexes = randomSubset(of: PetSex.self, &random) }
        preferences.neuteredOnly = chance(0.25, &random)
        if chance(0.3, &random) { preferences.sizes = randomSubset(of: SizeClass.self, &random) }
        if chance(0.3, &random) {
            let first = Double.random(in: 1...90, using: &random)
            let second = Double.random(in: 1...90, using: &random)
            if chance(0.8, &random) { preferences.minWeightKg = Swift.min(first, second) }
            if chance(0.8, &random) { preferences.maxWeightKg = Swift.max(first, second) }
        }
        if chance(0.3, &random) { preferences.playStyles = randomSubset(of: PlayStyle.self, &random) }
        return preferences
    }
}
