import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

extension APIHandler {
    var care: CareService { services.care }

    func getCareDashboard(_ input: Operations.GetCareDashboard.Input) async throws -> Operations.GetCareDashboard.Output {
        let auth = try await authenticated()
        let me = try auth.user.requireID()
        let items = try await care.dashboard(auth.user, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: items.map { Components.Schemas.CareSummary($0, viewer: me, mapping) }))))
    }

    func getPetCare(_ input: Operations.GetPetCare.Input) async throws -> Operations.GetPetCare.Output {
        let auth = try await authenticated()
        let summary = try await care.summary(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.CareSummary(summary, viewer: try auth.user.requireID(), mapping))))
    }

    func updatePetCare(_ input: Operations.UpdatePetCare.Input) async throws -> Operations.UpdatePetCare.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let draft = CareSettingsDraft(
            feedingGapHours: body.feedingGapHours, vaccinationReminderDays: body.vaccinationReminderDays, timeZone: body.timeZone,
            dietaryNotes: body.dietaryNotes, energyFactor: body.energyFactor, defaultEnergyFactor: body.defaultEnergyFactor ?? false)
        let summary = try await care.updateSettings(auth.user, pet: try pathID(input.path.petId), draft: draft, on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.CareSummary(summary, viewer: try auth.user.requireID(), mapping))))
    }

    // MARK: Medications

    var medications: MedicationService { services.medications }

    func listMedications(_ input: Operations.ListMedications.Input) async throws -> Operations.ListMedications.Output {
        let auth = try await authenticated()
        let me = try auth.user.requireID()
        let items = try await medications.list(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: items.map { Components.Schemas.Medication($0, viewer: me) }))))
    }

    func createMedication(_ input: Operations.CreateMedication.Input) async throws -> Operations.CreateMedication.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let until = try body.until.map { text in
            guard let day = LocalDate(text) else { throw Problem.invalidField("until", "must be a date (YYYY-MM-DD)") }
            return day
        }
        let draft = MedicationDraft(
            name: body.name, dose: body.dose, every: body.every, unit: body.unit.rawValue, startsAt: body.startsAt, until: until)
        let medication = try await medications.create(auth.user, pet: try pathID(input.path.petId), draft: draft, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Medication(medication, viewer: try auth.user.requireID()))))
    }

    func deleteMedication(_ input: Operations.DeleteMedication.Input) async throws -> Operations.DeleteMedication.Output {
        let auth = try await authenticated()
        try await medications.delete(auth.user, medication: try pathID(input.path.medicationId), on: auth.request.db)
        return .noContent(.init())
    }

    func giveDose(_ input: Operations.GiveDose.Input) async throws -> Operations.GiveDose.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let (medication, created) = try await medications.give(
            auth.user, medication: try pathID(input.path.medicationId), clientID: try Self.uuid(body.id, field: "id"),
            givenAt: body.givenAt, on: auth.request.db)
        let value = Components.Schemas.Medication(medication, viewer: try auth.user.requireID())
        return created ? .created(.init(body: .json(value))) : .ok(.init(body: .json(value)))
    }

    // MARK: Foods

    func listFoods(_ input: Operations.ListFoods.Input) async throws -> Operations.ListFoods.Output {
        let auth = try await authenticated()
        let foods = try await care.foods(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: foods.map(Components.Schemas.Food.init)))))
    }

    func addFood(_ input: Operations.AddFood.Input) async throws -> Operations.AddFood.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let draft = FoodDraft(
            name: body.name, kind: FoodKind(rawValue: body.kind.rawValue), kcal: body.kcal, packetsPerBox: body.packetsPerBox,
            packetsPerBag: body.packetsPerBag, usualPortion: try body.usualPortion.map { try Portion($0, field: "usualPortion") },
            lowStockAt: body.lowStockAt)
        let food = try await care.addFood(auth.user, pet: try pathID(input.path.petId), draft: draft, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Food(food))))
    }

    func updateFood(_ input: Operations.UpdateFood.Input) async throws -> Operations.UpdateFood.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let draft = FoodDraft(
            name: body.name, kind: nil, kcal: body.kcal, packetsPerBox: body.packetsPerBox, packetsPerBag: body.packetsPerBag,
            usualPortion: try body.usualPortion.map { try Portion($0, field: "usualPortion") }, lowStockAt: body.lowStockAt)
        let food = try await care.updateFood(auth.user, food: try pathID(input.path.foodId), draft: draft, on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Food(food))))
    }

    func deleteFood(_ input: Operations.DeleteFood.Input) async throws -> Operations.DeleteFood.Output {
        let auth = try await authenticated()
        try await care.deleteFood(auth.user, food: try pathID(input.path.foodId), on: auth.request.db)
        return .noContent(.init())
    }

    func changeStock(_ input: Operations.ChangeStock.Input) async throws -> Operations.ChangeStock.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let change: StockChange
        switch (body.set, body.add) {
        case (let set?, nil):
            change = StockChange(action: .set, amount: set, unit: StockChange.Unit(rawValue: body.unit.rawValue) ?? .packets, amountField: "set")
        case (nil, let add?):
            change = StockChange(action: .add, amount: add, unit: StockChange.Unit(rawValue: body.unit.rawValue) ?? .packets, amountField: "add")
        default: throw Problem.invalidField("set", "give either set (what is left) or add (a purchase)")
        }
        let food = try await care.changeStock(auth.user, food: try pathID(input.path.foodId), change: change, on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Food(food))))
    }

    // MARK: Feeds

    func listFeeds(_ input: Operations.ListFeeds.Input) async throws -> Operations.ListFeeds.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 50
        guard (1...100).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 100") }
        let page = try await care.history(
            auth.user, pet: try pathID(input.path.petId), limit: limit, cursor: input.query.cursor, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(.init(body: .json(.init(items: page.items.map { Components.Schemas.Feed($0, viewer: me) }, nextCursor: page.next?.text))))
    }

    func logFeed(_ input: Operations.LogFeed.Input) async throws -> Operations.LogFeed.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let draft = FeedDraft(
            clientID: try Self.uuid(body.id, field: "id"), pet: try pathID(input.path.petId),
            food: try body.foodId.map { try Self.id($0, field: "foodId") }, portion: try body.portion.map { try Portion($0, field: "portion") },
            fedAt: body.fedAt)
        let logged = try await care.logFeeds(auth.user, [draft], logAnyway: body.logAnyway ?? false, on: auth.request.db)[0]
        let feed = Components.Schemas.Feed(logged.feed, viewer: try auth.user.requireID())
        return logged.created ? .created(.init(body: .json(feed))) : .ok(.init(body: .json(feed)))
    }

    func logFeeds(_ input: Operations.LogFeeds.Input) async throws -> Operations.LogFeeds.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let drafts = try body.items.enumerated().map { index, item in
            FeedDraft(
                clientID: try Self.uuid(item.id, field: "items[\(index)].id"),
                pet: try Self.id(item.petId, field: "items[\(index)].petId"), food: try Self.id(item.foodId, field: "items[\(index)].foodId"),
                portion: try item.portion.map { try Portion($0, field: "items[\(index)].portion") }, fedAt: item.fedAt)
        }
        let logged = try await care.logFeeds(auth.user, drafts, logAnyway: body.logAnyway ?? false, on: auth.request.db)
        let me = try auth.user.requireID()
        let list = Components.Schemas.FeedList(items: logged.map { Components.Schemas.Feed($0.feed, viewer: me) })
        return logged.contains(where: \.created) ? .created(.init(body: .json(list))) : .ok(.init(body: .json(list)))
    }

    func updateFeed(_ input: Operations.UpdateFeed.Input) async throws -> Operations.UpdateFeed.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let feed = try await care.updateFeed(
            auth.user, feed: try pathID(input.path.feedId), food: try body.foodId.map { try Self.id($0, field: "foodId") },
            portion: try body.portion.map { try Portion($0, field: "portion") }, fedAt: body.fedAt, on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Feed(feed, viewer: try auth.user.requireID()))))
    }

    func deleteFeed(_ input: Operations.DeleteFeed.Input) async throws -> Operations.DeleteFeed.Output {
        let auth = try await authenticated()
        try await care.deleteFeed(auth.user, feed: try pathID(input.path.feedId), on: auth.request.db)
        return .noContent(.init())
    }

    func downloadFeeds(_ input: Operations.DownloadFeeds.Input) async throws -> Operations.DownloadFeeds.Output {
        let auth = try await authenticated()
        let (pet, feeds) = try await care.log(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .csv(HTTPBody(FeedLogCSV.text(of: feeds, pet: pet.pet.name)))))
    }

    // MARK: Weights

    func listWeights(_ input: Operations.ListWeights.Input) async throws -> Operations.ListWeights.Output {
        let auth = try await authenticated()
        let weights = try await care.weights(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: weights.map(Components.Schemas.Weight.init)))))
    }

    func logWeight(_ input: Operations.LogWeight.Input) async throws -> Operations.LogWeight.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let day = try body.date.map { text in
            guard let day = LocalDate(text) else { throw Problem.invalidField("date", "must be a date like 2026-05-01") }
            return day
        }
        let weight = try await care.logWeight(
            auth.user, pet: try pathID(input.path.petId), kilograms: body.kilograms, on: day, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Weight(weight))))
    }

    // MARK: Helpers

    static func uuid(_ text: String, field: String) throws -> UUID {
        guard let id = UUID(text: text) else { throw Problem.invalidField(field, "must be a UUID") }
        return id
    }

    static func id<Owner>(_ text: String, field: String) throws -> Identifier<Owner> {
        guard let id = Identifier<Owner>(string: text) else { throw Problem.invalidField(field, "must be a UUID") }
        return id
    }
}

