import Foundation
import PawpackCore
import Testing

@Suite struct MatchmakingTests: DogFixtures {
    // MARK: Distance

    @Test func haversineGivesKnownDistances() {
        #expect(abs(Matchmaker.haversineKm(paris, london) - 343.5) < 0.5)
        #expect(abs(Matchmaker.haversineKm(london, paris) - Matchmaker.haversineKm(paris, london)) < 1e-9)
        #expect(Matchmaker.haversineKm(paris, paris) == 0)
        let antipodes = Matchmaker.haversineKm(GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 0, longitude: 180))
        #expect(abs(antipodes - 20_015.1) < 0.1)
        // 0.2° of longitude across the antimeridian at 45° south, not 359.8°.
        let across = Matchmaker.haversineKm(
            GeoPoint(latitude: -45, longitude: 179.9),
            GeoPoint(latitude: -45, longitude: -179.9))
        #expect(abs(across - 15.725) < 0.01)
        #expect(abs(Matchmaker.haversineKm(home, north(3)) - 3) < 1e-9)
    }

    @Test func distancesShowAsWholeKilometresRoundedHalfUpAndNeverBelowOne() {
        #expect(Matchmaker.roundedDistance(km: 0) == "< 1 km")
        #expect(Matchmaker.roundedDistance(km: 0.49) == "< 1 km")
        #expect(Matchmaker.roundedDistance(km: 0.99) == "< 1 km")
        #expect(Matchmaker.roundedDistance(km: 1.0) == "1 km")
        #expect(Matchmaker.roundedDistance(km: 1.49) == "1 km")
        #expect(Matchmaker.roundedDistance(km: 1.5) == "2 km")
        #expect(Matchmaker.roundedDistance(km: 2.5) == "3 km")
        #expect(Matchmaker.roundedDistance(km: 24.6) == "25 km")
        #expect(Matchmaker.roundedDistance(km: 343.56) == "344 km")
    }

    @Test func theDistanceScoreHalvesEveryFiveKilometres() {
        let here = card(dog(1))
        let five = card(dog(1, at: north(5)))
        let ten = card(dog(1, at: north(10)))
        #expect(here.distanceScore == 1)
        #expect(abs(five.distanceScore - 0.5) < 1e-9)
        #expect(abs(ten.distanceScore - 0.25) < 1e-9)
        #expect(here.compatibility == five.compatibility)
        #expect(here.score > five.score)
        #expect(five.score > ten.score)
    }

    // MARK: Hard filters

    @Test func theOwnersOwnPetsAndTheDogItselfNeverAppear() {
        #expect(passes(dog(1)))
        #expect(!passes(dog(1, owner: 0))) // the seeker's owner's other dog
        #expect(!passes(dog(1), excluded: [petID(1)])) // listed among the owner's pets
        #expect(!passes(seeker))
        #expect(!passes(dog(0, owner: 5))) // the same pet, whoever is named owner
    }

    @Test func aDogAlreadySwipedNeverAppearsAgain() {
        #expect(!passes(dog(1), excluded: [petID(1)]))
        #expect(passes(dog(2), excluded: [petID(1)]))
    }

    @Test func dogsOfABlockedOwnerNeverAppear() {
        #expect(!passes(dog(1, owner: 7), blocked: [ownerID(7)]))
        #expect(passes(dog(1, owner: 8), blocked: [ownerID(7)]))
    }

    @Test func dogsBeyondTheMaximumDistanceNeverAppear() {
        #expect(passes(dog(1, at: north(24.9)))) // the default is 25 km
        #expect(!passes(dog(1, at: north(25.1))))
        let near = DeckPreferences(maxDistanceKm: 3)
        #expect(passes(dog(1, at: north(2.9)), near))
        #expect(!passes(dog(1, at: north(3.1)), near))
        #expect(!passes(dog(1, at: paris), DeckPreferences(maxDistanceKm: 200)))
    }

    @Test func theAgeRangeIsInclusiveInWholeMonths() {
        let range = DeckPreferences(minAgeMonths: 12, maxAgeMonths: 24)
        #expect(!passes(dog(1, ageMonths: 11), range))
        #expect(passes(dog(1, ageMonths: 12), range))
        #expect(passes(dog(1, ageMonths: 24), range))
        #expect(!passes(dog(1, ageMonths: 25), range))
        // A day short of the twelfth month: still 11 months old.
        var almost = dog(1, ageMonths: 12)
        almost.birthDate = born(monthsAgo: 12).adding(days: 1)
        #expect(!passes(almost, range))
    }

    @Test func onlyTheChosenSexesAppear() {
        let females = DeckPreferences(sexes: [.female])
        #expect(passes(dog(1, sex: .female), females))
        #expect(!passes(dog(1, sex: .male), females))
        #expect(!passes(dog(1, sex: .unknown), females))
        #expect(passes(dog(1, sex: .male), DeckPreferences(sexes: []))) // no sex chosen: any
    }

    @Test func neuteredOnlyLeavesOutIntactDogsAndDogsOfUnknownStatus() {
        let neuteredOnly = DeckPreferences(neuteredOnly: true)
        #expect(passes(dog(1, neutered: true), neuteredOnly))
        #expect(!passes(dog(1, neutered: false), neuteredOnly))
        #expect(!passes(dog(1, neutered: nil), neuteredOnly))
        #expect(passes(dog(1, neutered: false)))
    }

    @Test func onlyTheChosenSizesAppearJudgedByWeightWhenNoClassIsGiven() {
        let small = DeckPreferences(sizes: [.toy, .small])
        #expect(passes(dog(1, size: .small, weightKg: nil), small))
        #expect(!passes(dog(1, size: .medium, weightKg: nil), small))
        #expect(passes(dog(1, size: nil, weightKg: 7), small))
        #expect(!passes(dog(1, size: nil, weightKg: 12), small))
        #expect(!passes(dog(1, size: nil, weightKg: nil), small))
    }

    @Test func theWeightRangeIsInclusiveAndNeedsAKnownWeight() {
        let range = DeckPreferences(minWeightKg: 10, maxWeightKg: 20)
        #expect(!passes(dog(1, weightKg: 9.9), range))
        #expect(passes(dog(1, weightKg: 10), range))
        #expect(passes(dog(1, weightKg: 20), range))
        #expect(!passes(dog(1, weightKg: 20.1), range))
        #expect(!passes(dog(1, weightKg: nil), range))
        #expect(passes(dog(1, size: .giant, weightKg: 45), DeckPreferences(minWeightKg: 30)))
    }

    @Test func aCandidateMustShareOneOfTheChosenPlayStyles() {
        let rough = DeckPreferences(playStyles: [.wrestle, .tug])
        #expect(passes(dog(1, playStyles: [.fetch, .tug]), rough))
        #expect(!passes(dog(1, playStyles: [.chase, .fetch]), rough))
        #expect(!passes(dog(1, playStyles: []), rough))
    }

    @Test func puppyModeSkipsOnlyTheBehaviouralPreferences() {
        let behavioural = DeckPreferences(neuteredOnly: true, playStyles: [.wrestle])
        let intactChaser = dog(1, neutered: false, playStyles: [.chase])
        #expect(!passes(intactChaser, behavioural))
        // Either dog in Puppy Mode: the behavioural fields are locked, so these do not apply.
        var puppy = intactChaser
        puppy.mode = .puppy
        #expect(passes(puppy, behavioural))
        var puppySeeker = seeker
        puppySeeker.mode = .puppy
        #expect(passes(intactChaser, behavioural, seeker: puppySeeker))
        // Age, sex, size, weight and distance still apply to a puppy.
        #expect(!passes(puppy, DeckPreferences(maxAgeMonths: 12)))
        #expect(!passes(puppy, DeckPreferences(sexes: [.male])))
        #expect(!passes(puppy, DeckPreferences(sizes: [.toy])))
        #expect(!passes(puppy, DeckPreferences(maxWeightKg: 10)))
        var farPuppy = puppy
        farPuppy.location = north(30)
        #expect(!passes(farPuppy, behavioural))
        // And so do swipes and blocks.
        #expect(!passes(puppy, behavioural, excluded: [puppy.id]))
        #expect(!passes(puppy, behavioural, blocked: [puppy.ownerID]))
    }

    // MARK: Scores

    @Test func aSharedPlayStyleBeatsUnknownWhichBeatsNone() {
        let shared = compatibility(dog(1, playStyles: [.chase]))
        let unknown = compatibility(dog(1, playStyles: []))
        let none = compatibility(dog(1, playStyles: [.wrestle, .tug]))
        #expect(shared > unknown)
        #expect(unknown > none)
        // All of the seeker's styles beat one of three.
        #expect(compatibility(dog(1, playStyles: [.chase, .fetch])) > compatibility(dog(1, playStyles: [.chase, .wrestle, .tug])))
    }

    @Test func closerEnergyScoresHigher() {
        // The seeker's energy is high.
        let same = compatibility(dog(1, energy: .high))
        let adjacent = compatibility(dog(1, energy: .veryHigh))
        let twoApart = compatibility(dog(1, energy: .low))
        #expect(same > adjacent)
        #expect(adjacent > twoApart)
        #expect(compatibility(dog(1, energy: .moderate)) == adjacent)
        let calm = dog(0, energy: .low)
        #expect(compatibility(dog(1, energy: .high), seeker: calm) > compatibility(dog(1, energy: .veryHigh), seeker: calm))
    }

    @Test func sizesFurtherApartScoreLowerAndAToyWithAGiantScoresZeroWithoutReasons() {
        let toy = dog(0, sex: .male, size: .toy, weightKg: 3)
        let scores = SizeClass.allCases.map { size in compatibility(dog(1, size: size, weightKg: nil), seeker: toy) }
        #expect(scores == scores.sorted(by: >))
        #expect(Set(scores).count == scores.count)
        #expect(scores.last == 0)
        let giant = card(dog(1, at: north(3), size: .giant, weightKg: 60), seeker: toy)
        #expect(giant.compatibility == 0)
        #expect(giant.reasons == ["3 km away"])
        // The other way round, and for puppies, too.
        #expect(compatibility(toy, seeker: dog(1, size: .giant, weightKg: 60)) == 0)
        var puppyToy = toy
        puppyToy.mode = .puppy
        let puppyGiant = card(dog(1, at: north(3), ageMonths: 0, size: nil, weightKg: 50), seeker: puppyToy)
        #expect(puppyGiant.compatibility == 0)
        #expect(puppyGiant.reasons == ["3 km away"])
    }

    @Test func twoIntactMalesPairWorstAndMixedOrNeuteredPairsBest() {
        let intactMale = dog(0, sex: .male, neutered: false)
        let withIntactMale = compatibility(dog(1, sex: .male, neutered: false), seeker: intactMale)
        let withNeuteredMale = compatibility(dog(1, sex: .male, neutered: true), seeker: intactMale)
        let withIntactFemale = compatibility(dog(1, sex: .female, neutered: false), seeker: intactMale)
        let withNeuteredFemale = compatibility(dog(1, sex: .female, neutered: true), seeker: intactMale)
        #expect(withIntactMale < withNeuteredMale)
        #expect(withNeuteredMale < withIntactFemale)
        #expect(withIntactFemale < withNeuteredFemale)
        let neuteredMales = compatibility(dog(1, sex: .male, neutered: true), seeker: dog(0, sex: .male, neutered: true))
        #expect(neuteredMales == withNeuteredFemale)
        // An unknown status counts as either: between the two.
        let unknown = compatibility(dog(1, sex: .male, neutered: nil), seeker: intactMale)
        #expect(withIntactMale < unknown)
        #expect(unknown < withNeuteredMale)
        // Exactly halfway: the average of both cases, whichever side is unknown.
        #expect(abs(unknown - (withIntactMale + withNeuteredMale) / 2) < 1e-9)
        let unknownSeeker = dog(0, sex: .male, neutered: nil)
        let unknownWithIntact = compatibility(dog(1, sex: .male, neutered: false), seeker: unknownSeeker)
        #expect(abs(unknownWithIntact - unknown) < 1e-9)
        // Both unknown, a male and a female: three of the four cases pair best, two intact ones 0.7.
        let bothUnknown = compatibility(dog(1, sex: .female, neutered: nil), seeker: unknownSeeker)
        let bothNeutered = compatibility(dog(1, sex: .female, neutered: true), seeker: dog(0, sex: .male, neutered: true))
        let bothIntact = compatibility(dog(1, sex: .female, neutered: false), seeker: intactMale)
        #expect(abs(bothUnknown - (3 * bothNeutered + bothIntact) / 4) < 1e-9)
    }

    @Test func sharedGardensAndAreaScoreHigher() {
        // The seeker is suburban with a garden.
        let gardenSuburb = compatibility(dog(1, environment: PetEnvironment(area: .suburb, hasGarden: true)))
        let suburb = compatibility(dog(1, environment: PetEnvironment(area: .suburb, hasGarden: false)))
        let city = compatibility(dog(1, environment: PetEnvironment(area: .city)))
        let rural = compatibility(dog(1, environment: PetEnvironment(area: .rural)))
        #expect(gardenSuburb > suburb)
        #expect(suburb > city)
        #expect(city == rural)
        let cityDog = dog(0, environment: PetEnvironment(area: .city))
        #expect(
            compatibility(dog(1, environment: PetEnvironment(area: .suburb)), seeker: cityDog)
                > compatibility(dog(1, environment: PetEnvironment(area: .rural)), seeker: cityDog))
    }

    @Test func theScoreIsSeventyPercentCompatibilityAndThirtyPercentDistance() {
        let typical = card(typicalCandidate)
        // Play 1 × 0.30 + energy one level apart 0.6 × 0.25 + size 1 × 0.20 + pairing 1 × 0.15
        // + environment 1 × 0.10 = 0.90; distance 0.5^(3/5).
        #expect(abs(typical.compatibility - 0.9) < 1e-9)
        #expect(abs(typical.distanceScore - pow(0.5, 0.6)) < 1e-9)
        #expect(abs(typical.rank - 0.827926) < 1e-12)
        #expect(typical.score == 83)
        #expect(abs(typical.distanceKm - 3) < 1e-9)
        let perfect = card(dog(1))
        #expect(perfect.compatibility == 1)
        #expect(perfect.score == 100)
    }

    @Test func aPuppyPairScoresOnlyOnAgeAndSizeAndNeverMentionsLockedFields() {
        let puppySeeker = dog(0, ageMonths: 4, sex: .male, mode: .puppy)
        let puppy = dog(1, at: north(3), ageMonths: 5, mode: .puppy)
        let puppyCard = card(puppy, seeker: puppySeeker)
        #expect(puppyCard.reasons == ["similar age", "similar size", "3 km away"])
        // The locked fields change nothing.
        var different = puppy
        different.playStyles = [.wrestle]
        different.energy = .low
        different.neutered = false
        different.environment = PetEnvironment(area: .city)
        #expect(card(different, seeker: puppySeeker) == puppyCard)
        // Closeness in age counts.
        let grown = dog(1, at: north(3), ageMonths: 30)
        let grownCard = card(grown, seeker: puppySeeker)
        #expect(grownCard.compatibility < puppyCard.compatibility)
        #expect(grownCard.reasons == ["similar size", "3 km away"])
        // A social seeker looking at a puppy follows the same rules.
        #expect(card(puppy).reasons == ["similar size", "3 km away"])
    }

    // MARK: Reasons

    @Test func aTypicalPairReadsAsExpected() {
        let typical = card(typicalCandidate)
        #expect(typical.reasons == ["both love chase games", "similar energy", "similar size", "3 km away"])
        #expect(typical.roundedDistance == "3 km")
        #expect(typical.petID == petID(1))
    }

    @Test func reasonsAreAtMostFourMostImportantFirstAndEndWithTheDistance() {
        let twin = card(dog(1, at: north(0.4), playStyles: [.fetch]))
        #expect(twin.reasons == ["both love fetch", "similar energy", "similar size", "less than 1 km away"])
        #expect(twin.roundedDistance == "< 1 km")
        let stranger = dog(
            1, at: north(12), neutered: false, size: .giant, weightKg: nil, playStyles: [.wrestle],
            energy: .low, environment: PetEnvironment(area: .city))
        #expect(card(stranger).reasons == ["12 km away"])
        // Without play styles or energy, the lesser reasons come forward.
        let quiet = dog(1, at: north(2), playStyles: [], energy: nil)
        #expect(card(quiet).reasons == ["similar size", "both neutered", "both have a garden", "2 km away"])
        let plainSuburban = dog(
            1, at: north(2), neutered: false, playStyles: [], energy: nil,
            environment: PetEnvironment(area: .suburb, hasGarden: false))
        #expect(card(plainSuburban).reasons == ["similar size", "both suburban", "2 km away"])
    }

    /// Each reason a card may give, on either side of the line where it stops being true.
    @Test func eachReasonIsTrueOnlyUpToItsBoundary() {
        func says(_ reason: String, _ candidate: DeckDog, seeker: DeckDog? = nil) -> Bool {
            card(candidate, seeker: seeker).reasons.contains(reason)
        }
        // similar size: with both weights, the heavier at most 1.5 times the lighter (18 kg
        // beside 27 kg is, beside 27.1 kg is not); a 7 kg dog is not similar to a 24 kg one
        // though "small" and "medium" are neighbouring classes
        #expect(says("similar size", dog(1, size: .large, weightKg: 27)))
        #expect(!says("similar size", dog(1, size: .large, weightKg: 27.1)))
        #expect(says("similar size", dog(1, size: .small, weightKg: 12)))
        #expect(!says("similar size", dog(1, size: .small, weightKg: 11.9)))
        #expect(!says("similar size", dog(1, size: .small, weightKg: 7), seeker: dog(0, size: .medium, weightKg: 24)))
        // without a weight on either side, only the same size class is similar
        #expect(says("similar size", dog(1, size: .medium, weightKg: nil)))
        #expect(!says("similar size", dog(1, size: .large, weightKg: nil)))
        #expect(!says("similar size", dog(1, size: nil, weightKg: nil)))
        // similar energy: the same level or the next one (high beside very high is; beside
        // moderate is; beside low is not)
        #expect(says("similar energy", dog(1, energy: .veryHigh)))
        #expect(says("similar energy", dog(1, energy: .moderate)))
        #expect(!says("similar energy", dog(1, energy: .low)))
        #expect(!says("similar energy", dog(1, energy: nil)))
        // similar age (puppies): up to three months apart
        let puppy = dog(0, ageMonths: 4, sex: .male, mode: .puppy)
        #expect(says("similar age", dog(1, ageMonths: 7, mode: .puppy), seeker: puppy))
        #expect(!says("similar age", dog(1, ageMonths: 8, mode: .puppy), seeker: puppy))
        // both neutered: both known to be (a card names three reasons at most, so the lesser
        // ones are tried without play styles and energy)
        #expect(says("both neutered", dog(1, neutered: true, playStyles: [], energy: nil)))
        #expect(!says("both neutered", dog(1, neutered: nil, playStyles: [], energy: nil)))
        // both have a garden, and the same kind of area
        #expect(says("both have a garden", dog(1, playStyles: [], energy: nil)))
        #expect(!says("both have a garden", dog(1, playStyles: [], energy: nil, environment: PetEnvironment(area: .suburb, hasGarden: false))))
        let noGarden = { (area: HomeArea) in PetEnvironment(area: area, hasGarden: false) }
        #expect(says("both suburban", dog(1, neutered: false, playStyles: [], energy: nil, environment: noGarden(.suburb))))
        #expect(!says("both suburban", dog(1, neutered: false, playStyles: [], energy: nil, environment: noGarden(.city))))
        // a shared play style, named
        #expect(says("both love fetch", dog(1, playStyles: [.fetch])))
        #expect(!says("both love fetch", dog(1, playStyles: [.tug])))
    }

    // MARK: Order and paging

    @Test func equalDogsAtTheSamePlaceSortByID() {
        let twins = [dog(9, at: north(2)), dog(3, at: north(2)), dog(5, at: north(2))]
        let forward = deck(twins)
        #expect(forward.map(\.petID) == [petID(3), petID(5), petID(9)])
        #expect(deck(Array(twins.reversed())) == forward)
        #expect(Set(forward.map(\.rank)).count == 1)
        // A higher score comes first whatever its id.
        #expect(deck(twins + [dog(20, at: north(1))]).first?.petID == petID(20))
    }

    @Test func aDogListedTwiceAppearsOnceAndALimitOfZeroGivesNothing() {
        let twice = [dog(1, at: north(2)), dog(1, at: north(2)), dog(2, at: north(4))]
        #expect(deck(twice).map(\.petID) == [petID(1), petID(2)])
        #expect(deck(twice, limit: 0).isEmpty)
        #expect(deck(twice, limit: 1).map(\.petID) == [petID(1)])
        // Again after leaving a full page, and again while on it, in any order.
        let again = [
            dog(2, at: north(4)), dog(1, at: north(2)), dog(2, at: north(4)), dog(3, at: north(6)),
            dog(1, at: north(2)), dog(3, at: north(6)),
        ]
        #expect(deck(again, limit: 1).map(\.petID) == [petID(1)])
        #expect(deck(again, limit: 2).map(\.petID) == [petID(1), petID(2)])
        #expect(deck(again).map(\.petID) == [petID(1), petID(2), petID(3)])
    }

    @Test func positionsOrderByScoreThenIDAndSurviveJSON() throws {
        let high = DeckPosition(score: 0.8, petID: petID(9))
        let lowFirst = DeckPosition(score: 0.5, petID: petID(1))
        let lowSecond = DeckPosition(score: 0.5, petID: petID(2))
        #expect(high < lowFirst)
        #expect(lowFirst < lowSecond)
        #expect(!(lowSecond < lowFirst))
        #expect(!(lowFirst < lowFirst))
        let a = Pet.ID(UUID(uuidString: "0F000000-0000-0000-0000-000000000000")!)
        let b = Pet.ID(UUID(uuidString: "A0000000-0000-0000-0000-000000000000")!)
        #expect(DeckPosition(score: 0.5, petID: a) < DeckPosition(score: 0.5, petID: b))
        let cursor = matchmaker.position(of: card(typicalCandidate))
        let decoded = try JSONDecoder().decode(DeckPosition.self, from: JSONEncoder().encode(cursor))
        #expect(decoded == cursor)
    }

    @Test(arguments: [1, 7, 20])
    func walkingThePagesVisitsEveryPassingDogOnceInDeckOrder(pageSize: Int) {
        var random = SeededRandom(seed: 0xD0C5)
        let candidates = pagingCandidates(&random)
        #expect(candidates.count == 2_000)
        let preferences = DeckPreferences(maxDistanceKm: 15, maxAgeMonths: 120)
        let whole = deck(candidates, preferences, limit: Int.max)
        let expected = candidates.filter { failedFilters(seeker, $0, preferences, excluded: [], blocked: []).isEmpty }
        #expect(Set(whole.map(\.petID)) == Set(expected.map(\.id)))
        #expect(whole.count == expected.count)
        #expect(whole.count > 100)
        let positions = whole.map { matchmaker.position(of: $0) }
        let neighbours = Array(zip(positions, positions.dropFirst()))
        #expect(neighbours.allSatisfy { pair in pair.0 < pair.1 })
        #expect(neighbours.contains(where: { pair in pair.0.score == pair.1.score }), "the set should hold ties")

        var walked: [DeckCard] = []
        var after: DeckPosition?
        var pages = 0
        while pages <= whole.count {
            let page = deck(candidates, preferences, after: after, limit: pageSize)
            #expect(page.count <= pageSize)
            guard let last = page.last else { break }
            walked += page
            after = matchmaker.position(of: last)
            pages += 1
        }
        #expect(walked.map(\.petID) == whole.map(\.petID))
        #expect(walked == whole)
        #expect(Set(walked.map(\.petID)).count == walked.count)
    }

    // MARK: Property: the deck is exactly the dogs passing every filter

    @Test func everyCardPassesEveryFilterAndEveryPassingDogGetsACard() {
        var random = SeededRandom(seed: 0x5EED_DEC4)
        let origins = [
            home,
            GeoPoint(latitude: 69.6492, longitude: 18.9553), // Tromsø
            GeoPoint(latitude: -41.2865, longitude: 179.95), // at the antimeridian
            GeoPoint(latitude: 0.5, longitude: -179.99),
        ]
        let puppyReasons: Set<String> = ["similar age", "similar size"]
        var triples = 0
        var passing = 0
        var puppyExemptions = 0
        var excludedBy: [String: Int] = [:]
        var problems: [String] = []
        for round in 0..<150 {
            let origin = origins[round % origins.count]
            var owners: [User.ID] = []
            for _ in 0..<12 { owners.append(User.ID(randomUUID(&random))) }
            let seeker = randomDog(&random, near: origin, withinKm: 5, owners: owners)
            var candidates: [DeckDog] = []
            for _ in 0..<25 { candidates.append(randomDog(&random, near: origin, withinKm: 50, owners: owners)) }
            if round % 10 == 0 { candidates.append(seeker) }
            var excluded = Set<Pet.ID>()
            for candidate in candidates {
                if chance(0.1, &random) { excluded.insert(candidate.id) }
            }
            var blocked = Set<User.ID>()
            for owner in owners {
                if chance(0.1, &random) { blocked.insert(owner) }
            }
            let preferences = randomPreferences(&random)

            let cards = matchmaker.deck(
                seeker: seeker, candidates: candidates, preferences: preferences,
                excludedPets: excluded, blockedOwners: blocked, today: today,
                after: nil, limit: Int.max)
            let byID = Dictionary(uniqueKeysWithValues: candidates.map { ($0.id, $0) })
            for card in cards {
                guard let candidate = byID[card.petID] else {
                    problems.append("round \(round): a card for a dog not among the candidates")
                    continue
                }
                let failed = failedFilters(seeker, candidate, preferences, excluded: excluded, blocked: blocked)
                if !failed.isEmpty { problems.append("round \(round): \(card.petID) shown but fails \(failed)") }
                if card != matchmaker.card(seeker: seeker, candidate: candidate, today: today) {
                    problems.append("round \(round): the deck's card for \(card.petID) differs from card(seeker:candidate:)")
                }
                let combined = 0.7 * card.compatibility + 0.3 * card.distanceScore
                let scoreInRange = (0...100).contains(card.score)
                let partsInRange = (0.0...1.0).contains(card.compatibility) && (0.0...1.0).contains(card.distanceScore)
                let scoreOff = abs(Double(card.score) - combined * 100)
                let rankOff = abs(card.rank - combined)
                if !scoreInRange || !partsInRange || !card.rank.isFinite || scoreOff > 0.500_001 || rankOff > 5.1e-7 {
                    problems.append("round \(round): \(card) has scores out of range or inconsistent")
                }
                let distanceReason = card.roundedDistance == "< 1 km" ? "less than 1 km away" : card.roundedDistance + " away"
                if card.reasons.isEmpty || card.reasons.count > 4 || card.reasons.last != distanceReason {
                    problems.append("round \(round): \(card.reasons) for \(card.roundedDistance)")
                }
                if abs(card.distanceKm - chordKm(seeker.location, candidate.location)) > 1e-6 {
                    problems.append("round \(round): \(card.distanceKm) km is not the distance")
                }
                if seeker.mode == .puppy || candidate.mode == .puppy,
                    !card.reasons.dropLast().allSatisfy({ puppyReasons.contains($0) })
                {
                    problems.append("round \(round): a puppy pair gives \(card.reasons)")
                }
            }
            let shown = Set(cards.map(\.petID))
            for candidate in candidates {
                triples += 1
                let failed = failedFilters(seeker, candidate, preferences, excluded: excluded, blocked: blocked)
                for name in failed { excludedBy[name, default: 0] += 1 }
                guard failed.isEmpty else { continue }
                passing += 1
                if !shown.contains(candidate.id) { problems.append("round \(round): \(candidate.id) passes but is missing") }
                let puppyPair = seeker.mode == .puppy || candidate.mode == .puppy
                let styles = preferences.playStyles ?? []
                let behaviourWouldExclude =
                    (preferences.neuteredOnly && candidate.neutered != true)
                    || (!styles.isEmpty && styles.isDisjoint(with: candidate.playStyles))
                if puppyPair, behaviourWouldExclude { puppyExemptions += 1 }
            }
            if cards.count != shown.count { problems.append("round \(round): a dog shown twice") }
        }
        #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5))")
        #expect(triples >= 3_000)
        #expect(passing >= 150)
        #expect(puppyExemptions > 0, "the generator never exercised the Puppy Mode exemption")
        for name in [
            "self", "own pet", "swiped", "blocked", "distance", "age", "sex", "neutered", "size", "weight",
            "play styles",
        ] {
            #expect(excludedBy[name, default: 0] > 0, "the generator never exercised the \(name) filter")
        }
    }

    /// The hard filters a candidate fails, checked here from scratch rather than through the
    /// matchmaker: empty when it must be in the deck.
    func failedFilters(
        _ seeker: DeckDog, _ candidate: DeckDog, _ preferences: DeckPreferences,
        excluded: Set<Pet.ID>, blocked: Set<User.ID>
    ) -> [String] {
        var failed: [String] = []
        if candidate.id == seeker.id { failed.append("self") }
        if candidate.ownerID == seeker.ownerID { failed.append("own pet") }
        if excluded.contains(candidate.id) { failed.append("swiped") }
        if blocked.contains(candidate.ownerID) { failed.append("blocked") }
        if chordKm(seeker.location, candidate.location) > preferences.maxDistanceKm { failed.append("distance") }
        let age = monthsOld(candidate.birthDate)
        if let youngest = preferences.minAgeMonths, age < youngest { failed.append("age") }
        if let oldest = preferences.maxAgeMonths, age > oldest { failed.append("age") }
        if let sexes = preferences.sexes, !sexes.isEmpty, !sexes.contains(candidate.sex) { failed.append("sex") }
        if let sizes = preferences.sizes, !sizes.isEmpty {
            var size = candidate.sizeClass
            if size == nil, let weight = candidate.weightKg { size = SizeClass(weightKg: weight) }
            if size == nil || !sizes.contains(size!) { failed.append("size") }
        }
        if let lightest = preferences.minWeightKg {
            if candidate.weightKg == nil || candidate.weightKg! < lightest { failed.append("weight") }
        }
        if let heaviest = preferences.maxWeightKg {
            if candidate.weightKg == nil || candidate.weightKg! > heaviest { failed.append("weight") }
        }
        let puppyPair = seeker.mode == .puppy || candidate.mode == .puppy
        if !puppyPair {
            if preferences.neuteredOnly, candidate.neutered != true { failed.append("neutered") }
            if let styles = preferences.playStyles, !styles.isEmpty, styles.isDisjoint(with: candidate.playStyles) {
                failed.append("play styles")
            }
        }
        return failed
    }

    /// Whole months old today, counted afresh: a month completes on the same day of the month.
    func monthsOld(_ birth: LocalDate) -> Int {
        var months = (today.year - birth.year) * 12 + today.month - birth.month
        if today.day < birth.day { months -= 1 }
        return Swift.max(0, months)
    }

    /// The great-circle distance from the chord between the two points as unit vectors: another
    /// formula than the matchmaker's Haversine, equal to it up to rounding.
    func chordKm(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let u = unitVector(a)
        let v = unitVector(b)
        let dx = u.x - v.x
        let dy = u.y - v.y
        let dz = u.z - v.z
        let chord = (dx * dx + dy * dy + dz * dz).squareRoot()
        return 2 * Matchmaker.earthRadiusKm * asin(Swift.min(1, chord / 2))
    }

    func unitVector(_ point: GeoPoint) -> (x: Double, y: Double, z: Double) {
        let latitude = point.latitude * .pi / 180
        let longitude = point.longitude * .pi / 180
        return (cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }

    // MARK: Preferences

    @Test func validPreferencesPassAndEmptySetsMeanAny() throws {
        let defaults = try DeckPreferences().validated()
        #expect(defaults == DeckPreferences())
        #expect(defaults.maxDistanceKm == 25)
        #expect(defaults.neuteredOnly == false)
        let empty = try DeckPreferences(sexes: [], sizes: [], playStyles: []).validated()
        #expect(empty.sexes == nil)
        #expect(empty.sizes == nil)
        #expect(empty.playStyles == nil)
        let edges = DeckPreferences(
            maxDistanceKm: 200, minAgeMonths: 0, maxAgeMonths: 480, minWeightKg: 0.1,
            maxWeightKg: 150)
        #expect(try edges.validated() == edges)
        let sameAge = DeckPreferences(maxDistanceKm: 1, minAgeMonths: 6, maxAgeMonths: 6)
        #expect(try sameAge.validated() == sameAge)
    }

    @Test func badPreferencesAreRefusedNamingTheField() {
        let cases: [(preferences: DeckPreferences, field: String)] = [
            (DeckPreferences(maxDistanceKm: 0.5), "maxDistanceKm"),
            (DeckPreferences(maxDistanceKm: 200.5), "maxDistanceKm"),
            (DeckPreferences(maxDistanceKm: .nan), "maxDistanceKm"),
            (DeckPreferences(maxDistanceKm: .infinity), "maxDistanceKm"),
            (DeckPreferences(minAgeMonths: -1), "minAgeMonths"),
            (DeckPreferences(maxAgeMonths: 481), "maxAgeMonths"),
            (DeckPreferences(minAgeMonths: 24, maxAgeMonths: 12), "maxAgeMonths"),
            (DeckPreferences(minWeightKg: 0.05), "minWeightKg"),
            (DeckPreferences(maxWeightKg: 151), "maxWeightKg"),
            (DeckPreferences(maxWeightKg: .nan), "maxWeightKg"),
            (DeckPreferences(minWeightKg: 30, maxWeightKg: 10), "maxWeightKg"),
        ]
        for entry in cases {
            let refused = problem(entry.preferences)
            #expect(refused?.status == 422, "\(entry.field)")
            #expect(refused?.code == .validationFailed, "\(entry.field)")
            #expect(refused?.errors.map(\.field) == [entry.field], "\(entry.preferences)")
        }
        let many = problem(DeckPreferences(maxDistanceKm: 0, minAgeMonths: 500, minWeightKg: 200))
        #expect(many?.errors.map(\.field) == ["maxDistanceKm", "minAgeMonths", "minWeightKg"])
    }

    @Test func preferencesDecodeMissingKeysAsDefaultsAndRoundTrip() throws {
        let empty = try JSONDecoder().decode(DeckPreferences.self, from: Data("{}".utf8))
        #expect(empty == DeckPreferences())
        let partial = try JSONDecoder().decode(
            DeckPreferences.self,
            from: Data(#"{"maxDistanceKm": 5, "sexes": ["male"]}"#.utf8))
        #expect(partial == DeckPreferences(maxDistanceKm: 5, sexes: [.male]))
        let full = DeckPreferences(
            maxDistanceKm: 10, minAgeMonths: 6, maxAgeMonths: 60, sexes: [.female],
            neuteredOnly: true, sizes: [.small, .medium], minWeightKg: 5, maxWeightKg: 25,
            playStyles: [.chase, .tug])
        let decoded = try JSONDecoder().decode(DeckPreferences.self, from: JSONEncoder().encode(full))
        #expect(decoded == full)
    }

    // MARK: Bounding box

    @Test func theBoundingBoxFitsTheCircleAndWidensAtThePolesAndTheAntimeridian() {
        let lyon = Matchmaker.boundingBox(around: home, radiusKm: 25)
        let degrees = 25 / Matchmaker.earthRadiusKm * 180 / .pi // about 0.2248°
        #expect(abs(lyon.latitude.lowerBound - (home.latitude - degrees)) < 1e-6)
        #expect(abs(lyon.latitude.upperBound - (home.latitude + degrees)) < 1e-6)
        #expect(abs(lyon.longitude.lowerBound - (home.longitude - 0.32228)) < 1e-4)
        #expect(abs(lyon.longitude.upperBound - (home.longitude + 0.32228)) < 1e-4)
        #expect(!lyon.latitude.contains(paris.latitude))
        let pole = Matchmaker.boundingBox(around: GeoPoint(latitude: 89.9, longitude: 30), radiusKm: 50)
        #expect(pole.latitude.upperBound == 90)
        #expect(pole.longitude == -180.0...180.0)
        let fiji = Matchmaker.boundingBox(around: GeoPoint(latitude: -17.7, longitude: 179.9), radiusKm: 50)
        #expect(fiji.longitude == -180.0...180.0)
        #expect(fiji.latitude.lowerBound > -18.2)
        #expect(fiji.latitude.upperBound < -17.2)
        let nowhere = Matchmaker.boundingBox(around: GeoPoint(latitude: .nan, longitude: 0), radiusKm: 5)
        #expect(nowhere.latitude == -90.0...90.0)
        #expect(nowhere.longitude == -180.0...180.0)
    }

    @Test func theBoundingBoxHoldsEveryPointWithinTheRadius() {
        var random = SeededRandom(seed: 0xB0C5)
        var checked = 0
        var misses: [String] = []
        for round in 0..<3_000 {
            var latitude = Double.random(in: -90...90, using: &random)
            var longitude = Double.random(in: -180...180, using: &random)
            if round % 4 == 1 || round % 4 == 3 {
                let hemisphere: Double = chance(0.5, &random) ? 1 : -1
                latitude = hemisphere * Double.random(in: 80...90, using: &random)
            }
            if round % 4 >= 2 {
                let side: Double = chance(0.5, &random) ? 1 : -1
                longitude = side * Double.random(in: 170...180, using: &random)
            }
            let center = GeoPoint(latitude: latitude, longitude: longitude)
            var radius = Double.random(in: 0.1...500, using: &random)
            if chance(0.2, &random) { radius = Double.random(in: 500...3_000, using: &random) }
            let box = Matchmaker.boundingBox(around: center, radiusKm: radius)
            var points: [GeoPoint] = []
            for sample in 0..<6 {
                let bearing = Double.random(in: 0..<360, using: &random)
                let fraction = sample == 0 ? 1 : Double.random(in: 0...1, using: &random)
                points.append(destination(center, km: radius * fraction, bearingDegrees: bearing))
            }
            if let widest = easternmostPoint(center, radiusKm: radius) { points.append(widest) }
            for point in points {
                guard Matchmaker.haversineKm(center, point) <= radius else { continue }
                checked += 1
                if !box.latitude.contains(point.latitude) || !box.longitude.contains(point.longitude) {
                    misses.append("\(center) radius \(radius) km: \(point) outside \(box)")
                }
            }
        }
        #expect(misses.isEmpty, "\(misses.count) misses, first: \(misses.prefix(3))")
        #expect(checked > 12_000)
    }

    /// Where the circle reaches farthest east (its tangent with a meridian), when it does not
    /// reach a pole: the hardest point for the box's longitude range.
    func easternmostPoint(_ center: GeoPoint, radiusKm: Double) -> GeoPoint? {
        let angle = radiusKm / Matchmaker.earthRadiusKm
        let latitude = center.latitude * .pi / 180
        let sinTangentLatitude = sin(latitude) / cos(angle)
        let sinHalfWidth = sin(angle) / cos(latitude)
        guard abs(sinTangentLatitude) <= 1, sinHalfWidth < 1, angle < .pi / 2 else { return nil }
        return GeoPoint(
            latitude: asin(sinTangentLatitude) * 180 / .pi,
            longitude: normalizedLongitude(center.longitude + asin(sinHalfWidth) * 180 / .pi))
    }

    /// 2,000 dogs up to 45 km from home; every fifth is a copy of the one before under a new
    /// id and owner, so the deck has exact ties to break across page boundaries.
    private func pagingCandidates(_ random: inout SeededRandom) -> [DeckDog] {
        var dogs: [DeckDog] = []
        for index in 0..<2_000 {
            if index % 5 == 4, var copy = dogs.last {
                copy.id = Pet.ID(randomUUID(&random))
                copy.ownerID = User.ID(randomUUID(&random))
                dogs.append(copy)
            } else {
                dogs.append(randomDog(&random, near: home, withinKm: 45, owners: []))
            }
        }
        return dogs
    }
}
