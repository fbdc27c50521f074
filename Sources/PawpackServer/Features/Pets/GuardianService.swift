import Fluent
import Foundation
import PawpackCore

/// Members who share a pet with its owner: invited by username, they see its private fields
/// and edit it (`PetPermissions`). The household Care's feeds and reminders reach.
final class GuardianService: Sendable {
    let pets: PetService
    let notifications: NotificationService
    let realtime: RealtimeEvents

    init(pets: PetService, notifications: NotificationService, realtime: RealtimeEvents) {
        self.pets = pets
        self.notifications = notifications
        self.realtime = realtime
    }

    func guardians(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [GuardianValue] {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        return try await guardians(of: pet.requireID(), on: db)
    }

    func guardians(of pet: Pet.ID, on db: any Database) async throws -> [GuardianValue] {
        try await GuardianRecord.query(on: db).filter(\.$pet.$id == pet).with(\.$user).sort(\.$createdAt).all()
            .map { try GuardianValue($0, user: $0.user) }
    }

    func invite(_ user: UserRecord, pet id: Pet.ID, username: String, on db: any Database) async throws -> GuardianValue {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canManageGuardians, on: db)
        let name = AccountRules().normalizedUsername(username)
        guard let invitee = try await UserRecord.query(on: db).filter(\.$username == name).first(),
            invitee.emailVerifiedAt != nil
        else {
            throw Problem(
                status: 404, code: .notFound, title: "No such member",
                detail: "No member has that username.",
                errors: [.init(field: "username", message: "is not a member")])
        }
        let (petID, inviteeID) = (try pet.requireID(), try invitee.requireID())
        guard try inviteeID != user.requireID() else { throw Problem.invalidField("username", "is you; you own this pet") }
        if try await GuardianRecord.query(on: db).filter(\.$pet.$id == petID).filter(\.$user.$id == inviteeID).first() != nil {
            throw Problem(
                status: 409, code: .alreadyInvited, title: "Already invited",
                detail: "\(invitee.displayName) already guards this pet or has an invitation waiting.",
                errors: [.init(field: "username", message: "is already invited")])
        }
        guard try await GuardianRecord.query(on: db).filter(\.$pet.$id == petID).count() < pets.limits.guardiansPerPet else {
            throw CreationLimits.reached("guardians of a pet", limit: pets.limits.guardiansPerPet, field: "username")
        }
        let guardian = GuardianRecord(petID: petID, userID: inviteeID, now: pets.clock.now())
        // The invitee hears of it in the inbox (and by push), and the pets' tab counts it.
        let told = NotificationDraft(
            from: try user.requireID(), kind: .guardianInvitation, title: "Help look after \(pet.name)?",
            body: "\(user.displayName) invites you to guard \(pet.name): you would see and edit its profile and records.",
            pet: petID)
        let events = try await db.transaction { tx in
            try await guardian.create(on: tx)
            return try await self.notifications.notify(told, to: inviteeID, on: tx)
        }
        await realtime.deliver(events)
        return try GuardianValue(guardian, user: invitee)
    }

    /// The owner removes a guardian or withdraws an invitation; a guardian may step down.
    func removeGuardian(_ user: UserRecord, pet id: Pet.ID, guardian userID: User.ID, on db: any Database) async throws {
        let pet = try await pets.pet(id, on: db)
        let role = try await pets.role(of: user, for: pet, on: db)
        guard role == .owner || (role == .guardian && userID == user.id) else {
            throw Problem(
                status: 403, code: .forbidden, title: "Not allowed",
                detail: "Only the owner removes guardians; a guardian may only step down.")
        }
        guard
            let row = try await GuardianRecord.query(on: db).filter(\.$pet.$id == pet.requireID())
                .filter(\.$user.$id == userID).first()
        else { throw Problem.notFound }
        try await row.delete(on: db)
    }

    /// Invitations waiting for this member's answer, with the pet each is about.
    func invitations(for user: UserRecord, on db: any Database) async throws -> [GuardianInvitationValue] {
        let rows = try await GuardianRecord.query(on: db).filter(\.$user.$id == user.requireID())
            .filter(\.$status == .invited).with(\.$pet).sort(\.$createdAt).all()
        var result: [GuardianInvitationValue] = []
        for row in rows {
            result.append(
                GuardianInvitationValue(
                    id: try row.requireID(), pet: try await pets.snapshot(of: row.pet, role: nil, on: db),
                    createdAt: row.createdAt))
        }
        return result
    }

    func answerInvitation(
        _ user: UserRecord, invitation id: Pet.Guardianship.ID, accept: Bool,
        on db: any Database
    ) async throws {
        // Someone else's invitation is "not found": invitations are private to the invitee.
        guard
            let row = try await GuardianRecord.query(on: db).filter(\.$id == id)
                .filter(\.$user.$id == user.requireID()).filter(\.$status == .invited).first()
        else { throw Problem.notFound }
        if accept {
            row.status = .active
            try await row.save(on: db)
        } else {
            try await row.delete(on: db)
        }
    }

    /// The other members' pets this member guards or is invited to guard (the export's list).
    func guardianships(of user: UserRecord, on db: any Database) async throws -> [GuardianshipValue] {
        let rows = try await GuardianRecord.query(on: db).filter(\.$user.$id == user.requireID()).sort(\.$createdAt).all()
        let cards = try await pets.cards(ofPets: rows.map(\.$pet.id), on: db)
        return try rows.compactMap { row -> GuardianshipValue? in
            guard let pet = cards[row.$pet.id] else { return nil }
            return GuardianshipValue(id: try row.requireID(), pet: pet, status: row.status, createdAt: row.createdAt)
        }
    }
}
