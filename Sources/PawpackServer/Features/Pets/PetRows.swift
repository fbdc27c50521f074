import Fluent
import Foundation
import PawpackCore
import SQLKit

// Pet records read from plain SQL rows, column by column. Fluent decodes a model by reflecting
// over all its properties, for every row; a deck page shows 20 dogs with their photos and
// vaccinations many times a second, and that reflection cost more than the queries themselves.
// Each initialiser reads every column its model declares, under the same keys, and marks the
// record as loaded, so saving it later updates the row.

extension PetRecord: SQLRowReadable {
    convenience init<Row: SQLRow>(reading row: Row) throws {
        self.init()
        id = Pet.ID(try row.decode(column: "id", as: UUID.self))
        $owner.id = User.ID(try row.decode(column: "owner_id", as: UUID.self))
        name = try row.decode(column: "name", as: String.self)
        species = try row.decode(column: "species", asRawValueOf: Species.self)
        breed = try row.decode(column: "breed", as: String?.self)
        sex = try row.decode(column: "sex", asRawValueOf: PetSex.self)
        neutered = try row.decode(column: "neutered", as: Bool?.self)
        birthDate = try row.decode(column: "birth_date", as: String.self)
        birthDateIsEstimate = try row.decode(column: "birth_date_estimate", as: Bool.self)
        weightKg = try row.decode(column: "weight_kg", as: Double?.self)
        sizeClass = try row.decode(column: "size_class", asRawValueOf: SizeClass?.self)
        playStylesText = try row.decode(column: "play_styles", as: String.self)
        energy = try row.decode(column: "energy", asRawValueOf: EnergyLevel?.self)
        environmentJSON = try row.decode(column: "environment", as: String?.self)
        personalityJSON = try row.decode(column: "personality", as: String.self)
        notes = try row.decode(column: "notes", as: String?.self)
        socialSince = try row.decode(column: "social_since", as: Date?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        updatedAt = try row.decode(column: "updated_at", as: Date.self)
        $id.exists = true
    }
}

extension VaccinationRecord {
    /// The dose a row of `vaccine`, `other_name` and `given_on` records, as `dose` reads it from
    /// a whole record; nil when its date is unreadable.
    static func dose<Row: SQLRow>(row: Row) throws -> VaccinationDose? {
        dose(
            vaccine: try row.decode(column: "vaccine", as: String.self),
            otherName: try row.decode(column: "other_name", as: String?.self),
            givenOn: try row.decode(column: "given_on", as: String.self))
    }
}

extension PetCardValue: SQLRowReadable {
    /// Everything the cards of these pets show, in one query (one hop to the database where
    /// it took three): a UNION ALL of the pets with their owners' names (`source` "pet": what
    /// `PetCardValue(row:)` reads, and `social_since`, which the mode needs), their photos
    /// ("photo": what `PetPhotoRecordValue(row:)` reads) and what the welfare rules read of their
    /// vaccinations ("dose": what `VaccinationRecord.dose(row:)` reads). Every row has `pet_id`;
    /// `id` is the pet's on a pet row and the photo's on a photo row; the columns of the other
    /// kinds are null.
    ///
    /// Every branch reads an index alone (`PetMigrations`, "PetCardIndexes" and
    /// "PetCardCoveringIndexes"). On SQLite, `namingIndexes` says which ones for the pets and
    /// their owners: without statistics its planner takes the unique index on the id, one row
    /// either way, and then visits the table for the other columns. PostgreSQL has no such
    /// clause and keeps statistics of its own.
    static func rows(ofPets ids: [Pet.ID], namingIndexes: Bool) -> SQLQueryString {
        let (pets, owners) = namingIndexes ? (#"INDEXED BY "pets_cards""#, #"INDEXED BY "users_display_names""#) : ("", "")
        return """
            SELECT 'pet' AS "source", "pets"."id" AS "pet_id",
                "pets"."id", "pets"."owner_id", "pets"."name", "pets"."species", "pets"."breed",
                "pets"."birth_date", "pets"."birth_date_estimate", "pets"."size_class", "pets"."weight_kg",
                "pets"."social_since", "users"."display_name" AS "owner_display_name",
                NULL AS "kind", NULL AS "storage_key", NULL AS "content_type", NULL AS "created_at",
                NULL AS "vaccine", NULL AS "other_name", NULL AS "given_on"
            FROM "pets" \(unsafeRaw: pets) JOIN "users" \(unsafeRaw: owners) ON "users"."id" = "pets"."owner_id"
            WHERE "pets"."id" IN (\(binds: ids))
            UNION ALL
            SELECT 'photo', "pet_id",
                "id", NULL, NULL, NULL, NULL,
                NULL, NULL, NULL, NULL,
                NULL, NULL,
                "kind", "storage_key", "content_type", "created_at",
                NULL, NULL, NULL
            FROM "pet_photos" WHERE "pet_id" IN (\(binds: ids))
            UNION ALL
            SELECT 'dose', "pet_id",
                NULL, NULL, NULL, NULL, NULL,
                NULL, NULL, NULL, NULL,
                NULL, NULL,
                NULL, NULL, NULL, NULL,
                "vaccine", "other_name", "given_on"
            FROM "vaccinations" WHERE "pet_id" IN (\(binds: ids))
            """
    }

    /// The card as its row holds it; photos and mode come from other tables and are left empty.
    init<Row: SQLRow>(reading row: Row) throws {
        let sizeClass = try row.decode(column: "size_class", asRawValueOf: SizeClass?.self)
        let weightKg = try row.decode(column: "weight_kg", as: Double?.self)
        self.init(
            id: Pet.ID(try row.decode(column: "id", as: UUID.self)),
            ownerID: User.ID(try row.decode(column: "owner_id", as: UUID.self)),
            name: try row.decode(column: "name", as: String.self),
            species: try row.decode(column: "species", asRawValueOf: Species.self),
            breed: try row.decode(column: "breed", as: String?.self),
            birthDate: PetRecord.birthLocalDate(stored: try row.decode(column: "birth_date", as: String.self)),
            birthDateIsEstimate: try row.decode(column: "birth_date_estimate", as: Bool.self),
            sizeClass: SizeClass.effective(given: sizeClass, weightKg: weightKg),
            photos: [], mode: nil,
            ownerDisplayName: try row.decode(column: "owner_display_name", as: String.self))
    }
}

/// One row of `PetCardValue.rows(ofPets:namingIndexes:)`, as its `source` column says.
enum PetCardRow: SQLRowReadable {
    /// The card as its row holds it, and since when its owner has had it in Social Mode.
    case pet(PetCardValue, socialSince: Date?)
    case photo(pet: Pet.ID, PetPhotoRecordValue)
    /// Nil when the dose's date is unreadable.
    case dose(pet: Pet.ID, VaccinationDose?)

    init<Row: SQLRow>(reading row: Row) throws {
        switch try row.decode(column: "source", as: String.self) {
        case "pet":
            self = .pet(try PetCardValue(reading: row), socialSince: try row.decode(column: "social_since", as: Date?.self))
        case "photo":
            self = .photo(pet: Pet.ID(try row.decode(column: "pet_id", as: UUID.self)), try PetPhotoRecordValue(reading: row))
        default:
            self = .dose(pet: Pet.ID(try row.decode(column: "pet_id", as: UUID.self)), try VaccinationRecord.dose(row: row))
        }
    }
}

extension PetPhotoRecordValue: SQLRowReadable {
    init<Row: SQLRow>(reading row: Row) throws {
        self.init(
            id: Pet.Photo.ID(try row.decode(column: "id", as: UUID.self)),
            kind: try row.decode(column: "kind", asRawValueOf: PetPhotoRecord.Kind.self),
            storageKey: try row.decode(column: "storage_key", as: String.self),
            contentType: try row.decode(column: "content_type", as: String.self),
            createdAt: try row.decode(column: "created_at", as: Date.self))
    }
}
