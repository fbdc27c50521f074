import Foundation
import PawpackAPI
import PawpackCore

/// A photo of a pet. Its `url` is served to signed-in members only: load it with
/// `Authorization: Bearer` and the session's access token. Its bytes never change, so it may
/// be cached for good.
public struct Photo: Sendable, Equatable, Identifiable {
    public enum Kind: String, Sendable { case profile, gallery }

    public var id: Pet.Photo.ID
    public var url: URL
    public var kind: Kind
    /// `image/jpeg`, `image/png`, `image/webp` or `image/heic`.
    public var contentType: String
    public var createdAt: Date

    init(_ dto: Components.Schemas.Photo) throws {
        guard let url = URL(string: dto.url) else { throw PawpackError.malformed("unreadable photo address \(dto.url)") }
        id = try serverID(dto.id)
        self.url = url
        kind = dto.kind == .profile ? .profile : .gallery
        contentType = dto.contentType
        createdAt = dto.createdAt
    }
}

/// What every member sees of a pet.
public struct PetCard: Sendable, Equatable, Identifiable {
    public var id: Pet.ID
    public var name: String
    public var species: Species
    public var breed: String?
    /// "4 months", "3 years".
    public var ageText: String
    public var sizeClass: SizeClass?
    /// The profile photo first, then the gallery oldest first.
    public var photos: [Photo]
    /// Dogs only.
    public var mode: WelfareMode?
    public var ownerDisplayName: String
    /// Once the dog has been reviewed after a meet-up: 1 to 5, one decimal.
    public var averageRating: Double?
    public var reviewCount: Int
    /// The owner's average over every dog they brought to a meet-up.
    public var ownerAverageRating: Double?
    public var ownerReviewCount: Int

    init(_ dto: Components.Schemas.PetCard) throws {
        guard let species = Species(rawValue: dto.species.rawValue) else {
            throw PawpackError.malformed("pet \(dto.id) has an unknown species")
        }
        id = try serverID(dto.id)
        name = dto.name
        self.species = species
        breed = dto.breed
        ageText = dto.ageText
        sizeClass = dto.sizeClass.flatMap { SizeClass(rawValue: $0.rawValue) }
        photos = try dto.photos.map(Photo.init)
        mode = dto.mode.flatMap { WelfareMode(rawValue: $0.rawValue) }
        ownerDisplayName = dto.ownerDisplayName
        averageRating = dto.averageRating
        reviewCount = dto.reviewCount ?? 0
        ownerAverageRating = dto.ownerAverageRating
        ownerReviewCount = dto.ownerReviewCount ?? 0
    }
}

/// A pet as you see it: the card, and for your own or guarded pets your role and the profile.
public struct PetDetails: Sendable, Equatable, Identifiable {
    public var card: PetCard
    public var role: PetRole?
    /// Present for owners and guardians only. Its size class is as given; the card shows the one
    /// the weight implies when none is.
    public var profile: PetProfile?
    /// Fields kept but held back from matching and from other members while the dog is in
    /// Puppy Mode; empty in Social Mode and for other members.
    public var heldBackFields: [String]

    public var id: Pet.ID { card.id }

    init(_ dto: Components.Schemas.PetView) throws {
        card = try PetCard(dto.card)
        role = dto.role.flatMap { PetRole(rawValue: $0.rawValue) }
        heldBackFields = dto.profile?.heldBackFields ?? []
        profile = try dto.profile.map { [card] details in
            guard let birth = LocalDate(details.dateOfBirth) else { throw PawpackError.malformed("unreadable date of birth") }
            return PetProfile(
                id: card.id, ownerID: try serverID(details.ownerId), name: card.name, species: card.species, breed: card.breed,
                sex: try same(details.sex, as: PetSex.self), neutered: details.neutered, birthDate: birth,
                birthDateIsEstimate: details.birthDateIsEstimate, weightKg: details.weightKg,
                sizeClass: try details.sizeClass.map { try same($0, as: SizeClass.self) },
                playStyles: try details.playStyles.map { try same($0, as: PlayStyle.self) },
                energy: try details.energy.map { try same($0, as: EnergyLevel.self) },
                environment: details.environment.flatMap {
                    PetEnvironment(
                        areaName: $0.area.rawValue, hasGarden: $0.hasGarden,
                        livesWithOtherPets: $0.livesWithOtherPets, livesWithChildren: $0.livesWithChildren)
                },
                personality: details.personality, notes: details.notes)
        }
    }
}