/// A pet's log as CSV: one feed a row, oldest first. A cell a spreadsheet would read as a
/// formula (=, +, -, @) is written as text, so a hostile food name cannot run in it.
enum FeedLogCSV {
    static func text(of feeds: [FeedValue], pet: String) -> String {
        var lines = ["pet,day,fed_at,food,portion,unit,kcal,fed_by,first_of_day"]
        for feed in feeds {
            let portion = feed.kind == .wet ? "\(feed.kind.amount(of: feed.units))" : "\(feed.units)"
            lines.append(
                [
                    pet, feed.day.description, StoredRealtimeEvent.timestamp(feed.fedAt), feed.foodName, portion,
                    feed.kind.unitName, String(format: "%.0f", feed.kcal), feed.fedByDisplayName ?? "", feed.firstOfDay ? "yes" : "no",
                ].map(cell).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    static func cell(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension Portion {
    /// The contract's portion: packets or grams, exactly one.
    init(_ portion: Components.Schemas.Portion, field: String) throws {
        switch (portion.packets, portion.grams) {
        case (let packets?, nil): self = .packets(packets)
        case (nil, let grams?): self = .grams(grams)
        default: throw Problem.invalidField(field, "give either packets (wet food) or grams (dry food)")
        }
    }
}

// MARK: Mapping

extension Components.Schemas.Portion {
    init(units: Int, kind: FoodKind) {
        switch kind {
        case .wet: self.init(packets: kind.amount(of: units))
        case .dry: self.init(grams: units)
        }
    }
}

extension Components.Schemas.Food {
    init(_ food: FoodValue) {
        self.init(
            id: food.id.description, petId: food.pet.description, name: food.name, kind: food.kind == .wet ? .wet : .dry,
            unit: food.kind == .wet ? .packets : .grams, kcal: food.kcal, packetsPerBox: food.packetsPerBox,
            packetsPerBag: food.packetsPerBag, usualPortion: .init(units: food.usualUnits, kind: food.kind),
            stock: food.stockUnits.map { food.kind.amount(of: $0) }, lowStockAt: food.lowStockUnits.map { food.kind.amount(of: $0) },
            daysLeft: food.daysLeft)
    }
}

extension Components.Schemas.Feed {
    init(_ feed: FeedValue, viewer: User.ID) {
        self.init(
            id: feed.id.description, clientId: feed.clientID.text(uppercase: false), petId: feed.pet.description,
            foodId: feed.food?.description, foodName: feed.foodName, kind: feed.kind == .wet ? .wet : .dry,
            portion: .init(units: feed.units, kind: feed.kind), kcal: (feed.kcal * 10).rounded() / 10, fedAt: feed.fedAt,
            day: feed.day.description, firstOfDay: feed.firstOfDay,
            fedBy: feed.fedByUsername.map { .init(username: $0, displayName: feed.fedByDisplayName ?? $0) },
            fedByMe: feed.fedBy == viewer, createdAt: feed.createdAt)
    }
}

extension Components.Schemas.Medication {
    init(_ medication: MedicationValue, viewer: User.ID) {
        let (every, unit): (Int, Components.Schemas.Medication.UnitPayload) =
            switch medication.interval {
            case .hours(let hours): (hours, .hours)
            case .days(let days): (days, .days)
            }
        self.init(
            id: medication.id.description, petId: medication.pet.description, name: medication.name, dose: medication.dose,
            every: every, unit: unit, startsAt: medication.startsAt, until: medication.until?.description,
            nextDueAt: medication.nextDueAt,
            doses: medication.doses.map { dose in
                .init(
                    id: dose.id.description, givenAt: dose.givenAt,
                    givenBy: dose.givenByUsername.map { .init(username: $0, displayName: dose.givenByDisplayName ?? $0) },
                    givenByMe: dose.givenBy == viewer)
            },
            createdAt: medication.createdAt)
    }
}

extension Components.Schemas.Weight {
    init(_ weight: WeightValue) {
        self.init(id: weight.id.description, date: weight.day.description, kilograms: weight.kilograms)
    }
}

extension Components.Schemas.CareSummary {
    init(_ summary: CareSummaryValue, viewer: User.ID, _ mapping: APIMapping) {
        let calories = summary.calories
        self.init(
            petId: summary.pet.description, petName: summary.petName, species: .init(rawValue: summary.species.rawValue) ?? .other,
            photoUrl: summary.photo.map { mapping.baseURL + WebPath.media($0.storageKey) }, timeZone: summary.timeZone,
            feedingGapHours: summary.feedingGapHours, vaccinationReminderDays: summary.vaccinationReminderDays,
            dietaryNotes: summary.dietaryNotes, familyId: summary.family?.id.description,
            familyName: summary.family?.name, nextFeedAt: summary.nextFeedAt, state: .init(rawValue: summary.state.rawValue) ?? .due,
            lastFeed: summary.lastFeed.map { .init($0, viewer: viewer) }, today: summary.today.map { .init($0, viewer: viewer) },
            foods: summary.foods.map(Components.Schemas.Food.init),
            calories: .init(
                today: calories.today.rounded(), averagePerFeedingDay: calories.averagePerFeedingDay.map { $0.rounded() },
                feedingDays: calories.feedingDays, windowDays: calories.windowDays, ideal: calories.ideal.map { $0.rounded() },
                restingEnergy: calories.restingEnergy.map { $0.rounded() }, factor: calories.factor,
                factorIsDefault: calories.factorIsDefault, kilograms: calories.kilograms,
                byDay: calories.byDay.map { .init(date: $0.day.description, kcal: $0.kcal.rounded()) }),
            insight: summary.insight.map {
                .init(
                    headline: $0.headline, why: $0.why, change: $0.change, unit: $0.unit == "grams" ? .grams : .packets, basedOnDays: $0.basedOnDays)
            },
            canLog: summary.access.canLog, canManage: summary.access.canManage, canShare: summary.access.canShare)
    }
}

extension RealtimeEventValue {
    /// A feed logged or changed, for the pet's household.
    static func feed(_ feed: FeedValue) -> Self {
        Self(kind: "feed") { recipient, _ in Components.Schemas.Feed(feed, viewer: recipient) }
    }

    /// A feed deleted, for the pet's household.
    static func feedDeleted(feed: Care.Feed.ID, pet: Pet.ID) -> Self {
        Self(kind: "feed_deleted") { _, _ in Components.Schemas.RealtimeFeedDeleted(feedId: feed.description, petId: pet.description) }
    }

    /// Something else of the pet's care changed (its stock, foods, settings or weight), for
    /// the pet's household: open screens read the pet's care again.
    static func careChanged(pet: Pet.ID, what: CareService.Change) -> Self {
        Self(kind: "care_changed") { _, _ in
            Components.Schemas.RealtimeCareChanged(petId: pet.description, what: .init(rawValue: what.rawValue) ?? .settings)
        }
    }
}
