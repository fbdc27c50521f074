import Fluent
import Foundation
import Logging
import NIOPosix
import PawpackCore
import SQLiteNIO
import SQLKit

/// Everything a viewer may see of one pet, loaded once per request.
struct PetSnapshot: Sendable {
    var profile: PetProfile
    var role: PetRole?
    var ownerDisplayName: String
    var photos: [PetPhotoRecordValue]
    /// The welfare status as of this snapshot; nil for species without welfare modes.
    var welfare: WelfareStatusValue?
    /// The dog switched to Social Mode by itself while this snapshot was taken: its owner
    /// should be told.
    var reachedSocialMode = false
    /// The dog's reviews and its owner's.
    var ratings = PetRatings()

    var mode: WelfareMode? { welfare?.mode }
    var heldBackFields: [String] { welfare?.heldBackFields ?? [] }
}

/// What every member may see of a pet: its card (deck, pass pile, requests, matches, and a
/// stranger's view of the profile). Far less than the profile, and so read far faster.
struct PetCardValue: Sendable, Equatable {
    var id: Pet.ID
    /// Server-internal (blocks hide a member's dogs); never shown to another member.
    var ownerID: User.ID
    var name: String
    var species: Species
    var breed: String?
    var birthDate: LocalDate
    var birthDateIsEstimate: Bool
    /// Given, or implied by the weight.
    var sizeClass: SizeClass?
    var photos: [PetPhotoRecordValue]
    /// Nil for species without welfare modes (cats, others).
    var mode: WelfareMode?
    var ownerDisplayName: String
    /// The dog's reviews and its owner's, after meet-ups.
    var ratings = PetRatings()
}

extension PetSnapshot {
    var card: PetCardValue {
        PetCardValue(id: profile.id, ownerID: profile.ownerID, name: profile.name, species: profile.species,
                     breed: profile.breed, birthDate: profile.birthDate, birthDateIsEstimate: profile.birthDateIsEstimate,
                     sizeClass: profile.effectiveSizeClass, photos: photos, mode: mode, ownerDisplayName: ownerDisplayName,
                     ratings: ratings)
    }
}

/// A photo row as a value, safe to pass around.
struct PetPhotoRecordValue: Sendable, Equatable {
    var id: Pet.Photo.ID
    var kind: PetPhotoRecord.Kind
    var storageKey: String
    var contentType: String
    var createdAt: Date
}

/// A vaccination row as a value.
struct VaccinationValue: Sendable, Equatable {
    var id: Pet.Vaccination.ID
    var vaccine: String
    var otherName: String?
    var givenOn: String
    var nextDueOn: String?
    var clinic: String?
    var createdAt: Date

    init(_ record: VaccinationRecord) throws {
        self.init(id: try record.requireID(), vaccine: record.vaccine, otherName: record.otherName, givenOn: record.givenOn,
                  nextDueOn: record.nextDueOn, clinic: record.clinic, createdAt: record.createdAt)
    }

    init(id: Pet.Vaccination.ID, vaccine: String, otherName: String?, givenOn: String, nextDueOn: String?,
         clinic: String?, createdAt: Date) {
        self.id = id
        self.vaccine = vaccine
        self.otherName = otherName
        self.givenOn = givenOn
        self.nextDueOn = nextDueOn
        self.clinic = clinic
        self.createdAt = createdAt
    }
}

/// A member guarding a pet, or invited to, as the pet's owner and guardians see them.
struct GuardianValue: Sendable, Equatable {
    var userID: User.ID
    var username: String
    var displayName: String
    var status: GuardianRecord.Status

    init(_ row: GuardianRecord, user: UserRecord) throws {
        userID = try user.requireID()
        username = user.username
        displayName = user.displayName
        status = row.status
    }
}

/// An invitation to guard a pet, as the invitee sees it.
struct GuardianInvitationValue: Sendable {
    var id: Pet.Guardianship.ID
    var pet: PetSnapshot
    var createdAt: Date
}

