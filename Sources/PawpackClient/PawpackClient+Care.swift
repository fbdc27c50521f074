import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Care: families that share pets, foods and their stock, feeds, weights, calories. A pet's
// care is its owner's, its guardians' and its family's; anyone else gets `not_found`.

extension PawpackClient {
    // MARK: Reading

    /// Every pet whose care you see, at a glance (the Care tab).
    public func careDashboard() async throws -> [CareSummary] {
        try await signedIn { try await client.getCareDashboard().ok.body.json.items.map(CareSummary.init) }
    }

    public func care(of pet: Pet.ID) async throws -> CareSummary {
        try await signedIn { try CareSummary(try await client.getPetCare(path: .init(petId: pet.description)).ok.body.json) }
    }

    /// Changes the pet's feeding gap, time zone, notes or energy factor (owner and guardians).
    @discardableResult
    public func updateCare(of pet: Pet.ID, _ change: CareSettingsChange) async throws -> CareSummary {
        try await signedIn {
            let body = Components.Schemas.CareSettingsInput(
                feedingGapHours: change.feedingGapHours, timeZone: change.timeZone, dietaryNotes: change.dietaryNotes,
                energyFactor: change.energyFactor, vaccinationReminderDays: change.vaccinationReminderDays,
                defaultEnergyFactor: change.defaultEnergyFactor ? true : nil)
            return try CareSummary(try await client.updatePetCare(path: .init(petId: pet.description), body: .json(body)).ok.body.json)
        }
    }

    // MARK: Foods

    public func foods(of pet: Pet.ID) async throws -> [Food] {
        try await signedIn { try await client.listFoods(path: .init(petId: pet.description)).ok.body.json.items.map(Food.init) }
    }

    /// Adds a food (a name and a kind are required).
    public func addFood(to pet: Pet.ID, _ food: FoodInput) async throws -> Food {
        try await signedIn {
            let body = Components.Schemas.FoodInput(
                name: food.name ?? "", kind: food.kind == .dry ? .dry : .wet, kcal: food.kcal, packetsPerBox: food.packetsPerBox,
                packetsPerBag: food.packetsPerBag, usualPortion: food.usualPortion?.dto, lowStockAt: food.lowStockAt)
            return try Food(try await client.addFood(path: .init(petId: pet.description), body: .json(body)).created.body.json)
        }
    }

    @discardableResult
    public func updateFood(_ food: Food.ID, _ change: FoodInput) async throws -> Food {
        try await signedIn {
            let body = Components.Schemas.FoodUpdate(
                name: change.name, kcal: change.kcal, packetsPerBox: change.packetsPerBox, packetsPerBag: change.packetsPerBag,
                usualPortion: change.usualPortion?.dto, lowStockAt: change.lowStockAt)
            return try Food(try await client.updateFood(path: .init(foodId: food.description), body: .json(body)).ok.body.json)
        }
    }

    /// Deletes a food; its feeds stay in the log with its name.
    public func deleteFood(_ food: Food.ID) async throws {
        try await signedIn { _ = try await client.deleteFood(path: .init(foodId: food.description)).noContent }
    }

    /// Says what is left, or adds a purchase.
    @discardableResult
    public func updateStock(of food: Food.ID, _ update: StockUpdate) async throws -> Food {
        try await signedIn {
            let body: Components.Schemas.StockChange
            switch update {
            case .set(let amount, let unit): body = .init(set: amount, unit: try same(unit, as: Components.Schemas.StockChange.UnitPayload.self))
            case .add(let amount, let unit): body = .init(add: amount, unit: try same(unit, as: Components.Schemas.StockChange.UnitPayload.self))
            }
            return try Food(try await client.changeStock(path: .init(foodId: food.description), body: .json(body)).ok.body.json)
        }
    }

    // MARK: Feeds

    /// Logs a feed. Fails with `recently_fed` when another member fed the pet in the last half
    /// hour (its `recentFeeds` say who and when, its `detail` in a sentence: ask, then call
    /// again with `logAnyway`). A lost
    /// answer is retried with the same id, so a feed is never logged twice; after a failure,
    /// calling again with the same `FeedInput` is safe too.
    @discardableResult
    public func logFeed(_ feed: FeedInput, logAnyway: Bool = false) async throws -> Feed {
        try await retryingLostAnswers {
            try await signedIn {
                let body = Components.Schemas.FeedInput(
                    id: feed.id.text(uppercase: false), foodId: feed.food?.description, portion: feed.portion?.dto, fedAt: feed.fedAt,
                    logAnyway: logAnyway ? true : nil)
                switch try await client.logFeed(path: .init(petId: feed.pet.description), body: .json(body)) {
                case .created(let created): return try Feed(try created.body.json)
                case .ok(let ok): return try Feed(try ok.body.json)
                case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
                }
            }
        }
    }

    /// "Mark as fed" on a `feeding` reminder (its push or the inbox): the pet's usual feed,
    /// logged with the notification's id, so answering the same reminder twice logs once.
    @discardableResult
    public func markFed(_ pet: Pet.ID, answering notification: UUID, logAnyway: Bool = false) async throws -> Feed {
        try await logFeed(FeedInput(pet: pet, food: nil, id: notification), logAnyway: logAnyway)
    }

