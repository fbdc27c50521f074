import Fluent
import Foundation
import PawpackCore
import SQLKit

/// Care: what a household logs about its pets' feeding and health, and what it reads back
/// (the next feed, today, stock, calories, the insight). Every read and write starts with
/// `context`, which decides the member's `CareAccess` to the pet.
final class CareService: Sendable {
    let pets: PetService
    let families: FamilyService
    let notifications: NotificationService
    let realtime: RealtimeEvents
    let reminders: CareReminders
    let writes: SQLWrites
    let feeding = FeedingRules()
    let energy = EnergyRules()
    /// Foods one pet may have.
    let foodsPerPet = 30
    /// Feeds one request may log (`POST /v1/feeds`).
    let feedsPerRequest = 20
    let foodNameRule = TextRule.name(max: 60)
    /// Feed requests one member may send a minute (each up to `feedsPerRequest` feeds).
    private let feedRequests = RateLimiter(limit: 30, window: 60)
    let notesRule = TextRule.paragraphs(max: 1_000)

    init(pets: PetService, families: FamilyService, notifications: NotificationService, realtime: RealtimeEvents, writes: SQLWrites) {
        self.pets = pets
        self.writes = writes
        self.families = families
        self.notifications = notifications
        self.realtime = realtime
        self.reminders = CareReminders(notifications: notifications, realtime: realtime, clock: pets.clock)
    }

    var clock: any AppClock { pets.clock }

    // MARK: Access

    /// A pet as the member reaches it for care.
    struct PetCare: Sendable {
        let pet: PetRecord
        let access: CareAccess
        let family: FamilyRecord?
        let settings: CareSettingsRecord?
        /// The household's time zone (`HouseholdDays.zoneName`): the family's while the pet is
        /// shared with one, else the one set for the pet, else its owner's own.
        let timeZone: String
        /// Made once: a time zone looked up and a calendar made at every use were a few per
        /// cent of a Care tab.
        let days: HouseholdDays

        init(pet: PetRecord, access: CareAccess, family: FamilyRecord?, settings: CareSettingsRecord?, ownerTimeZone: String?) {
            self.pet = pet
            self.access = access
            self.family = family
            self.settings = settings
            timeZone = HouseholdDays.zoneName(family: family?.timeZone, pet: settings?.timeZone, owner: ownerTimeZone)
            days = HouseholdDays(timeZone: HouseholdDays.timeZone(named: timeZone) ?? .gmt)
        }

        var id: Pet.ID { pet.id! }
        var gap: TimeInterval { Double(settings?.feedingGapMinutes ?? Int(FeedingRules.defaultGapHours * 60)) * 60 }
    }

    /// The pet and the member's access to it. A pet they may not see is "not found", exactly
    /// as one that does not exist; one they may see but not change this way, 403.
    func context(_ user: UserRecord, pet id: Pet.ID, need: (CareAccess) -> Bool, on db: any Database) async throws -> PetCare {
        guard let care = try await contexts(user, pets: [id], on: db).first else { throw Problem.notFound }
        guard need(care.access) else {
            throw Problem(
                status: 403, code: .forbidden, title: "Not allowed",
                detail: care.access.canLog
                    ? "Only the pet's owner and guardians may change this."
                    : "You may see this pet's care but not change it: ask the family's owner to make you a member.")
        }
        return care
    }

    /// A pet's household days, whoever asks (`HouseholdDays.zoneName`), in one query.
    static func householdDays(of pet: Pet.ID, on db: any Database) async throws -> HouseholdDays {
        let row = try await db.sql.raw(
            """
            SELECT "families"."time_zone" AS "family_zone", "care_settings"."time_zone" AS "pet_zone", "users"."time_zone" AS "owner_zone"
            FROM "pets" JOIN "users" ON "users"."id" = "pets"."owner_id"
                LEFT JOIN "care_settings" ON "care_settings"."pet_id" = "pets"."id"
                LEFT JOIN "family_pets" ON "family_pets"."pet_id" = "pets"."id"
                LEFT JOIN "families" ON "families"."id" = "family_pets"."family_id"
            WHERE "pets"."id" = \(bind: pet)
            """
        ).first()
        let zone = HouseholdDays.zoneName(
            family: try row?.decode(column: "family_zone", as: String?.self),
            pet: try row?.decode(column: "pet_zone", as: String?.self),
            owner: try row?.decode(column: "owner_zone", as: String?.self))
        return HouseholdDays(timeZone: HouseholdDays.timeZone(named: zone) ?? .gmt)
    }

    /// Everyone who sees this pet's care: its owner, its guardians and its family's members.
    /// What changed of a pet's care besides its feeds (which have events of their own).
    enum Change: String, Sendable { case stock, foods, settings, weight }

    /// Tells the pet's household that its care changed (`care_changed`), so that what they
    /// have open shows it without a reload: the stock after a purchase, the next feed after a
    /// new gap, the calories after a weight.
    private func announceChange(_ change: Change, of care: PetCare, on db: any Database) async throws {
        let household = try await household(of: care.pet, on: db)
        await realtime.deliver(try await realtime.record(.careChanged(pet: care.id, what: change), for: household, on: db))
    }

    func household(of pet: PetRecord, on db: any Database) async throws -> [User.ID] {
        let id = try pet.requireID()
        var members: Set<User.ID> = [pet.$owner.id]
        for row in try await pets.reads.rows(
            """
            SELECT "user_id" FROM "pet_guardians" WHERE "pet_id" = \(bind: id) AND "status" = \(bind: GuardianRecord.Status.active.rawValue)
            UNION SELECT "family_members"."user_id" FROM "family_pets"
                JOIN "family_members" ON "family_members"."family_id" = "family_pets"."family_id"
                WHERE "family_pets"."pet_id" = \(bind: id)
            """, on: db)
        {
            members.insert(try row.decode(column: "user_id", as: User.ID.self))
        }
        return Array(members)
    }

    /// The pets whose care this member sees: their own first, then those they guard and those
    /// shared with their families; each by name.
    func caredPets(of user: UserRecord, on db: any Database) async throws -> [Pet.ID] {
        let me = try user.requireID()
        let rows = try await pets.reads.rows(
            """
            SELECT "id", "name", "owner_id" FROM "pets" WHERE "owner_id" = \(bind: me)
            UNION SELECT "pets"."id", "pets"."name", "pets"."owner_id" FROM "pets" JOIN "pet_guardians" ON "pet_guardians"."pet_id" = "pets"."id"
                WHERE "pet_guardians"."user_id" = \(bind: me) AND "pet_guardians"."status" = \(bind: GuardianRecord.Status.active.rawValue)
            UNION SELECT "pets"."id", "pets"."name", "pets"."owner_id" FROM "pets" JOIN "family_pets" ON "family_pets"."pet_id" = "pets"."id"
                JOIN "family_members" ON "family_members"."family_id" = "family_pets"."family_id"
                WHERE "family_members"."user_id" = \(bind: me)
            """, on: db)
        let pets = try rows.map { row in
            (
                id: try row.decode(column: "id", as: Pet.ID.self), name: try row.decode(column: "name", as: String.self),
                mine: try row.decode(column: "owner_id", as: User.ID.self) == me
            )
        }
        return pets.sorted { a, b in
            a.mine != b.mine ? a.mine : a.name.localizedCaseInsensitiveCompare(b.name) == .orderedAscending
        }.map(\.id)
    }

    // MARK: Settings

