import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A member `pawpack bench care` acts as: their family's pets (their own among them), whose
/// feeds they log and whose dashboard they open, with an access token.
package struct CareBenchMember: Sendable {
    package let accessToken: String
    package let pets: [Pet.ID]
}

/// How many pets, families and feeds a care bench community holds.
package struct CareBenchCounts: Sendable {
    package let pets: Int
    package let families: Int
    package let feeds: Int
}

/// Why the bench's community cannot be made as asked.
package struct CareBenchError: Error, CustomStringConvertible {
    package let description: String
}

/// What `pawpack bench care` needs from inside the server: families, foods and a year of feeds
/// over the demo community's dogs, written straight into the database (logging 20 million
/// feeds through HTTP would take days and measure other things), and access tokens issued
/// directly.
extension PawpackServices {
    /// The bench's families, when the database holds none of them yet: `pets` pets of as many
    /// owners (the demo community's, one dog each) in `families` families, the first
    /// `largeFamilies` of ten pets and the rest of one or two. Each family's owners are its
    /// members (the first one owns it); each pet has one wet food with stock, and a year of
    /// feeds by the family's members in turn: three a day over the last 30 days and one every
    /// third day over the 335 before. Returns false when an earlier run made them.
    package func seedCareBench(
        pets count: Int, families familyCount: Int, largeFamilies: Int, on db: any Database,
        progress: @Sendable (String) -> Void
    ) async throws -> Bool {
        let large = 10
        let rest = count - large * largeFamilies
        let small = familyCount - largeFamilies
        guard largeFamilies >= 1, small >= 0, rest >= small, rest <= 2 * small else {
            throw CareBenchError(
                description: "\(count) pets do not make \(largeFamilies) families of ten and \(small) of one or two pets")
        }
        if try await FamilyRecord.query(on: db).count() >= familyCount { return false }
        let now = dependencies.clock.now()

        // One pet per owner outside any family (the demo household has one), in id order.
        let rows = try await db.sql.raw(
            """
            SELECT "id", "owner_id" FROM "pets"
            WHERE "owner_id" NOT IN (SELECT "user_id" FROM "family_members") ORDER BY "id"
            """
        ).all()
        var owners = Set<User.ID>()
        var pets: [(pet: Pet.ID, owner: User.ID)] = []
        for row in rows {
            let owner = try row.decode(column: "owner_id", as: User.ID.self)
            if owners.insert(owner).inserted { pets.append((try row.decode(column: "id", as: Pet.ID.self), owner)) }
            if pets.count == count { break }
        }
        guard pets.count == count else {
            throw CareBenchError(description: "the community has \(pets.count) owners' pets outside families, not \(count)")
        }

        // The families' sizes: ten each, then two each while the pets left need it, then one.
        var sizes = Array(repeating: large, count: largeFamilies)
        let pairs = rest - small
        sizes += Array(repeating: 2, count: pairs) + Array(repeating: 1, count: small - pairs)
        let zones = ["Europe/Paris", "Europe/Berlin", "Europe/Lisbon", "Europe/London"]
        var households: [(pets: [Pet.ID], members: [User.ID])] = []
        var next = 0
        for size in sizes {
            let members = pets[next..<next + size]
            next += size
            households.append((members.map(\.pet), members.map(\.owner)))
        }

        // Families, their members and pets, and the foods, two hundred families at a time:
        // PostgreSQL takes at most 65,535 values in one statement.
        var foodOf: [Pet.ID: Care.Food.ID] = [:]
        for start in stride(from: 0, to: households.count, by: 200) {
            var families: [FamilyRecord] = []
            var members: [FamilyMemberRecord] = []
            var shared: [FamilyPetRecord] = []
            var foods: [FoodRecord] = []
            for number in start..<min(start + 200, households.count) {
                let household = households[number]
                let family = FamilyRecord()
                family.id = Care.Family.ID()
                family.name = "Household \(number + 1)"
                family.$owner.id = household.members[0]
                family.timeZone = zones[number % zones.count]
                family.createdAt = now.addingTimeInterval(-366 * 86_400)
                families.append(family)
                for (index, user) in household.members.enumerated() {
                    let member = FamilyMemberRecord()
                    member.$family.id = family.id!
                    member.$user.id = user
                    member.role = (index == 0 ? FamilyRole.owner : .member).rawValue
                    member.createdAt = family.createdAt
                    members.append(member)
                }
                for pet in household.pets {
                    let share = FamilyPetRecord()
                    share.$family.id = family.id!
                    share.$pet.id = pet
                    share.createdAt = family.createdAt
                    shared.append(share)
                    let food = FoodRecord()
                    food.id = Care.Food.ID()
                    food.$pet.id = pet
                    food.name = "Chicken in jelly"
                    food.kind = FoodKind.wet.rawValue
                    food.kcal = 85
                    food.packetsPerBox = 12
                    food.usualUnits = FoodKind.wet.unitsPerAmount
                    // Enough for years: the bench's feeds never empty it.
                    food.stockUnits = CareService.maximumStock(.wet)
                    food.lowAlertSent = false
                    food.emptyAlertSent = false
                    food.createdAt = family.createdAt
                    foods.append(food)
                    foodOf[pet] = food.id!
                }
            }
            let (newFamilies, newMembers, newShared, newFoods) = (families, members, shared, foods)
            try await db.transaction { tx in
                try await newFamilies.create(on: tx)
                try await newMembers.create(on: tx)
                try await newShared.create(on: tx)
                try await newFoods.create(on: tx)
            }
        }
        progress("\(households.count) families and \(count) foods made")

        // The feeds, pet after pet (each pet's rows sit together in its index), in batches of a
        // thousand rows and transactions of a few hundred thousand.
        let feeding = FeedingRules()
        let energy = EnergyRules()
        let units = FoodKind.wet.unitsPerAmount
        let gapShare = feeding.gapShare(units: units, kind: .wet, usualUnits: units)
        let kcal = energy.kilocalories(units: units, kind: .wet, kcalPerAmount: 85)
        let midnight = Calendar(identifier: .gregorian).startOfDay(for: now) // the process's zone: any day boundary serves
        let columns = [
            "id", "pet_id", "food_id", "food_name", "kind", "fed_by_id", "client_id", "fed_at", "activity", "units", "gap_share",
            "kcal", "taken_units", "created_at",
        ]
        var written = 0
        var lastReport = 0
        for start in stride(from: 0, to: households.count, by: 250) {
            var rows: [[any Encodable & Sendable]] = []
            for household in households[start..<min(start + 250, households.count)] {
                for (petNumber, pet) in household.pets.enumerated() {
                    // Minutes after the hour each household keeps, so that pets are not all fed at once.
                    let offset = Double(Int(pet.rawValue.uuid.15) % 50 * 60)
                    var times: [Date] = []
                    for day in stride(from: 364, through: 30, by: -1) where (day + petNumber) % 3 == 0 {
                        times.append(midnight.addingTimeInterval(Double(-day * 86_400) + 8 * 3_600 + offset))
                    }
                    for day in stride(from: 29, through: 0, by: -1) {
                        for hour in [7.0, 13.0, 19.0] {
                            times.append(midnight.addingTimeInterval(Double(-day * 86_400) + hour * 3_600 + offset))
                        }
                    }
                    for (number, fedAt) in times.enumerated() where fedAt < now {
                        rows.append([
                            UUID.timeOrdered(at: fedAt), pet.rawValue, foodOf[pet]!.rawValue, "Chicken in jelly", FoodKind.wet.rawValue,
                            household.members[number % household.members.count].rawValue, UUID(), fedAt,
                            ActivityCursor<Care.Feed>.activity(at: fedAt), units, gapShare, kcal, units, fedAt,
                        ])
                    }
                }
            }
            let batch = rows
            try await db.transaction { tx in
                for first in stride(from: 0, to: batch.count, by: 1_000) {
                    var insert = tx.sql.insert(into: "feeds").columns(columns)
                    for row in batch[first..<min(first + 1_000, batch.count)] { insert = insert.values(row) }
                    try await insert.run()
                }
            }
            written += batch.count
            if written - lastReport >= 1_000_000 {
                lastReport = written
                progress("\(written) feeds written")
            }
        }
        progress("\(written) feeds written")
        return true
    }

