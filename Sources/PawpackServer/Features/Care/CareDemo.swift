import Fluent
import Foundation
import PawpackCore

/// `serve --demo`'s household: the demo member (Sam) shares two cats with Alex in the family
/// "Rivera home", with a month of feeds by both, food stock and weekly weights, so the Care tab,
/// the health page and the insights are full at once.
enum CareDemo {
    static let alexEmail = "alex@pawpack.local"

    static func seed(_ services: PawpackServices, on db: any Database, passwordHash: String, now: Date) async throws {
        guard let sam = try await UserRecord.query(on: db).filter(\.$email == DemoCommunity.demoEmail).first(),
            try await UserRecord.query(on: db).filter(\.$email == alexEmail).first() == nil
        else { return }
        let samID = try sam.requireID()
        let zone = "Europe/Paris"
        let days = HouseholdDays(timeZone: HouseholdDays.timeZone(named: zone) ?? .gmt)
        let today = days.day(of: now)
        var random = SeededRandom(seed: 35)

        // Seeded ids: the same demo is the same household.
        let alex = UserRecord(
            id: User.ID(random.uuid()),
            signUp: ValidSignUp(
                email: alexEmail, password: "", username: "alex", displayName: "Alex Rivera",
                dateOfBirth: LocalDate(year: 1988, month: 4, day: 2)!, city: "Lyon", timeZone: zone),
            passwordHash: passwordHash, now: now)
        alex.emailVerifiedAt = now
        alex.place(at: DemoCommunity.cities[0].center) { LocationBlur.Offset(north: random.unit(), east: random.unit()) }
        let alexID = try alex.requireID()

        func cat(_ name: String, months: Int, kilograms: Double, sex: PetSex) -> PetRecord {
            PetRecord(
                PetProfile(
                    id: Pet.ID(random.uuid()), ownerID: samID, name: name, species: .cat, breed: "Domestic shorthair", sex: sex, neutered: true,
                    birthDate: today.monthsEarlier(months), birthDateIsEstimate: false, weightKg: kilograms, sizeClass: nil,
                    playStyles: [], energy: nil, environment: nil, personality: [], notes: nil),
                now: now)
        }
        let miso = cat("Miso", months: 62, kilograms: 4.2, sex: .female)
        let tofu = cat("Tofu", months: 38, kilograms: 3.6, sex: .male)
        let looks = [
            CatPortrait(
                coat: .init(hex: 0xE08A3C), secondary: .init(hex: 0xFFF1DD), background: .init(hex: 0x9ED3D0), eyes: .init(hex: 0x7FB241),
                stripes: true),
            CatPortrait(
                coat: .init(hex: 0x4A4A52), secondary: .init(hex: 0xF4F1EC), background: .init(hex: 0xE9B872), eyes: .init(hex: 0xE2B33C),
                stripes: false),
        ]
        var photos: [PetPhotoRecord] = []
        for (pet, look) in zip([miso, tofu], looks) {
            let png = look.png()
            let (petID, photoID) = (try pet.requireID(), Pet.Photo.ID())
            let key = "pets/\(petID)/\(photoID).png"
            try await services.photos.media.put(png, key: key, contentType: "image/png")
            photos.append(
                PetPhotoRecord(id: photoID, petID: petID, kind: .profile, storageKey: key, contentType: "image/png", byteCount: png.count, now: now))
        }

        let family = FamilyRecord()
        family.id = .init()
        family.name = "Rivera home"
        family.$owner.id = samID
        family.timeZone = zone
        family.createdAt = now.addingTimeInterval(-40 * 86_400)
        let familyID = try family.requireID()
        let members = [(samID, FamilyRole.owner), (alexID, .member)].map { user, role in
            let member = FamilyMemberRecord()
            member.$family.id = familyID
            member.$user.id = user
            member.role = role.rawValue
            member.createdAt = family.createdAt
            return member
        }
        let shared = try [miso, tofu].map { pet in
            let row = FamilyPetRecord()
            row.$family.id = familyID
            row.$pet.id = try pet.requireID()
            row.createdAt = family.createdAt
            return row
        }

        func food(_ pet: PetRecord, _ name: String, _ kind: FoodKind, kcal: Double, usual: Int, stock: Int, low: Int, box: Int? = nil) throws
            -> FoodRecord
        {
            let food = FoodRecord()
            food.id = .init()
            food.$pet.id = try pet.requireID()
            food.name = name
            food.kind = kind.rawValue
            food.kcal = kcal
            food.packetsPerBox = box
            food.usualUnits = usual
            food.stockUnits = stock
            food.lowStockUnits = low
            food.lowAlertSent = false
            food.emptyAlertSent = false
            food.createdAt = family.createdAt
            return food
        }
        let pouches = try food(miso, "Salmon pouches", .wet, kcal: 75, usual: 4, stock: 14 * 4, low: 6 * 4, box: 12)
        let kibble = try food(tofu, "Chicken kibble", .dry, kcal: 380, usual: 30, stock: 1_400, low: 300)

        // A month of feeds in the household's day: Miso a packet and a half-packet twice a day,
        // Tofu 30 g three times; now and then a feed nobody logged. Sam and Alex take turns.
        let rules = FeedingRules()
        let energy = EnergyRules()
        var feeds: [FeedRecord] = []
        for back in stride(from: 30, through: 0, by: -1) {
            let day = today.adding(days: -back)
            let start = days.start(of: day)
            let plan: [(PetRecord, FoodRecord, Double, Int)] = [
                (miso, pouches, 7.5, 4), (tofu, kibble, 7.6, 30), (miso, pouches, 12.5, 2), (tofu, kibble, 12.6, 30),
                (miso, pouches, 18.5, 4), (tofu, kibble, 18.6, 30), (miso, pouches, 22, 2),
            ]
            for (pet, food, hour, units) in plan {
                let at = start.addingTimeInterval(hour * 3_600 + random.unit() * 1_200)
                guard at < now, random.unit() > 0.06 else { continue }
                let feed = FeedRecord()
                feed.id = .timeOrdered(at: at)
                feed.$pet.id = try pet.requireID()
                feed.$food.id = try food.requireID()
                feed.foodName = food.name
                feed.kind = food.kind
                feed.$fedBy.id = random.next() % 2 == 0 ? samID : alexID
                feed.clientID = UUID()
                feed.fedAt = at
                feed.activity = ActivityCursor<Care.Feed>.activity(at: at)
                feed.units = units
                feed.gapShare = rules.gapShare(units: units, kind: food.foodKind, usualUnits: food.usualUnits)
                feed.kcal = energy.kilocalories(units: units, kind: food.foodKind, kcalPerAmount: food.kcal)
                feed.takenUnits = units
                feed.createdAt = at
                feeds.append(feed)
            }
        }
        // Weekly weights: Miso slimming a little, Tofu gaining on his kibble.
        var weights: [WeightRecord] = []
        for (index, back) in [28, 21, 14, 7, 0].enumerated() {
            for (pet, kilograms) in [(miso, 4.4 - 0.05 * Double(index)), (tofu, 3.4 + 0.05 * Double(index))] {
                let weight = WeightRecord()
                weight.id = .init()
                weight.$pet.id = try pet.requireID()
                weight.onDate = today.adding(days: -back).description
                weight.kilograms = (kilograms * 100).rounded() / 100
                weight.createdAt = now
                weights.append(weight)
            }
        }
        let settings = CareSettingsRecord()
        settings.$pet.id = try miso.requireID()
        settings.feedingGapMinutes = 6 * 60
        settings.dietaryNotes = "Sensitive stomach: no dairy, no fish-based kibble."

        // Miso's thyroid tablet twice a day for the last ten days, the next one due soon.
        let tablet = MedicationRecord()
        tablet.id = .timeOrdered(at: now.addingTimeInterval(-10 * 86_400))
        tablet.$pet.id = try miso.requireID()
        tablet.name = "Thyroid tablet"
        tablet.dose = "½ tablet"
        tablet.everyMinutes = MedicationInterval.hours(12).minutes
        tablet.startsAt = days.start(of: today.adding(days: -10)).addingTimeInterval(8 * 3_600)
        tablet.$createdBy.id = samID
        tablet.createdAt = tablet.startsAt
        var doses: [DoseRecord] = []
        var given = tablet.startsAt
        while given < now {
            let dose = DoseRecord()
            dose.id = .timeOrdered(at: given)
            dose.$medication.id = try tablet.requireID()
            dose.$givenBy.id = random.next() % 2 == 0 ? samID : alexID
            dose.clientID = UUID()
            dose.givenAt = min(now, given.addingTimeInterval(random.unit() * 900))
            dose.createdAt = dose.givenAt
            doses.append(dose)
            given = given.addingTimeInterval(12 * 3_600)
        }

        let (newPhotos, newMembers, newShared, newFeeds, newWeights, newDoses) = (photos, members, shared, feeds, weights, doses)
        try await db.transaction { tx in
            try await alex.create(on: tx)
            try await miso.create(on: tx)
            try await tofu.create(on: tx)
            try await newPhotos.create(on: tx)
            try await family.create(on: tx)
            try await newMembers.create(on: tx)
            try await newShared.create(on: tx)
            try await pouches.create(on: tx)
            try await kibble.create(on: tx)
            try await newFeeds.create(on: tx)
            try await newWeights.create(on: tx)
            try await settings.create(on: tx)
            try await tablet.create(on: tx)
            try await newDoses.create(on: tx)
            // Their reminders, as the household's own feeds and doses would have set them.
            for pet in [miso, tofu] {
                try await services.care.reminders.feedsChanged(pet: try pet.requireID(), gap: 6 * 3_600, on: tx)
            }
            let next = ReminderRules().nextDose(
                lastGiven: newDoses.last?.givenAt, startsAt: tablet.startsAt, interval: tablet.interval, endsAt: nil)
            try await CareReminders.arm(.medication, pet: try miso.requireID(), subject: try tablet.requireID().rawValue, dueAt: next, on: tx)
        }
    }
}