/// A vaccination on a pet's record.
public struct Vaccination: Sendable, Equatable, Identifiable {
    public var id: Pet.Vaccination.ID
    public var vaccine: VaccineKind
    /// The vaccine's name when `vaccine` is `.other`.
    public var otherName: String?
    public var givenOn: LocalDate
    public var nextDueOn: LocalDate?
    public var clinic: String?
    public var createdAt: Date

    init(_ dto: Components.Schemas.Vaccination) throws {
        guard let given = LocalDate(dto.givenOn) else { throw PawpackError.malformed("unreadable vaccination date") }
        id = try serverID(dto.id)
        vaccine = try same(dto.vaccine, as: VaccineKind.self)
        otherName = dto.otherName
        givenOn = given
        nextDueOn = dto.nextDueOn.flatMap(LocalDate.init)
        clinic = dto.clinic
        createdAt = dto.createdAt
    }
}

/// A dog's welfare mode and what keeps it in Puppy Mode.
public struct WelfareStatus: Sendable, Equatable {
    public var mode: WelfareMode
    /// The rules allow Social Mode today; the dog switches by itself when the owner or a
    /// guardian next reads it.
    public var eligibleForSocial: Bool
    /// Sentences an owner understands, e.g. "Give a parvovirus dose on or after …".
    public var reasons: [String]
    public var earliestSocialDate: LocalDate?
    /// Fields held back from matching and from other members until Social Mode.
    public var heldBackFields: [String]

    init(_ dto: Components.Schemas.WelfareStatus) throws {
        mode = try same(dto.mode, as: WelfareMode.self)
        eligibleForSocial = dto.eligibleForSocial
        reasons = dto.reasons.map(\.message)
        earliestSocialDate = dto.earliestSocialDate.flatMap(LocalDate.init)
        heldBackFields = dto.heldBackFields
    }
}

/// A member who guards one of your pets, or has been invited to. Identified by the member.
public struct Guardian: Sendable, Equatable, Identifiable {
    public enum Status: String, Sendable { case invited, active }

    public var id: User.ID
    public var username: String
    public var displayName: String
    public var status: Status

    init(_ dto: Components.Schemas.Guardian) throws {
        id = try serverID(dto.userId)
        username = dto.username
        displayName = dto.displayName
        status = dto.status == .active ? .active : .invited
    }
}

/// An invitation to guard another member's pet, waiting for your answer.
public struct GuardianInvitation: Sendable, Equatable, Identifiable {
    public var id: Pet.Guardianship.ID
    public var pet: PetCard
    public var ownerDisplayName: String
    public var createdAt: Date

    init(_ dto: Components.Schemas.GuardianInvitation) throws {
        id = try serverID(dto.id)
        pet = try PetCard(dto.pet)
        ownerDisplayName = dto.ownerDisplayName
        createdAt = dto.createdAt
    }
}

extension Components.Schemas.PetInput {
    init(_ draft: PetDraft) {
        self.init(
            name: draft.name, species: draft.species.flatMap { .init(rawValue: $0.rawValue) }, breed: draft.breed,
            sex: draft.sex.flatMap { .init(rawValue: $0.rawValue) }, neutered: draft.neutered,
            dateOfBirth: draft.dateOfBirth, estimatedAgeMonths: draft.estimatedAgeMonths, weightKg: draft.weightKg,
            sizeClass: draft.sizeClass.flatMap { .init(rawValue: $0.rawValue) },
            playStyles: draft.playStyles?.compactMap { .init(rawValue: $0.rawValue) },
            energy: draft.energy.flatMap { .init(rawValue: $0.rawValue) },
            environment: draft.environment.flatMap { environment in
                Components.Schemas.PetEnvironment.AreaPayload(rawValue: environment.area.rawValue).map {
                    .init(
                        area: $0, hasGarden: environment.hasGarden, livesWithOtherPets: environment.livesWithOtherPets,
                        livesWithChildren: environment.livesWithChildren)
                }
            },
            personality: draft.personality, notes: draft.notes)
    }
}
