import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// The deck: the dogs a member's dog may like next, ranked, in pages, with each dog's saved
/// preferences. Scoring and filtering are `PawpackCore.Matchmaker`; this service finds the
/// candidates (through `DeckIndex`) and keeps the preferences.
final class DeckService: Sendable {
    let pets: PetService
    let clock: any AppClock
    let matchmaker = Matchmaker()
    let source: DeckSource
    /// The deck's candidate index, derived from dogs and their owners' locations, which Pets'
    /// changes keep in step (`PlaydatesArea`'s `PetFollower`).
    let deckIndex: DeckIndex
    private let logger: Logger

    /// Deck pages per member: each measures distances from where the member is.
    private let deckReads: RateLimiter

    init(pets: PetService, clock: any AppClock, source: DeckSource = .index, deckIndex: DeckIndex, logger: Logger) {
        self.deckIndex = deckIndex
        self.deckReads = RateLimiter(limit: pets.config.deckReadsPerMinute, window: 60)
        self.pets = pets
        self.clock = clock
        self.source = source
        self.logger = logger
    }

    // MARK: The dog acting

    /// The dog the caller swipes for: a dog they own or guard.
    func actingDog(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> PetRecord {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canEdit, on: db)
        return try Self.mustBeDog(pet)
    }

    private static func mustBeDog(_ pet: PetRecord) throws -> PetRecord {
        guard pet.species == .dog else {
            throw Problem(
                status: 409, code: .invalidRequest, title: "Playdates are for dogs",
                detail: "Only dogs have a deck.")
        }
        return pet
    }

    // MARK: Preferences

