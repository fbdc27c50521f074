import Fluent
import Foundation
import Logging
import NIOPosix
import PawpackCore
import SQLKit
import SQLiteNIO

/// Pets: profiles, photos and where their owners live. Vaccinations (`VaccinationService`)
/// and guardians (`GuardianService`) stand on its loading and permission checks. Every rule is
/// in `PawpackCore`; this service loads, checks permissions, applies the rule and stores.
final class PetService: Sendable {
    let config: Config
    let clock: any AppClock
    /// Where pet photos come in (`PhotoIntake`, shared by every area that takes photos).
    let photos: PhotoIntake
    private let logger: Logger
    let rules = PetRules()
    let limits = CreationLimits()
    /// Each dog's welfare mode as it stands today, shown on its profile and card.
    let welfare: WelfareModes
    /// What other areas derive from pets and owners' locations (the deck's index): told of
    /// every change here, in its transaction and once it has committed.
    let followers: PetFollowers
    /// The pet and card reads every deck and pet request makes.
    let reads: HotReads
    private let locationOffsets: @Sendable () -> LocationBlur.Offset
    /// Location changes per member: each is a new point to measure distances from.
    private let locationChanges: RateLimiter
    /// Deletes pets and all that is theirs, in every area (`PawpackServices.deletePets`).
    private let deletePets: @Sendable ([Pet.ID], any Database) async throws -> Void
    /// The ratings other areas keep of pets and their owners (`Area.petRatings`).
    private let ratings: @Sendable ([Pet.ID], any Database) async throws -> [Pet.ID: PetRatings]

    init(
        config: Config, clock: any AppClock, photos: PhotoIntake,
        locationOffsets: @escaping @Sendable () -> LocationBlur.Offset, reads: HotReads, followers: PetFollowers,
        logger: Logger, deletePets: @escaping @Sendable ([Pet.ID], any Database) async throws -> Void,
        ratings: @escaping @Sendable ([Pet.ID], any Database) async throws -> [Pet.ID: PetRatings]
    ) {
        self.deletePets = deletePets
        self.ratings = ratings
        self.locationOffsets = locationOffsets
        self.locationChanges = RateLimiter(limit: config.locationChangesPerHour, window: 60 * 60)
        self.reads = reads
        self.followers = followers
        self.welfare = WelfareModes(clock: clock, followers: followers)
        self.config = config
        self.clock = clock
        self.photos = photos
        self.logger = logger
    }

    var today: LocalDate { LocalDate(utc: clock.now()) }

    // MARK: Loading and permissions

    /// The pet, or 404 — the same answer whether it never existed or was deleted.
    func pet(_ id: Pet.ID, on db: any Database) async throws -> PetRecord {
        // Read without model decoding: nearly every pet and deck request starts here.
        guard
            let pet = try await reads.rows(#"SELECT * FROM "pets" WHERE "id" = \#(bind: id)"#, on: db)
                .first.map(PetRecord.init(row:))
        else { throw Problem.notFound }
        return pet
    }

    func role(of user: UserRecord, for pet: PetRecord, on db: any Database) async throws -> PetRole? {
        let userID = try user.requireID()
        if pet.$owner.id == userID { return .owner }
        let guardian = try await GuardianRecord.query(on: db)
            .filter(\.$pet.$id == pet.requireID()).filter(\.$user.$id == userID).filter(\.$status == .active).first()
        return guardian == nil ? nil : .guardian
    }

    /// Loads the pet and checks the viewer may do `need`; strangers get 403 on changes, never a hint
    /// of private fields.
    func authorized(
        _ user: UserRecord, pet id: Pet.ID, need: (PetPermissions) -> Bool,
        on db: any Database
    ) async throws -> (PetRecord, PetRole?) {
        let pet = try await pet(id, on: db)
        return (pet, try await authorize(user, for: pet, need: need, on: db))
    }

    /// Checks the viewer may do `need` with a pet already loaded; their role. 403 otherwise.
    func authorize(
        _ user: UserRecord, for pet: PetRecord, need: (PetPermissions) -> Bool,
        on db: any Database
    ) async throws -> PetRole? {
        let role = try await role(of: user, for: pet, on: db)
        guard need(PetPermissions(role: role)) else {
            throw Problem(
                status: 403, code: .forbidden, title: "Not your pet",
                detail: role == nil
                    ? "Only the pet's owner and guardians may do this."
                    : "Only the pet's owner may do this.")
        }
        return role
    }

    func snapshot(of pet: PetRecord, role: PetRole?, on db: any Database) async throws -> PetSnapshot {
        let owner = try await UserRecord.find(pet.$owner.id, on: db)
        let photos = try await PetPhotoRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).all()
        let doses = try await welfare.doses(of: pet, on: db)
        // Whenever the owner or a guardian looks, a dog the rules now allow is switched on.
        let reached = role != nil ? try await welfare.reachSocialModeIfAllowed(pet, doses: doses, on: db) : false
        var snapshot = try makeSnapshot(
            of: pet, role: role, ownerDisplayName: owner?.displayName ?? "", photos: photos,
            doses: doses, today: today)
        snapshot.reachedSocialMode = reached
        snapshot.ratings = try await ratings([pet.requireID()], db)[try pet.requireID()] ?? PetRatings()
        return snapshot
    }

