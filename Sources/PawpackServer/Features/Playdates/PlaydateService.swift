import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// Playdates' swipes, match requests and matches, for the dog a member acts for
/// (`DeckService.actingDog`). The deck itself is `DeckService`'s; blocks are the members'
/// (`BlockService`).
final class PlaydateService: Sendable {
    let pets: PetService
    let deck: DeckService
    /// A match's chat opens with it and closes when it ends.
    let chats: ChatService
    let blocks: BlockService
    let clock: any AppClock
    let realtime: RealtimeEvents
    let notifications: NotificationService

    init(
        pets: PetService, deck: DeckService, chats: ChatService, blocks: BlockService, clock: any AppClock,
        realtime: RealtimeEvents, notifications: NotificationService
    ) {
        self.pets = pets
        self.chats = chats
        self.deck = deck
        self.blocks = blocks
        self.clock = clock
        self.realtime = realtime
        self.notifications = notifications
    }

    // MARK: Swipes

    func swipe(
        _ user: UserRecord, pet id: Pet.ID, target targetID: Pet.ID, decision: SwipeRecord.Decision,
        on db: any Database
    ) async throws -> SwipeOutcome {
        // Two identical swipes at once: the second answers as if it came after the first.
        try await answeringRacesAsSequential {
            try await swipeOnce(user, pet: id, target: targetID, decision: decision, on: db)
        }
    }

    private func swipeOnce(
        _ user: UserRecord, pet id: Pet.ID, target targetID: Pet.ID, decision: SwipeRecord.Decision,
        on db: any Database
    ) async throws -> SwipeOutcome {
        let pet = try await deck.actingDog(user, pet: id, on: db)
        let target = try await visibleDog(targetID, for: user, actingAs: pet, on: db)
        let petID = try pet.requireID()
        if let existing = try await SwipeRecord.query(on: db).filter(\.$pet.$id == petID)
            .filter(\.$target.$id == targetID).first()
        {
            throw existing.decision == .like
                ? Problem(
                    status: 409, code: .alreadyRequested, title: "Already asked",
                    detail: "You already asked \(target.name)'s owner for a playdate. Wait for their answer — you will hear as soon as they decide.")
                : Problem(
                    status: 409, code: .alreadySwiped, title: "Already passed",
                    detail: "You passed on \(target.name). Find them in your pass pile to like them after all.")
        }
        let swipe = SwipeRecord(petID: petID, targetID: targetID, decision: decision, now: clock.now())
        let outcome = try await db.transaction { tx in
            try await swipe.create(on: tx)
            guard decision == .like else { return SwipeOutcome(decision: .pass) }
            return try await self.like(from: pet, to: target, on: tx)
        }
        await realtime.deliver(outcome.events)
        return outcome
    }

    /// A like: a match when the other dog already liked this one, a request otherwise.
    private func like(from pet: PetRecord, to target: PetRecord, on db: any Database) async throws -> SwipeOutcome {
        let now = clock.now()
        let (petID, targetID) = (try pet.requireID(), try target.requireID())
        let liked =
            try await SwipeRecord.query(on: db).filter(\.$pet.$id == targetID)
            .filter(\.$target.$id == petID).filter(\.$decision == .like).first() != nil
        if liked {
            try await MatchRequestRecord.query(on: db).filter(\.$fromPet.$id == targetID).filter(\.$toPet.$id == petID)
                .filter(\.$status == .pending).set(\.$status, to: .accepted).set(\.$answeredAt, to: now).update()
            let (match, chat) = try await createMatch(pet, target, on: db)
            let value = try await matchValue(match, viewer: pet.$owner.id, on: db)
            return SwipeOutcome(decision: .like, match: value, events: try await matchEvents(value, chat: chat, on: db))
        }
        let request = MatchRequestRecord()
        request.$fromPet.id = petID
        request.$toPet.id = targetID
        request.$fromUser.id = pet.$owner.id
        request.$toUser.id = target.$owner.id
        request.status = .pending
        request.createdAt = now
        request.activity = ActivityCursor<Playdates.MatchRequest>.activity(at: now)
        try await request.create(on: db)
        let value = try await requestValue(request, on: db)
        let told = NotificationDraft(
            from: pet.$owner.id, kind: .matchRequest, title: "New playdate request",
            body: "\(value.fromPet.name) would like to play with \(value.toPet.name).",
            pet: value.fromPet.id)
        return SwipeOutcome(
            decision: .like, request: value,
            events: try await realtime.record(.matchRequest(value), for: [target.$owner.id], on: db)
                + notifications.notify(told, to: target.$owner.id, on: db))
    }

