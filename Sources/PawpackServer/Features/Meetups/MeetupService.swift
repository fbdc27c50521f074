import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// A meet-up as one of its two participants sees it.
struct MeetupValue: Sendable {
    var id: Meetups.Meetup.ID
    var chat: Chats.Chat.ID
    var proposer: User.ID
    var invitee: User.ID
    var proposerPet: PetCardValue
    var inviteePet: PetCardValue
    var startsAt: Date
    var placeName: String
    var place: GeoPoint
    var note: String?
    var status: MeetupStatus
    var createdAt: Date
    var updatedAt: Date
    var changedBy: User.ID?
    /// The participants who reviewed it.
    var reviewers: Set<User.ID>

    /// The participant's dog and the other's, seen from `viewer`.
    func pets(seenBy viewer: User.ID) -> (mine: PetCardValue, theirs: PetCardValue) {
        viewer == proposer ? (proposerPet, inviteePet) : (inviteePet, proposerPet)
    }
}

/// Which of a member's meet-ups to list.
enum MeetupFilter: String, Sendable, CaseIterable {
    /// Pending and accepted, soonest first: what is coming, or waits to be marked completed.
    case upcoming
    /// Rejected, cancelled, completed and expired, latest first.
    case past
    /// Completed and not yet reviewed by the member, latest first.
    case toReview = "to_review"
}

/// Meet-ups: proposed in an open chat by either owner, answered by the other, cancelled by
/// either before the start, completed by either after it. A proposal nobody answered by its
/// start expires (`runDueJobs`), and an accepted meet-up reminds both owners an hour before.
/// Each change is a realtime event for both and a notification for the other; only the two
/// participants can see a meet-up at all, and anyone else gets the 404 of one that does not exist.
final class MeetupService: Sendable {
    let pets: PetService
    let clock: any AppClock
    let realtime: RealtimeEvents
    let notifications: NotificationService
    private let rules = MeetupRules()

    /// Who reviewed each meet-up, as the areas standing on meet-ups keep it (`Area.meetupReviewers`).
    private let reviewers: @Sendable ([Meetups.Meetup.ID], any Database) async throws -> [Meetups.Meetup.ID: Set<User.ID>]

    init(
        pets: PetService, clock: any AppClock, realtime: RealtimeEvents, notifications: NotificationService,
        reviewers: @escaping @Sendable ([Meetups.Meetup.ID], any Database) async throws -> [Meetups.Meetup.ID: Set<User.ID>]
    ) {
        self.reviewers = reviewers
        self.pets = pets
        self.clock = clock
        self.realtime = realtime
        self.notifications = notifications
    }

    // MARK: Proposing

    struct ProposalInput: Sendable {
        var pet: Pet.ID?
        var startsAt: Date
        var placeName: String
        var latitude: Double
        var longitude: Double
        var note: String?
    }

    func propose(
        _ user: UserRecord, chat id: Chats.Chat.ID, _ input: ProposalInput,
        writingDates dates: (LocalDate) -> String, on db: any Database
    ) async throws -> MeetupValue {
        // The other owner proposed at the same moment: the index keeps one, the other is told one waits.
        try await answeringRacesAsSequential { try await proposeOnce(user, chat: id, input, writingDates: dates, on: db) }
    }

    private func proposeOnce(
        _ user: UserRecord, chat id: Chats.Chat.ID, _ input: ProposalInput,
        writingDates dates: (LocalDate) -> String, on db: any Database
    ) async throws -> MeetupValue {
        let me = try user.requireID()
        guard let chat = try await ChatRecord.find(id, on: db), let side = chat.side(of: me) else { throw Problem.notFound }
        try await BlockRecord.requireInteraction(from: me, to: chat.user(side.other), on: db)
        guard chat.closedAt == nil else { throw ChatService.closed }
        let now = clock.now()
        // Whole seconds, so that the time reads back exactly as stored on both databases.
        let startsAt = Date(timeIntervalSince1970: input.startsAt.timeIntervalSince1970.rounded(.down))
        let proposal = try rules.proposal(
            startsAt: startsAt, placeName: input.placeName, latitude: input.latitude,
            longitude: input.longitude, note: input.note, now: now)
        let myPet = input.pet ?? chat.pet(side)
        guard let mine = try await PetRecord.find(myPet, on: db), mine.$owner.id == me else {
            throw Problem.invalidField("petId", "is not one of your dogs")
        }
        let theirPet = chat.pet(side.other)
        try await refuseIfInPuppyMode([mine.requireID(), theirPet], writingDates: dates, on: db)
        if try await MeetupRecord.query(on: db).filter(\.$chat.$id == id).filter(\.$status == MeetupStatus.pending.rawValue)
            .first() != nil
        {
            throw Self.pending
        }
        let meetup = MeetupRecord()
        meetup.id = .init()
        meetup.$chat.id = id
        meetup.$proposer.id = me
        meetup.$proposerPet.id = myPet
        meetup.$invitee.id = chat.user(side.other)
        meetup.$inviteePet.id = theirPet
        meetup.startsAt = proposal.startsAt
        meetup.placeName = proposal.placeName
        meetup.latitude = proposal.place.latitude
        meetup.longitude = proposal.place.longitude
        meetup.note = proposal.note
        meetup.status = MeetupStatus.pending.rawValue
        meetup.createdAt = now
        meetup.updatedAt = now
        meetup.changedBy = me
        return try await commit(meetup, on: db) { value, tx in
            try await self.notifications.notify(self.draft(for: value, change: .pending, to: value.invitee), to: value.invitee, on: tx)
        } write: { tx in
            try await meetup.create(on: tx)
        }
    }

