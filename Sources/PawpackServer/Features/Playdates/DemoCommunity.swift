import Fluent
import Foundation
import PawpackCore

/// A deterministic demo community: owners with one dog each, clustered around a few cities,
/// with realistic ages, sizes and modes — so a newcomer sees a full deck at once, and so the
/// deck can be measured on a community of any size. The same seed gives the same community.
package struct DemoCommunity: Sendable {
    /// The ready-made member a newcomer logs in as: their dog's deck is full.
    package static let demoEmail = "demo@pawpack.local"
    package static let demoPassword = "walkies-in-the-park"

    struct City {
        var name: String
        var center: GeoPoint
        var spreadKm: Double
    }

    static let cities = [
        City(name: "Lyon", center: GeoPoint(latitude: 45.7640, longitude: 4.8357), spreadKm: 6),
        City(name: "Paris", center: GeoPoint(latitude: 48.8566, longitude: 2.3522), spreadKm: 9),
        City(name: "Berlin", center: GeoPoint(latitude: 52.5200, longitude: 13.4050), spreadKm: 9),
        City(name: "Lisbon", center: GeoPoint(latitude: 38.7223, longitude: -9.1393), spreadKm: 6),
        City(name: "Manchester", center: GeoPoint(latitude: 53.4808, longitude: -2.2426), spreadKm: 7),
    ]

    static let names = ["Biscuit", "Rex", "Luna", "Milo", "Bella", "Max", "Nala", "Oscar", "Daisy", "Buddy",
                        "Pepper", "Rosie", "Teddy", "Maple", "Otto", "Hazel", "Loki", "Willow", "Ziggy", "Poppy"]
    static let breeds = ["Beagle", "Labrador mix", "Border Collie", "Golden Retriever", "Jack Russell", "Mixed breed",
                         "French Bulldog", "Whippet", "Staffie cross", "Poodle", "Dachshund", "German Shepherd"]

    package var dogs: Int
    package var seed: UInt64

    package init(dogs: Int, seed: UInt64) {
        self.dogs = dogs
        self.seed = seed
    }

    /// Inserts the community (and the demo member, living in Lyon with a dog of its own) in
    /// batches, reporting progress. `passwordHash` is one bcrypt hash shared by every demo
    /// member: hashing each would take minutes for nothing.
    func insert(on db: any Database, deckIndex: DeckIndex, passwordHash: String, now: Date,
                progress: @Sendable (Int) -> Void = { _ in }) async throws {
        var random = SeededRandom(seed: seed)
        let today = LocalDate(utc: now)
        let batchSize = 500
        var index = 0
        while index < dogs {
            let count = min(batchSize, dogs - index)
            var users: [UserRecord] = []
            var pets: [PetRecord] = []
            var doses: [VaccinationRecord] = []
            for offset in 0..<count {
                let number = index + offset
                let (user, pet) = member(number: number, random: &random, passwordHash: passwordHash, today: today, now: now)
                users.append(user)
                pets.append(pet)
                if pet.socialSince != nil { doses += try Self.vaccinations(for: pet, today: today, now: now) }
            }
            let rows = try zip(users, pets).compactMap { user, pet in try DeckIndex.row(for: pet, location: user.location) }
            let (newUsers, newPets, newDoses) = (users, pets, doses)
            try await db.transaction { tx in
                try await newUsers.create(on: tx)
                try await newPets.create(on: tx)
                try await newDoses.create(on: tx)
                try await deckIndex.insert(rows, on: tx)
            }
            await deckIndex.committed(rows.map(\.petID), on: db)
            index += count
            progress(index)
        }
        if try await UserRecord.query(on: db).filter(\.$email == Self.demoEmail).first() == nil {
            var demoRandom = SeededRandom(seed: seed ^ 0xD3_40)
            let (user, pet) = member(number: -1, random: &demoRandom, passwordHash: passwordHash, today: today, now: now)
            user.email = Self.demoEmail
            user.username = "demo"
            user.displayName = "Demo Walker"
            user.place(at: Self.cities[0].center) { LocationBlur.Offset(north: demoRandom.unit(), east: demoRandom.unit()) }
            pet.name = "Pixel"
            let rows = try DeckIndex.row(for: pet, location: user.location).map { [$0] } ?? []
            try await db.transaction { tx in
                try await user.create(on: tx)
                try await pet.create(on: tx)
                if pet.socialSince != nil {
                    try await Self.vaccinations(for: pet, today: today, now: now).create(on: tx)
                }
                try await deckIndex.insert(rows, on: tx)
            }
            await deckIndex.committed(rows.map(\.petID), on: db)
        }
    }

    /// The records that put a dog in Social Mode by the rules: the puppy series (10 and 17
    /// weeks), and for an adult a booster 100 days ago.
    static func vaccinations(for pet: PetRecord, today: LocalDate, now: Date) throws -> [VaccinationRecord] {
        let birth = pet.birthLocalDate
        let petID = try pet.requireID()
        var dates = [birth.adding(days: 70), birth.adding(days: 119)]
        if birth.days(until: today) >= 52 * 7 { dates.append(today.adding(days: -100)) }
        return dates.filter { $0 <= today }.map { date in
            let record = VaccinationRecord()
            record.$pet.id = petID
            record.vaccine = VaccineKind.dhpp.rawValue
            record.givenOn = date.description
            record.createdAt = now
            return record
        }
    }

    /// One owner with one dog; `number` makes the username unique.
    private func member(number: Int, random: inout SeededRandom, passwordHash: String, today: LocalDate,
                        now: Date) -> (UserRecord, PetRecord) {
        let city = Self.cities[number >= 0 ? number % Self.cities.count : 0]
        // A rough normal spread: the mean of three uniform draws.
        let north = (random.unit() + random.unit() + random.unit() - 1.5) * 2 * city.spreadKm
        let east = (random.unit() + random.unit() + random.unit() - 1.5) * 2 * city.spreadKm
        let latitude = city.center.latitude + north / 111.32
        let longitude = city.center.longitude + east / (111.32 * cos(city.center.latitude * .pi / 180))
        let tag = number >= 0 ? "\(seed)_\(number)" : "demo"
        let signUp = ValidSignUp(email: "member\(tag)@demo.pawpack.local", password: "",
                                 username: "m\(tag)", displayName: "Member \(number >= 0 ? number + 1 : 0)",
                                 dateOfBirth: LocalDate(year: 1970 + Int(random.next() % 35), month: 1 + Int(random.next() % 12), day: 1 + Int(random.next() % 28))!,
                                 city: city.name)
        let userID = User.ID(random.uuid())
        let user = UserRecord(id: userID, signUp: signUp, passwordHash: passwordHash, now: now)
        user.emailVerifiedAt = now
        // The grid from a generator of its own, so the rest of the community stays as it was.
        var grid = SeededRandom(seed: seed &* 0x9E37_79B9 ^ UInt64(bitPattern: Int64(number)))
        user.place(at: GeoPoint(latitude: latitude, longitude: longitude)) {
            LocationBlur.Offset(north: grid.unit(), east: grid.unit())
        }

        let ageMonths = 2 + Int(random.next() % 150)
        let weight = [4.0, 8.0, 15.0, 28.0, 48.0][Int(random.next() % 5)] * (0.8 + random.unit() * 0.4)
        let styles = PlayStyle.allCases.shuffled(using: &random).prefix(1 + Int(random.next() % 2))
        // Social dogs are old enough for the full puppy series plus the buffer (about 5 months).
        let social = ageMonths >= 6 && random.unit() < 0.8
        let profile = PetProfile(
            id: Pet.ID(random.uuid()), ownerID: userID, name: Self.names[Int(random.next() % UInt64(Self.names.count))],
            species: .dog, breed: Self.breeds[Int(random.next() % UInt64(Self.breeds.count))],
            sex: random.next() % 2 == 0 ? .female : .male, neutered: social ? random.unit() < 0.6 : nil,
            birthDate: today.monthsEarlier(ageMonths), birthDateIsEstimate: false, weightKg: (weight * 10).rounded() / 10,
            sizeClass: nil, playStyles: social ? Array(styles) : [], energy: EnergyLevel.allCases[Int(random.next() % 4)],
            environment: social ? PetEnvironment(area: HomeArea.allCases[Int(random.next() % 3)], hasGarden: random.unit() < 0.5) : nil,
            personality: [], notes: nil)
        let pet = PetRecord(profile, now: now)
        pet.socialSince = social ? now : nil
        return (user, pet)
    }
}

extension PawpackServices {
    /// Seeds the demo community. `onlyIfEmpty` leaves a database with members untouched.
    package func seedDemo(dogs: Int, seed: UInt64, on db: any Database, onlyIfEmpty: Bool,
                         progress: @Sendable (Int) -> Void = { _ in }) async throws -> Bool {
        if onlyIfEmpty, try await UserRecord.query(on: db).count() > 0 { return false }
        let hash = try await hasher.hash(DemoCommunity.demoPassword)
        try await DemoCommunity(dogs: dogs, seed: seed)
            .insert(on: db, deckIndex: pets.deckIndex, passwordHash: hash, now: dependencies.clock.now(), progress: progress)
        return true
    }
}