    func updateSettings(_ user: UserRecord, pet id: Pet.ID, draft: CareSettingsDraft, on db: any Database) async throws
        -> CareSummaryValue
    {
        let care = try await context(user, pet: id, need: \.canManage, on: db)
        // Checked on a copy; saved onto the row read again in each try (two first saves at once:
        // the second finds the first's row).
        let settings = CareSettingsRecord()
        settings.feedingGapMinutes = care.settings?.feedingGapMinutes ?? Int(FeedingRules.defaultGapHours * 60)
        settings.timeZone = care.settings?.timeZone
        settings.dietaryNotes = care.settings?.dietaryNotes
        settings.energyFactor = care.settings?.energyFactor
        settings.vaccinationLeadDays = care.settings?.vaccinationLeadDays
        var errors: [FieldError] = []
        if let days = draft.vaccinationReminderDays {
            do {
                try reminders.rules.checkLeadDays(days)
                settings.vaccinationLeadDays = days
            } catch { errors += error.errors }
        }
        if let hours = draft.feedingGapHours {
            do { settings.feedingGapMinutes = Int(try feeding.gap(hours: hours) / 60) } catch { errors += error.errors }
        }
        if let zone = draft.timeZone {
            if zone.isEmpty {
                // The pet follows its owner's own time zone again.
                settings.timeZone = nil
            } else if HouseholdDays.timeZone(named: zone) == nil {
                errors.append(.init(field: "timeZone", message: "is not a time zone's IANA name"))
            } else {
                settings.timeZone = zone
            }
        }
        if let notes = draft.dietaryNotes {
            switch notesRule.check(notes) {
            case .success(let text): settings.dietaryNotes = text.isEmpty ? nil : text
            case .failure(let refusal): errors.append(.init(field: "dietaryNotes", message: refusal.message))
            }
        }
        if draft.defaultEnergyFactor {
            settings.energyFactor = nil
        } else if let factor = draft.energyFactor {
            do { settings.energyFactor = try energy.checkFactor(factor) } catch { errors += error.errors }
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        try await answeringRacesAsSequential {
            let row = try await CareSettingsRecord.query(on: db).filter(\.$pet.$id == id).first() ?? CareSettingsRecord()
            row.$pet.id = id
            row.feedingGapMinutes = settings.feedingGapMinutes
            row.timeZone = settings.timeZone
            row.dietaryNotes = settings.dietaryNotes
            row.energyFactor = settings.energyFactor
            row.vaccinationLeadDays = settings.vaccinationLeadDays
            try await db.transaction { tx in
                try await row.save(on: tx)
                // The next feed follows the new gap; vaccination reminders not sent yet are
                // planned again with the new lead on the next round.
                try await self.reminders.feedsChanged(pet: id, gap: Double(settings.feedingGapMinutes) * 60, on: tx)
                try await CareReminderRecord.query(on: tx).filter(\.$pet.$id == id)
                    .filter(\.$kind == CareReminderRecord.Kind.vaccination.rawValue).filter(\.$sentAt == nil).delete()
            }
        }
        try await announceChange(.settings, of: care, on: db)
        return try await summary(user, pet: id, on: db)
    }

    // MARK: Foods and stock

    func foods(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [FoodValue] {
        let care = try await context(user, pet: id, need: \.canView, on: db)
        return try await foods(of: care, on: db)
    }

    private func foods(of care: PetCare, on db: any Database) async throws -> [FoodValue] {
        let now = clock.now()
        let rows = try await foodRecords(of: [care.id], on: db)
        let recent = try await recentFeeds(of: [care], now: now, latest: false, on: db)[care.id] ?? RecentFeeds()
        let usage = usage(of: care, from: recent, now: now)
        return try rows.map { try value(of: $0, usage: usage) }
    }

    /// The pets' foods, oldest first.
    private func foodRecords(of pets: [Pet.ID], on db: any Database) async throws -> [FoodRecord] {
        try await self.pets.reads.rows(
            #"SELECT * FROM "foods" WHERE "pet_id" IN (\#(binds: pets)) ORDER BY "created_at", "id""#, on: db
        ).map { try FoodRecord(row: $0) }
    }

    /// The days before today whose feeds `summaries` and the stock's "runs out in" read: the
    /// calories' window or the usage days, whichever is longer.
    private var recentDays: Int { max(energy.windowDays, feeding.usageDays - 1) }

    /// The pets' recent feeds (`RecentFeeds`): today's in full, the `recentDays` before summed
    /// by day and food in the database (the Care tab of ten pets read and decoded 450 feeds
    /// one by one, most of its time), and the latest of a pet not fed today, with who fed:
    /// the same few queries whatever the pets' number.
    private func recentFeeds(of cares: [PetCare], now: Date, latest: Bool = true, on db: any Database) async throws
        -> [Pet.ID: RecentFeeds]
    {
        var recent = Dictionary(cares.map { ($0.id, RecentFeeds()) }) { first, _ in first }
        let todayStarts = Dictionary(
            cares.map { ($0.id, ActivityCursor<Care.Feed>.activity(at: $0.days.start(of: $0.days.day(of: now)))) }
        ) { first, _ in first }
        guard let since = todayStarts.values.min() else { return [:] }
        // The earliest start of today serves the pets of every zone; each keeps its own today.
        var named = try await pets.reads.rows(
            """
            SELECT \(unsafeRaw: FeedRow.columns) FROM "feeds"
            WHERE "pet_id" IN (\(binds: cares.map(\.id))) AND "activity" >= \(bind: since)
            ORDER BY "activity", "id"
            """, on: db
        ).map { try FeedRow(row: $0) }.filter { $0.activity >= todayStarts[$0.pet] ?? .max }
        for (_, zone) in Dictionary(grouping: cares, by: \.timeZone) {
            let days = zone[0].days
            let first = days.day(of: now).adding(days: -recentDays)
            let starts = (0...recentDays).map { ActivityCursor<Care.Feed>.activity(at: days.start(of: first.adding(days: $0))) }
            // Each feed's day by the household's midnights (days of 23 or 25 hours included).
            // PostgreSQL sums a BIGINT column into a NUMERIC: cast back to read an integer.
            let day = (1..<starts.count).map { "WHEN \"activity\" < \(bind: starts[$0]) THEN \(literal: $0 - 1)" as SQLQueryString }
                .joined(separator: " ")
            for row in try await pets.reads.rows(
                """
                SELECT "pet_id", "food_id", CASE \(day) END AS "day_index", SUM("kcal") AS "kcal", CAST(SUM("units") AS BIGINT) AS "units" FROM "feeds"
                WHERE "pet_id" IN (\(binds: zone.map(\.id))) AND "activity" >= \(bind: starts[0]) AND "activity" < \(bind: starts[recentDays])
                GROUP BY "pet_id", "food_id", "day_index"
                """, on: db)
            {
                let pet = try row.decode(column: "pet_id", as: Pet.ID.self)
                recent[pet]?.earlier.append(
                    .init(
                        day: first.adding(days: try row.decode(column: "day_index", as: Int.self)),
                        food: try row.decode(column: "food_id", as: Care.Food.ID?.self),
                        kcal: try row.decode(column: "kcal", as: Double.self), units: try row.decode(column: "units", as: Int.self)))
            }
        }
        let fedToday = Set(named.map(\.pet))
        let unfed = latest ? cares.map(\.id).filter { !fedToday.contains($0) } : []
        if !unfed.isEmpty {
            // Each one's latest, however old: one indexed step per pet.
            let each = unfed.map {
                """
                SELECT * FROM (SELECT \(unsafeRaw: FeedRow.columns) FROM "feeds" WHERE "pet_id" = \(bind: $0)
                    ORDER BY "activity" DESC, "id" DESC LIMIT 1) AS "latest"
                """ as SQLQueryString
            }.joined(separator: " UNION ALL ")
            named += try await pets.reads.rows("\(each)", on: db).map { try FeedRow(row: $0) }
        }
        try await nameFeeders(of: &named, on: db)
        for feed in named {
            if fedToday.contains(feed.pet) { recent[feed.pet]?.today.append(feed) } else { recent[feed.pet]?.last = feed }
        }
        return recent
    }

    /// Who fed each feed, by name: the few members of a household in one query. Joined to the
    /// feeds instead, PostgreSQL read every member into a hash table for each Care tab (24 ms
    /// at 100,000 members).
    private func nameFeeders(of feeds: inout [FeedRow], on db: any Database) async throws {
        let members = Array(Set(feeds.compactMap(\.fedBy)))
        guard !members.isEmpty else { return }
        var names: [User.ID: (username: String, displayName: String)] = [:]
        for row in try await pets.reads.rows(
            #"SELECT "id", "username", "display_name" FROM "users" WHERE "id" IN (\#(binds: members))"#, on: db)
        {
            names[try row.decode(column: "id", as: User.ID.self)] = (
                try row.decode(column: "username", as: String.self), try row.decode(column: "display_name", as: String.self)
            )
        }
        for index in feeds.indices {
            guard let member = feeds[index].fedBy, let name = names[member] else { continue }
            feeds[index].fedByUsername = name.username
            feeds[index].fedByDisplayName = name.displayName
        }
    }

    /// Units each food gave in the last `usageDays` days, and over how many days it was used,
    /// from the pet's recent feeds (`recentFeeds`).
    private func usage(of care: PetCare, from recent: RecentFeeds, now: Date) -> [Care.Food.ID: (units: Int, days: Int)] {
        let today = care.days.day(of: now)
        let since = today.adding(days: -(feeding.usageDays - 1))
        var totals: [Care.Food.ID: (units: Int, first: LocalDate)] = [:]
        for (day, food, units) in recent.earlier.map({ ($0.day, $0.food, $0.units) }) + recent.today.map({ (today, $0.food, $0.units) })
        where day >= since {
            guard let food else { continue }
            let sum = totals[food] ?? (0, day)
            totals[food] = (sum.units + units, min(sum.first, day))
        }
        return totals.mapValues { total in (total.units, min(feeding.usageDays, max(1, total.first.days(until: today) + 1))) }
    }

    private func value(of food: FoodRecord, usage: [Care.Food.ID: (units: Int, days: Int)]) throws -> FoodValue {
        let id = try food.requireID()
        let used = usage[id]
        return FoodValue(
            id: id, pet: food.$pet.id, name: food.name, kind: food.foodKind, kcal: food.kcal, packetsPerBox: food.packetsPerBox,
            packetsPerBag: food.packetsPerBag, usualUnits: food.usualUnits, stockUnits: food.stockUnits,
            lowStockUnits: food.lowStockUnits,
            daysLeft: food.stockUnits.flatMap { stock in used.flatMap { feeding.daysLeft(stock: stock, usedUnits: $0.units, overDays: $0.days) } })
    }

    func addFood(_ user: UserRecord, pet id: Pet.ID, draft: FoodDraft, on db: any Database) async throws -> FoodValue {
        let care = try await context(user, pet: id, need: \.canManage, on: db)
        guard let kind = draft.kind else { throw Problem.invalidField("kind", "is required: wet or dry") }
        guard draft.name != nil else { throw Problem.invalidField("name", "is required") }
        guard try await FoodRecord.query(on: db).filter(\.$pet.$id == id).count() < foodsPerPet else {
            throw CreationLimits.reached("foods of a pet", limit: foodsPerPet, field: "name")
        }
        let food = FoodRecord()
        food.id = .init()
        food.$pet.id = id
        food.kind = kind.rawValue
        food.usualUnits = kind == .wet ? 4 : 50
        food.lowAlertSent = false
        food.emptyAlertSent = false
        food.createdAt = clock.now()
        try apply(draft, to: food)
        try await food.create(on: db)
        try await announceChange(.foods, of: care, on: db)
        return try await value(of: food, care: care, on: db)
    }

    func updateFood(_ user: UserRecord, food id: Care.Food.ID, draft: FoodDraft, on db: any Database) async throws -> FoodValue {
        let (food, care) = try await food(user, id: id, need: \.canManage, on: db)
        if let kind = draft.kind, kind != food.foodKind { throw Problem.invalidField("kind", "cannot change: add a new food") }
        try apply(draft, to: food)
        if draft.lowStockAt != nil {
            // A new threshold: the next crossing alerts again.
            food.lowAlertSent = false
        }
        try await food.save(on: db)
        try await announceChange(.foods, of: care, on: db)
        return try await value(of: food, care: care, on: db)
    }

    func deleteFood(_ user: UserRecord, food id: Care.Food.ID, on db: any Database) async throws {
        let (food, care) = try await food(user, id: id, need: \.canManage, on: db)
        // Its feeds stay in the log with the food's name (`FeedRecord.foodName`).
        try await food.delete(on: db)
        try await announceChange(.foods, of: care, on: db)
    }

    /// The pet a food is for, to a member who may see it.
    func foodPet(_ user: UserRecord, food id: Care.Food.ID, on db: any Database) async throws -> Pet.ID {
        try await foodPetAndKind(user, food: id, on: db).0
    }

    /// The pet a food is for and the food's kind, to a member who may see it.
    func foodPetAndKind(_ user: UserRecord, food id: Care.Food.ID, on db: any Database) async throws -> (Pet.ID, FoodKind) {
        let (food, care) = try await food(user, id: id, need: \.canView, on: db)
        return (care.id, food.foodKind)
    }

    /// A food and the member's access to its pet: a food of a pet they may not see is not found.
    private func food(_ user: UserRecord, id: Care.Food.ID, need: (CareAccess) -> Bool, on db: any Database) async throws
        -> (FoodRecord, PetCare)
    {
        guard let food = try await FoodRecord.find(id, on: db) else { throw Problem.notFound }
        return (food, try await context(user, pet: food.$pet.id, need: need, on: db))
    }

    private func value(of food: FoodRecord, care: PetCare, on db: any Database) async throws -> FoodValue {
        let now = clock.now()
        let recent = try await recentFeeds(of: [care], now: now, latest: false, on: db)[care.id] ?? RecentFeeds()
        return try value(of: food, usage: usage(of: care, from: recent, now: now))
    }

    private func apply(_ draft: FoodDraft, to food: FoodRecord) throws {
        let kind = food.foodKind
        var errors: [FieldError] = []
        if let name = draft.name {
            switch foodNameRule.check(name) {
            case .success(let text): food.name = text
            case .failure(let refusal): errors.append(.init(field: "name", message: refusal.message))
            }
        }
        if let kcal = draft.kcal {
            let range: ClosedRange<Double> = kind == .wet ? 1...2_000 : 1...1_000
            if kcal.isFinite, range.contains(kcal) {
                food.kcal = (kcal * 10).rounded() / 10
            } else {
                errors.append(
                    .init(field: "kcal", message: "must be from 1 to \(Int(range.upperBound)) kcal per \(kind == .wet ? "packet" : "100 g")"))
            }
        }
        for (field, count, keyPath) in [
            ("packetsPerBox", draft.packetsPerBox, \FoodRecord.packetsPerBox), ("packetsPerBag", draft.packetsPerBag, \FoodRecord.packetsPerBag),
        ] {
            guard let count else { continue }
            if kind == .dry {
                errors.append(.init(field: field, message: "is for wet food only"))
            } else if (1...200).contains(count) {
                food[keyPath: keyPath] = count
            } else {
                errors.append(.init(field: field, message: "must be from 1 to 200"))
            }
        }
        if let portion = draft.usualPortion {
            do { food.usualUnits = try feeding.units(of: portion, kind: kind, field: "usualPortion") } catch { errors += error.errors }
        }
        if let low = draft.lowStockAt {
            if low == 0 {
                food.lowStockUnits = nil
            } else if let units = kind.units(of: low), units <= Self.maximumStock(kind) {
                food.lowStockUnits = units
            } else {
                errors.append(
                    .init(field: "lowStockAt", message: kind == .wet ? "must be whole or quarter packets" : "must be whole grams"))
            }
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
    }

    /// The most a stock may hold: 10,000 packets, or a tonne of dry food.
    static func maximumStock(_ kind: FoodKind) -> Int { kind == .wet ? 40_000 : 1_000_000 }

    /// Sets a stock or adds a purchase (boxes and bags counted in the food's packets).
    func changeStock(_ user: UserRecord, food id: Care.Food.ID, change: StockChange, on db: any Database) async throws -> FoodValue {
        let (food, care) = try await food(user, id: id, need: \.canLog, on: db)
        let kind = food.foodKind
        let packetsPer: Int?
        switch (change.unit, kind) {
        case (.packets, .wet), (.grams, .dry), (.kilograms, .dry): packetsPer = 1
        case (.boxes, .wet): packetsPer = food.packetsPerBox
        case (.bags, .wet): packetsPer = food.packetsPerBag
        default: throw Problem.invalidField("unit", kind == .wet ? "must be packets, boxes or bags" : "must be grams or kilograms")
        }
        guard let packetsPer else {
            throw Problem.invalidField("unit", "needs the food's packets per \(change.unit == .boxes ? "box" : "bag") first")
        }
        let amount = change.unit == .kilograms ? (change.amount * 1_000).rounded() : change.amount * Double(packetsPer)
        guard amount >= 0, let units = kind.units(of: amount), units <= Self.maximumStock(kind) else {
            throw Problem.invalidField(
                change.amountField, kind == .wet ? "must be whole or quarter packets, at most 10,000" : "must be whole grams, at most 1,000 kg")
        }
        let household = try await household(of: care.pet, on: db)
        let me = try user.requireID()
        let events = try await db.transaction { tx in
            let (_, alert) = try await self.adjustStock(of: id, on: tx) { stock in
                let next = change.action == .set ? units : (stock ?? 0) + units
                guard next <= Self.maximumStock(kind) else { throw Problem.invalidField(change.amountField, "would make the stock too large") }
                return next
            }
            return try await self.announce(alert, food: food, pet: care.pet, by: me, to: household, on: tx)
                + self.realtime.record(.careChanged(pet: care.id, what: .stock), for: household, on: tx)
        }
        await realtime.deliver(events)
        guard let saved = try await FoodRecord.find(id, on: db) else { throw Problem.notFound }
        return try await value(of: saved, care: care, on: db)
    }

    /// Changes a food's stock as `change` says from what it holds now, with a conditional
    /// write retried until it lands: two feeds at once each take their own portion. Its old
    /// stock, and the alert the change calls for.
    @discardableResult
    func adjustStock(of food: Care.Food.ID, on tx: any Database, _ change: (Int?) throws -> Int?) async throws -> (old: Int?, alert: StockAlert?) {
        try await adjustStock(of: food, in: FluentWriteStatements(db: tx), change)
    }

    /// `adjustStock` among the statements of a transaction under way (`SQLWrites`).
    func adjustStock(
        of food: Care.Food.ID, in statements: any SQLWriteStatements, _ change: (Int?) throws -> Int?
    ) async throws -> (old: Int?, alert: StockAlert?) {
        for _ in 0..<20 {
            // The food's row taken first, by a write that changes nothing: on PostgreSQL a feed of
            // the same food waits here for the one before it to commit and reads what it left,
            // where a plain read let it fail its conditional write and read again once per feed
            // ahead of it (twenty members feeding at once took minutes on a busy machine).
            guard
                let row = try await statements.first(
                    """
                    UPDATE "foods" SET "stock_units" = "stock_units" WHERE "id" = \(bind: food)
                    RETURNING "stock_units", "low_stock_units", "low_alert_sent", "empty_alert_sent"
                    """)
            else { return (nil, nil) }
            let stock = try row.decodeNil(column: "stock_units") ? nil : try row.decode(column: "stock_units", as: Int.self)
            guard let next = try change(stock) else { return (stock, nil) }
            let threshold = try row.decodeNil(column: "low_stock_units") ? nil : try row.decode(column: "low_stock_units", as: Int.self)
            let (state, alert) = feeding.alert(
                stock: next, threshold: threshold,
                state: StockAlertState(
                    lowSent: try row.decode(column: "low_alert_sent", as: Bool.self),
                    emptySent: try row.decode(column: "empty_alert_sent", as: Bool.self)))
            let matches: SQLQueryString = stock.map { #""stock_units" = \#(bind: $0)"# } ?? #""stock_units" IS NULL"#
            let changed = try await statements.rows(
                """
                UPDATE "foods" SET "stock_units" = \(bind: next), "low_alert_sent" = \(bind: state.lowSent),
                    "empty_alert_sent" = \(bind: state.emptySent)
                WHERE "id" = \(bind: food) AND \(matches) RETURNING "id"
                """)
            if !changed.isEmpty { return (stock, alert) }
        }
        throw LostRace()
    }

    /// The household hears of a stock running low or out (not the member who changed it: they
    /// see it on the page).
    private func announce(
        _ alert: StockAlert?, food: FoodRecord, pet: PetRecord, by me: User.ID, to household: [User.ID], on tx: any Database
    ) async throws -> [StoredRealtimeEvent] {
        try await announce(alert, food: food, pet: pet, by: me, to: household, in: FluentWriteStatements(db: tx))
    }

    private func announce(
        _ alert: StockAlert?, food: FoodRecord, pet: PetRecord, by me: User.ID, to household: [User.ID], in statements: any SQLWriteStatements
    ) async throws -> [StoredRealtimeEvent] {
        guard let alert else { return [] }
        let title = alert == .empty ? "\(pet.name)'s \(food.name) ran out" : "\(pet.name)'s \(food.name) is running low"
        let draft = NotificationDraft(
            from: me, kind: .stock, title: title,
            body: alert == .empty
                ? "There is no \(food.name) left for \(pet.name). Add a purchase on the Care tab once you have bought more."
                : "\(pet.name)'s \(food.name) is at or below the level you set. Time to buy more.",
            pet: try pet.requireID(), mayPush: reminders.pushAtMostOncePerCooldown(pet: try pet.requireID()))
        return try await notifications.notify(draft, to: household.filter { $0 != me }, in: statements)
    }

    // MARK: Feeds

    /// Logs feeds, all or none. A retry with a client id already used by this member answers
    /// the feed it logged; a feed within `recentFeedWindow` of another member's feed of the same
    /// pet is refused with who fed and when, unless `logAnyway`.
    func logFeeds(_ user: UserRecord, _ drafts: [FeedDraft], logAnyway: Bool, on db: any Database) async throws
        -> [(feed: FeedValue, created: Bool)]
    {
        guard (1...feedsPerRequest).contains(drafts.count) else {
            throw Problem.invalidField("items", "must hold from 1 to \(feedsPerRequest) feeds")
        }
        // The second of two feeds with one id is the one named.
        var ids: Set<UUID> = []
        for (index, draft) in drafts.enumerated() where !ids.insert(draft.clientID).inserted {
            throw Problem.invalidField(drafts.count > 1 ? "items[\(index)].id" : "id", "must differ for each feed")
        }
        try await feedRequests.take("member:\(try user.requireID())", now: clock.now(), what: "feeds logged")
        return try await answeringRacesAsSequential { try await logFeedsOnce(user, drafts, logAnyway: logAnyway, on: db) }
    }

    private struct PreparedFeed: Sendable {
        var draft: FeedDraft
        var care: PetCare
        var food: FoodRecord
        var units: Int
        var fedAt: Date
        var earlier: FeedRecord?
    }

    private func logFeedsOnce(_ user: UserRecord, _ drafts: [FeedDraft], logAnyway: Bool, on db: any Database) async throws
        -> [(feed: FeedValue, created: Bool)]
    {
        let me = try user.requireID()
        let now = clock.now()
        let prefix = drafts.count > 1
        var prepared: [PreparedFeed] = []
        for (index, draft) in drafts.enumerated() {
            let field = { (name: String) in prefix ? "items[\(index)].\(name)" : name }
            let care = try await context(user, pet: draft.pet, need: \.canLog, on: db)
            let earlier = try await pets.reads.rows(
                """
                SELECT * FROM "feeds" WHERE "fed_by_id" = \(bind: me) AND "client_id" = \(bind: draft.clientID)
                """, on: db
            ).first.map { try $0.decode(model: FeedRecord.self) }
            // "Mark as fed" sent again: the feed it logged, whatever the usual food is now.
            if let earlier, draft.food == nil, draft.portion == nil, draft.fedAt == nil, earlier.$pet.id == draft.pet,
                let foodID = earlier.$food.id, let food = try await foodRecord(foodID, of: draft.pet, on: db)
            {
                prepared.append(PreparedFeed(draft: draft, care: care, food: food, units: earlier.units, fedAt: earlier.fedAt, earlier: earlier))
                continue
            }
            let food: FoodRecord
            if let foodID = draft.food {
                guard let found = try await foodRecord(foodID, of: draft.pet, on: db) else {
                    throw Problem.invalidField(field("foodId"), "is not one of this pet's foods")
                }
                food = found
            } else {
                guard let usual = try await usualFood(of: draft.pet, on: db) else {
                    throw Problem.invalidField(field("foodId"), "is needed: this pet has no foods yet")
                }
                food = usual
            }
            let units =
                try draft.portion.map { portion throws(Problem) in try feeding.units(of: portion, kind: food.foodKind, field: field("portion")) }
                ?? food.usualUnits
            let fedAt = draft.fedAt ?? now
            try feeding.checkFeedTime(fedAt, now: now, field: field("fedAt"))
            if let earlier {
                // The same feed again (a retry): its pet, food and portion, and its time when one was given.
                let same =
                    earlier.$pet.id == draft.pet && earlier.$food.id == food.id && earlier.units == units
                    && (draft.fedAt.map { abs($0.timeIntervalSince(earlier.fedAt)) < 0.001 } ?? true)
                guard same else { throw Problem.idempotencyKeyReused(field: field("id")) }
            }
            prepared.append(PreparedFeed(draft: draft, care: care, food: food, units: units, fedAt: fedAt, earlier: earlier))
        }
        let fresh = prepared.filter { $0.earlier == nil }
        if !logAnyway {
            var recent: [(sentence: String, feed: Problem.RecentFeed)] = []
            for feed in fresh {
                if let other = try await recentFeed(of: feed.care.id, near: feed.fedAt, notBy: me, on: db) {
                    recent.append(
                        (
                            sentence(other, pet: feed.care.pet.name, now: now),
                            .init(pet: feed.care.id, username: other.fedBy?.username, displayName: other.fedBy?.displayName, fedAt: other.fedAt)
                        ))
                }
            }
            if !recent.isEmpty {
                var problem = Problem(
                    status: 409, code: .recentlyFed, title: "Fed a moment ago",
                    detail: recent.map(\.sentence).joined(separator: " ") + " Log anyway?",
                    errors: recent.map { FieldError(field: "logAnyway", message: $0.sentence) })
                problem.recentFeeds = recent.map(\.feed)
                throw problem
            }
        }
        var householdOf: [Pet.ID: [User.ID]] = [:]
        for feed in fresh where householdOf[feed.care.id] == nil {
            householdOf[feed.care.id] = try await household(of: feed.care.pet, on: db)
        }
        let households = householdOf
        // Through the writer of the paths that write most (`SQLWrites`): feeds come in bursts
        // (a household's evening round), and on SQLite a Fluent transaction that reads the
        // stock before writing fails at once when another writer committed in between.
        let (created, events) = try await writes.transaction(on: db) { statements -> ([UUID: FeedRecord], [StoredRealtimeEvent]) in
            var created: [UUID: FeedRecord] = [:]
            var events: [StoredRealtimeEvent] = []
            // The foods' rows in the order of their ids: two batches never wait on each other.
            for feed in fresh.sorted(by: { $0.food.id!.description < $1.food.id!.description }) {
                let (old, alert) = try await self.adjustStock(of: try feed.food.requireID(), in: statements) { stock in
                    stock.map { $0 - (self.feeding.taken(units: feed.units, from: $0) ?? 0) }
                }
                let record = FeedRecord()
                record.id = .timeOrdered(at: now)
                record.$pet.id = feed.care.id
                record.$food.id = try feed.food.requireID()
                record.foodName = feed.food.name
                record.kind = feed.food.kind
                record.$fedBy.id = me
                record.clientID = feed.draft.clientID
                record.fedAt = feed.fedAt
                record.activity = ActivityCursor<Care.Feed>.activity(at: feed.fedAt)
                record.units = feed.units
                record.gapShare = self.feeding.gapShare(units: feed.units, kind: feed.food.foodKind, usualUnits: feed.food.usualUnits)
                record.kcal = self.energy.kilocalories(units: feed.units, kind: feed.food.foodKind, kcalPerAmount: feed.food.kcal)
                record.takenUnits = self.feeding.taken(units: feed.units, from: old)
                record.createdAt = now
                try await statements.run(
                    """
                    INSERT INTO "feeds" ("id", "pet_id", "food_id", "food_name", "kind", "fed_by_id", "client_id", "fed_at", "activity",
                        "units", "gap_share", "kcal", "taken_units", "created_at")
                    VALUES (\(bind: record.id), \(bind: record.$pet.id), \(bind: record.$food.id), \(bind: record.foodName), \(bind: record.kind),
                        \(bind: me), \(bind: record.clientID), \(bind: record.fedAt), \(bind: record.activity), \(bind: record.units),
                        \(bind: record.gapShare), \(bind: record.kcal), \(bind: record.takenUnits), \(bind: now))
                    """)
                created[feed.draft.clientID] = record
                let household = households[feed.care.id] ?? []
                events += try await self.announce(alert, food: feed.food, pet: feed.care.pet, by: me, to: household, in: statements)
                let value = try self.value(of: record, fedBy: user, days: feed.care.days)
                events += try await self.realtime.record(.feed(value), for: household, in: statements)
            }
            // The feeding reminders follow each pet's latest feed, and the ones still waiting
            // are answered; the others hear who fed.
            var fedPets: [(care: PetCare, household: [User.ID])] = []
            for feed in fresh where !fedPets.contains(where: { $0.care.id == feed.care.id }) {
                fedPets.append((feed.care, households[feed.care.id] ?? []))
                try await self.reminders.feedsChanged(pet: feed.care.id, gap: feed.care.gap, in: statements)
                try await self.reminders.acted(.feeding, pet: feed.care.id, in: statements)
            }
            events += try await self.announceFed(fedPets, by: user, in: statements)
            return (created, events)
        }
        await realtime.deliver(events)
        return try prepared.map { feed in
            if let earlier = feed.earlier { return (try value(of: earlier, fedBy: user, days: feed.care.days), false) }
            guard let record = created[feed.draft.clientID] else { throw Problem.notFound }
            return (try value(of: record, fedBy: user, days: feed.care.days), true)
        }
    }

    /// Another member's feed of this pet within the window around `time`, with who fed.
    private func recentFeed(of pet: Pet.ID, near time: Date, notBy me: User.ID, on db: any Database) async throws -> FeedRecord? {
        let window = feeding.recentFeedWindow
        return try await FeedRecord.query(on: db).filter(\.$pet.$id == pet)
            .filter(\.$activity >= ActivityCursor<Care.Feed>.activity(at: time.addingTimeInterval(-window)))
            .filter(\.$activity <= ActivityCursor<Care.Feed>.activity(at: time.addingTimeInterval(window)))
            .group(.or) { $0.filter(\.$fedBy.$id != me).filter(\.$fedBy.$id == nil) }
            .sort(\.$activity, .descending).with(\.$fedBy).first()
    }

    /// "Sam fed Miso 12 minutes ago."
    private func sentence(_ feed: FeedRecord, pet: String, now: Date) -> String {
        let minutes = max(0, Int(now.timeIntervalSince(feed.fedAt) / 60))
        let when = minutes == 0 ? "just now" : minutes == 1 ? "a minute ago" : "\(minutes) minutes ago"
        return "\(feed.fedBy?.displayName ?? "Someone") fed \(pet) \(when)."
    }

    /// The food "Mark as fed" gives: the one of the pet's last feed while it exists, else the
    /// pet's first food.
    func usualFood(of pet: Pet.ID, on db: any Database) async throws -> FoodRecord? {
        let last = try await pets.reads.rows(
            """
            SELECT * FROM "foods" WHERE "id" = (SELECT "food_id" FROM "feeds" WHERE "pet_id" = \(bind: pet) AND "food_id" IS NOT NULL
                ORDER BY "activity" DESC LIMIT 1)
            """, on: db)
        if let row = last.first { return try FoodRecord(row: row) }
        return try await foodRecords(of: [pet], on: db).first
    }

    /// One of the pet's foods; nil for a food of another pet, as for one that does not exist.
    private func foodRecord(_ id: Care.Food.ID, of pet: Pet.ID, on db: any Database) async throws -> FoodRecord? {
        try await pets.reads.rows(
            #"SELECT * FROM "foods" WHERE "id" = \#(bind: id) AND "pet_id" = \#(bind: pet)"#, on: db
        ).first.map { try FoodRecord(row: $0) }
    }

    /// "Sam fed Miso and Tofu", once per member of the pets' households but the one who fed.
    private func announceFed(_ fed: [(care: PetCare, household: [User.ID])], by user: UserRecord, in statements: any SQLWriteStatements) async throws
        -> [StoredRealtimeEvent]
    {
        let me = try user.requireID()
        var petsOf: [User.ID: [PetCare]] = [:]
        for (care, household) in fed {
            for member in household where member != me { petsOf[member, default: []].append(care) }
        }
        // Members who share the same pets hear the same words, told together.
        var membersOf: [[Pet.ID]: [User.ID]] = [:]
        for (member, cares) in petsOf { membersOf[cares.map(\.id), default: []].append(member) }
        var events: [StoredRealtimeEvent] = []
        for (_, members) in membersOf.sorted(by: { $0.key.description < $1.key.description }) {
            let cares = petsOf[members[0]] ?? []
            let list = cares.map(\.pet.name)
            let names = list.count == 1 ? list[0] : list.dropLast().joined(separator: ", ") + " and " + list[list.count - 1]
            let first = cares[0]
            let draft = NotificationDraft(
                from: me, kind: .fed, title: "\(user.displayName) fed \(names)",
                body: "No need to feed \(names) now: the next feed is on the Care tab.",
                pet: first.id, mayPush: reminders.pushAtMostOncePerCooldown(pet: first.id))
            events += try await notifications.notify(draft, to: members, in: statements)
        }
        return events
    }

    /// Changes a feed: its author while they may log, or the pet's owner. A new food or portion
    /// gives back what the feed took and takes the new portion; a new time alone leaves the
    /// stock as it is. The feed's row is claimed first by a write conditional on what was read,
    /// so two changes at once cannot both give back what it took (the second is run again).
    func updateFeed(
        _ user: UserRecord, feed id: Care.Feed.ID, food newFood: Care.Food.ID?, portion: Portion?, fedAt: Date?, on db: any Database
    ) async throws -> FeedValue {
        try await answeringRacesAsSequential {
            try await updateFeedOnce(user, feed: id, food: newFood, portion: portion, fedAt: fedAt, on: db)
        }
    }

    private func updateFeedOnce(
        _ user: UserRecord, feed id: Care.Feed.ID, food newFood: Care.Food.ID?, portion: Portion?, fedAt: Date?, on db: any Database
    ) async throws -> FeedValue {
        let (feed, care) = try await feed(user, id: id, on: db)
        let now = clock.now()
        if let fedAt { try feeding.checkFeedTime(fedAt, now: now) }
        // What was read, which the write below must still find.
        let (oldFood, oldUnits, oldTaken, oldActivity) = (feed.$food.id, feed.units, feed.takenUnits, feed.activity)
        let changesPortion = (newFood != nil && newFood != oldFood) || portion != nil
        var food: FoodRecord?
        if changesPortion {
            guard let foodID = newFood ?? oldFood,
                let found = try await FoodRecord.query(on: db).filter(\.$id == foodID).filter(\.$pet.$id == care.id).first()
            else { throw Problem.invalidField("foodId", "is not one of this pet's foods") }
            let units =
                try portion.map { portion throws(Problem) in try feeding.units(of: portion, kind: found.foodKind) }
                ?? (foodID == oldFood && found.foodKind == feed.foodKind ? oldUnits : found.usualUnits)
            feed.$food.id = foodID
            feed.foodName = found.name
            feed.kind = found.kind
            feed.units = units
            feed.gapShare = feeding.gapShare(units: units, kind: found.foodKind, usualUnits: found.usualUnits)
            feed.kcal = energy.kilocalories(units: units, kind: found.foodKind, kcalPerAmount: found.kcal)
            food = found
        }
        if let fedAt {
            feed.fedAt = fedAt
            feed.activity = ActivityCursor<Care.Feed>.activity(at: fedAt)
        }
        let household = try await household(of: care.pet, on: db)
        let me = try user.requireID()
        let chosen = food
        let events = try await db.transaction { tx in
            var events: [StoredRealtimeEvent] = []
            var alert: StockAlert?
            if let food = chosen {
                let foodID = try food.requireID()
                // Give back, then take; the two foods' rows in the order of their ids, so that two
                // changes in opposite directions never wait on each other.
                var taken: Int?
                let giveBack = { (tx: any Database) in
                    if let oldTaken, let oldFood { try await self.adjustStock(of: oldFood, on: tx) { stock in stock.map { $0 + oldTaken } } }
                }
                let take = { (tx: any Database) in
                    let (old, newAlert) = try await self.adjustStock(of: foodID, on: tx) { stock in
                        stock.map { $0 - (self.feeding.taken(units: feed.units, from: $0) ?? 0) }
                    }
                    taken = self.feeding.taken(units: feed.units, from: old)
                    alert = newAlert
                }
                if let oldFood, oldFood.description > foodID.description {
                    try await take(tx)
                    try await giveBack(tx)
                } else {
                    try await giveBack(tx)
                    try await take(tx)
                }
                feed.takenUnits = taken
            }
            let claimed = try await tx.sql.raw(
                """
                UPDATE "feeds" SET "food_id" = \(bind: feed.$food.id), "food_name" = \(bind: feed.foodName), "kind" = \(bind: feed.kind),
                    "units" = \(bind: feed.units), "gap_share" = \(bind: feed.gapShare), "kcal" = \(bind: feed.kcal),
                    "taken_units" = \(bind: feed.takenUnits), "fed_at" = \(bind: feed.fedAt), "activity" = \(bind: feed.activity)
                WHERE "id" = \(bind: id) AND "units" = \(bind: oldUnits) AND "activity" = \(bind: oldActivity)
                    AND COALESCE("taken_units", -1) = \(bind: oldTaken ?? -1)
                    AND COALESCE("food_id", \(bind: id)) = \(bind: oldFood?.rawValue ?? id.rawValue)
                RETURNING "id"
                """
            ).all()
            guard !claimed.isEmpty else { throw LostRace() }
            if let food = chosen { events += try await self.announce(alert, food: food, pet: care.pet, by: me, to: household, on: tx) }
            let fedBy = try await feed.$fedBy.get(on: tx)
            events += try await self.realtime.record(.feed(try self.value(of: feed, fedBy: fedBy, days: care.days)), for: household, on: tx)
            try await self.reminders.feedsChanged(pet: care.id, gap: care.gap, on: tx)
            return events
        }
        await realtime.deliver(events)
        return try value(of: feed, fedBy: try await feed.$fedBy.get(on: db), days: care.days)
    }

    /// Deletes a feed (its author while they may log, or the pet's owner); its food gets back
    /// exactly what the feed took, read from the row the deletion removed (two deletions at once
    /// give it back once).
    func deleteFeed(_ user: UserRecord, feed id: Care.Feed.ID, on db: any Database) async throws {
        let (_, care) = try await feed(user, id: id, on: db)
        let household = try await household(of: care.pet, on: db)
        let events = try await db.transaction { tx in
            guard
                let removed = try await tx.sql.raw(
                    #"DELETE FROM "feeds" WHERE "id" = \#(bind: id) RETURNING "food_id", "taken_units""#
                ).first()
            else { throw Problem.notFound }
            if let taken = try removed.decode(column: "taken_units", as: Int?.self),
                let food = try removed.decode(column: "food_id", as: Care.Food.ID?.self)
            {
                try await self.adjustStock(of: food, on: tx) { stock in stock.map { $0 + taken } }
            }
            try await self.reminders.feedsChanged(pet: care.id, gap: care.gap, on: tx)
            return try await self.realtime.record(.feedDeleted(feed: id, pet: care.id), for: household, on: tx)
        }
        await realtime.deliver(events)
    }

    /// A feed the member may change. One of a pet they cannot see is not found; one they may
    /// see but not change, 403.
    private func feed(_ user: UserRecord, id: Care.Feed.ID, on db: any Database) async throws -> (FeedRecord, PetCare) {
        guard let feed = try await FeedRecord.find(id, on: db) else { throw Problem.notFound }
        let care = try await context(user, pet: feed.$pet.id, need: \.canView, on: db)
        guard care.access.canChangeFeed(loggedByMe: feed.$fedBy.id == user.id) else {
            throw Problem(
                status: 403, code: .forbidden, title: "Not your feed",
                detail: "Only the member who logged a feed, or the pet's owner, may change it.")
        }
        return (feed, care)
    }

    func value(of feed: FeedRecord, fedBy: UserRecord?, days: HouseholdDays, firstOfDay: Bool = false) throws -> FeedValue {
        FeedValue(
            id: try feed.requireID(), clientID: feed.clientID, pet: feed.$pet.id, food: feed.$food.id, foodName: feed.foodName,
            kind: feed.foodKind, units: feed.units, kcal: feed.kcal, fedAt: feed.fedAt, fedBy: feed.$fedBy.id,
            fedByUsername: fedBy?.username, fedByDisplayName: fedBy?.displayName, day: days.day(of: feed.fedAt),
            firstOfDay: firstOfDay, createdAt: feed.createdAt)
    }

    /// The pet's log, newest first, a page at a time; each feed with its household day and
    /// whether it was that day's first.
    func history(_ user: UserRecord, pet id: Pet.ID, limit: Int, cursor: String?, on db: any Database) async throws
        -> (items: [FeedValue], next: ActivityCursor<Care.Feed>?)
    {
        let care = try await context(user, pet: id, need: \.canView, on: db)
        let after = try cursor.map(ActivityCursor<Care.Feed>.init(text:))
        let rows = try await FeedRecord.query(on: db).filter(\.$pet.$id == id).newestFirst(after: after, activity: \.$activity)
            .with(\.$fedBy).limit(limit + 1).all()
        let page = Array(rows.prefix(limit))
        let firsts = try await firstFeeds(of: id, on: Set(page.map { care.days.day(of: $0.fedAt) }), days: care.days, on: db)
        let items = try page.map { try value(of: $0, fedBy: $0.fedBy, days: care.days, firstOfDay: firsts.contains(try $0.requireID())) }
        let next = rows.count > limit ? page.last.map { ActivityCursor<Care.Feed>(activity: $0.activity, id: $0.id!) } : nil
        return (items, next)
    }

    /// The first feed of each of these days (the oldest, the id breaking a tie).
    private func firstFeeds(of pet: Pet.ID, on days: Set<LocalDate>, days household: HouseholdDays, on db: any Database) async throws
        -> Set<Care.Feed.ID>
    {
        var firsts: Set<Care.Feed.ID> = []
        for day in days {
            let range = household.range(of: day)
            if let first = try await FeedRecord.query(on: db).filter(\.$pet.$id == pet)
                .filter(\.$activity >= ActivityCursor<Care.Feed>.activity(at: range.lowerBound))
                .filter(\.$activity < ActivityCursor<Care.Feed>.activity(at: range.upperBound))
                .sort(\.$activity).sort(\.$id).first()
            {
                firsts.insert(try first.requireID())
            }
        }
        return firsts
    }

    /// Every feed of the pet, oldest first, for the CSV download (a year of a pet's feeds is a
    /// few thousand rows).
    func log(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> (PetCare, [FeedValue]) {
        let care = try await context(user, pet: id, need: \.canView, on: db)
        let rows = try await FeedRecord.query(on: db).filter(\.$pet.$id == id).sort(\.$activity).sort(\.$id).with(\.$fedBy).all()
        let firsts = care.days.firstOfDay(rows.map(\.fedAt))
        return (care, try zip(rows, firsts).map { try value(of: $0, fedBy: $0.fedBy, days: care.days, firstOfDay: $1) })
    }

    /// The feeds this member logged for other members' pets, oldest first (the export).
    func feedsLogged(by user: UserRecord, on db: any Database) async throws -> [FeedValue] {
        let me = try user.requireID()
        let rows = try await FeedRecord.query(on: db).filter(\.$fedBy.$id == me)
            .join(PetRecord.self, on: \FeedRecord.$pet.$id == \PetRecord.$id).filter(PetRecord.self, \.$owner.$id != me)
            .sort(\.$activity).all()
        var days: [Pet.ID: HouseholdDays] = [:]
        var values: [FeedValue] = []
        for row in rows {
            if days[row.$pet.id] == nil { days[row.$pet.id] = try await Self.householdDays(of: row.$pet.id, on: db) }
            values.append(try value(of: row, fedBy: user, days: days[row.$pet.id]!))
        }
        return values
    }

    // MARK: Weights

    func weights(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [WeightValue] {
        _ = try await context(user, pet: id, need: \.canView, on: db)
        return try await WeightRecord.query(on: db).filter(\.$pet.$id == id).sort(\.$onDate).all().compactMap(WeightValue.init)
    }

    /// Logs the pet's weight on a day (today in the household's time zone by default); a day's
    /// second weight replaces its first.
    func logWeight(_ user: UserRecord, pet id: Pet.ID, kilograms: Double, on day: LocalDate?, on db: any Database) async throws
        -> WeightValue
    {
        let care = try await context(user, pet: id, need: \.canLog, on: db)
        let today = care.days.day(of: clock.now())
        let kilograms = try energy.checkWeight(kilograms)
        let day = day ?? today
        guard day <= today, day >= today.adding(days: -3_660) else { throw Problem.invalidField("date", "must be today or in the last ten years") }
        let record = try await answeringRacesAsSequential {
            let record =
                try await WeightRecord.query(on: db).filter(\.$pet.$id == id).filter(\.$onDate == day.description).first()
                ?? WeightRecord()
            if record.id == nil {
                record.id = .init()
                record.$pet.id = id
                record.onDate = day.description
            }
            record.kilograms = kilograms
            record.createdAt = clock.now()
            try await record.save(on: db)
            return record
        }
        guard let value = WeightValue(record) else { throw Problem.notFound }
        try await announceChange(.weight, of: care, on: db)
        return value
    }

    // MARK: Summary

    /// The pet's care at a glance (`CareSummaryValue`).
    func summary(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> CareSummaryValue {
        try await summary(of: try await context(user, pet: id, need: \.canView, on: db), on: db)
    }

    func summary(of care: PetCare, on db: any Database) async throws -> CareSummaryValue {
        try await summaries(of: [care], on: db)[0]
    }

    /// Several pets' care at a glance, in the order given, with the same few queries whatever
    /// their number: the Care tab of a household of ten pets read each pet's feeds, foods,
    /// weight and photo one pet at a time, a hundred and twenty statements.
    func summaries(of cares: [PetCare], on db: any Database) async throws -> [CareSummaryValue] {
        guard !cares.isEmpty else { return [] }
        let now = clock.now()
        let ids = cares.map(\.id)
        let recent = try await recentFeeds(of: cares, now: now, on: db)
        let foods = Dictionary(grouping: try await foodRecords(of: ids, on: db), by: \.$pet.id)
        let weights = try await latestWeights(of: ids, on: db)
        let cards = try await pets.cards(ofPets: ids, on: db)
        var summaries: [CareSummaryValue] = []
        for care in cares {
            let feeds = recent[care.id] ?? RecentFeeds()
            summaries.append(
                try summary(
                    of: care, recent: feeds, foods: foods[care.id] ?? [], kilograms: weights[care.id] ?? care.pet.weightKg,
                    photo: cards[care.id]?.photos.first, now: now))
        }
        return summaries
    }

    /// Each pet's latest weight in kilograms, for those with one.
    private func latestWeights(of pets: [Pet.ID], on db: any Database) async throws -> [Pet.ID: Double] {
        let rows = try await self.pets.reads.rows(
            """
            SELECT "pet_id", "kilograms" FROM "pet_weights" AS "latest"
            WHERE "pet_id" IN (\(binds: pets)) AND "on_date" = (SELECT MAX("on_date") FROM "pet_weights" WHERE "pet_id" = "latest"."pet_id")
            """, on: db)
        var weights: [Pet.ID: Double] = [:]
        for row in rows { weights[try row.decode(column: "pet_id", as: Pet.ID.self)] = try row.decode(column: "kilograms", as: Double.self) }
        return weights
    }

    /// One pet's summary from what `summaries` read: its recent feeds, its foods, its weight
    /// and its photo.
    private func summary(
        of care: PetCare, recent: RecentFeeds, foods foodRows: [FoodRecord], kilograms: Double?, photo: PetPhotoRecordValue?, now: Date
    ) throws -> CareSummaryValue {
        let days = care.days
        let today = days.day(of: now)
        let windowStart = today.adding(days: -energy.windowDays)
        let todays = zip(recent.today, days.firstOfDay(recent.today.map(\.fedAt))).map { $0.value(days: days, firstOfDay: $1) }
        var kcalByDay: [LocalDate: Double] = [:]
        var kcalByFood: [Care.Food.ID: Double] = [:]
        if !recent.today.isEmpty { kcalByDay[today] = recent.today.reduce(0) { $0 + $1.kcal } }
        for sum in recent.earlier where sum.day >= windowStart {
            kcalByDay[sum.day, default: 0] += sum.kcal
            if let food = sum.food { kcalByFood[food, default: 0] += sum.kcal }
        }
        let window = kcalByDay.filter { $0.key < today }
        let last = recent.today.last ?? recent.last
        let usage = usage(of: care, from: recent, now: now)
        let foods = try foodRows.map { try value(of: $0, usage: usage) }
        let months = care.pet.birthLocalDate.months(until: today)
        let defaultFactor = energy.defaultFactor(species: care.pet.species, neutered: care.pet.neutered, ageInMonths: months)
        let factor = care.settings?.energyFactor ?? defaultFactor
        let rer = kilograms.map(energy.restingEnergy(kilograms:))
        let ideal = rer.flatMap { rer in factor.map { $0 * rer } }
        let mainFood = kcalByFood.max { $0.value < $1.value }.flatMap { main in foods.first { $0.id == main.key } }
        let insight = kilograms.flatMap { kilograms in
            mainFood.flatMap { food in
                energy.insight(
                    InsightInput(
                        petName: care.pet.name, kilograms: kilograms, idealKilocalories: ideal, kcalByDay: window,
                        mainFood: (food.name, food.kind, food.kcal)))
            }
        }
        let next = feeding.nextFeed(lastFedAt: last?.fedAt, lastGapShare: last?.gapShare ?? 1, gap: care.gap)
        return CareSummaryValue(
            pet: care.id, petName: care.pet.name, species: care.pet.species, photo: photo, timeZone: care.timeZone,
            ownTimeZone: care.settings?.timeZone, feedingGapHours: care.gap / 3_600,
            vaccinationReminderDays: care.settings?.vaccinationLeadDays ?? ReminderRules.defaultVaccinationLeadDays,
            dietaryNotes: care.settings?.dietaryNotes,
            family: try care.family.map { (try $0.requireID(), $0.name) }, nextFeedAt: next, state: feeding.state(next: next, now: now),
            lastFeed: last.map { $0.value(days: days) }, today: todays, foods: foods,
            calories: CaloriesValue(
                today: kcalByDay[today] ?? 0, averagePerFeedingDay: energy.averageIntake(kcalByDay: window), feedingDays: window.count,
                windowDays: energy.windowDays, ideal: ideal, restingEnergy: rer, factor: factor,
                factorIsDefault: care.settings?.energyFactor == nil, kilograms: kilograms,
                byDay: (0...energy.windowDays).map { offset in
                    let day = windowStart.adding(days: offset)
                    return (day, kcalByDay[day] ?? 0)
                }),
            insight: insight, access: care.access)
    }

    /// Every pet whose care the member sees, at a glance: the Care tab.
    func dashboard(_ user: UserRecord, on db: any Database) async throws -> [CareSummaryValue] {
        try await summaries(of: try await contexts(user, pets: try await caredPets(of: user, on: db), on: db), on: db)
    }

    /// `context` for several pets at once, with the same few queries whatever their number:
    /// those the member may see among `ids`, in that order (the others left out, as `context`
    /// answers them "not found").
    func contexts(_ user: UserRecord, pets ids: [Pet.ID], on db: any Database) async throws -> [PetCare] {
        guard !ids.isEmpty else { return [] }
        let me = try user.requireID()
        let reads = pets.reads
        var records: [Pet.ID: PetRecord] = [:]
        var ownerZones: [Pet.ID: String] = [:]
        // The owner's own time zone beside each pet, for pets no family or setting places.
        for row in try await reads.rows(
            #"""
            SELECT "pets".*, "users"."time_zone" AS "owner_time_zone" FROM "pets" JOIN "users" ON "users"."id" = "pets"."owner_id"
            WHERE "pets"."id" IN (\#(binds: ids))
            """#, on: db)
        {
            let pet = try PetRecord(row: row)
            let id = try pet.requireID()
            records[id] = pet
            ownerZones[id] = try row.decode(column: "owner_time_zone", as: String?.self)
        }
        guard !records.isEmpty else { return [] }
        // As `PetService.role` decides it for one pet: its owner, or an active guardian.
        let guarded = Set(
            try await reads.rows(
                """
                SELECT "pet_id" FROM "pet_guardians" WHERE "user_id" = \(bind: me)
                    AND "status" = \(bind: GuardianRecord.Status.active.rawValue) AND "pet_id" IN (\(binds: ids))
                """, on: db
            ).map { try $0.decode(column: "pet_id", as: Pet.ID.self) })
        // As `FamilyService.sharing` decides it: the family each pet is shared with, and the
        // member's role in it (none: not a member).
        var shares: [Pet.ID: (family: FamilyRecord, role: FamilyRole?)] = [:]
        for row in try await reads.rows(
            """
            SELECT "family_pets"."pet_id", \(unsafeRaw: FamilyRecord.prefixedColumns), "family_members"."role" FROM "family_pets"
                JOIN "families" ON "families"."id" = "family_pets"."family_id"
                LEFT JOIN "family_members" ON "family_members"."family_id" = "family_pets"."family_id"
                    AND "family_members"."user_id" = \(bind: me)
            WHERE "family_pets"."pet_id" IN (\(binds: ids))
            """, on: db)
        {
            let role = try row.decode(column: "role", as: String?.self).map { FamilyRole(rawValue: $0) ?? .viewer }
            shares[try row.decode(column: "pet_id", as: Pet.ID.self)] = (try FamilyRecord(row: row), role)
        }
        var settings: [Pet.ID: CareSettingsRecord] = [:]
        for row in try await reads.rows(#"SELECT * FROM "care_settings" WHERE "pet_id" IN (\#(binds: ids))"#, on: db) {
            let record = try CareSettingsRecord(row: row)
            settings[record.$pet.id] = record
        }
        return ids.compactMap { id -> PetCare? in
            guard let pet = records[id] else { return nil }
            let petRole: PetRole? = pet.$owner.id == me ? .owner : guarded.contains(id) ? .guardian : nil
            let share = shares[id]
            let access = CareAccess(petRole: petRole, familyRole: share?.role)
            guard access.canView else { return nil }
            return PetCare(pet: pet, access: access, family: share?.family, settings: settings[id], ownerTimeZone: ownerZones[id])
        }
    }
}

extension WeightValue {
    init?(_ record: WeightRecord) {
        guard let id = record.id, let day = LocalDate(record.onDate) else { return nil }
        self.init(id: id, day: day, kilograms: record.kilograms)
    }
}

/// A pet's recent feeds as the summaries use them (`CareService.recentFeeds`).
struct RecentFeeds: Sendable {
    /// The feeds of one day and food, summed.
    struct DaySum: Sendable {
        var day: LocalDate
        var food: Care.Food.ID?
        var kcal: Double
        var units: Int
    }

    /// Today's feeds in the household's time zone, oldest first.
    var today: [FeedRow] = []
    /// The days before today, summed by day and food.
    var earlier: [DaySum] = []
    /// The latest feed of a pet not fed today, however old (`today.last` otherwise).
    var last: FeedRow?
}

/// A feed as the summaries read it, column by column, with who fed by name (`nameFeeders`)
/// (`SQLRowReadable`): Fluent's decoding (reflection over every property of every row) was
/// most of a Care tab's time when it read its pets' feeds one by one. `FeedValue` is the same
/// feed as the API and pages show it, with its household's day.
struct FeedRow: SQLRowReadable, Sendable {
    var id: Care.Feed.ID
    var pet: Pet.ID
    var food: Care.Food.ID?
    var foodName: String
    var kind: FoodKind
    var fedBy: User.ID?
    var fedByUsername: String?
    var fedByDisplayName: String?
    var clientID: UUID
    var fedAt: Date
    var activity: Int64
    var units: Int
    var gapShare: Double
    var kcal: Double
    var createdAt: Date

    static let columns = """
        "id", "pet_id", "food_id", "food_name", "kind", "fed_by_id", "client_id", "fed_at", "activity", "units", "gap_share", \
        "kcal", "created_at"
        """

    init<Row: SQLRow>(reading row: Row) throws {
        id = try row.decode(column: "id", as: Care.Feed.ID.self)
        pet = try row.decode(column: "pet_id", as: Pet.ID.self)
        food = try row.decode(column: "food_id", as: Care.Food.ID?.self)
        foodName = try row.decode(column: "food_name", as: String.self)
        kind = FoodKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .wet
        fedBy = try row.decode(column: "fed_by_id", as: User.ID?.self)
        clientID = try row.decode(column: "client_id", as: UUID.self)
        fedAt = try row.decode(column: "fed_at", as: Date.self)
        activity = try row.decode(column: "activity", as: Int64.self)
        units = try row.decode(column: "units", as: Int.self)
        gapShare = try row.decode(column: "gap_share", as: Double.self)
        kcal = try row.decode(column: "kcal", as: Double.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
    }

    /// As `CareService.value(of:fedBy:days:firstOfDay:)` makes it from a record.
    func value(days: HouseholdDays, firstOfDay: Bool = false) -> FeedValue {
        FeedValue(
            id: id, clientID: clientID, pet: pet, food: food, foodName: foodName, kind: kind, units: units, kcal: kcal, fedAt: fedAt,
            fedBy: fedBy, fedByUsername: fedByUsername, fedByDisplayName: fedByDisplayName, day: days.day(of: fedAt),
            firstOfDay: firstOfDay, createdAt: createdAt)
    }
}