    static let pending = Problem(
        status: 409, code: .meetupPending, title: "A proposal is already waiting",
        detail: "This chat already has a meet-up proposal waiting for an answer. Answer or cancel it before proposing another.")

    /// 409 `puppy_mode_forbids_meetups` naming the first dog in Puppy Mode and the earliest date
    /// it may meet.
    private func refuseIfInPuppyMode(
        _ dogs: [Pet.ID], writingDates dates: (LocalDate) -> String,
        on db: any Database
    ) async throws {
        guard let message = try await puppyModeReason(dogs, writingDates: dates, on: db) else { return }
        throw Problem(
            status: 409, code: .puppyModeForbidsMeetups, title: "Meet-ups wait for Puppy Mode to end",
            detail: message + " Until then the two of you can keep chatting.",
            errors: [FieldError(field: "petId", message: message)])
    }

    /// Why these dogs may not meet yet: the first in Puppy Mode and the earliest date it may,
    /// or nil. The chat page says it before anyone tries.
    func puppyModeReason(_ dogs: [Pet.ID], writingDates dates: (LocalDate) -> String, on db: any Database) async throws -> String? {
        for id in dogs {
            guard let pet = try await PetRecord.find(id, on: db),
                let status = try await pets.welfare.status(of: pet, on: db), status.mode == .puppy
            else { continue }
            let when = status.assessment.earliestSocialDate.map { "from \(dates($0))" } ?? "once its core vaccinations are recorded"
            return "\(pet.name) is in Puppy Mode and may meet other dogs \(when)."
        }
        return nil
    }

    // MARK: Answering, cancelling, completing

    func act(
        _ action: MeetupAction, _ user: UserRecord, meetup id: Meetups.Meetup.ID,
        writingDates dates: (LocalDate) -> String, on db: any Database
    ) async throws -> MeetupValue {
        let me = try user.requireID()
        let meetup = try await participant(me, meetup: id, on: db)
        try await BlockRecord.requireInteraction(from: me, to: meetup.other(than: me), on: db)
        let before = meetup.meetupStatus
        let now = clock.now()
        let after = try rules.status(
            after: action, from: before, byProposer: meetup.$proposer.id == me,
            startsAt: meetup.startsAt, now: now)
        if action == .accept {
            if let chat = try await ChatRecord.find(meetup.$chat.id, on: db), chat.closedAt != nil { throw ChatService.closed }
            try await refuseIfInPuppyMode([meetup.$proposerPet.id, meetup.$inviteePet.id], writingDates: dates, on: db)
        }
        return try await change(meetup, from: before, to: after, by: me, now: now, on: db)
    }

    /// Moves the meet-up on, unless someone else moved it first (then a 409 says what it is now).
    private func change(
        _ meetup: MeetupRecord, from before: MeetupStatus, to after: MeetupStatus, by actor: User.ID?,
        now: Date, on db: any Database
    ) async throws -> MeetupValue {
        let id = try meetup.requireID()
        meetup.status = after.rawValue
        meetup.updatedAt = now
        meetup.changedBy = actor
        return try await commit(meetup, on: db) { value, tx in
            let recipients = actor.map { [meetup.other(than: $0)] } ?? [meetup.$proposer.id]
            var events: [StoredRealtimeEvent] = []
            for recipient in recipients {
                events += try await self.notifications.notify(self.draft(for: value, change: after, to: recipient), to: recipient, on: tx)
            }
            return events
        } write: { tx in
            let changed = try await tx.sql.raw(
                """
                UPDATE "meetups" SET "status" = \(bind: after.rawValue), "updated_at" = \(bind: now), "changed_by" = \(bind: actor)
                WHERE "id" = \(bind: id) AND "status" = \(bind: before.rawValue) RETURNING "id"
                """
            ).all()
            guard !changed.isEmpty else {
                throw MeetupRules.conflict("This meet-up just changed", "Someone changed it a moment ago. Look at it again.")
            }
        }
    }

