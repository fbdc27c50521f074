import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// A page of the deck with what the cards show.
struct DeckPageValue: Sendable {
    var cards: [(card: DeckCard, pet: PetCardValue)]
    var nextCursor: String?
}

struct SwipeOutcome: Sendable {
    var decision: SwipeRecord.Decision
    var request: MatchRequestValue?
    var match: MatchValue?
}

struct MatchRequestValue: Sendable {
    var id: UUID
    var fromPet: PetCardValue
    var toPet: PetCardValue
    var status: MatchRequestRecord.Status
    var createdAt: Date
}

struct MatchValue: Sendable {
    var id: UUID
    var myPet: PetCardValue
    var otherPet: PetCardValue
    var createdAt: Date
}

/// Playdates: preferences, the deck, swipes, match requests, matches and blocks. Scoring and
/// filtering are `PawpackCore.Matchmaker`; this service finds the candidates and keeps state.
final class PlaydateService: Sendable {
    let pets: PetService
    let clock: any AppClock
    let matchmaker = Matchmaker()
    let strategy: Config.DeckStrategy
    private let logger: Logger

    init(pets: PetService, clock: any AppClock, strategy: Config.DeckStrategy = .index, logger: Logger) {
        self.pets = pets
        self.clock = clock
        self.strategy = strategy
        self.logger = logger
    }

    // MARK: The dog acting