    func preferences(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> DeckPreferences {
        let pet = try await actingDog(user, pet: id, on: db)
        return try await savedPreferences(of: pet.requireID(), on: db)
    }

    /// A dog's saved preferences, or the defaults.
    func savedPreferences(of petID: Pet.ID, on db: any Database) async throws -> DeckPreferences {
        let json = try await DeckPreferencesRecord.query(on: db).filter(\.$pet.$id == petID).first()?.json
        return DeckSeekerState.preferences(stored: json)
    }

    func savePreferences(
        _ user: UserRecord, pet id: Pet.ID, _ preferences: DeckPreferences,
        on db: any Database
    ) async throws -> DeckPreferences {
        let pet = try await actingDog(user, pet: id, on: db)
        let petID = try pet.requireID()
        let valid = try preferences.validated()
        let json = String(decoding: try JSONEncoder().encode(valid), as: UTF8.self)
        // Saved twice at once: the second finds the first's row and replaces it.
        try await answeringRacesAsSequential {
            let record =
                try await DeckPreferencesRecord.query(on: db).filter(\.$pet.$id == petID).first()
                ?? {
                    let fresh = DeckPreferencesRecord()
                    fresh.$pet.id = petID
                    return fresh
                }()
            record.json = json
            record.updatedAt = clock.now()
            try await record.save(on: db)
        }
        return valid
    }

    // MARK: Deck

    struct Overrides: Equatable, Sendable {
        var maxDistanceKm: Double?
        var minAgeMonths: Int?
        var maxAgeMonths: Int?
    }

    func deck(
        _ user: UserRecord, pet id: Pet.ID, overrides: Overrides, limit: Int, cursor: String?,
        on db: any Database
    ) async throws -> DeckPageValue {
        try await deckReads.take(try user.requireID().description, now: clock.now(), what: "deck pages")
        // The acting dog and its deck state in one query; the same checks as `actingDog` after.
        guard
            let (record, state) = try await DeckSeekerState.read(
                pet: id, actor: user.requireID(), reads: pets.reads,
                on: db)
        else {
            throw Problem.notFound
        }
        _ = try await pets.authorize(user, for: record, need: \.canEdit, on: db)
        let pet = try Self.mustBeDog(record)
        let owner: UserRecord? = try pet.$owner.id == user.requireID() ? user : try await UserRecord.find(pet.$owner.id, on: db)
        guard let owner, let home = owner.location else {
            throw Problem(
                status: 409, code: .locationNeeded, title: "Where are you?",
                detail: "Set your location on your account to see dogs near you.")
        }
        var preferences = state.preferences
        if let km = overrides.maxDistanceKm { preferences.maxDistanceKm = km }
        if let months = overrides.minAgeMonths { preferences.minAgeMonths = months }
        if let months = overrides.maxAgeMonths { preferences.maxAgeMonths = months }
        preferences = try preferences.validated()
        let after = try cursor.map(Self.decodeCursor)
        let seeker = try DeckIndex.deckDog(pet, location: home)
        // The seeker itself needs no entry: no dog is ever its own candidate (`Matchmaker`).
        let excluded = state.swipedPets
        let blocked = state.blockedUsers

        let cards: [DeckCard]
        switch source {
        case .index, .indexTable:
            let started = ContinuousClock.now
            let fromTable = source == .indexTable
            let page = try await matchmaker.indexedDeck(
                seeker: seeker, preferences: preferences, excludedPets: excluded, blockedOwners: blocked,
                today: pets.today, after: after, limit: limit, grid: deckIndex.grid,
                search: deckIndex.search(fromTable: fromTable),
                buckets: deckIndex.buckets(for: seeker, matchmaker: matchmaker)
            ) { ranges, buckets in
                try await self.deckIndex.rows(in: ranges, buckets: buckets, fromTable: fromTable, on: db)
            }
            cards = page.cards
            logger.debug(
                "deck read through the index",
                metadata: [
                    "dogs-read": "\(page.dogsRead)", "dogs-scored": "\(page.dogsScored)", "steps": "\(page.steps)",
                    "duration": "\(ContinuousClock.now - started)",
                ])
        case .naive:
            let candidates = try await naiveCandidates(
                around: home, radiusKm: preferences.maxDistanceKm,
                excludingOwner: owner.requireID(), on: db)
            cards = matchmaker.deck(
                seeker: seeker, candidates: candidates, preferences: preferences,
                excludedPets: excluded, blockedOwners: blocked, today: pets.today,
                after: after, limit: limit)
        }
        // What the cards show, for the whole page at once.
        let shown = try await pets.cards(ofPets: cards.map(\.petID), on: db)
        let page = cards.compactMap { card in shown[card.petID].map { (card: card, pet: $0) } }
        let next = cards.count == limit ? cards.last.map { Self.encodeCursor(matchmaker.position(of: $0)) } : nil
        return DeckPageValue(cards: page, nextCursor: next, maxDistanceKm: preferences.maxDistanceKm)
    }

    /// The seed design's way to find candidates, kept to measure the index against: every
    /// owner inside the distance's bounding box, then all their dogs, as full records.
    private func naiveCandidates(
        around home: GeoPoint, radiusKm: Double, excludingOwner ownerID: User.ID,
        on db: any Database
    ) async throws -> [DeckDog] {
        let box = Matchmaker.boundingBox(around: home, radiusKm: radiusKm)
        let owners = try await UserRecord.query(on: db)
            .filter(\.$latitude >= box.latitude.lowerBound).filter(\.$latitude <= box.latitude.upperBound)
            .filter(\.$longitude >= box.longitude.lowerBound).filter(\.$longitude <= box.longitude.upperBound)
            .filter(\.$id != ownerID)
            .all()
        let locations = Dictionary(
            uniqueKeysWithValues: try owners.compactMap { user in
                try user.location.map { (try user.requireID(), $0) }
            })
        // In slices: PostgreSQL takes at most 65,535 parameters per statement, and a city holds more owners.
        let ownerIDs = Array(locations.keys)
        var candidates: [PetRecord] = []
        for start in stride(from: 0, to: ownerIDs.count, by: 30_000) {
            candidates += try await PetRecord.query(on: db).filter(\.$species == .dog)
                .filter(\.$owner.$id ~~ Array(ownerIDs[start..<min(start + 30_000, ownerIDs.count)])).all()
        }
        return try candidates.compactMap { candidate in
            try locations[candidate.$owner.id].map { try DeckIndex.deckDog(candidate, location: $0) }
        }
    }

    /// The position's JSON, keys sorted so the same position always gives the same cursor,
    /// written by hand: a `JSONEncoder` per page cost more than the rest of the cursor. The
    /// text is what `JSONDecoder` reads back as a `DeckPosition` (`decodeCursor`), with the
    /// score in Swift's shortest form that reads back as the same number.
    static func encodeCursor(_ position: DeckPosition) -> String {
        guard position.score.isFinite else { return "" }
        let json = "{\"petID\":\"" + position.petID.rawValue.text(uppercase: true) + "\",\"score\":" + position.score.description + "}"
        return Data(json.utf8).base64URLEncoded
    }

    static func decodeCursor(_ text: String) throws -> DeckPosition {
        guard let data = Data(base64URLEncoded: text), let position = try? JSONDecoder().decode(DeckPosition.self, from: data) else {
            throw Problem.invalidField("cursor", "is not a cursor this server gave out")
        }
        return position
    }
}
