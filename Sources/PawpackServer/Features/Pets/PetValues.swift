import Foundation
import PawpackCore

/// Everything a viewer may see of one pet, loaded once per request.
struct PetSnapshot: Sendable {
    var profile: PetProfile
    var role: PetRole?
    var ownerDisplayName: String
    var photos: [PetPhotoRecordValue]
    /// The welfare status as of this snapshot; nil for species without welfare modes.
    var welfare: WelfareStatus?
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
        PetCardValue(
            id: profile.id, ownerID: profile.ownerID, name: profile.name, species: profile.species,
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
        self.init(
            id: try record.requireID(), vaccine: record.vaccine, otherName: record.otherName, givenOn: record.givenOn,
            nextDueOn: record.nextDueOn, clinic: record.clinic, createdAt: record.createdAt)
    }

    init(
        id: Pet.Vaccination.ID, vaccine: String, otherName: String?, givenOn: String, nextDueOn: String?,
        clinic: String?, createdAt: Date
    ) {
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

/// A dog's welfare status: the mode in effect and the rules' assessment behind it (the
/// contract's and the SDK's `WelfareStatus`). The mode is Social only while the dog is switched
/// on and the assessment still allows it; the assessment alone says what the rules allow today.
struct WelfareStatus: Sendable {
    var mode: WelfareMode
    var assessment: WelfareAssessment
    var heldBackFields: [String]
}

/// What members said of a pet and of its owner after meet-ups, shown on its card and profile;
/// kept by Reviews (`Area.petRatings`).
struct PetRatings: Sendable, Equatable {
    var pet = RatingSummary(count: 0, sum: 0)
    var owner = RatingSummary(count: 0, sum: 0)
}
