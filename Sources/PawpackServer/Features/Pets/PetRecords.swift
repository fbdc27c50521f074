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

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum PetMigrations {
    static let all: [any Migration] = [
        // Each member's location grid: listed here, before any migration reads members, and run
        // last on a database that had the others (Fluent runs whichever have not run, in order).
        AddUserLocation(), AddLocationOffsets(), CreatePets(), CreatePetPhotos(), CreateVaccinations(), CreatePetGuardians(),
        AddIndexes(
            name: "PetLookupIndexes",
            indexes: [
                IndexSpec(name: "pets_by_owner", table: "pets", columns: ["owner_id"]),
                IndexSpec(name: "pet_photos_by_pet", table: "pet_photos", columns: ["pet_id"]),
                IndexSpec(name: "vaccinations_by_pet", table: "vaccinations", columns: ["pet_id"]),
                IndexSpec(name: "pet_guardians_by_user", table: "pet_guardians", columns: ["user_id"]),
            ]),
        // A card reads its dog's doses (`VaccinationRecord.dose(row:)`) from this index alone,
        // without a visit to the table per vaccination: a deck page shows 20 dogs.
        AddIndexes(
            name: "PetCardIndexes",
            indexes: [
                IndexSpec(
                    name: "vaccinations_doses_by_pet", table: "vaccinations",
                    columns: ["pet_id", "vaccine", "other_name", "given_on"])
            ]),
        // The rest of a card from indexes alone too: the pet's card columns, its owner's name
        // and its photos. Each spares a visit to the table per card (per photo for photos),
        // and a table's pages are the largest: a pet row also holds its notes and personality.
        AddIndexes(
            name: "PetCardCoveringIndexes",
            indexes: [
                IndexSpec(
                    name: "pets_cards", table: "pets",
                    columns: [
                        "id", "owner_id", "name", "species", "breed", "birth_date", "birth_date_estimate",
                        "size_class", "weight_kg", "social_since",
                    ]),
                IndexSpec(name: "users_display_names", table: "users", columns: ["id", "display_name"]),
                IndexSpec(
                    name: "pet_photos_cards_by_pet", table: "pet_photos",
                    columns: ["pet_id", "kind", "created_at", "id", "storage_key", "content_type"]),
            ]),
        // A notification about a pet (a request from it, a match with it) goes with the pet.
        DeletedWithParent(name: "notifications_about_their_pet", table: "notifications", column: "pet_id", parent: "pets"),
    ]
}

/// The owner's position for discovery (since `BlurMemberLocations`, their cell's centre); never sent to anyone else.
struct AddUserLocation: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per ALTER: SQLite adds columns one at a time.
        try await database.schema(UserRecord.schema).field("latitude", .double).update()
        try await database.schema(UserRecord.schema).field("longitude", .double).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserRecord.schema).deleteField("longitude").update()
        try await database.schema(UserRecord.schema).deleteField("latitude").update()
    }
}

/// The offset of each member's location grid (`LocationBlur`).
struct AddLocationOffsets: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(UserRecord.schema).field("location_offset_north", .double).update()
        try await database.schema(UserRecord.schema).field("location_offset_east", .double).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(UserRecord.schema).deleteField("location_offset_east").update()
        try await database.schema(UserRecord.schema).deleteField("location_offset_north").update()
    }
}

struct CreatePets: CreatesTable {
    static let table = PetRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("owner_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("species", .string, .required)
            .field("breed", .string)
            .field("sex", .string, .required)
            .field("neutered", .bool)
            .field("birth_date", .string, .required)
            .field("birth_date_estimate", .bool, .required)
            .field("weight_kg", .double)
            .field("size_class", .string)
            .field("play_styles", .string, .required)
            .field("energy", .string)
            .field("environment", .string)
            .field("personality", .string, .required)
            .field("notes", .string)
            .field("social_since", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
    }
}

struct CreatePetPhotos: CreatesTable {
    static let table = PetPhotoRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("storage_key", .string, .required)
            .field("content_type", .string, .required)
            .field("byte_count", .int, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "storage_key")
            .create()
    }
}

struct CreateVaccinations: CreatesTable {
    static let table = VaccinationRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("vaccine", .string, .required)
            .field("other_name", .string)
            .field("given_on", .string, .required)
            .field("next_due_on", .string)
            .field("clinic", .string)
            .field("created_at", .datetime, .required)
            .create()
    }
}

struct CreatePetGuardians: CreatesTable {
    static let table = GuardianRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "pet_id", "user_id")
            .create()
    }
}