    /// Writes the change, tells both participants' apps and notifies whom `notify` says, all
    /// in one transaction; delivers the events once committed.
    private func commit(
        _ meetup: MeetupRecord, on db: any Database,
        notify: @escaping @Sendable (MeetupValue, any Database) async throws -> [StoredRealtimeEvent],
        write: @escaping @Sendable (any Database) async throws -> Void
    ) async throws -> MeetupValue {
        let value = try await values([meetup], on: db)[0]
        let events = try await db.transaction { tx in
            try await write(tx)
            return try await self.realtime.record(.meetup(value), for: [value.proposer, value.invitee], on: tx)
                + notify(value, tx)
        }
        await realtime.deliver(events)
        return value
    }

    // MARK: Reading

    func meetup(_ user: UserRecord, id: Meetups.Meetup.ID, on db: any Database) async throws -> MeetupValue {
        try await values([participant(try user.requireID(), meetup: id, on: db)], on: db)[0]
    }

    /// The member's meet-ups of one kind, at most `limit`.
    func meetups(_ user: UserRecord, filter: MeetupFilter, limit: Int, on db: any Database) async throws -> [MeetupValue] {
        let me = try user.requireID()
        var query = MeetupRecord.query(on: db).involving(\.$proposer.$id, \.$invitee.$id, me)
        switch filter {
        case .upcoming:
            query = query.filter(\.$status ~~ [MeetupStatus.pending.rawValue, MeetupStatus.accepted.rawValue]).sort(\.$startsAt)
        case .past:
            query = query.filter(\.$status !~ [MeetupStatus.pending.rawValue, MeetupStatus.accepted.rawValue])
                .sort(\.$startsAt, .descending)
        case .toReview:
            // Completed ones the member has not reviewed yet, read until `limit` are found.
            query = query.filter(\.$status == MeetupStatus.completed.rawValue).sort(\.$startsAt, .descending).sort(\.$id)
            var found: [MeetupValue] = []
            var offset = 0
            while found.count < limit {
                let rows = try await query.copy().range(offset..<(offset + 100)).all()
                found += try await values(rows, on: db).filter { !$0.reviewers.contains(me) }
                guard rows.count == 100 else { break }
                offset += 100
            }
            return Array(found.prefix(limit))
        }
        return try await values(query.sort(\.$id).limit(limit).all(), on: db)
    }

    /// The chat's meet-ups, latest start first.
    func meetups(_ user: UserRecord, chat id: Chats.Chat.ID, limit: Int, on db: any Database) async throws -> [MeetupValue] {
        let me = try user.requireID()
        guard let chat = try await ChatRecord.find(id, on: db), chat.side(of: me) != nil else { throw Problem.notFound }
        return try await values(
            MeetupRecord.query(on: db).filter(\.$chat.$id == id).sort(\.$startsAt, .descending)
                .sort(\.$id).limit(limit).all(), on: db)
    }

    /// Every meet-up the member takes part in, latest start first, for the export.
    func export(_ user: UserRecord, on db: any Database) async throws -> [MeetupValue] {
        let me = try user.requireID()
        return try await values(
            MeetupRecord.query(on: db)
                .involving(\.$proposer.$id, \.$invitee.$id, me)
                .sort(\.$startsAt, .descending).all(), on: db)
    }

    /// The meet-up, when `user` takes part in it; the same 404 otherwise as for none.
    func participant(_ user: User.ID, meetup id: Meetups.Meetup.ID, on db: any Database) async throws -> MeetupRecord {
        guard let meetup = try await MeetupRecord.find(id, on: db), meetup.isParticipant(user) else { throw Problem.notFound }
        return meetup
    }