    /// Logs feeds of several pets at once, all or none; retried like ``logFeed(_:logAnyway:)``.
    @discardableResult
    public func logFeeds(_ feeds: [FeedInput], logAnyway: Bool = false) async throws -> [Feed] {
        try await retryingLostAnswers {
            try await signedIn {
                let body = Components.Schemas.FeedBatch(
                    items: feeds.map {
                        .init(
                            // A batch names each food: one without is refused naming `items[i].foodId`.
                            id: $0.id.text(uppercase: false), petId: $0.pet.description, foodId: $0.food?.description ?? "",
                            portion: $0.portion?.dto, fedAt: $0.fedAt)
                    }, logAnyway: logAnyway ? true : nil)
                switch try await client.logFeeds(body: .json(body)) {
                case .created(let created): return try created.body.json.items.map(Feed.init)
                case .ok(let ok): return try ok.body.json.items.map(Feed.init)
                case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
                }
            }
        }
    }

    /// Changes a feed (its author, or the pet's owner); the stock follows.
    @discardableResult
    public func updateFeed(_ feed: Feed.ID, food: Food.ID? = nil, portion: FeedPortion? = nil, fedAt: Date? = nil) async throws -> Feed {
        try await signedIn {
            let body = Components.Schemas.FeedUpdate(foodId: food?.description, portion: portion?.dto, fedAt: fedAt)
            return try Feed(try await client.updateFeed(path: .init(feedId: feed.description), body: .json(body)).ok.body.json)
        }
    }

    /// Deletes a feed (its author, or the pet's owner); its food gets back what it took.
    public func deleteFeed(_ feed: Feed.ID) async throws {
        try await signedIn { _ = try await client.deleteFeed(path: .init(feedId: feed.description)).noContent }
    }

    /// The pet's feeds, newest first.
    public func feeds(of pet: Pet.ID, limit: Int = 50, cursor: String? = nil) async throws -> Page<Feed> {
        try await signedIn {
            let page = try await client.listFeeds(path: .init(petId: pet.description), query: .init(limit: limit, cursor: cursor)).ok.body.json
            return Page(items: try page.items.map(Feed.init), nextCursor: page.nextCursor)
        }
    }

    /// The pet's whole log as CSV, oldest first.
    public func feedLogCSV(of pet: Pet.ID) async throws -> Data {
        try await signedIn {
            let body = try await client.downloadFeeds(path: .init(petId: pet.description)).ok.body.csv
            return try await Data(collecting: body, upTo: 64 << 20)
        }
    }

    // MARK: Weights

    public func weights(of pet: Pet.ID) async throws -> [WeightEntry] {
        try await signedIn { try await client.listWeights(path: .init(petId: pet.description)).ok.body.json.items.map(WeightEntry.init) }
    }

    /// Logs the pet's weight (today in its household's time zone unless `day` is given).
    @discardableResult
    public func logWeight(_ kilograms: Double, of pet: Pet.ID, on day: LocalDate? = nil) async throws -> WeightEntry {
        try await signedIn {
            let body = Components.Schemas.WeightInput(kilograms: kilograms, date: day?.description)
            return try WeightEntry(try await client.logWeight(path: .init(petId: pet.description), body: .json(body)).created.body.json)
        }
    }

    // MARK: Medications

    /// The pet's medication schedules, each with its next dose.
    public func medications(of pet: Pet.ID) async throws -> [Medication] {
        try await signedIn {
            try await client.listMedications(path: .init(petId: pet.description)).ok.body.json.items.map(Medication.init)
        }
    }

    /// Adds a schedule (owner and guardians); the household is reminded of each dose.
    @discardableResult
    public func addMedication(to pet: Pet.ID, _ input: MedicationInput) async throws -> Medication {
        try await signedIn {
            let (every, unit): (Int, Components.Schemas.MedicationInput.UnitPayload) =
                switch input.interval {
                case .hours(let hours): (hours, .hours)
                case .days(let days): (days, .days)
                }
            let body = Components.Schemas.MedicationInput(
                name: input.name, dose: input.dose, every: every, unit: unit, startsAt: input.startsAt, until: input.until?.description)
            return try Medication(try await client.createMedication(path: .init(petId: pet.description), body: .json(body)).created.body.json)
        }
    }

    public func deleteMedication(_ medication: Medication.ID) async throws {
        try await signedIn { _ = try await client.deleteMedication(path: .init(medicationId: medication.description)).noContent }
    }

    /// Marks a dose given (now unless `at`); retried with the same id after a lost answer, so
    /// a dose is never marked twice.
    @discardableResult
    public func giveDose(of medication: Medication.ID, at givenAt: Date? = nil, id: UUID = UUID()) async throws -> Medication {
        try await retryingLostAnswers {
            try await signedIn {
                let body = Components.Schemas.DoseInput(id: id.text(uppercase: false), givenAt: givenAt)
                switch try await client.giveDose(path: .init(medicationId: medication.description), body: .json(body)) {
                case .created(let created): return try Medication(try created.body.json)
                case .ok(let ok): return try Medication(try ok.body.json)
                case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
                }
            }
        }
    }