    /// The cards of these pets (deck, pass pile, requests, matches), by pet id: one query for
    /// the whole page (`PetCardValue.rows(ofPets:namingIndexes:)`) rather than a few per pet, only the
    /// columns a card shows, read without Fluent's model decoding (`PetRows.swift`). Pets that
    /// do not exist are left out.
    func cards(ofPets ids: [Pet.ID], on db: any Database) async throws -> [Pet.ID: PetCardValue] {
        guard !ids.isEmpty else { return [:] }
        var pets: [(card: PetCardValue, socialSince: Date?)] = []
        var photos: [Pet.ID: [PetPhotoRecordValue]] = [:]
        // Only what the welfare rules read of each vaccination, straight into doses.
        var doses: [Pet.ID: [VaccinationDose]] = [:]
        for row in try await reads.rows(PetCardValue.rows(ofPets: ids, namingIndexes: db is any SQLiteDatabase), on: db) {
            switch try PetCardRow(row: row) {
            case .pet(let card, let socialSince): pets.append((card, socialSince))
            case .photo(let pet, let photo): photos[pet, default: []].append(photo)
            case .dose(let pet, let dose?): doses[pet, default: []].append(dose)
            case .dose: break
            }
        }
        let today = self.today
        let ratings = try await ratings(ids, db)
        var cards: [Pet.ID: PetCardValue] = [:]
        for (read, socialSince) in pets {
            var card = read
            let id = card.id
            if card.species == .dog {
                // Social only while switched on and the rules allow it: a dog never switched on
                // is in Puppy Mode whatever its vaccinations say, and needs no assessment.
                if let socialSince {
                    card.mode = welfare.mode(birthDate: card.birthDate, socialSince: socialSince, doses: doses[id] ?? [], today: today)
                } else {
                    card.mode = .puppy
                }
            }
            card.photos = Array(Self.cardOrder(photos[id] ?? []).prefix(limits.photosPerCard))
            card.ratings = ratings[id] ?? PetRatings()
            cards[id] = card
        }
        return cards
    }

    /// The profile photo first, then the others oldest first.
    static func cardOrder(_ photos: [PetPhotoRecordValue]) -> [PetPhotoRecordValue] {
        photos.sorted { ($0.kind == .profile ? 0 : 1, $0.createdAt) < ($1.kind == .profile ? 0 : 1, $1.createdAt) }
    }

    private func makeSnapshot(
        of pet: PetRecord, role: PetRole?, ownerDisplayName: String,
        photos: [PetPhotoRecord], doses: [VaccinationDose], today: LocalDate
    ) throws -> PetSnapshot {
        let status = welfare.status(of: pet, doses: doses, today: today)
        return PetSnapshot(
            profile: try pet.profile, role: role, ownerDisplayName: ownerDisplayName,
            photos: Self.cardOrder(
                try photos.map {
                    PetPhotoRecordValue(
                        id: try $0.requireID(), kind: $0.kind, storageKey: $0.storageKey,
                        contentType: $0.contentType, createdAt: $0.createdAt)
                }),
            welfare: status)
    }

