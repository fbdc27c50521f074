import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A family as one of its members sees it.
struct FamilyValue: Sendable {
    struct Member: Sendable {
        var user: User.ID
        var username: String
        var displayName: String
        var role: FamilyRole
        var joinedAt: Date
    }

    struct SharedPet: Sendable {
        var pet: Pet.ID
        var name: String
        var species: Species
        var owner: User.ID
        var ownerDisplayName: String
    }

    var id: Care.Family.ID
    var name: String
    var timeZone: String
    var myRole: FamilyRole
    /// The owner's only.
    var inviteCode: String?
    var inviteExpiresAt: Date?
    var pendingOwnerUsername: String?
    var members: [Member]
    var pets: [SharedPet]
    var createdAt: Date
}

/// A request to join a family, as its owner (incoming) or the asking member (outgoing) sees it.
struct FamilyJoinRequestValue: Sendable {
    var id: Care.JoinRequest.ID
    var family: Care.Family.ID
    var familyName: String
    var username: String
    var displayName: String
    var incoming: Bool
    var createdAt: Date
}

/// Families: households whose members share pets' care. The creator owns one; members join
/// with a six-digit code the owner accepts; the owner may hand the family over, and a pet's
/// owner shares the pet with a family they belong to. Who may do what: `FamilyPermissions`
/// and `CareAccess`.
final class FamilyService: Sendable {
    let pets: PetService
    let notifications: NotificationService
    let realtime: RealtimeEvents
    let rules = FamilyRules()
    private let joinsByMember: RateLimiter
    private let joinsByAddress: RateLimiter

    init(pets: PetService, notifications: NotificationService, realtime: RealtimeEvents) {
        self.pets = pets
        self.notifications = notifications
        self.realtime = realtime
        joinsByMember = RateLimiter(limit: rules.joinAttemptsPerMember, window: rules.joinAttemptWindow)
        joinsByAddress = RateLimiter(limit: rules.joinAttemptsPerAddress, window: rules.joinAttemptWindow)
    }

    var clock: any AppClock { pets.clock }

    // MARK: Reading

    func families(of user: UserRecord, on db: any Database) async throws -> [FamilyValue] {
        let memberships = try await FamilyMemberRecord.query(on: db).filter(\.$user.$id == user.requireID())
            .with(\.$family).sort(\.$createdAt).all()
        var result: [FamilyValue] = []
        for membership in memberships {
            result.append(try await value(of: membership.family, role: membership.familyRole, on: db))
        }
        return result
    }

    func family(_ user: UserRecord, id: Care.Family.ID, on db: any Database) async throws -> FamilyValue {
        let (family, role) = try await membership(user, family: id, need: \.canSee, on: db)
        return try await value(of: family, role: role, on: db)
    }

