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
        /// Its members' own time zone.
        var timeZone: String
    }

    static let cities = [
        City(name: "Lyon", center: GeoPoint(latitude: 45.7640, longitude: 4.8357), spreadKm: 6, timeZone: "Europe/Paris"),
        City(name: "Paris", center: GeoPoint(latitude: 48.8566, longitude: 2.3522), spreadKm: 9, timeZone: "Europe/Paris"),
        City(name: "Berlin", center: GeoPoint(latitude: 52.5200, longitude: 13.4050), spreadKm: 9, timeZone: "Europe/Berlin"),
        City(name: "Lisbon", center: GeoPoint(latitude: 38.7223, longitude: -9.1393), spreadKm: 6, timeZone: "Europe/Lisbon"),
        City(name: "Manchester", center: GeoPoint(latitude: 53.4808, longitude: -2.2426), spreadKm: 7, timeZone: "Europe/London"),
    ]

    static let names = [
        "Biscuit", "Rex", "Luna", "Milo", "Bella", "Max", "Nala", "Oscar", "Daisy", "Buddy",
        "Pepper", "Rosie", "Teddy", "Maple", "Otto", "Hazel", "Loki", "Willow", "Ziggy", "Poppy",
        "Juno", "Scout", "Mabel", "Finn", "Olive", "Bruno", "Cleo", "Archie", "Lola", "Ruby",
    ]
    static let ownerFirstNames = [
        "Camille", "Lucas", "Emma", "Hugo", "Léa", "Jonas", "Sofia", "Tom", "Inês", "Noah",
        "Amira", "Ben", "Chloé", "David", "Elif", "Felix", "Grace", "Hannah", "Ivan", "Julia",
        "Karim", "Laura", "Mateo", "Nina", "Omar", "Priya", "Rafael", "Sara", "Theo", "Zoe",
    ]
    static let ownerInitials = Array("ABCDEFGHJKLMNOPRSTVW")

    /// A breed as the demo draws and weighs it: believable sizes, looks and energy.
    struct Breed {
        var name: String
        var weightKg: ClosedRange<Double>
        var ears: DogPortrait.Ears
        var muzzle: Double
        /// Coat and markings pairs, as RGB hex.
        var coats: [(Int, Int)]
        var energy: [EnergyLevel]
        var styles: [PlayStyle]
    }

    static let breedBook: [Breed] = [
        Breed(
            name: "Beagle", weightKg: 9...11, ears: .floppy, muzzle: 0.6, coats: [(0xB87333, 0xF5EBDD), (0x8B5A2B, 0xFFFFFF)],
            energy: [.high, .veryHigh], styles: [.chase, .fetch]),
        Breed(
            name: "Labrador Retriever", weightKg: 27...34, ears: .floppy, muzzle: 0.6,
            coats: [(0xE3C16F, 0xF3DFA6), (0x2B2523, 0x4A403C), (0x6B4226, 0x8A5A3A)],
            energy: [.high, .moderate], styles: [.fetch, .chase, .tug]),
        Breed(
            name: "Border Collie", weightKg: 14...20, ears: .folded, muzzle: 0.7, coats: [(0x1F1B1A, 0xFFFFFF), (0x7B4B2A, 0xFFFFFF)],
            energy: [.veryHigh], styles: [.chase, .fetch]),
        Breed(
            name: "Golden Retriever", weightKg: 25...32, ears: .floppy, muzzle: 0.65, coats: [(0xD9A441, 0xEFD08A), (0xC98B2E, 0xE8C37A)],
            energy: [.high, .moderate], styles: [.fetch, .gentle, .tug]),
        Breed(
            name: "Jack Russell Terrier", weightKg: 6...8, ears: .folded, muzzle: 0.55, coats: [(0xFFFFFF, 0xF2EDE6), (0xF7F3EC, 0xFFFFFF)],
            energy: [.veryHigh, .high], styles: [.chase, .tug, .wrestle]),
        Breed(
            name: "French Bulldog", weightKg: 9...13, ears: .pointed, muzzle: 0.05, coats: [(0xD8B98C, 0xF0DEC2), (0x3D3431, 0x5B504B)],
            energy: [.low, .moderate], styles: [.gentle, .wrestle]),
        Breed(
            name: "Whippet", weightKg: 11...15, ears: .folded, muzzle: 0.95, coats: [(0x9A9593, 0xF2F0EE), (0xC9A27E, 0xF4E9DC)],
            energy: [.moderate, .high], styles: [.chase, .independent]),
        Breed(
            name: "Staffordshire Bull Terrier cross", weightKg: 13...17, ears: .folded, muzzle: 0.3,
            coats: [(0x5B4636, 0xFFFFFF), (0x6E7279, 0xF2F2F2)],
            energy: [.high], styles: [.wrestle, .tug]),
        Breed(
            name: "Miniature Poodle", weightKg: 6...8, ears: .floppy, muzzle: 0.7,
            coats: [(0xE7B98A, 0xF3D9BD), (0xF4F1EC, 0xFFFFFF), (0x2A2727, 0x3C3837)],
            energy: [.moderate, .high], styles: [.fetch, .gentle]),
        Breed(
            name: "Dachshund", weightKg: 8...11, ears: .floppy, muzzle: 0.85, coats: [(0xA0522D, 0xC77B4A), (0x2A211E, 0xB5703E)],
            energy: [.moderate], styles: [.independent, .tug]),
        Breed(
            name: "German Shepherd", weightKg: 30...38, ears: .pointed, muzzle: 0.8, coats: [(0x2B2220, 0xC68A4E)],
            energy: [.high, .veryHigh], styles: [.chase, .fetch, .tug]),
        Breed(
            name: "Cavalier King Charles Spaniel", weightKg: 6...8, ears: .floppy, muzzle: 0.35, coats: [(0xB5552B, 0xFFFFFF), (0x2A211E, 0xFFFFFF)],
            energy: [.low, .moderate], styles: [.gentle]),
        Breed(
            name: "Siberian Husky", weightKg: 20...27, ears: .pointed, muzzle: 0.65, coats: [(0x7D8087, 0xFFFFFF), (0x3B3635, 0xF7F7F7)],
            energy: [.veryHigh], styles: [.chase, .wrestle]),
        Breed(
            name: "Chihuahua", weightKg: 2...3, ears: .pointed, muzzle: 0.2, coats: [(0xD6AE7B, 0xF1DFC4), (0x2F2A28, 0xC89B6B)],
            energy: [.moderate], styles: [.independent, .gentle]),
        Breed(
            name: "Bernese Mountain Dog", weightKg: 38...50, ears: .floppy, muzzle: 0.55, coats: [(0x1E1A19, 0xFFFFFF)],
            energy: [.low, .moderate], styles: [.gentle, .wrestle]),
        Breed(
            name: "Mixed breed", weightKg: 10...25, ears: .folded, muzzle: 0.6,
            coats: [(0x8C6A4F, 0xE9D8C4), (0x3E3A39, 0xD9D4CE), (0xC08A5B, 0xF6E9D8)],
            energy: [.moderate, .high, .low], styles: [.chase, .wrestle, .fetch, .gentle]),
    ]
    static let backgrounds = [0x9CC5A1, 0x8FB8DE, 0xE9B872, 0xD4A5A5, 0xB5A8D9, 0x9ED3D0, 0xE6C9A8]

    /// Dogs that get a drawn portrait: `serve --demo`'s community has them all; a community
    /// for benchmarks has its first ones only.
    static let photographedDogs = 400

    package var dogs: Int
    package var seed: UInt64

    package init(dogs: Int, seed: UInt64) {
        self.dogs = dogs
        self.seed = seed
    }

    /// Inserts the community (and the demo member, living in Lyon with a dog of its own) in
    /// batches, reporting progress. `passwordHash` is one bcrypt hash shared by every demo
    /// member: hashing each would take minutes for nothing. The first dogs get a drawn
    /// portrait in `media`.
    func insert(
        on db: any Database, deckIndex: DeckIndex, media: any MediaStore, passwordHash: String, now: Date,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws {
        var portraits = PortraitCache()
        var random = SeededRandom(seed: seed)
        let today = LocalDate(utc: now)
        let batchSize = 500
        var index = 0
        while index < dogs {
            let count = min(batchSize, dogs - index)
            var users: [UserRecord] = []
            var pets: [PetRecord] = []
            var doses: [VaccinationRecord] = []
            var photos: [PetPhotoRecord] = []
            for offset in 0..<count {
                let number = index + offset
                let (user, pet, look) = member(number: number, random: &random, passwordHash: passwordHash, today: today, now: now)
                users.append(user)
                pets.append(pet)
                if pet.socialSince != nil { doses += try Self.vaccinations(for: pet, today: today, now: now) }
                if number < Self.photographedDogs {
                    photos.append(try await portraits.store(look, for: pet, in: media, now: now))
                }
            }
            let rows = try zip(users, pets).compactMap { user, pet in try DeckIndex.row(for: pet, location: user.location) }
            let (newUsers, newPets, newDoses, newPhotos) = (users, pets, doses, photos)
            try await db.transaction { tx in
                try await newUsers.create(on: tx)
                try await newPets.create(on: tx)
                try await newDoses.create(on: tx)
                try await newPhotos.create(on: tx)
                try await deckIndex.insert(rows, on: tx)
            }
            await deckIndex.committed(rows.map(\.petID), on: db)
            index += count
            progress(index)
        }
        if try await UserRecord.query(on: db).filter(\.$email == Self.demoEmail).first() == nil {
            var demoRandom = SeededRandom(seed: seed ^ 0xD3_40)
            // An adult in Social Mode with a photo, so the first deck is full and the dog ready.
            let (user, pet, look) = member(number: -1, random: &demoRandom, passwordHash: passwordHash, today: today, now: now)
            user.email = Self.demoEmail
            user.username = "demo"
            user.displayName = "Sam Rivera"
            user.place(at: Self.cities[0].center) { LocationBlur.Offset(north: demoRandom.unit(), east: demoRandom.unit()) }
            pet.name = "Pixel"
            let photo = try await portraits.store(look, for: pet, in: media, now: now)
            let rows = try DeckIndex.row(for: pet, location: user.location).map { [$0] } ?? []
            try await db.transaction { tx in
                try await user.create(on: tx)
                try await pet.create(on: tx)
                try await photo.create(on: tx)
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

    /// One owner with one dog, and how the dog looks; `number` makes the username unique, and
    /// -1 is the demo member, whose dog is a vaccinated adult.
    private func member(
        number: Int, random: inout SeededRandom, passwordHash: String, today: LocalDate,
        now: Date
    ) -> (UserRecord, PetRecord, DogPortrait) {
        let city = Self.cities[number >= 0 ? number % Self.cities.count : 0]
        // A rough normal spread: the mean of three uniform draws.
        let north = (random.unit() + random.unit() + random.unit() - 1.5) * 2 * city.spreadKm
        let east = (random.unit() + random.unit() + random.unit() - 1.5) * 2 * city.spreadKm
        let latitude = city.center.latitude + north / 111.32
        let longitude = city.center.longitude + east / (111.32 * cos(city.center.latitude * .pi / 180))
        let tag = number >= 0 ? "\(seed)_\(number)" : "demo"
        let signUp = ValidSignUp(
            email: "member\(tag)@demo.pawpack.local", password: "",
            username: "m\(tag)",
            displayName:
                "\(Self.ownerFirstNames[Int(random.next() % UInt64(Self.ownerFirstNames.count))]) \(Self.ownerInitials[Int(random.next() % UInt64(Self.ownerInitials.count))]).",
            dateOfBirth: LocalDate(year: 1970 + Int(random.next() % 35), month: 1 + Int(random.next() % 12), day: 1 + Int(random.next() % 28))!,
            city: city.name, timeZone: city.timeZone)
        let userID = User.ID(random.uuid())
        let user = UserRecord(id: userID, signUp: signUp, passwordHash: passwordHash, now: now)
        user.emailVerifiedAt = now
        // The grid from a generator of its own, so the rest of the community stays as it was.
        var grid = SeededRandom(seed: seed &* 0x9E37_79B9 ^ UInt64(bitPattern: Int64(number)))
        user.place(at: GeoPoint(latitude: latitude, longitude: longitude)) {
            LocationBlur.Offset(north: grid.unit(), east: grid.unit())
        }

        let breed = Self.breedBook[Int(random.next() % UInt64(Self.breedBook.count))]
        let ageMonths = number < 0 ? 40 : 2 + Int(random.next() % 150)
        // Puppies have not reached their adult weight.
        let grown = min(1, 0.3 + 0.7 * Double(ageMonths) / 12)
        let weight = (breed.weightKg.lowerBound + random.unit() * (breed.weightKg.upperBound - breed.weightKg.lowerBound)) * grown
        let styles = breed.styles.shuffled(using: &random).prefix(1 + Int(random.next() % 2))
        // Social dogs are old enough for the full puppy series plus the buffer (about 5 months).
        let social = number < 0 || (ageMonths >= 6 && random.unit() < 0.8)
        let adult = ageMonths >= 8
        let profile = PetProfile(
            id: Pet.ID(random.uuid()), ownerID: userID, name: Self.names[Int(random.next() % UInt64(Self.names.count))],
            species: .dog, breed: breed.name,
            sex: random.next() % 2 == 0 ? .female : .male, neutered: adult ? random.unit() < 0.6 : false,
            birthDate: today.monthsEarlier(ageMonths), birthDateIsEstimate: false, weightKg: (weight * 10).rounded() / 10,
            sizeClass: nil, playStyles: Array(styles), energy: breed.energy[Int(random.next() % UInt64(breed.energy.count))],
            environment: PetEnvironment(area: HomeArea.allCases[Int(random.next() % 3)], hasGarden: random.unit() < 0.5),
            personality: [], notes: nil)
        let pet = PetRecord(profile, now: now)
        pet.socialSince = social ? now : nil
        let coat = breed.coats[Int(random.next() % UInt64(breed.coats.count))]
        let look = DogPortrait(
            coat: .init(hex: coat.0), secondary: .init(hex: coat.1),
            background: .init(hex: Self.backgrounds[Int(random.next() % UInt64(Self.backgrounds.count))]),
            ears: breed.ears, muzzleLength: breed.muzzle,
            size: min(1, max(0, (breed.weightKg.upperBound - 2) / 48)),
            eyePatch: breed.name.hasPrefix("Jack") || random.unit() < 0.12, tongue: random.unit() < 0.5)
        return (user, pet, look)
    }
}

/// Portraits drawn once per look and stored once per dog (each photo lives under its dog).
private struct PortraitCache {
    private var drawn: [String: Data] = [:]

    mutating func store(_ look: DogPortrait, for pet: PetRecord, in media: any MediaStore, now: Date) async throws -> PetPhotoRecord {
        let key = "\(look)"
        let png: Data
        if let known = drawn[key] {
            png = known
        } else {
            png = look.png()
            drawn[key] = png
        }
        let petID = try pet.requireID()
        let photoID = Pet.Photo.ID()
        let storageKey = "pets/\(petID)/\(photoID).png"
        try await media.put(png, key: storageKey, contentType: "image/png")
        return PetPhotoRecord(
            id: photoID, petID: petID, kind: .profile, storageKey: storageKey, contentType: "image/png",
            byteCount: png.count, now: now)
    }
}

extension PawpackServices {
    /// Seeds the demo community. `onlyIfEmpty` leaves a database with members untouched.
    package func seedDemo(
        dogs: Int, seed: UInt64, on db: any Database, onlyIfEmpty: Bool,
        progress: @Sendable (Int) -> Void = { _ in }
    ) async throws -> Bool {
        if onlyIfEmpty, try await UserRecord.query(on: db).count() > 0 { return false }
        let hash = try await hasher.hash(DemoCommunity.demoPassword)
        let now = dependencies.clock.now()
        try await DemoCommunity(dogs: dogs, seed: seed)
            .insert(on: db, deckIndex: deck.deckIndex, media: photos.media, passwordHash: hash, now: now, progress: progress)
        for area in areas {
            try await area.demo?(self, db, hash, now)
        }
        return true
    }
}