    // MARK: Where the owner lives

    /// Sets or clears where `user` is matched from (shown to nobody else; the deck measures
    /// distances from it): the centre of the cell of `point` (`LocationBlur`), and moves their
    /// dogs in the deck's index along with it. Limited per hour when it moves them; the same
    /// cell again, or no position, is free.
    func setLocation(of user: UserRecord, to point: GeoPoint?, on db: any Database) async throws {
        guard user.place(at: point, newOffset: locationOffsets) else { return }
        if point != nil {
            // Refused unsaved: the record in hand is this request's own.
            try await locationChanges.take(try user.requireID().description, now: clock.now(), what: "location changes")
        }
        let moved = try await db.transaction { tx in
            try await user.save(on: tx)
            return try await self.followers.ownerMoved(user, on: tx)
        }
        await followers.committed(moved, on: db)
    }

    // MARK: Profiles

    /// The member's own pets, oldest first (the export's list).
    func owned(by user: UserRecord, on db: any Database) async throws -> [PetRecord] {
        try await PetRecord.query(on: db).filter(\.$owner.$id == user.requireID()).sort(\.$createdAt).all()
    }

    func listMine(_ user: UserRecord, on db: any Database) async throws -> [PetSnapshot] {
        let userID = try user.requireID()
        let owned = try await PetRecord.query(on: db).filter(\.$owner.$id == userID).sort(\.$createdAt).all()
        let guarded = try await GuardianRecord.query(on: db).filter(\.$user.$id == userID)
            .filter(\.$status == .active).with(\.$pet).all().map(\.pet)
        var result: [PetSnapshot] = []
        for pet in owned { result.append(try await snapshot(of: pet, role: .owner, on: db)) }
        for pet in guarded.sorted(by: { $0.createdAt < $1.createdAt }) {
            result.append(try await snapshot(of: pet, role: .guardian, on: db))
        }
        return result
    }

    func create(_ user: UserRecord, draft: PetDraft, on db: any Database) async throws -> PetSnapshot {
        let profile = try rules.create(draft, owner: user.requireID(), today: today)
        guard try await PetRecord.query(on: db).filter(\.$owner.$id == profile.ownerID).count() < limits.petsPerOwner else {
            throw CreationLimits.reached("pets per member", limit: limits.petsPerOwner, field: "name")
        }
        let record = PetRecord(profile, now: clock.now())
        let indexed = try await db.transaction { tx in
            try await record.create(on: tx)
            return try await self.followers.changed([record], on: tx)
        }
        await followers.committed(indexed, on: db)
        return try await snapshot(of: record, role: .owner, on: db)
    }