    /// A new match, for each owner from their side.
    private func matchEvents(_ match: MatchValue, chat: Chats.Chat.ID?, on db: any Database) async throws -> [StoredRealtimeEvent] {
        let theirs = MatchValue(id: match.id, myPet: match.otherPet, otherPet: match.myPet, createdAt: match.createdAt, chat: match.chat)
        var events: [StoredRealtimeEvent] = []
        for side in [match, theirs] {
            events += try await realtime.record(.match(side, chat: chat), for: [side.myPet.ownerID], on: db)
            let told = NotificationDraft(
                from: side.otherPet.ownerID, kind: .match, title: "It's a match!",
                body: "\(side.myPet.name) and \(side.otherPet.name) both want to play. Say hello!",
                chat: chat, pet: side.otherPet.id)
            events += try await notifications.notify(told, to: side.myPet.ownerID, on: db)
        }
        return events
    }

    /// The match of two dogs, new or already there, and the chat it opened (nil when it was).
    private func createMatch(_ one: PetRecord, _ other: PetRecord, on db: any Database) async throws
        -> (match: MatchRecord, chat: Chats.Chat.ID?)
    {
        let oneID = try one.requireID()
        let (petA, petB) = Self.pair(oneID, try other.requireID())
        let (a, b) = petA == oneID ? (one, other) : (other, one)
        if let existing = try await MatchRecord.query(on: db).filter(\.$petA.$id == petA).filter(\.$petB.$id == petB).first() {
            return (existing, nil)
        }
        let match = MatchRecord()
        match.$petA.id = petA
        match.$petB.id = petB
        match.$userA.id = a.$owner.id
        match.$userB.id = b.$owner.id
        match.createdAt = clock.now()
        match.activity = ActivityCursor<Playdates.Match>.activity(at: match.createdAt)
        try await match.create(on: db)
        return (match, try await match.openChat(now: match.createdAt, on: db))
    }

    /// Two dogs in the order a match row keeps them: `pet_a_id` first by its text in capitals,
    /// so a pair has one row whichever side matched first.
    static func pair(_ one: Pet.ID, _ other: Pet.ID) -> (Pet.ID, Pet.ID) {
        one.rawValue.text(uppercase: true) < other.rawValue.text(uppercase: true) ? (one, other) : (other, one)
    }

    /// Another member's dog that this dog may interact with; 404 for own, blocked or missing.
    private func visibleDog(_ id: Pet.ID, for user: UserRecord, actingAs pet: PetRecord, on db: any Database) async throws -> PetRecord {
        guard let target = try await PetRecord.find(id, on: db), target.species == .dog,
            target.$owner.id != pet.$owner.id,
            !(try await blocks.blockedUsers(aroundOwner: pet.$owner.id, actor: user, on: db)).contains(target.$owner.id)
        else {
            throw Problem(
                status: 404, code: .notFound, title: "No such dog", detail: "That dog is not in your deck.",
                errors: [.init(field: "targetPetId", message: "is not a dog you can meet")])
        }
        return target
    }

    /// The dog's last swipe if it can be undone: a like that made a match cannot (unmatch
    /// instead). Nil when there is nothing to undo.
    private func undoableSwipe(of petID: Pet.ID, on db: any Database) async throws -> Result<SwipeRecord, Problem>? {
        guard
            let last = try await SwipeRecord.query(on: db).filter(\.$pet.$id == petID)
                .sort(\.$createdAt, .descending).first()
        else { return nil }
        let (a, b) = Self.pair(petID, last.$target.id)
        if last.decision == .like,
            try await MatchRecord.query(on: db).filter(\.$petA.$id == a).filter(\.$petB.$id == b).first() != nil
        {
            return .failure(
                Problem(
                    status: 409, code: .invalidRequest, title: "Already a match",
                    detail: "That like made a match; unmatch instead."))
        }
        return .success(last)
    }