    private func values(_ rows: [MeetupRecord], on db: any Database) async throws -> [MeetupValue] {
        guard !rows.isEmpty else { return [] }
        let ids = try rows.map { try $0.requireID() }
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$proposerPet.id, $0.$inviteePet.id] })), on: db)
        let reviewers = try await reviewers(ids, db)
        return try rows.compactMap { row in
            guard let proposerPet = dogs[row.$proposerPet.id], let inviteePet = dogs[row.$inviteePet.id] else { return nil }
            let id = try row.requireID()
            return MeetupValue(
                id: id, chat: row.$chat.id, proposer: row.$proposer.id, invitee: row.$invitee.id,
                proposerPet: proposerPet, inviteePet: inviteePet, startsAt: row.startsAt,
                placeName: row.placeName, place: GeoPoint(latitude: row.latitude, longitude: row.longitude),
                note: row.note, status: row.meetupStatus, createdAt: row.createdAt, updatedAt: row.updatedAt,
                changedBy: row.changedBy, reviewers: reviewers[id] ?? [])
        }
    }

    // MARK: Scheduled work

    /// Expires the proposals nobody answered by their start, and reminds both owners of an
    /// accepted meet-up an hour before. Each change is made once even when two instances run
    /// this together: it is conditional on the state it changes.
    func runDueJobs(on db: any Database, logger: Logger) async throws {
        let now = clock.now()
        for meetup in try await MeetupRecord.query(on: db).filter(\.$status == MeetupStatus.pending.rawValue)
            .filter(\.$startsAt <= now).limit(500).all()
        {
            do {
                _ = try await change(meetup, from: .pending, to: .expired, by: nil, now: now, on: db)
            } catch let problem as Problem where problem.code == .meetupStateConflict {
                continue
            }
        }
        for meetup in try await MeetupRecord.query(on: db).filter(\.$status == MeetupStatus.accepted.rawValue)
            .filter(\.$remindedAt == nil).filter(\.$startsAt <= now.addingTimeInterval(MeetupRules.reminderLead))
            .filter(\.$startsAt > now).limit(500).all()
        {
            let id = try meetup.requireID()
            let value = try await values([meetup], on: db)[0]
            let events = try await db.transaction { tx -> [StoredRealtimeEvent] in
                let claimed = try await tx.sql.raw(
                    """
                    UPDATE "meetups" SET "reminded_at" = \(bind: now) WHERE "id" = \(bind: id) AND "reminded_at" IS NULL RETURNING "id"
                    """
                ).all()
                guard !claimed.isEmpty else { return [] }
                var events: [StoredRealtimeEvent] = []
                for participant in [value.proposer, value.invitee] {
                    events += try await self.notifications.notify(self.reminder(for: value, to: participant), to: participant, on: tx)
                }
                return events
            }
            await realtime.deliver(events)
        }
    }

    // MARK: Closing chats and deleting

    /// Cancels what was still planned in these chats (an unmatch or a block closed them).
    static func cancelOpen(inChats chats: [Chats.Chat.ID], now: Date, on db: any Database) async throws {
        guard !chats.isEmpty else { return }
        try await MeetupRecord.query(on: db).filter(\.$chat.$id ~~ chats)
            .filter(\.$status ~~ [MeetupStatus.pending.rawValue, MeetupStatus.accepted.rawValue])
            .set(\.$status, to: MeetupStatus.cancelled.rawValue).set(\.$updatedAt, to: now).update()
    }

    // MARK: Words

    // One word for one thing: a meeting the owners arrange is a "meet-up" (Playdates is where
    // dogs are matched); each says who did it, by name and dog.
    private func draft(for meetup: MeetupValue, change: MeetupStatus, to recipient: User.ID) -> NotificationDraft {
        let (mine, theirs) = meetup.pets(seenBy: recipient)
        let other = "\(theirs.ownerDisplayName) (\(theirs.name))"
        let place = meetup.placeName
        let (title, body): (String, String) =
            switch change {
            case .pending: ("Meet-up proposed", "\(other) would like to meet \(mine.name) at \(place).")
            case .accepted: ("Meet-up accepted", "\(other) accepted your meet-up at \(place).")
            case .rejected: ("Meet-up declined", "\(other) declined your meet-up at \(place).")
            case .cancelled: ("Meet-up cancelled", "\(other) cancelled the meet-up at \(place).")
            case .completed: ("Meet-up done", "How did it go with \(other) at \(place)? You can now leave a review.")
            case .expired: ("Meet-up proposal expired", "Nobody answered the meet-up with \(other) at \(place) before its time.")
            }
        return NotificationDraft(
            from: meetup.changedBy, kind: .meetup, title: title, body: body, chat: meetup.chat, meetup: meetup.id,
            pet: meetup.pets(seenBy: recipient).theirs.id)
    }

    private func reminder(for meetup: MeetupValue, to user: User.ID) -> NotificationDraft {
        let (mine, theirs) = meetup.pets(seenBy: user)
        return NotificationDraft(
            from: nil, kind: .meetup, title: "Meet-up in an hour",
            body: "\(mine.name) meets \(theirs.ownerDisplayName) and \(theirs.name) at \(meetup.placeName) soon.",
            chat: meetup.chat, meetup: meetup.id, pet: theirs.id)
    }
}