    /// The family and the member's role in it. A family the member is not in is "not found",
    /// as one that does not exist is; a member without the right gets 403.
    func membership(
        _ user: UserRecord, family id: Care.Family.ID, need: (FamilyPermissions) -> Bool, on db: any Database
    ) async throws -> (FamilyRecord, FamilyRole) {
        guard
            let membership = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == id)
                .filter(\.$user.$id == user.requireID()).with(\.$family).first()
        else { throw Problem.notFound }
        guard need(FamilyPermissions(role: membership.familyRole)) else { throw Self.ownerOnly }
        return (membership.family, membership.familyRole)
    }

    static let ownerOnly = Problem(
        status: 403, code: .forbidden, title: "Only the family's owner",
        detail: "Only the family's owner may do this.")

    private func value(of family: FamilyRecord, role: FamilyRole, on db: any Database) async throws -> FamilyValue {
        let id = try family.requireID()
        // Oldest first; members who joined at the same moment, the owner first, then by name.
        let members = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == id).with(\.$user).all().sorted {
            ($0.createdAt, $0.familyRole == .owner ? 0 : 1, $0.user.username) < ($1.createdAt, $1.familyRole == .owner ? 0 : 1, $1.user.username)
        }
        let shared = try await FamilyPetRecord.query(on: db).filter(\.$family.$id == id).with(\.$pet) { $0.with(\.$owner) }
            .sort(\.$createdAt).all()
        let pending = try await family.$pendingOwner.get(on: db)
        let isOwner = role == .owner
        let live = rules.isLive(expiresAt: family.inviteExpiresAt, now: clock.now())
        return FamilyValue(
            id: id, name: family.name, timeZone: family.timeZone, myRole: role,
            inviteCode: isOwner && live ? family.inviteCode : nil, inviteExpiresAt: isOwner && live ? family.inviteExpiresAt : nil,
            pendingOwnerUsername: pending?.username,
            members: try members.map {
                .init(
                    user: try $0.user.requireID(), username: $0.user.username, displayName: $0.user.displayName,
                    role: $0.familyRole, joinedAt: $0.createdAt)
            },
            pets: try shared.map {
                .init(
                    pet: try $0.pet.requireID(), name: $0.pet.name, species: $0.pet.species,
                    owner: $0.pet.$owner.id, ownerDisplayName: $0.pet.owner.displayName)
            },
            createdAt: family.createdAt)
    }

    // MARK: Creating and changing

    func create(_ user: UserRecord, name raw: String, timeZone zone: String, on db: any Database) async throws -> FamilyValue {
        let me = try user.requireID()
        var errors: [FieldError] = []
        var name = ""
        switch rules.nameRule.check(raw) {
        case .success(let text): name = text
        case .failure(let refusal): errors.append(.init(field: "name", message: refusal.message))
        }
        if HouseholdDays.timeZone(named: zone) == nil { errors.append(.init(field: "timeZone", message: "is not a time zone's IANA name")) }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        guard try await FamilyMemberRecord.query(on: db).filter(\.$user.$id == me).count() < rules.familiesPerMember else {
            throw CreationLimits.reached("families a member belongs to", limit: rules.familiesPerMember, field: "name")
        }
        let now = clock.now()
        let family = FamilyRecord()
        family.id = .init()
        family.name = name
        family.$owner.id = me
        family.timeZone = zone
        family.createdAt = now
        let owner = FamilyMemberRecord()
        owner.$family.id = try family.requireID()
        owner.$user.id = me
        owner.role = FamilyRole.owner.rawValue
        owner.createdAt = now
        try await db.transaction { tx in
            try await family.create(on: tx)
            try await owner.create(on: tx)
        }
        return try await value(of: family, role: .owner, on: db)
    }

    func update(_ user: UserRecord, family id: Care.Family.ID, name: String?, timeZone: String?, on db: any Database) async throws
        -> FamilyValue
    {
        let (family, role) = try await membership(user, family: id, need: \.canRun, on: db)
        var errors: [FieldError] = []
        if let name {
            switch rules.nameRule.check(name) {
            case .success(let text): family.name = text
            case .failure(let refusal): errors.append(.init(field: "name", message: refusal.message))
            }
        }
        if let timeZone {
            if HouseholdDays.timeZone(named: timeZone) == nil {
                errors.append(.init(field: "timeZone", message: "is not a time zone's IANA name"))
            } else {
                family.timeZone = timeZone
            }
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        try await family.save(on: db)
        return try await value(of: family, role: role, on: db)
    }

    func delete(_ user: UserRecord, family id: Care.Family.ID, on db: any Database) async throws {
        let (family, _) = try await membership(user, family: id, need: \.canRun, on: db)
        try await family.delete(on: db)
    }

    /// A new code, replacing the old one; good for `FamilyRules.inviteLifetime`.
    func newInviteCode(_ user: UserRecord, family id: Care.Family.ID, on db: any Database) async throws -> (code: String, expiresAt: Date) {
        let (family, _) = try await membership(user, family: id, need: \.canRun, on: db)
        let now = clock.now()
        // Codes are unique among families; an expired one still holds its place until cleared.
        try await FamilyRecord.query(on: db).filter(\.$inviteExpiresAt <= now).set(\.$inviteCode, to: nil).set(\.$inviteExpiresAt, to: nil)
            .update()
        for _ in 0..<20 {
            let code = FamilyRules.inviteCode(from: UInt64.random(in: 0...UInt64.max))
            if try await FamilyRecord.query(on: db).filter(\.$inviteCode == code).first() != nil { continue }
            family.inviteCode = code
            family.inviteExpiresAt = now.addingTimeInterval(rules.inviteLifetime)
            do {
                try await family.save(on: db)
                return (code, family.inviteExpiresAt!)
            } catch  where error.isConstraintFailure {
                continue
            }
        }
        throw Problem(status: 503, code: .serverBusy, title: "Try again", detail: "No free code was found. Try again.", retryAfter: 1)
    }

    // MARK: Joining

    /// Asks to join the family whose live code this is. Every attempt counts against the
    /// member's and the address's limits, right or wrong, so codes cannot be walked.
    func askToJoin(_ user: UserRecord, code raw: String, address: String, on db: any Database) async throws -> FamilyJoinRequestValue {
        let now = clock.now()
        let me = try user.requireID()
        try await joinsByMember.take("member:\(me)", now: now, what: "join attempts")
        try await joinsByAddress.take("address:\(address)", now: now, what: "join attempts")
        guard let code = rules.normalizedCode(raw) else { throw Problem.invalidField("code", "must be six digits") }
        let noFamily = Problem(
            status: 404, code: .notFound, title: "No family with this code",
            detail: "No family has this code, or it expired. Ask the family's owner for a new one.",
            errors: [.init(field: "code", message: "matches no family")])
        guard let family = try await FamilyRecord.query(on: db).filter(\.$inviteCode == code).first(),
            rules.isLive(expiresAt: family.inviteExpiresAt, now: now)
        else { throw noFamily }
        let familyID = try family.requireID()
        // A family with someone in it who blocked this member, or whom they blocked, is one they
        // cannot find: the same answer as a code nobody has, and its owner is told nothing.
        guard !(try await Self.blockStands(between: me, andMembersOf: familyID, on: db)) else { throw noFamily }
        if try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == familyID).filter(\.$user.$id == me).first() != nil {
            throw Problem(
                status: 409, code: .alreadyRequested, title: "Already in this family",
                detail: "You are already a member of \(family.name).", errors: [.init(field: "code", message: "is your own family's")])
        }
        return try await answeringRacesAsSequential {
            if let earlier = try await FamilyJoinRequestRecord.query(on: db).filter(\.$family.$id == familyID)
                .filter(\.$user.$id == me).first()
            {
                return try FamilyJoinRequestValue(earlier, family: family, user: user, incoming: false)
            }
            guard try await FamilyJoinRequestRecord.query(on: db).filter(\.$family.$id == familyID).count() < rules.requestsPerFamily else {
                throw CreationLimits.reached("requests waiting to join a family", limit: rules.requestsPerFamily, field: "code")
            }
            let request = FamilyJoinRequestRecord()
            request.id = .init()
            request.$family.id = familyID
            request.$user.id = me
            request.createdAt = now
            let told = NotificationDraft(
                from: me, kind: .family, title: "\(user.displayName) asks to join \(family.name)",
                body: "\(user.displayName) (@\(user.username)) entered your family's code. Accept to share your family's pets with them.")
            let events = try await db.transaction { tx in
                try await request.create(on: tx)
                return try await self.notifications.notify(told, to: family.$owner.id, on: tx)
            }
            await realtime.deliver(events)
            return try FamilyJoinRequestValue(request, family: family, user: user, incoming: false)
        }
    }

    /// Requests to the families this member owns, and their own requests waiting.
    func joinRequests(for user: UserRecord, on db: any Database) async throws -> [FamilyJoinRequestValue] {
        let me = try user.requireID()
        let owned = try await FamilyRecord.query(on: db).filter(\.$owner.$id == me).all()
        let ownedIDs = try owned.map { try $0.requireID() }
        let incoming =
            ownedIDs.isEmpty
            ? [] : try await FamilyJoinRequestRecord.query(on: db).filter(\.$family.$id ~~ ownedIDs).with(\.$user).with(\.$family).all()
        let outgoing = try await FamilyJoinRequestRecord.query(on: db).filter(\.$user.$id == me).with(\.$user).with(\.$family).all()
        return try
            (incoming.map { try FamilyJoinRequestValue($0, family: $0.family, user: $0.user, incoming: true) }
            + outgoing.map { try FamilyJoinRequestValue($0, family: $0.family, user: $0.user, incoming: false) })
            .sorted { $0.createdAt < $1.createdAt }
    }

    /// The owner accepts (as a member or a viewer) or declines; the asking member may withdraw
    /// (decline their own). Anyone else: not found.
    func answer(
        _ user: UserRecord, request id: Care.JoinRequest.ID, accept: Bool, role: FamilyRole = .member, on db: any Database
    ) async throws {
        let me = try user.requireID()
        guard let request = try await FamilyJoinRequestRecord.query(on: db).filter(\.$id == id).with(\.$family).with(\.$user).first(),
            request.family.$owner.id == me || (!accept && request.$user.id == me)
        else { throw Problem.notFound }
        guard role != .owner else { throw Problem.invalidField("role", "must be member or viewer") }
        guard accept else {
            try await request.delete(on: db)
            return
        }
        let familyID = try request.family.requireID()
        // A block since it was asked, between the asking member and someone in the family: the
        // request ends, as if withdrawn (which of them blocked whom stays theirs).
        if try await Self.blockStands(between: request.$user.id, andMembersOf: familyID, on: db) {
            try await request.delete(on: db)
            throw Problem.notFound
        }
        let member = FamilyMemberRecord()
        member.$family.id = familyID
        member.$user.id = request.$user.id
        member.role = role.rawValue
        member.createdAt = clock.now()
        let told = NotificationDraft(
            from: me, kind: .family, title: "Welcome to \(request.family.name)",
            body: "\(user.displayName) accepted you into \(request.family.name): its pets' care is on your Care tab.")
        let events = try await db.transaction { tx in
            // Claimed by its deletion: a request withdrawn or answered a moment ago is gone.
            guard !(try await tx.sql.raw(#"DELETE FROM "family_join_requests" WHERE "id" = \#(bind: id) RETURNING "id""#).all()).isEmpty
            else { throw Problem.notFound }
            guard try await FamilyMemberRecord.query(on: tx).filter(\.$family.$id == familyID).count() < self.rules.membersPerFamily else {
                throw CreationLimits.reached("members of a family", limit: self.rules.membersPerFamily, field: "role")
            }
            guard
                try await FamilyMemberRecord.query(on: tx).filter(\.$user.$id == request.$user.id).count() < self.rules.familiesPerMember
            else {
                throw CreationLimits.reached("families a member belongs to", limit: self.rules.familiesPerMember, field: "role")
            }
            try await member.create(on: tx)
            return try await self.notifications.notify(told, to: request.$user.id, on: tx)
        }
        await realtime.deliver(events)
    }

    // MARK: Members

    /// The owner changes a member's role (member or viewer).
    func setRole(_ user: UserRecord, family id: Care.Family.ID, username: String, role: FamilyRole, on db: any Database) async throws {
        _ = try await membership(user, family: id, need: \.canRun, on: db)
        guard role != .owner else { throw Problem.invalidField("role", "must be member or viewer: hand the family over to make an owner") }
        let member = try await member(named: username, in: id, on: db)
        guard member.familyRole != .owner else { throw Problem.invalidField("username", "is the owner") }
        member.role = role.rawValue
        try await member.save(on: db)
    }

    /// The owner removes a member, or a member leaves. The owner cannot leave: they hand the
    /// family over or delete it.
    func remove(_ user: UserRecord, family id: Care.Family.ID, username: String, on db: any Database) async throws {
        let (family, role) = try await membership(user, family: id, need: \.canSee, on: db)
        let member = try await member(named: username, in: id, on: db)
        let leaving = member.$user.id == (try user.requireID())
        guard leaving || role == .owner else { throw Self.ownerOnly }
        guard member.familyRole != .owner else {
            throw Problem(
                status: 409, code: .familyOwnerMustHandOver, title: "The owner cannot leave",
                detail: "Hand \(family.name) over to another member first, or delete it.",
                errors: [.init(field: "username", message: "owns the family")])
        }
        try await db.transaction { tx in
            // Their pets leave the family with them.
            let theirPets = try await PetRecord.query(on: tx).filter(\.$owner.$id == member.$user.id).all().map { try $0.requireID() }
            if !theirPets.isEmpty {
                try await FamilyPetRecord.query(on: tx).filter(\.$family.$id == id).filter(\.$pet.$id ~~ theirPets).delete()
            }
            if family.$pendingOwner.id == member.$user.id {
                family.$pendingOwner.id = nil
                try await family.save(on: tx)
            }
            try await member.delete(on: tx)
        }
    }

    private func member(named username: String, in family: Care.Family.ID, on db: any Database) async throws -> FamilyMemberRecord {
        let name = AccountRules().normalizedUsername(username)
        guard
            let member = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == family)
                .join(UserRecord.self, on: \FamilyMemberRecord.$user.$id == \UserRecord.$id)
                .filter(UserRecord.self, \.$username == name).first()
        else { throw Problem.notFound }
        return member
    }

    /// Whether `user` blocked anyone in the family, or anyone in it blocked them.
    static func blockStands(between user: User.ID, andMembersOf family: Care.Family.ID, on db: any Database) async throws -> Bool {
        let members = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == family).all().map(\.$user.id)
        guard !members.isEmpty else { return false }
        return try await BlockRecord.query(on: db)
            .group(.or) { either in
                either.group(.and) { $0.filter(\.$blocker.$id == user).filter(\.$blocked.$id ~~ members) }
                either.group(.and) { $0.filter(\.$blocked.$id == user).filter(\.$blocker.$id ~~ members) }
            }
            .first() != nil
    }

    /// What a new block ends here (`Area.blockEnds`): either member's requests to join a family
    /// the other is in, and an offer of a family between them. A family both are in stays as
    /// it is, so that nobody's pets lose their care; its owner may remove a member.
    func blockEnds(_ one: User.ID, _ other: User.ID, on tx: any Database) async throws {
        for (asking, member) in [(one, other), (other, one)] {
            let theirFamilies = try await FamilyMemberRecord.query(on: tx).filter(\.$user.$id == member).all().map(\.$family.id)
            guard !theirFamilies.isEmpty else { continue }
            try await FamilyJoinRequestRecord.query(on: tx).filter(\.$user.$id == asking).filter(\.$family.$id ~~ theirFamilies).delete()
            try await FamilyRecord.query(on: tx).filter(\.$owner.$id == member).filter(\.$pendingOwner.$id == asking)
                .set(\.$pendingOwner.$id, to: nil).update()
        }
    }

    // MARK: Handing over

    /// The owner offers the family to a member, who accepts (`acceptTransfer`) or declines.
    func offer(_ user: UserRecord, family id: Care.Family.ID, to username: String, on db: any Database) async throws {
        let (family, _) = try await membership(user, family: id, need: \.canRun, on: db)
        let member = try await member(named: username, in: id, on: db)
        guard member.familyRole != .owner else { throw Problem.invalidField("username", "already owns the family") }
        try await BlockRecord.requireInteraction(from: try user.requireID(), to: member.$user.id, on: db)
        family.$pendingOwner.id = member.$user.id
        let told = NotificationDraft(
            from: try user.requireID(), kind: .family, title: "Take over \(family.name)?",
            body: "\(user.displayName) offers you the ownership of \(family.name). Open the family to accept or decline.")
        let events = try await db.transaction { tx in
            try await family.save(on: tx)
            return try await self.notifications.notify(told, to: member.$user.id, on: tx)
        }
        await realtime.deliver(events)
    }

    /// The member offered the family takes it over (the old owner stays as a member) or
    /// declines; the owner may withdraw the offer (decline).
    func answerTransfer(_ user: UserRecord, family id: Care.Family.ID, accept: Bool, on db: any Database) async throws {
        let me = try user.requireID()
        let (family, role) = try await membership(user, family: id, need: \.canSee, on: db)
        guard let pending = family.$pendingOwner.id, pending == me || (!accept && role == .owner) else {
            throw Problem(
                status: 409, code: .noOfferWaiting, title: "No offer waiting",
                detail: "Nobody offered you this family.")
        }
        try await db.transaction { tx in
            family.$pendingOwner.id = nil
            if accept {
                let oldOwner = family.$owner.id
                family.$owner.id = me
                try await FamilyMemberRecord.query(on: tx).filter(\.$family.$id == id).filter(\.$user.$id == oldOwner)
                    .set(\.$role, to: FamilyRole.member.rawValue).update()
                try await FamilyMemberRecord.query(on: tx).filter(\.$family.$id == id).filter(\.$user.$id == me)
                    .set(\.$role, to: FamilyRole.owner.rawValue).update()
            }
            try await family.save(on: tx)
        }
    }

    // MARK: Pets

    /// The pet's owner shares it with a family they are in (one family at a time: sharing with
    /// another moves it).
    func share(_ user: UserRecord, pet petID: Pet.ID, with id: Care.Family.ID, on db: any Database) async throws {
        _ = try await membership(user, family: id, need: \.canSee, on: db)
        guard let pet = try? await pets.pet(petID, on: db) else { throw Problem.notFound }
        let me = try user.requireID()
        guard pet.$owner.id == me else {
            // Only those who see its care learn that it is not theirs to share.
            let (_, familyRole) = try await Self.sharing(of: petID, with: me, on: db)
            let access = CareAccess(petRole: try await pets.role(of: user, for: pet, on: db), familyRole: familyRole)
            guard access.canView else { throw Problem.notFound }
            throw Problem(status: 403, code: .forbidden, title: "Not your pet", detail: "Only the pet's owner shares it with a family.")
        }
        try await answeringRacesAsSequential {
            try await db.transaction { tx in
                let row = try await FamilyPetRecord.query(on: tx).filter(\.$pet.$id == petID).first() ?? FamilyPetRecord()
                row.$pet.id = petID
                row.$family.id = id
                row.createdAt = self.clock.now()
                try await row.save(on: tx)
            }
        }
    }

    /// The pet's owner or the family's owner stops sharing it (`CareAccess.canUnshare`).
    func unshare(_ user: UserRecord, pet petID: Pet.ID, from id: Care.Family.ID, on db: any Database) async throws {
        let (_, role) = try await membership(user, family: id, need: \.canSee, on: db)
        guard let row = try await FamilyPetRecord.query(on: db).filter(\.$pet.$id == petID).filter(\.$family.$id == id).with(\.$pet).first()
        else { throw Problem.notFound }
        let access = CareAccess(petRole: try await pets.role(of: user, for: row.pet, on: db), familyRole: role)
        guard access.canUnshare else {
            throw Problem(
                status: 403, code: .forbidden, title: "Not yours to take out",
                detail: "Only the pet's owner or the family's owner stops sharing it with the family.")
        }
        try await row.delete(on: db)
    }

    /// The family a pet is shared with, if any, and this member's role in it.
    static func sharing(of pet: Pet.ID, with user: User.ID, on db: any Database) async throws -> (family: FamilyRecord?, role: FamilyRole?) {
        guard let shared = try await FamilyPetRecord.query(on: db).filter(\.$pet.$id == pet).with(\.$family).first() else {
            return (nil, nil)
        }
        let role = try await FamilyMemberRecord.query(on: db).filter(\.$family.$id == shared.$family.id).filter(\.$user.$id == user)
            .first()?.familyRole
        return (shared.family, role)
    }

    /// Before a member's account goes: a family they own must first go to another owner or be
    /// deleted, so that nobody's household disappears with them.
    static func refuseDeletionWhileOwning(_ member: User.ID, on db: any Database) async throws {
        guard let family = try await FamilyRecord.query(on: db).filter(\.$owner.$id == member).first() else { return }
        throw Problem(
            status: 409, code: .familyOwnerMustHandOver, title: "You own a family",
            detail: "You own the family \(family.name). Hand it over to another member or delete it first, then delete your account.")
    }
}

extension FamilyJoinRequestValue {
    init(_ record: FamilyJoinRequestRecord, family: FamilyRecord, user: UserRecord, incoming: Bool) throws {
        self.init(
            id: try record.requireID(), family: try family.requireID(), familyName: family.name, username: user.username,
            displayName: user.displayName, incoming: incoming, createdAt: record.createdAt)
    }
}
