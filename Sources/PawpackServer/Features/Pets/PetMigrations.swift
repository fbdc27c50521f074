import Fluent

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