/// A guardianship seen from the guardian's side: whose pet, and whether they accepted.
struct GuardianshipValue: Sendable {
    var id: Pet.Guardianship.ID
    var pet: PetCardValue
    var status: GuardianRecord.Status
    var createdAt: Date
}

struct WelfareStatusValue: Sendable {
    var mode: WelfareMode
    var assessment: WelfareAssessment
    var heldBackFields: [String]
}

/// Pets: profiles, photos, vaccinations, welfare modes and guardians. Every rule is in
/// `PawpackCore`; this service loads, checks permissions, applies the rule and stores.
final class PetService: Sendable {
    let config: Config
    let clock: any AppClock
    /// Where pet photos come in (`PhotoIntake`, shared by every area that takes photos).
    let photos: PhotoIntake
    private let logger: Logger
    let rules = PetRules()
    let limits = CreationLimits()
    let welfare = WelfarePolicy()
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

    init(config: Config, clock: any AppClock, photos: PhotoIntake,
         locationOffsets: @escaping @Sendable () -> LocationBlur.Offset, reads: HotReads, followers: PetFollowers,
         logger: Logger, deletePets: @escaping @Sendable ([Pet.ID], any Database) async throws -> Void) {
        self.deletePets = deletePets
        self.locationOffsets = locationOffsets
        self.locationChanges = RateLimiter(limit: config.locationChangesPerHour, window: 60 * 60)
        self.reads = reads
        self.followers = followers
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
        guard let pet = try await reads.rows(#"SELECT * FROM "pets" WHERE "id" = \#(bind: id)"#, on: db)
            .first.map(PetRecord.init(row:)) else { throw Problem.notFound }
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
    func authorized(_ user: UserRecord, pet id: Pet.ID, need: (PetPermissions) -> Bool,
                    on db: any Database) async throws -> (PetRecord, PetRole?) {
        let pet = try await pet(id, on: db)
        return (pet, try await authorize(user, for: pet, need: need, on: db))
    }

    /// Checks the viewer may do `need` with a pet already loaded; their role. 403 otherwise.
    func authorize(_ user: UserRecord, for pet: PetRecord, need: (PetPermissions) -> Bool,
                   on db: any Database) async throws -> PetRole? {
        let role = try await role(of: user, for: pet, on: db)
        guard need(PetPermissions(role: role)) else {
            throw Problem(status: 403, code: .forbidden, title: "Not your pet",
                          detail: role == nil ? "Only the pet's owner and guardians may do this."
                                              : "Only the pet's owner may do this.")
        }
        return role
    }

    func snapshot(of pet: PetRecord, role: PetRole?, on db: any Database) async throws -> PetSnapshot {
        let owner = try await UserRecord.find(pet.$owner.id, on: db)
        let photos = try await PetPhotoRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).all()
        let doses = try await records(of: pet, on: db).compactMap(\.dose)
        // Whenever the owner or a guardian looks, a dog the rules now allow is switched on.
        let reached = role != nil ? try await reachSocialModeIfAllowed(pet, doses: doses, on: db) : false
        var snapshot = try makeSnapshot(of: pet, role: role, ownerDisplayName: owner?.displayName ?? "", photos: photos,
                                        doses: doses, today: today)
        snapshot.reachedSocialMode = reached
        snapshot.ratings = try await ReviewService.ratings(ofPets: [pet.requireID()], on: db)[try pet.requireID()] ?? PetRatings()
        return snapshot
    }

    /// Switches a dog to Social Mode once its records allow it, instead of waiting for the
    /// owner to press a button; true when it switched now. Called when the records change and
    /// whenever the owner or a guardian looks at the dog, since time alone (age, the buffer
    /// after the last dose) can make a dog eligible. Until then the dog counts as in Puppy
    /// Mode for everyone else, the safe side.
    @discardableResult
    func reachSocialModeIfAllowed(_ pet: PetRecord, doses: [VaccinationDose], on db: any Database) async throws -> Bool {
        guard pet.species == .dog, pet.socialSince == nil,
              welfare.assess(birthDate: pet.birthLocalDate, doses: doses, today: today).mode == .social else { return false }
        pet.socialSince = clock.now()
        let indexed = try await db.transaction { tx in
            try await pet.save(on: tx)
            return try await self.followers.changed([pet], on: tx)
        }
        await followers.committed(indexed, on: db)
        return true
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
            case let .pet(card, socialSince): pets.append((card, socialSince))
            case let .photo(pet, photo): photos[pet, default: []].append(photo)
            case let .dose(pet, dose?): doses[pet, default: []].append(dose)
            case .dose: break
            }
        }
        let today = self.today
        let ratings = try await ReviewService.ratings(ofPets: ids, on: db)
        var cards: [Pet.ID: PetCardValue] = [:]
        for (read, socialSince) in pets {
            var card = read
            let id = card.id
            if card.species == .dog {
                // Social only while switched on and the rules allow it: a dog never switched on
                // is in Puppy Mode whatever its vaccinations say, and needs no assessment.
                if let socialSince {
                    card.mode = welfareMode(birthDate: card.birthDate, socialSince: socialSince, doses: doses[id] ?? [], today: today)
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

    private func makeSnapshot(of pet: PetRecord, role: PetRole?, ownerDisplayName: String,
                              photos: [PetPhotoRecord], doses: [VaccinationDose], today: LocalDate) throws -> PetSnapshot {
        let status = welfareStatus(of: pet, doses: doses, today: today)
        return PetSnapshot(
            profile: try pet.profile, role: role, ownerDisplayName: ownerDisplayName,
            photos: Self.cardOrder(try photos.map {
                PetPhotoRecordValue(id: try $0.requireID(), kind: $0.kind, storageKey: $0.storageKey,
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
              try await role(of: viewer, for: pet, on: db) == nil else { return }
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

    func uploadPhoto(_ user: UserRecord, pet id: Pet.ID, data: Data, kind: PetPhotoRecord.Kind,
                     on db: any Database) async throws -> PetPhotoRecordValue {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let petID = try pet.requireID()
        guard try await PetPhotoRecord.query(on: db).filter(\.$pet.$id == petID).count() < limits.photosPerPet else {
            throw CreationLimits.reached("photos of a pet", limit: limits.photosPerPet, field: "photo")
        }
        let photoID = Pet.Photo.ID()
        let now = clock.now()
        return try await photos.store(data, key: "pets/\(petID)/\(photoID)") { stored in
            try await db.transaction { tx in
                if kind == .profile {
                    // One profile photo: the previous one joins the gallery.
                    try await PetPhotoRecord.query(on: tx).filter(\.$pet.$id == petID).filter(\.$kind == .profile)
                        .set(\.$kind, to: .gallery).update()
                }
                try await PetPhotoRecord(id: photoID, petID: petID, kind: kind, storageKey: stored.key,
                                         contentType: stored.contentType, byteCount: stored.byteCount, now: now).create(on: tx)
            }
            return PetPhotoRecordValue(id: photoID, kind: kind, storageKey: stored.key, contentType: stored.contentType,
                                       createdAt: now)
        }
    }

    func deletePhoto(_ user: UserRecord, pet id: Pet.ID, photo photoID: Pet.Photo.ID, on db: any Database) async throws {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        guard let photo = try await PetPhotoRecord.query(on: db).filter(\.$id == photoID)
            .filter(\.$pet.$id == pet.requireID()).first() else { throw Problem.notFound }
        let key = photo.storageKey
        try await photo.delete(on: db)
        await photos.remove([key])
    }

    /// A photo of `pet` for `viewer`, by its storage key: hidden, like the pet, from a member
    /// blocked by or blocking its owner.
    func photo(key: String, pet id: Pet.ID, viewer: UserRecord, on db: any Database) async throws -> StoredMedia {
        guard let photo = try await PetPhotoRecord.query(on: db).filter(\.$storageKey == key).first(),
              photo.$pet.id == id else { throw Problem.notFound }
        _ = try await visiblePet(id, to: viewer, on: db)
        guard let stored = try await photos.media.get(key: key) else { throw Problem.notFound }
        return stored
    }

    // MARK: Vaccinations and welfare

    func vaccinations(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [VaccinationValue] {
        let (pet, _) = try await authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        return try await records(of: pet, on: db).map(VaccinationValue.init)
    }

    private func records(of pet: PetRecord, on db: any Database) async throws -> [VaccinationRecord] {
        Self.newestFirst(try await VaccinationRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).all())
    }

    static func newestFirst(_ records: [VaccinationRecord]) -> [VaccinationRecord] {
        records.sorted { ($0.givenOn, $0.createdAt) > ($1.givenOn, $1.createdAt) }
    }

    /// Records a dose; the record, and whether it brought the dog to Social Mode just now.
    func addVaccination(_ user: UserRecord, pet id: Pet.ID, input: VaccinationInput,
                        on db: any Database) async throws -> (record: VaccinationValue, reachedSocialMode: Bool) {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let valid = try VaccinationRules().validate(input, birthDate: pet.birthLocalDate, today: today)
        guard try await VaccinationRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).count() < limits.vaccinationsPerPet else {
            throw CreationLimits.reached("vaccinations of a pet", limit: limits.vaccinationsPerPet, field: "vaccine")
        }
        let record = VaccinationRecord()
        record.$pet.id = try pet.requireID()
        record.vaccine = valid.vaccine.rawValue
        record.otherName = valid.otherName
        record.givenOn = valid.givenOn.description
        record.nextDueOn = valid.nextDueOn?.description
        record.clinic = valid.clinic
        record.createdAt = clock.now()
        try await record.create(on: db)
        let reached = try await reachSocialModeIfAllowed(pet, doses: try await records(of: pet, on: db).compactMap(\.dose), on: db)
        return (try VaccinationValue(record), reached)
    }

    func deleteVaccination(_ user: UserRecord, pet id: Pet.ID, vaccination: Pet.Vaccination.ID,
                           on db: any Database) async throws {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        guard let record = try await VaccinationRecord.query(on: db).filter(\.$id == vaccination)
            .filter(\.$pet.$id == pet.requireID()).first() else { throw Problem.notFound }
        try await record.delete(on: db)
    }

    /// The welfare mode of a dog right now: Social only once switched on (by itself, when the
    /// records allow, or by the owner) and while the rules still hold (an expired booster sends an adult back to Puppy Mode). Nil for non-dogs.
    func welfareStatus(of pet: PetRecord, on db: any Database) async throws -> WelfareStatusValue? {
        guard pet.species == .dog else { return nil }
        return welfareStatus(of: pet, doses: try await records(of: pet, on: db).compactMap(\.dose), today: today)
    }

    func welfareStatus(of pet: PetRecord, doses: [VaccinationDose], today: LocalDate) -> WelfareStatusValue? {
        guard pet.species == .dog else { return nil }
        // The birth date alone: the whole profile decodes its JSON fields.
        return welfareStatus(birthDate: pet.birthLocalDate, socialSince: pet.socialSince, doses: doses, today: today)
    }

    /// A dog's mode: Social only while it is switched on and the rules still allow it.
    func welfareStatus(birthDate: LocalDate, socialSince: Date?, doses: [VaccinationDose], today: LocalDate) -> WelfareStatusValue {
        let assessment = welfare.assess(birthDate: birthDate, doses: doses, today: today)
        let mode = Self.mode(switchedOnSince: socialSince, assessed: assessment)
        let heldBack = mode == .puppy ? WelfarePolicy.heldBackInPuppyMode.sorted() : []
        return WelfareStatusValue(mode: mode, assessment: assessment, heldBackFields: heldBack)
    }

    /// The mode alone, as `welfareStatus` decides it, for cards: they show no held-back fields.
    func welfareMode(birthDate: LocalDate, socialSince: Date?, doses: [VaccinationDose], today: LocalDate) -> WelfareMode {
        Self.mode(switchedOnSince: socialSince, assessed: welfare.assess(birthDate: birthDate, doses: doses, today: today))
    }

    private static func mode(switchedOnSince socialSince: Date?, assessed assessment: WelfareAssessment) -> WelfareMode {
        socialSince != nil && assessment.mode == .social ? .social : .puppy
    }

    func mode(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> WelfareStatusValue {
        let (pet, _) = try await authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        let doses = try await records(of: pet, on: db).compactMap(\.dose)
        try await reachSocialModeIfAllowed(pet, doses: doses, on: db)
        guard let status = welfareStatus(of: pet, doses: doses, today: today) else { throw Self.notADog }
        return status
    }

    /// Asks for Social Mode now. Dogs reach it by themselves (`reachSocialModeIfAllowed`), so
    /// this only answers why not yet, for clients that still offer the button, with the dates
    /// in its sentences written by `writingDates`.
    func switchToSocial(_ user: UserRecord, pet id: Pet.ID, writingDates dates: (LocalDate) -> String,
                        on db: any Database) async throws -> WelfareStatusValue {
        let (pet, _) = try await authorized(user, pet: id, need: \.canEdit, on: db)
        let doses = try await records(of: pet, on: db).compactMap(\.dose)
        try await reachSocialModeIfAllowed(pet, doses: doses, on: db)
        guard let status = welfareStatus(of: pet, doses: doses, today: today) else { throw Self.notADog }
        guard status.mode == .social else {
            let earliest = status.assessment.earliestSocialDate.map { " Earliest date: \(dates($0))." } ?? ""
            let messages = status.assessment.reasons.map { $0.message(writingDates: dates) }
            throw Problem(status: 409, code: .welfareRulesUnmet, title: "Not ready for Social Mode yet",
                          detail: messages.joined(separator: " ") + earliest,
                          errors: messages.map { FieldError(field: "vaccinations", message: $0) })
        }
        return status
    }

    static let notADog = Problem(status: 404, code: .notFound, title: "No welfare mode",
                                 detail: "Welfare modes apply to dogs only.")

    // MARK: Guardians

    func guardians(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [GuardianValue] {
        let (pet, _) = try await authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        return try await guardians(of: pet.requireID(), on: db)
    }

    private func guardians(of pet: Pet.ID, on db: any Database) async throws -> [GuardianValue] {
        try await GuardianRecord.query(on: db).filter(\.$pet.$id == pet).with(\.$user).sort(\.$createdAt).all()
            .map { try GuardianValue($0, user: $0.user) }
    }

    func invite(_ user: UserRecord, pet id: Pet.ID, username: String, on db: any Database) async throws -> GuardianValue {
        let (pet, _) = try await authorized(user, pet: id, need: \.canManageGuardians, on: db)
        let name = AccountRules().normalizedUsername(username)
        guard let invitee = try await UserRecord.query(on: db).filter(\.$username == name).first(),
              invitee.emailVerifiedAt != nil else {
            throw Problem(status: 404, code: .notFound, title: "No such member",
                          detail: "No member has that username.",
                          errors: [.init(field: "username", message: "is not a member")])
        }
        let (petID, inviteeID) = (try pet.requireID(), try invitee.requireID())
        guard try inviteeID != user.requireID() else { throw Problem.invalidField("username", "is you; you own this pet") }
        if try await GuardianRecord.query(on: db).filter(\.$pet.$id == petID).filter(\.$user.$id == inviteeID).first() != nil {
            throw Problem(status: 409, code: .alreadyInvited, title: "Already invited",
                          detail: "\(invitee.displayName) already guards this pet or has an invitation waiting.",
                          errors: [.init(field: "username", message: "is already invited")])
        }
        guard try await GuardianRecord.query(on: db).filter(\.$pet.$id == petID).count() < limits.guardiansPerPet else {
            throw CreationLimits.reached("guardians of a pet", limit: limits.guardiansPerPet, field: "username")
        }
        let guardian = GuardianRecord(petID: petID, userID: inviteeID, now: clock.now())
        try await guardian.create(on: db)
        return try GuardianValue(guardian, user: invitee)
    }

    /// The owner removes a guardian or withdraws an invitation; a guardian may step down.
    func removeGuardian(_ user: UserRecord, pet id: Pet.ID, guardian userID: User.ID, on db: any Database) async throws {
        let pet = try await pet(id, on: db)
        let role = try await role(of: user, for: pet, on: db)
        guard role == .owner || (role == .guardian && userID == user.id) else {
            throw Problem(status: 403, code: .forbidden, title: "Not allowed",
                          detail: "Only the owner removes guardians; a guardian may only step down.")
        }
        guard let row = try await GuardianRecord.query(on: db).filter(\.$pet.$id == pet.requireID())
            .filter(\.$user.$id == userID).first() else { throw Problem.notFound }
        try await row.delete(on: db)
    }

    /// Invitations waiting for this member's answer, with the pet each is about.
    func invitations(for user: UserRecord, on db: any Database) async throws -> [GuardianInvitationValue] {
        let rows = try await GuardianRecord.query(on: db).filter(\.$user.$id == user.requireID())
            .filter(\.$status == .invited).with(\.$pet).sort(\.$createdAt).all()
        var result: [GuardianInvitationValue] = []
        for row in rows {
            result.append(GuardianInvitationValue(id: try row.requireID(), pet: try await snapshot(of: row.pet, role: nil, on: db),
                                                  createdAt: row.createdAt))
        }
        return result
    }

    // MARK: Export

    /// A pet of the member's own, with its records, for the export.
    struct OwnedPetExport: Sendable {
        var pet: PetSnapshot
        var vaccinations: [VaccinationValue]
        var guardians: [GuardianValue]
    }

    /// What the export holds of pets: the member's own with their records and guardians, and
    /// the other members' pets they guard or are invited to guard.
    func export(_ user: UserRecord, on db: any Database) async throws -> (owned: [OwnedPetExport], guardianships: [GuardianshipValue]) {
        let userID = try user.requireID()
        var owned: [OwnedPetExport] = []
        for pet in try await PetRecord.query(on: db).filter(\.$owner.$id == userID).sort(\.$createdAt).all() {
            owned.append(OwnedPetExport(
                pet: try await snapshot(of: pet, role: .owner, on: db),
                vaccinations: try await records(of: pet, on: db).map(VaccinationValue.init),
                guardians: try await guardians(of: pet.requireID(), on: db)))
        }
        let rows = try await GuardianRecord.query(on: db).filter(\.$user.$id == userID).sort(\.$createdAt).all()
        let cards = try await cards(ofPets: rows.map(\.$pet.id), on: db)
        let guardianships = try rows.compactMap { row -> GuardianshipValue? in
            guard let pet = cards[row.$pet.id] else { return nil }
            return GuardianshipValue(id: try row.requireID(), pet: pet, status: row.status, createdAt: row.createdAt)
        }
        return (owned, guardianships)
    }

    func answerInvitation(_ user: UserRecord, invitation id: Pet.Guardianship.ID, accept: Bool,
                          on db: any Database) async throws {
        // Someone else's invitation is "not found": invitations are private to the invitee.
        guard let row = try await GuardianRecord.query(on: db).filter(\.$id == id)
            .filter(\.$user.$id == user.requireID()).filter(\.$status == .invited).first() else { throw Problem.notFound }
        if accept {
            row.status = .active
            try await row.save(on: db)
        } else {
            try await row.delete(on: db)
        }
    }
}

extension VaccinationRecord {
    /// The record as a dose for the welfare rules; nil when its date is unreadable.
    var dose: VaccinationDose? {
        Self.dose(vaccine: vaccine, otherName: otherName, givenOn: givenOn)
    }

    static func dose(vaccine: String, otherName: String?, givenOn: String) -> VaccinationDose? {
        guard let date = LocalDate(givenOn), let kind = VaccineKind(rawValue: vaccine) else { return nil }
        return VaccinationDose(vaccine: kind.vaccine(otherName: otherName), givenOn: date)
    }
}