    func view(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> PetSnapshot {
        let pet = try await pet(id, on: db)
        let role = try await role(of: user, for: pet, on: db)
        try await hideIfBlocked(pet, from: user, on: db)
        return try await snapshot(of: pet, role: role, on: db)
    }

    /// The pet, unless a block between `viewer` and its owner hides it (then 404, as for none).
    func visiblePet(_ id: Pet.ID, to viewer: UserRecord, on db: any Database) async throws -> PetRecord {
        let pet = try await pet(id, on: db)
        try await hideIfBlocked(pet, from: viewer, on: db)
        return pet
    }

    /// A block hides each member's pets from the other, as if they did not exist (404); the
    /// pet's guardians still see it. The block is looked up first: the role only matters then.
    private func hideIfBlocked(_ pet: PetRecord, from viewer: UserRecord, on db: any Database) async throws {
        guard try await BlockRecord.between(viewer.requireID(), pet.$owner.id, on: db),
            try await role(of: viewer, for: pet, on: db) == nil
        else { return }
        throw Problem.notFound
    }

    func update(_ user: UserRecord, pet id: Pet.ID, draft: PetDraft, on db: any Database) async throws -> PetSnapshot {
        let (pet, role) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let updated = try rules.apply(draft, to: try pet.profile, today: today)
        pet.update(from: updated, now: clock.now())
        let indexed = try await db.transaction { tx in
            try await pet.save(on: tx)
            return try await self.followers.changed([pet], on: tx)
        }
        await followers.committed(indexed, on: db)
        return try await snapshot(of: pet, role: role, on: db)
    }

    /// Deletes the pet, its rows in every area and then its stored photos.
    func delete(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws {
        let (pet, _) = try await authorized(user, pet: id, need: \.canDelete, on: db)
        try await deletePets([pet.requireID()], db)
    }

    // MARK: Photos

    func uploadPhoto(
        _ user: UserRecord, pet id: Pet.ID, data: Data, kind: PetPhotoRecord.Kind,
        on db: any Database
    ) async throws -> PetPhotoRecordValue {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let petID = try pet.requireID()
        guard try await PetPhotoRecord.query(on: db).filter(\.$pet.$id == petID).count() < limits.photosPerPet else {
            throw CreationLimits.reached("photos of a pet", limit: limits.photosPerPet, field: "photo")
        }
        let photoID = Pet.Photo.ID()
        let now = clock.now()
        return try await photos.store(data, key: "pets/\(petID)/\(photoID)") { stored in
            try await db.transaction { tx in
                if kind == .profile { try await Self.demoteMainPhoto(of: petID, on: tx) }
                try await PetPhotoRecord(
                    id: photoID, petID: petID, kind: kind, storageKey: stored.key,
                    contentType: stored.contentType, byteCount: stored.byteCount, now: now
                ).create(on: tx)
            }
            return PetPhotoRecordValue(
                id: photoID, kind: kind, storageKey: stored.key, contentType: stored.contentType,
                createdAt: now)
        }
    }

    func deletePhoto(_ user: UserRecord, pet id: Pet.ID, photo photoID: Pet.Photo.ID, on db: any Database) async throws {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        guard
            let photo = try await PetPhotoRecord.query(on: db).filter(\.$id == photoID)
                .filter(\.$pet.$id == pet.requireID()).first()
        else { throw Problem.notFound }
        let key = photo.storageKey
        try await photo.delete(on: db)
        await photos.remove([key])
    }

    /// Makes one of the pet's photos its main one; the previous main photo joins the others.
    func makeMainPhoto(_ user: UserRecord, pet id: Pet.ID, photo photoID: Pet.Photo.ID, on db: any Database) async throws {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let petID = try pet.requireID()
        guard try await PetPhotoRecord.query(on: db).filter(\.$id == photoID).filter(\.$pet.$id == petID).first() != nil else {
            throw Problem.notFound
        }
        try await db.transaction { tx in
            try await Self.demoteMainPhoto(of: petID, on: tx)
            try await PetPhotoRecord.query(on: tx).filter(\.$id == photoID).set(\.$kind, to: .profile).update()
        }
    }

    /// A pet has one main (profile) photo: before another becomes it, the current one joins the others.
    private static func demoteMainPhoto(of pet: Pet.ID, on db: any Database) async throws {
        try await PetPhotoRecord.query(on: db).filter(\.$pet.$id == pet).filter(\.$kind == .profile).set(\.$kind, to: .gallery).update()
    }

    /// A photo of `pet` for `viewer`, by its storage key: hidden, like the pet, from a member
    /// blocked by or blocking its owner.
    func photo(key: String, pet id: Pet.ID, viewer: UserRecord, on db: any Database) async throws -> StoredMedia {
        guard let photo = try await PetPhotoRecord.query(on: db).filter(\.$storageKey == key).first(),
            photo.$pet.id == id
        else { throw Problem.notFound }
        _ = try await visiblePet(id, to: viewer, on: db)
        guard let stored = try await photos.media.get(key: key) else { throw Problem.notFound }
        return stored
    }
}
