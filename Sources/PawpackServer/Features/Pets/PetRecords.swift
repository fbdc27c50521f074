import Fluent
import Foundation
import PawpackCore

// Fluent models are `@unchecked Sendable`: each instance stays in the task that loaded it.

final class PetRecord: Model, @unchecked Sendable {
    static let schema = "pets"

    @ID(custom: .id) var id: Pet.ID?
    @Parent(key: "owner_id") var owner: UserRecord
    @Field(key: "name") var name: String
    @Field(key: "species") var species: Species
    @OptionalField(key: "breed") var breed: String?
    @Field(key: "sex") var sex: PetSex
    @OptionalField(key: "neutered") var neutered: Bool?
    @Field(key: "birth_date") var birthDate: String
    @Field(key: "birth_date_estimate") var birthDateIsEstimate: Bool
    @OptionalField(key: "weight_kg") var weightKg: Double?
    @OptionalField(key: "size_class") var sizeClass: SizeClass?
    /// Comma-separated `PlayStyle` raw values: portable across SQLite and PostgreSQL.
    @Field(key: "play_styles") var playStylesText: String
    @OptionalField(key: "energy") var energy: EnergyLevel?
    /// The environment as JSON, or nil when not given.
    @OptionalField(key: "environment") var environmentJSON: String?
    /// Personality tags as a JSON array.
    @Field(key: "personality") var personalityJSON: String
    @OptionalField(key: "notes") var notes: String?
    /// When the owner moved the dog to Social Mode; the rules are checked again on every read.
    @OptionalField(key: "social_since") var socialSince: Date?
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date

    init() {}

    init(_ profile: PetProfile, now: Date) {
        id = profile.id
        $owner.id = profile.ownerID
        createdAt = now
        update(from: profile, now: now)
    }

    func update(from profile: PetProfile, now: Date) {
        name = profile.name
        species = profile.species
        breed = profile.breed
        sex = profile.sex
        neutered = profile.neutered
        birthDate = profile.birthDate.description
        birthDateIsEstimate = profile.birthDateIsEstimate
        weightKg = profile.weightKg
        sizeClass = profile.sizeClass
        playStylesText = profile.playStyles.map(\.rawValue).joined(separator: ",")
        energy = profile.energy
        environmentJSON = profile.environment.flatMap { try? String(decoding: JSONEncoder().encode($0), as: UTF8.self) }
        personalityJSON = (try? String(decoding: JSONEncoder().encode(profile.personality), as: UTF8.self)) ?? "[]"
        notes = profile.notes
        updatedAt = now
    }

    /// The stored birth date (always valid: only `update(from:)` writes it).
    var birthLocalDate: LocalDate { Self.birthLocalDate(stored: birthDate) }

    /// A stored birth date as a date; a fixed one should a row ever hold something unreadable.
    static func birthLocalDate(stored text: String) -> LocalDate {
        LocalDate(text) ?? LocalDate(year: 2000, month: 1, day: 1)!
    }

    var profile: PetProfile {
        get throws {
            try PetProfile(
                id: requireID(), ownerID: $owner.id, name: name, species: species, breed: breed, sex: sex,
                neutered: neutered, birthDate: birthLocalDate,
                birthDateIsEstimate: birthDateIsEstimate, weightKg: weightKg, sizeClass: sizeClass,
                playStyles: playStyles, energy: energy, environment: environment,
                personality: (try? JSONDecoder().decode([String].self, from: Data(personalityJSON.utf8))) ?? [],
                notes: notes)
        }
    }

    var playStyles: [PlayStyle] { playStylesText.split(separator: ",").compactMap { PlayStyle(rawValue: String($0)) } }

    var environment: PetEnvironment? {
        environmentJSON.flatMap { try? JSONDecoder().decode(PetEnvironment.self, from: Data($0.utf8)) }
    }
}

final class PetPhotoRecord: Model, @unchecked Sendable {
    static let schema = "pet_photos"

    enum Kind: String, Codable { case profile, gallery }

    @ID(custom: .id) var id: Pet.Photo.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "kind") var kind: Kind
    /// Where the bytes live in the `MediaStore`.
    @Field(key: "storage_key") var storageKey: String
    @Field(key: "content_type") var contentType: String
    @Field(key: "byte_count") var byteCount: Int
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(id: Pet.Photo.ID, petID: Pet.ID, kind: Kind, storageKey: String, contentType: String, byteCount: Int, now: Date) {
        self.id = id
        self.$pet.id = petID
        self.kind = kind
        self.storageKey = storageKey
        self.contentType = contentType
        self.byteCount = byteCount
        self.createdAt = now
    }
}

final class VaccinationRecord: Model, @unchecked Sendable {
    static let schema = "vaccinations"

    @ID(custom: .id) var id: Pet.Vaccination.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    /// The API's vaccine name: distemper, adenovirus, parvovirus, rabies, dhpp or other.
    @Field(key: "vaccine") var vaccine: String
    @OptionalField(key: "other_name") var otherName: String?
    @Field(key: "given_on") var givenOn: String
    @OptionalField(key: "next_due_on") var nextDueOn: String?
    @OptionalField(key: "clinic") var clinic: String?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A member who guards (co-owns) a pet, or has been invited to.
final class GuardianRecord: Model, @unchecked Sendable {
    static let schema = "pet_guardians"

    enum Status: String, Codable { case invited, active }

    @ID(custom: .id) var id: Pet.Guardianship.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "status") var status: Status
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(petID: Pet.ID, userID: User.ID, now: Date) {
        $pet.id = petID
        $user.id = userID
        status = .invited
        createdAt = now
    }
}