    /// The dog the caller swipes for: a dog they own or guard.
    func actingDog(_ user: UserRecord, pet id: UUID, on db: any Database) async throws -> PetRecord {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canEdit, on: db)
        return try Self.mustBeDog(pet)
    }

    private static func mustBeDog(_ pet: PetRecord) throws -> PetRecord {
        guard pet.species == .dog else {
            throw Problem(status: 409, code: .invalidRequest, title: "Playdates are for dogs",
                          detail: "Only dogs have a deck.")
        }
        return pet
    }

    // MARK: Preferences

    func preferences(_ user: UserRecord, pet id: UUID, on db: any Database) async throws -> DeckPreferences {
        let pet = try await actingDog(user, pet: id, on: db)
        return try await savedPreferences(of: pet.id!, on: db)
    }

    private func savedPreferences(of petID: UUID, on db: any Database) async throws -> DeckPreferences {
        let json = try await db.sql.select().column("preferences").from(DeckPreferencesRecord.schema)
            .where("pet_id", .equal, petID).first()?.decode(column: "preferences", as: String.self)
        return DeckSeekerState.preferences(stored: json)
    }

    func savePreferences(_ user: UserRecord, pet id: UUID, _ preferences: DeckPreferences,
                         on db: any Database) async throws -> DeckPreferences {
        let pet = try await actingDog(user, pet: id, on: db)
        let valid = try preferences.validated()
        let json = String(decoding: try JSONEncoder().encode(valid), as: UTF8.self)
        let record = try await DeckPreferencesRecord.query(on: db).filter(\.$pet.$id == pet.id!).first()
            ?? { let fresh = DeckPreferencesRecord(); fresh.id = UUID(); fresh.$pet.id = pet.id!; return fresh }()
        record.json = json
        record.updatedAt = clock.now()
        try await record.save(on: db)
        return valid
    }

    // MARK: Deck

    struct Overrides: Equatable, Sendable {
        var maxDistanceKm: Double?
        var minAgeMonths: Int?
        var maxAgeMonths: Int?
    }

    func deck(_ user: UserRecord, pet id: UUID, overrides: Overrides, limit: Int, cursor: String?,
              on db: any Database) async throws -> DeckPageValue {
        // The acting dog and its deck state in one query; the same checks as `actingDog` after.
        guard let (record, state) = try await DeckSeekerState.read(pet: id, actor: user.id!, reads: pets.reads, on: db) else {
            throw Problem.notFound
        }
        _ = try await pets.authorize(user, for: record, need: \.canEdit, on: db)
        let pet = try Self.mustBeDog(record)
        let owner: UserRecord? = pet.$owner.id == user.id ? user : try await UserRecord.find(pet.$owner.id, on: db)
        guard let owner, let home = owner.location else {
            throw Problem(status: 409, code: .locationNeeded, title: "Where are you?",
                          detail: "Set your location on your account to see dogs near you.")
        }
        var preferences = state.preferences
        if let km = overrides.maxDistanceKm { preferences.maxDistanceKm = km }
        if let months = overrides.minAgeMonths { preferences.minAgeMonths = months }
        if let months = overrides.maxAgeMonths { preferences.maxAgeMonths = months }
        preferences = try preferences.validated()
        let after = try cursor.map(Self.decodeCursor)
        let seeker = DeckIndex.deckDog(pet, location: home)
        // The seeker itself needs no entry: no dog is ever its own candidate (`Matchmaker`).
        let excluded = state.swipedPets
        let blocked = state.blockedUsers

        let cards: [DeckCard]
        switch strategy {
        case .index, .table:
            let started = ContinuousClock.now
            let page = try await matchmaker.indexedDeck(
                seeker: seeker, preferences: preferences, excludedPets: excluded, blockedOwners: blocked,
                today: pets.today, after: after, limit: limit, grid: pets.deckIndex.grid,
                search: pets.deckIndex.search(fromTable: strategy == .table),
                buckets: pets.deckIndex.buckets(for: seeker, matchmaker: matchmaker)
            ) { ranges, buckets in
                try await self.pets.deckIndex.rows(in: ranges, buckets: buckets, fromTable: self.strategy == .table, on: db)
            }
            cards = page.cards
            logger.debug("deck read through the index", metadata: [
                "dogs-read": "\(page.dogsRead)", "dogs-scored": "\(page.dogsScored)", "steps": "\(page.steps)",
                "duration": "\(ContinuousClock.now - started)",
            ])
        case .naive:
            let candidates = try await naiveCandidates(around: home, radiusKm: preferences.maxDistanceKm,
                                                       excludingOwner: owner.id!, on: db)
            cards = matchmaker.deck(seeker: seeker, candidates: candidates, preferences: preferences,
                                    excludedPets: excluded, blockedOwners: blocked, today: pets.today,
                                    after: after, limit: limit)
        }
        // What the cards show, for the whole page at once.
        let shown = try await pets.cards(ofPets: cards.map(\.petID.rawValue), on: db)
        let page = cards.compactMap { card in shown[card.petID.rawValue].map { (card: card, pet: $0) } }
        let next = cards.count == limit ? cards.last.map { Self.encodeCursor(matchmaker.position(of: $0)) } : nil
        return DeckPageValue(cards: page, nextCursor: next)
    }

    /// The seed design's way to find candidates, kept to measure the index against: every
    /// owner inside the distance's bounding box, then all their dogs, as full records.
    private func naiveCandidates(around home: GeoPoint, radiusKm: Double, excludingOwner ownerID: UUID,
                                 on db: any Database) async throws -> [DeckDog] {
        let box = Matchmaker.boundingBox(around: home, radiusKm: radiusKm)
        let owners = try await UserRecord.query(on: db)
            .filter(\.$latitude >= box.latitude.lowerBound).filter(\.$latitude <= box.latitude.upperBound)
            .filter(\.$longitude >= box.longitude.lowerBound).filter(\.$longitude <= box.longitude.upperBound)
            .filter(\.$id != ownerID)
            .all()
        let locations = Dictionary(uniqueKeysWithValues: owners.compactMap { user in user.location.map { (user.id!, $0) } })
        // In slices: PostgreSQL takes at most 65,535 parameters per statement, and a city holds more owners.
        let ownerIDs = Array(locations.keys)
        var candidates: [PetRecord] = []
        for start in stride(from: 0, to: ownerIDs.count, by: 30_000) {
            candidates += try await PetRecord.query(on: db).filter(\.$species == .dog)
                .filter(\.$owner.$id ~~ Array(ownerIDs[start..<min(start + 30_000, ownerIDs.count)])).all()
        }
        return candidates.compactMap { candidate in locations[candidate.$owner.id].map { DeckIndex.deckDog(candidate, location: $0) } }
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

    // MARK: Blocks

    /// The members a dog's swipes and pass pile leave out: those blocked by or blocking its
    /// owner, and the member acting for it (a guardian) when that is someone else. The deck
    /// reads the same set with the dog itself (`DeckSeekerState.read`).
    func blockedUsers(around pet: PetRecord, actor: UserRecord, on db: any Database) async throws -> Set<UUID> {
        var blocked = try await blockedUsers(of: pet.$owner.id, on: db)
        if actor.id != pet.$owner.id { blocked.formUnion(try await blockedUsers(of: actor.id!, on: db)) }
        return blocked
    }

    /// Users blocked by, or blocking, this user.
    func blockedUsers(of userID: UUID, on db: any Database) async throws -> Set<UUID> {
        let rows = try await db.sql.select().columns("blocker_id", "blocked_id").from(BlockRecord.schema)
            .where("blocker_id", .equal, userID).orWhere("blocked_id", .equal, userID).all()
        return Set(try rows.map { row in
            let blocker = try row.decode(column: "blocker_id", as: UUID.self)
            return blocker == userID ? try row.decode(column: "blocked_id", as: UUID.self) : blocker
        })
    }

    func block(_ user: UserRecord, username: String, on db: any Database) async throws {
        let name = AccountRules().normalizedUsername(username)
        guard let other = try await UserRecord.query(on: db).filter(\.$username == name).first(), other.id != user.id else {
            throw Problem(status: 404, code: .notFound, title: "No such member", detail: "No other member has the username \(name).",
                          errors: [.init(field: "username", message: "is not another member")])
        }
        let (me, them) = (user.id!, other.id!)
        try await db.transaction { tx in
            if try await BlockRecord.query(on: tx).filter(\.$blocker.$id == me).filter(\.$blocked.$id == them).first() == nil {
                let block = BlockRecord()
                block.id = UUID()
                block.$blocker.id = me
                block.$blocked.id = them
                block.createdAt = self.clock.now()
                try await block.create(on: tx)
            }
            // Blocking ends everything between the two, both ways.
            try await MatchRecord.query(on: tx).group(.or) { group in
                group.group(.and) { $0.filter(\.$userA.$id == me).filter(\.$userB.$id == them) }
                group.group(.and) { $0.filter(\.$userA.$id == them).filter(\.$userB.$id == me) }
            }.delete()
            try await MatchRequestRecord.query(on: tx).filter(\.$status == .pending).group(.or) { group in
                group.group(.and) { $0.filter(\.$fromUser.$id == me).filter(\.$toUser.$id == them) }
                group.group(.and) { $0.filter(\.$fromUser.$id == them).filter(\.$toUser.$id == me) }
            }.set(\.$status, to: .cancelled).update()
        }
    }

    // MARK: Swipes

    func swipe(_ user: UserRecord, pet id: UUID, target targetID: UUID, decision: SwipeRecord.Decision,
               on db: any Database) async throws -> SwipeOutcome {
        let pet = try await actingDog(user, pet: id, on: db)
        let target = try await visibleDog(targetID, for: user, actingAs: pet, on: db)
        if let existing = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.id!)
            .filter(\.$target.$id == targetID).first() {
            throw existing.decision == .like
                ? Problem(status: 409, code: .alreadyRequested, title: "Already asked",
                          detail: "You already asked \(target.name)'s owner for a playdate. Wait for their answer — you will hear as soon as they decide.")
                : Problem(status: 409, code: .alreadySwiped, title: "Already passed",
                          detail: "You passed on \(target.name). Find them in your pass pile to like them after all.")
        }
        let swipe = SwipeRecord(petID: pet.id!, targetID: targetID, decision: decision, now: clock.now())
        return try await db.transaction { tx in
            try await swipe.create(on: tx)
            guard decision == .like else { return SwipeOutcome(decision: .pass) }
            return try await self.like(from: pet, to: target, on: tx)
        }
    }

    /// A like: a match when the other dog already liked this one, a request otherwise.
    private func like(from pet: PetRecord, to target: PetRecord, on db: any Database) async throws -> SwipeOutcome {
        let now = clock.now()
        let liked = try await SwipeRecord.query(on: db).filter(\.$pet.$id == target.id!)
            .filter(\.$target.$id == pet.id!).filter(\.$decision == .like).first() != nil
        if liked {
            try await MatchRequestRecord.query(on: db).filter(\.$fromPet.$id == target.id!).filter(\.$toPet.$id == pet.id!)
                .filter(\.$status == .pending).set(\.$status, to: .accepted).set(\.$answeredAt, to: now).update()
            let match = try await createMatch(pet, target, on: db)
            return SwipeOutcome(decision: .like, match: try await matchValue(match, viewer: pet.$owner.id, on: db))
        }
        let request = MatchRequestRecord()
        request.id = UUID()
        request.$fromPet.id = pet.id!
        request.$toPet.id = target.id!
        request.$fromUser.id = pet.$owner.id
        request.$toUser.id = target.$owner.id
        request.status = .pending
        request.createdAt = now
        try await request.create(on: db)
        return SwipeOutcome(decision: .like, request: try await requestValue(request, on: db))
    }

    private func createMatch(_ one: PetRecord, _ other: PetRecord, on db: any Database) async throws -> MatchRecord {
        let (a, b) = one.id!.uuidString < other.id!.uuidString ? (one, other) : (other, one)
        if let existing = try await MatchRecord.query(on: db).filter(\.$petA.$id == a.id!).filter(\.$petB.$id == b.id!).first() {
            return existing
        }
        let match = MatchRecord()
        match.id = UUID()
        match.$petA.id = a.id!
        match.$petB.id = b.id!
        match.$userA.id = a.$owner.id
        match.$userB.id = b.$owner.id
        match.createdAt = clock.now()
        try await match.create(on: db)
        return match
    }

    /// Another member's dog that this dog may interact with; 404 for own, blocked or missing.
    private func visibleDog(_ id: UUID, for user: UserRecord, actingAs pet: PetRecord, on db: any Database) async throws -> PetRecord {
        guard let target = try await PetRecord.find(id, on: db), target.species == .dog,
              target.$owner.id != pet.$owner.id,
              !(try await blockedUsers(around: pet, actor: user, on: db)).contains(target.$owner.id) else {
            throw Problem(status: 404, code: .notFound, title: "No such dog", detail: "That dog is not in your deck.",
                          errors: [.init(field: "targetPetId", message: "is not a dog you can meet")])
        }
        return target
    }

    func undoLastSwipe(_ user: UserRecord, pet id: UUID, on db: any Database) async throws {
        let pet = try await actingDog(user, pet: id, on: db)
        guard let last = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.id!)
            .sort(\.$createdAt, .descending).first() else {
            throw Problem(status: 409, code: .invalidRequest, title: "Nothing to undo", detail: "This dog has not swiped yet.")
        }
        let targetID = last.$target.id
        let (a, b) = pet.id!.uuidString < targetID.uuidString ? (pet.id!, targetID) : (targetID, pet.id!)
        if last.decision == .like,
           try await MatchRecord.query(on: db).filter(\.$petA.$id == a).filter(\.$petB.$id == b).first() != nil {
            throw Problem(status: 409, code: .invalidRequest, title: "Already a match",
                          detail: "That like made a match; unmatch instead.")
        }
        try await db.transaction { tx in
            try await MatchRequestRecord.query(on: tx).filter(\.$fromPet.$id == pet.id!).filter(\.$toPet.$id == targetID)
                .filter(\.$status == .pending).delete()
            try await last.delete(on: tx)
        }
    }

    func passes(_ user: UserRecord, pet id: UUID, on db: any Database) async throws -> [PetCardValue] {
        let pet = try await actingDog(user, pet: id, on: db)
        let blocked = try await blockedUsers(around: pet, actor: user, on: db)
        let targets = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.id!).filter(\.$decision == .pass)
            .sort(\.$createdAt, .descending).all().map(\.$target.id)
        let cards = try await pets.cards(ofPets: targets, on: db)
        return targets.compactMap { cards[$0] }.filter { !blocked.contains($0.ownerID.rawValue) }
    }

    func likeFromPasses(_ user: UserRecord, pet id: UUID, target targetID: UUID, on db: any Database) async throws -> SwipeOutcome {
        let pet = try await actingDog(user, pet: id, on: db)
        let target = try await visibleDog(targetID, for: user, actingAs: pet, on: db)
        guard let pass = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.id!).filter(\.$target.$id == targetID)
            .filter(\.$decision == .pass).first() else {
            throw Problem(status: 404, code: .notFound, title: "Not in the pass pile", detail: "\(target.name) is not in your pass pile.")
        }
        return try await db.transaction { tx in
            pass.decision = .like
            pass.createdAt = self.clock.now()
            try await pass.save(on: tx)
            return try await self.like(from: pet, to: target, on: tx)
        }
    }

    // MARK: Requests and matches

    func requests(_ user: UserRecord, incoming: Bool, on db: any Database) async throws -> [MatchRequestValue] {
        let rows = try await MatchRequestRecord.query(on: db).filter(\.$status == .pending)
            .filter(incoming ? \.$toUser.$id : \.$fromUser.$id, .equal, user.id!)
            .sort(\.$createdAt, .descending).all()
        return try await requestValues(rows, on: db)
    }

    /// The requests with both dogs; every dog loaded at once, rather than a few queries per request.
    private func requestValues(_ rows: [MatchRequestRecord], on db: any Database) async throws -> [MatchRequestValue] {
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$fromPet.id, $0.$toPet.id] })), on: db)
        return rows.compactMap { row in
            guard let from = dogs[row.$fromPet.id], let to = dogs[row.$toPet.id] else { return nil }
            return MatchRequestValue(id: row.id!, fromPet: from, toPet: to, status: row.status, createdAt: row.createdAt)
        }
    }

    private func requestValue(_ row: MatchRequestRecord, on db: any Database) async throws -> MatchRequestValue {
        guard let value = try await requestValues([row], on: db).first else { throw Problem.notFound }
        return value
    }

    /// A pending request addressed to (`asRecipient`) or sent by this user; 404 otherwise.
    private func pendingRequest(_ id: UUID, of user: UserRecord, asRecipient: Bool, on db: any Database) async throws -> MatchRequestRecord {
        guard let row = try await MatchRequestRecord.query(on: db).filter(\.$id == id).filter(\.$status == .pending)
            .filter(asRecipient ? \.$toUser.$id : \.$fromUser.$id, .equal, user.id!).first() else {
            throw Problem.notFound
        }
        return row
    }

    func accept(_ user: UserRecord, request id: UUID, on db: any Database) async throws -> MatchValue {
        let row = try await pendingRequest(id, of: user, asRecipient: true, on: db)
        let from = try await pets.pet(row.$fromPet.id, on: db), to = try await pets.pet(row.$toPet.id, on: db)
        let match = try await db.transaction { tx in
            row.status = .accepted
            row.answeredAt = self.clock.now()
            try await row.save(on: tx)
            // Accepting is this dog's like: the other dog leaves its deck, and its pass pile if
            // this dog had passed on it before.
            if let earlier = try await SwipeRecord.query(on: tx).filter(\.$pet.$id == to.id!).filter(\.$target.$id == from.id!).first() {
                if earlier.decision == .pass {
                    earlier.decision = .like
                    try await earlier.save(on: tx)
                }
            } else {
                try await SwipeRecord(petID: to.id!, targetID: from.id!, decision: .like, now: self.clock.now()).create(on: tx)
            }
            return try await self.createMatch(from, to, on: tx)
        }
        return try await matchValue(match, viewer: user.id!, on: db)
    }

    func reject(_ user: UserRecord, request id: UUID, on db: any Database) async throws {
        let row = try await pendingRequest(id, of: user, asRecipient: true, on: db)
        row.status = .rejected
        row.answeredAt = clock.now()
        try await row.save(on: db)
    }

    func cancel(_ user: UserRecord, request id: UUID, on db: any Database) async throws {
        let row = try await pendingRequest(id, of: user, asRecipient: false, on: db)
        try await db.transaction { tx in
            row.status = .cancelled
            row.answeredAt = self.clock.now()
            try await row.save(on: tx)
            // Withdrawing the like puts the other dog back in the deck.
            try await SwipeRecord.query(on: tx).filter(\.$pet.$id == row.$fromPet.id)
                .filter(\.$target.$id == row.$toPet.id).delete()
        }
    }

    func matches(_ user: UserRecord, on db: any Database) async throws -> [MatchValue] {
        let blocked = try await blockedUsers(of: user.id!, on: db)
        let rows = try await MatchRecord.query(on: db)
            .group(.or) { $0.filter(\.$userA.$id == user.id!).filter(\.$userB.$id == user.id!) }
            .sort(\.$createdAt, .descending).all()
        return try await matchValues(rows.filter { !blocked.contains($0.$userA.id) && !blocked.contains($0.$userB.id) },
                                     viewer: user.id!, on: db)
    }

    private func matchValue(_ row: MatchRecord, viewer: UUID, on db: any Database) async throws -> MatchValue {
        guard let value = try await matchValues([row], viewer: viewer, on: db).first else { throw Problem.notFound }
        return value
    }

    /// The matches as `viewer` sees them, their dog first; every dog loaded at once.
    private func matchValues(_ rows: [MatchRecord], viewer: UUID, on db: any Database) async throws -> [MatchValue] {
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$petA.id, $0.$petB.id] })), on: db)
        return rows.compactMap { row in
            let viewerIsA = row.$userA.id == viewer
            guard let mine = dogs[viewerIsA ? row.$petA.id : row.$petB.id],
                  let other = dogs[viewerIsA ? row.$petB.id : row.$petA.id] else { return nil }
            return MatchValue(id: row.id!, myPet: mine, otherPet: other, createdAt: row.createdAt)
        }
    }

    func unmatch(_ user: UserRecord, match id: UUID, on db: any Database) async throws {
        guard let row = try await MatchRecord.query(on: db).filter(\.$id == id)
            .group(.or, { $0.filter(\.$userA.$id == user.id!).filter(\.$userB.$id == user.id!) }).first() else {
            throw Problem.notFound
        }
        try await row.delete(on: db)
    }
}