    /// Whether `undoLastSwipe` would work now for a dog already checked with `actingDog` (the
    /// deck shows Undo only then).
    func canUndo(_ pet: PetRecord, on db: any Database) async throws -> Bool {
        if case .success = try await undoableSwipe(of: pet.requireID(), on: db) { return true }
        return false
    }

    func undoLastSwipe(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws {
        // Two undos at once: the second undoes the swipe before, or finds nothing to undo.
        try await answeringRacesAsSequential { try await undoLastSwipeOnce(user, pet: id, on: db) }
    }

    private func undoLastSwipeOnce(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws {
        let pet = try await deck.actingDog(user, pet: id, on: db)
        let petID = try pet.requireID()
        guard let undoable = try await undoableSwipe(of: petID, on: db) else {
            throw Problem(status: 409, code: .invalidRequest, title: "Nothing to undo", detail: "This dog has not swiped yet.")
        }
        let last = try undoable.get()
        let targetID = last.$target.id
        try await db.transaction { tx in
            try await MatchRequestRecord.query(on: tx).filter(\.$fromPet.$id == petID).filter(\.$toPet.$id == targetID)
                .filter(\.$status == .pending).delete()
            let deleted = try await tx.sql.raw(#"DELETE FROM "swipes" WHERE "id" = \#(bind: last.requireID()) RETURNING "id""#).all()
            guard !deleted.isEmpty else { throw LostRace() }
        }
    }

    /// The dog's pass pile, the latest first, `limit` after `cursor` and where the next page
    /// starts: a dog passes on as many as its owner swipes left.
    func passes(
        _ user: UserRecord, pet id: Pet.ID, limit: Int, after cursor: ActivityCursor<Playdates.Swipe>? = nil, on db: any Database
    ) async throws -> (items: [PetCardValue], next: ActivityCursor<Playdates.Swipe>?) {
        let pet = try await deck.actingDog(user, pet: id, on: db)
        let blocked = try await blocks.blockedUsers(aroundOwner: pet.$owner.id, actor: user, on: db)
        let page = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).filter(\.$decision == .pass)
            .newestPage(limit: limit, after: cursor, activity: \.$activity)
        let targets = page.rows.map(\.$target.id)
        let cards = try await pets.cards(ofPets: targets, on: db)
        return (targets.compactMap { cards[$0] }.filter { !blocked.contains($0.ownerID) }, page.next)
    }

    func likeFromPasses(
        _ user: UserRecord, pet id: Pet.ID, target targetID: Pet.ID,
        on db: any Database
    ) async throws -> SwipeOutcome {
        // Twice at once: the second finds the dog no longer in the pass pile, as it would after.
        try await answeringRacesAsSequential { try await likeFromPassesOnce(user, pet: id, target: targetID, on: db) }
    }

    private func likeFromPassesOnce(
        _ user: UserRecord, pet id: Pet.ID, target targetID: Pet.ID,
        on db: any Database
    ) async throws -> SwipeOutcome {
        let pet = try await deck.actingDog(user, pet: id, on: db)
        let target = try await visibleDog(targetID, for: user, actingAs: pet, on: db)
        guard
            let pass = try await SwipeRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).filter(\.$target.$id == targetID)
                .filter(\.$decision == .pass).first()
        else {
            throw Problem(status: 404, code: .notFound, title: "Not in the pass pile", detail: "\(target.name) is not in your pass pile.")
        }
        let outcome = try await db.transaction { tx in
            let now = self.clock.now()
            let liked = try await tx.sql.raw(
                """
                UPDATE "swipes" SET "decision" = \(bind: SwipeRecord.Decision.like.rawValue), "created_at" = \(bind: now),
                    "activity" = \(bind: ActivityCursor<Playdates.Swipe>.activity(at: now))
                WHERE "id" = \(bind: pass.requireID()) AND "decision" = \(bind: SwipeRecord.Decision.pass.rawValue) RETURNING "id"
                """
            ).all()
            guard !liked.isEmpty else { throw LostRace() }
            return try await self.like(from: pet, to: target, on: tx)
        }
        await realtime.deliver(outcome.events)
        return outcome
    }

    // MARK: Requests and matches

    /// Pending requests to the member's dogs (`incoming`) or from them, newest first, `limit`
    /// after `cursor` and where the next page starts: any number of dogs may like a dog.
    func requests(
        _ user: UserRecord, incoming: Bool, limit: Int, after cursor: ActivityCursor<Playdates.MatchRequest>? = nil,
        on db: any Database
    ) async throws -> (items: [MatchRequestValue], next: ActivityCursor<Playdates.MatchRequest>?) {
        let page = try await MatchRequestRecord.query(on: db).filter(\.$status == .pending)
            .filter(incoming ? \.$toUser.$id : \.$fromUser.$id, .equal, user.requireID())
            .newestPage(limit: limit, after: cursor, activity: \.$activity)
        return (try await requestValues(page.rows, on: db), page.next)
    }

    /// The requests with both dogs; every dog loaded at once, rather than a few queries per request.
    private func requestValues(_ rows: [MatchRequestRecord], on db: any Database) async throws -> [MatchRequestValue] {
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$fromPet.id, $0.$toPet.id] })), on: db)
        return try rows.compactMap { row in
            guard let from = dogs[row.$fromPet.id], let to = dogs[row.$toPet.id] else { return nil }
            return MatchRequestValue(id: try row.requireID(), fromPet: from, toPet: to, status: row.status, createdAt: row.createdAt)
        }
    }

    private func requestValue(_ row: MatchRequestRecord, on db: any Database) async throws -> MatchRequestValue {
        guard let value = try await requestValues([row], on: db).first else { throw Problem.notFound }
        return value
    }

    /// A pending request addressed to (`asRecipient`) or sent by this user; 404 otherwise.
    private func pendingRequest(
        _ id: Playdates.MatchRequest.ID, of user: UserRecord, asRecipient: Bool,
        on db: any Database
    ) async throws -> MatchRequestRecord {
        guard
            let row = try await MatchRequestRecord.query(on: db).filter(\.$id == id).filter(\.$status == .pending)
                .filter(asRecipient ? \.$toUser.$id : \.$fromUser.$id, .equal, user.requireID()).first()
        else {
            throw Problem.notFound
        }
        return row
    }

    func accept(_ user: UserRecord, request id: Playdates.MatchRequest.ID, on db: any Database) async throws -> MatchValue {
        // Accepted twice at once: the second finds it answered (404), as it would after the first.
        try await answeringRacesAsSequential { try await acceptOnce(user, request: id, on: db) }
    }

    /// Moves a pending request to `status`, unless a concurrent answer moved it first.
    private func answer(_ row: MatchRequestRecord, with status: MatchRequestRecord.Status, on db: any Database) async throws {
        let changed = try await db.sql.raw(
            """
            UPDATE "match_requests" SET "status" = \(bind: status.rawValue), "answered_at" = \(bind: clock.now())
            WHERE "id" = \(bind: row.requireID()) AND "status" = \(bind: MatchRequestRecord.Status.pending.rawValue) RETURNING "id"
            """
        ).all()
        guard !changed.isEmpty else { throw LostRace() }
    }

    private func acceptOnce(_ user: UserRecord, request id: Playdates.MatchRequest.ID, on db: any Database) async throws -> MatchValue {
        let row = try await pendingRequest(id, of: user, asRecipient: true, on: db)
        let from = try await pets.pet(row.$fromPet.id, on: db)
        let to = try await pets.pet(row.$toPet.id, on: db)
        let (match, events) = try await db.transaction { tx -> (MatchValue, [StoredRealtimeEvent]) in
            try await self.answer(row, with: .accepted, on: tx)
            // Accepting is this dog's like: the other dog leaves its deck, and its pass pile if
            // this dog had passed on it before.
            let (toID, fromID) = (try to.requireID(), try from.requireID())
            if let earlier = try await SwipeRecord.query(on: tx).filter(\.$pet.$id == toID).filter(\.$target.$id == fromID).first() {
                if earlier.decision == .pass {
                    earlier.decision = .like
                    try await earlier.save(on: tx)
                }
            } else {
                try await SwipeRecord(petID: toID, targetID: fromID, decision: .like, now: self.clock.now()).create(on: tx)
            }
            let (match, chat) = try await self.createMatch(from, to, on: tx)
            let value = try await self.matchValue(match, viewer: user.requireID(), on: tx)
            return (value, try await self.matchEvents(value, chat: chat, on: tx))
        }
        await realtime.deliver(events)
        return match
    }

    func reject(_ user: UserRecord, request id: Playdates.MatchRequest.ID, on db: any Database) async throws {
        try await answeringRacesAsSequential {
            try await answer(try await pendingRequest(id, of: user, asRecipient: true, on: db), with: .rejected, on: db)
        }
    }

    func cancel(_ user: UserRecord, request id: Playdates.MatchRequest.ID, on db: any Database) async throws {
        try await answeringRacesAsSequential { try await cancelOnce(user, request: id, on: db) }
    }

    private func cancelOnce(_ user: UserRecord, request id: Playdates.MatchRequest.ID, on db: any Database) async throws {
        let row = try await pendingRequest(id, of: user, asRecipient: false, on: db)
        try await db.transaction { tx in
            try await self.answer(row, with: .cancelled, on: tx)
            // Withdrawing the like puts the other dog back in the deck.
            try await SwipeRecord.query(on: tx).filter(\.$pet.$id == row.$fromPet.id)
                .filter(\.$target.$id == row.$toPet.id).delete()
        }
    }

    /// Whether any of these dogs has swiped yet (the home checklist's last step).
    func hasSwiped(_ pets: [Pet.ID], on db: any Database) async throws -> Bool {
        guard !pets.isEmpty else { return false }
        return try await SwipeRecord.query(on: db).filter(\.$pet.$id ~~ pets).first() != nil
    }

    /// One of the member's matches; 404 for anyone else's, or one a block has hidden.
    func match(_ user: UserRecord, id: Playdates.Match.ID, on db: any Database) async throws -> MatchValue {
        let me = try user.requireID()
        guard
            let row = try await MatchRecord.query(on: db).filter(\.$id == id)
                .involving(\.$userA.$id, \.$userB.$id, me).first(),
            try await blocks.blockedUsers(of: me, on: db).isDisjoint(with: [row.$userA.id, row.$userB.id])
        else {
            throw Problem.notFound
        }
        return try await matchValue(row, viewer: me, on: db)
    }

    /// Blocks the owner of a dog the member can see (a profile, a request, a match), without
    /// ever showing the owner's username.
    func blockOwner(_ user: UserRecord, of petID: Pet.ID, on db: any Database) async throws {
        let pet = try await pets.view(user, pet: petID, on: db)
        guard pet.role == nil, let owner = try await UserRecord.find(pet.profile.ownerID, on: db) else { throw Problem.notFound }
        try await blocks.block(user, username: owner.username, on: db)
    }

    /// The member's matches, the latest first, `limit` after `cursor` and where the next page starts.
    func matches(
        _ user: UserRecord, limit: Int, after cursor: ActivityCursor<Playdates.Match>? = nil, on db: any Database
    ) async throws -> (items: [MatchValue], next: ActivityCursor<Playdates.Match>?) {
        let me = try user.requireID()
        let blocked = try await blocks.blockedUsers(of: me, on: db)
        let page = try await MatchRecord.query(on: db)
            .involving(\.$userA.$id, \.$userB.$id, me)
            .newestPage(limit: limit, after: cursor, activity: \.$activity)
        let values = try await matchValues(
            page.rows.filter { !blocked.contains($0.$userA.id) && !blocked.contains($0.$userB.id) },
            viewer: me, on: db)
        return (values, page.next)
    }

    private func matchValue(_ row: MatchRecord, viewer: User.ID, on db: any Database) async throws -> MatchValue {
        guard let value = try await matchValues([row], viewer: viewer, on: db).first else { throw Problem.notFound }
        return value
    }

    /// The matches as `viewer` sees them, their dog first; every dog loaded at once.
    private func matchValues(_ rows: [MatchRecord], viewer: User.ID, on db: any Database) async throws -> [MatchValue] {
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$petA.id, $0.$petB.id] })), on: db)
        let ids = try rows.map { try $0.requireID() }
        let chats = Dictionary(
            try await ChatRecord.query(on: db).filter(\.$matchID ~~ ids).all().map { ($0.matchID, try $0.requireID()) },
            uniquingKeysWith: { first, _ in first })
        return try rows.compactMap { row in
            let viewerIsA = row.$userA.id == viewer
            guard let mine = dogs[viewerIsA ? row.$petA.id : row.$petB.id],
                let other = dogs[viewerIsA ? row.$petB.id : row.$petA.id],
                let chat = chats[try row.requireID()]
            else { return nil }
            return MatchValue(id: try row.requireID(), myPet: mine, otherPet: other, createdAt: row.createdAt, chat: chat)
        }
    }

    // MARK: Export

    /// What the export holds of Playdates: the member's dogs' swipes, requests and matches and
    /// their saved preferences. Other members' swipes on these dogs are theirs and stay out.
    func export(_ user: UserRecord, on db: any Database) async throws -> PlaydatesExport {
        let me = try user.requireID()
        let myPets = try await PetRecord.query(on: db).filter(\.$owner.$id == me).all().map { try $0.requireID() }
        let swipes = try await SwipeRecord.query(on: db).filter(\.$pet.$id ~~ myPets).sort(\.$createdAt, .descending).all()
        let requests = try await MatchRequestRecord.query(on: db)
            .involving(\.$fromUser.$id, \.$toUser.$id, me)
            .sort(\.$createdAt, .descending).all()
        let matches = try await MatchRecord.query(on: db)
            .involving(\.$userA.$id, \.$userB.$id, me)
            .sort(\.$createdAt, .descending).all()
        let preferences = try await DeckPreferencesRecord.query(on: db).filter(\.$pet.$id ~~ myPets).all()

        let named = Set(
            swipes.flatMap { [$0.$pet.id, $0.$target.id] } + requests.flatMap { [$0.$fromPet.id, $0.$toPet.id] }
                + matches.flatMap { [$0.$petA.id, $0.$petB.id] })
        let cards = try await pets.cards(ofPets: Array(named), on: db)
        let name = { (pet: Pet.ID) in cards[pet]?.name ?? "" }
        return PlaydatesExport(
            swipes: swipes.map {
                .init(
                    pet: $0.$pet.id, target: $0.$target.id, targetName: name($0.$target.id),
                    decision: $0.decision, createdAt: $0.createdAt)
            },
            requests: try requests.map {
                .init(
                    id: try $0.requireID(), fromPet: $0.$fromPet.id, fromPetName: name($0.$fromPet.id), toPet: $0.$toPet.id,
                    toPetName: name($0.$toPet.id), status: $0.status, createdAt: $0.createdAt, answeredAt: $0.answeredAt)
            },
            matches: try matches.map { match in
                let mineIsA = match.$userA.id == me
                let (mine, other) = mineIsA ? (match.$petA.id, match.$petB.id) : (match.$petB.id, match.$petA.id)
                return .init(
                    id: try match.requireID(), myPet: mine, myPetName: name(mine), otherPet: other,
                    otherPetName: name(other), otherOwnerDisplayName: cards[other]?.ownerDisplayName ?? "",
                    createdAt: match.createdAt)
            },
            preferences: Dictionary(
                preferences.map { ($0.$pet.id, DeckSeekerState.preferences(stored: $0.json)) },
                uniquingKeysWith: { first, _ in first }))
    }

    func unmatch(_ user: UserRecord, match id: Playdates.Match.ID, on db: any Database) async throws {
        let me = try user.requireID()
        guard
            let row = try await MatchRecord.query(on: db).filter(\.$id == id)
                .involving(\.$userA.$id, \.$userB.$id, me).first()
        else {
            throw Problem.notFound
        }
        let events = try await db.transaction { tx in
            // The chat stays, closed, with its history.
            try await row.delete(on: tx)
            guard let chat = try await self.chats.close(pets: row.$petA.id, row.$petB.id, now: self.clock.now(), on: tx) else {
                return [StoredRealtimeEvent]()
            }
            return try await self.realtime.record(.chatClosed(chat), for: [row.$userA.id, row.$userB.id], on: tx)
        }
        await realtime.deliver(events)
    }
}