    /// Pets, families and feeds in the database.
    package func careBenchCounts(on db: any Database) async throws -> CareBenchCounts {
        CareBenchCounts(
            pets: try await PetRecord.query(on: db).count(), families: try await FamilyRecord.query(on: db).count(),
            feeds: try await FeedRecord.query(on: db).count())
    }

    /// Up to `count` members of families of ten pets, one per family (its first member, its
    /// second, … in turn), each with their family's pets and a fresh access token.
    package func careBenchMembers(count: Int, on db: any Database) async throws -> [CareBenchMember] {
        let families = try await db.sql.raw(
            """
            SELECT "family_id" FROM "family_pets" GROUP BY "family_id" HAVING COUNT(*) = 10
            ORDER BY "family_id" LIMIT \(unsafeRaw: String(max(0, count)))
            """
        ).all().map { try $0.decode(column: "family_id", as: Care.Family.ID.self) }
        var result: [CareBenchMember] = []
        for (number, family) in families.enumerated() {
            let members = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == family).with(\.$user).sort(\.$id).all()
            guard !members.isEmpty else { continue }
            let user = members[number % members.count].user
            let pets = try await FamilyPetRecord.query(on: db).filter(\.$family.$id == family).sort(\.$id).all().map(\.$pet.id)
            let session = try await sessions.issueAppSession(for: user, on: db)
            result.append(CareBenchMember(accessToken: session.accessToken, pets: pets))
        }
        return result
    }
}