    // MARK: Families

    public func families() async throws -> [Family] {
        try await signedIn { try await client.listFamilies().ok.body.json.items.map(Family.init) }
    }

    public func family(_ id: Family.ID) async throws -> Family {
        try await signedIn { try Family(try await client.getFamily(path: .init(familyId: id.description)).ok.body.json) }
    }

    /// Creates a family you own, in a time zone (an IANA name: `TimeZone.current.identifier`).
    public func createFamily(name: String, timeZone: String) async throws -> Family {
        try await signedIn {
            try Family(try await client.createFamily(body: .json(.init(name: name, timeZone: timeZone))).created.body.json)
        }
    }

    @discardableResult
    public func updateFamily(_ id: Family.ID, name: String? = nil, timeZone: String? = nil) async throws -> Family {
        try await signedIn {
            try Family(
                try await client.updateFamily(path: .init(familyId: id.description), body: .json(.init(name: name, timeZone: timeZone)))
                    .ok.body.json)
        }
    }

    public func deleteFamily(_ id: Family.ID) async throws {
        try await signedIn { _ = try await client.deleteFamily(path: .init(familyId: id.description)).noContent }
    }

    /// A new six-digit code for the family (owner), good for 7 days.
    public func newInviteCode(for family: Family.ID) async throws -> (code: String, expiresAt: Date) {
        try await signedIn {
            let code = try await client.newFamilyInviteCode(path: .init(familyId: family.description)).ok.body.json
            return (code.code, code.expiresAt)
        }
    }

    /// Asks to join the family whose code this is; its owner answers.
    @discardableResult
    public func joinFamily(code: String) async throws -> FamilyJoinRequest {
        try await signedIn { try FamilyJoinRequest(try await client.joinFamily(body: .json(.init(code: code))).accepted.body.json) }
    }

    public func familyJoinRequests() async throws -> [FamilyJoinRequest] {
        try await signedIn { try await client.listFamilyJoinRequests().ok.body.json.items.map(FamilyJoinRequest.init) }
    }

    /// Accepts a request to join your family, as a member (or a viewer, who only reads).
    public func acceptJoinRequest(_ request: FamilyJoinRequest.ID, as role: FamilyRole = .member) async throws {
        try await signedIn {
            _ = try await client.acceptFamilyJoinRequest(
                path: .init(requestId: request.description), query: .init(role: role == .viewer ? .viewer : .member)
            ).noContent
        }
    }

    /// Declines a request to your family, or withdraws your own.
    public func declineJoinRequest(_ request: FamilyJoinRequest.ID) async throws {
        try await signedIn { _ = try await client.declineFamilyJoinRequest(path: .init(requestId: request.description)).noContent }
    }

    public func changeRole(of username: String, in family: Family.ID, to role: FamilyRole) async throws {
        try await signedIn {
            _ = try await client.changeFamilyRole(
                path: .init(familyId: family.description, username: username), body: .json(.init(role: role == .viewer ? .viewer : .member))
            ).noContent
        }
    }

    /// Removes a member (owner), or leaves (your own username).
    public func removeMember(_ username: String, from family: Family.ID) async throws {
        try await signedIn {
            _ = try await client.removeFamilyMember(path: .init(familyId: family.description, username: username)).noContent
        }
    }

    /// Offers the family to another member (owner); they accept or decline.
    public func offerFamily(_ family: Family.ID, to username: String) async throws {
        try await signedIn {
            _ = try await client.offerFamily(path: .init(familyId: family.description), body: .json(.init(username: username))).noContent
        }
    }

    public func acceptFamilyOffer(_ family: Family.ID) async throws {
        try await signedIn { _ = try await client.acceptFamily(path: .init(familyId: family.description)).noContent }
    }

    /// Declines the offer, or (the owner) withdraws it.
    public func declineFamilyOffer(_ family: Family.ID) async throws {
        try await signedIn { _ = try await client.declineFamily(path: .init(familyId: family.description)).noContent }
    }

    /// Shares your pet's care with a family you belong to.
    public func share(_ pet: Pet.ID, with family: Family.ID) async throws {
        try await signedIn {
            _ = try await client.shareWithFamily(path: .init(familyId: family.description, petId: pet.description)).noContent
        }
    }

    public func unshare(_ pet: Pet.ID, from family: Family.ID) async throws {
        try await signedIn {
            _ = try await client.unshareFromFamily(path: .init(familyId: family.description, petId: pet.description)).noContent
        }
    }

    // MARK: Retries

    /// Runs a write that is idempotent by its id again when its answer was lost on the way
    /// (the network failed after sending): the server answers the first one's result.
    func retryingLostAnswers<T: Sendable>(attempts: Int = 3, _ call: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await call()
            } catch let error as PawpackError {
                guard case .network = error, attempt < attempts else { throw error }
                attempt += 1
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }
}
