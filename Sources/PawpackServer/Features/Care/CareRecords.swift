import Fluent
import Foundation
import PawpackCore

/// A household sharing pets' care. Its members (the owner among them) are `FamilyMemberRecord`s.
final class FamilyRecord: Model, @unchecked Sendable {
    static let schema = "families"

    @ID(custom: .id) var id: Care.Family.ID?
    @Field(key: "name") var name: String
    @Parent(key: "owner_id") var owner: UserRecord
    /// The household's IANA time zone: its pets' days begin at its midnight.
    @Field(key: "time_zone") var timeZone: String
    /// Six digits, unique among families (an expired code is cleared when a new one is made).
    @OptionalField(key: "invite_code") var inviteCode: String?
    @OptionalField(key: "invite_expires_at") var inviteExpiresAt: Date?
    /// The member the owner offered the family to, until they accept or decline.
    @OptionalParent(key: "pending_owner_id") var pendingOwner: UserRecord?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// One member of a family, with their role (the owner has `owner`).
final class FamilyMemberRecord: Model, @unchecked Sendable {
    static let schema = "family_members"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "family_id") var family: FamilyRecord
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "role") var role: String
    @Field(key: "created_at") var createdAt: Date

    init() {}

    var familyRole: FamilyRole { FamilyRole(rawValue: role) ?? .viewer }
}

/// A member asking to join a family with its code, until the owner answers.
final class FamilyJoinRequestRecord: Model, @unchecked Sendable {
    static let schema = "family_join_requests"

    @ID(custom: .id) var id: Care.JoinRequest.ID?
    @Parent(key: "family_id") var family: FamilyRecord
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A pet shared with a family: at most one family per pet.
final class FamilyPetRecord: Model, @unchecked Sendable {
    static let schema = "family_pets"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "family_id") var family: FamilyRecord
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A pet's care settings; a pet without a row has the defaults.
final class CareSettingsRecord: Model, @unchecked Sendable {
    static let schema = "care_settings"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "feeding_gap_minutes") var feedingGapMinutes: Int
    /// The owner's time zone for this pet, used while it is not shared with a family.
    @OptionalField(key: "time_zone") var timeZone: String?
    @OptionalField(key: "dietary_notes") var dietaryNotes: String?
    /// Nil: the default for the pet's species, neutering and age (`EnergyRules.defaultFactor`).
    @OptionalField(key: "energy_factor") var energyFactor: Double?
    /// Days before a vaccination's due date its reminder goes; nil: the default (14).
    @OptionalField(key: "vaccination_lead_days") var vaccinationLeadDays: Int?

    init() {}
}

/// One food a pet eats, and its stock in whole units (`FoodKind.unitsPerAmount`).
final class FoodRecord: Model, @unchecked Sendable {
    static let schema = "foods"

    @ID(custom: .id) var id: Care.Food.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "name") var name: String
    @Field(key: "kind") var kind: String
    /// Kcal per packet (wet) or per 100 g (dry).
    @OptionalField(key: "kcal") var kcal: Double?
    @OptionalField(key: "packets_per_box") var packetsPerBox: Int?
    @OptionalField(key: "packets_per_bag") var packetsPerBag: Int?
    /// The portion one tap logs, in units.
    @Field(key: "usual_units") var usualUnits: Int
    /// Nil: its stock is not kept.
    @OptionalField(key: "stock_units") var stockUnits: Int?
    @OptionalField(key: "low_stock_units") var lowStockUnits: Int?
    @Field(key: "low_alert_sent") var lowAlertSent: Bool
    @Field(key: "empty_alert_sent") var emptyAlertSent: Bool
    @Field(key: "created_at") var createdAt: Date

    init() {}

    var foodKind: FoodKind { FoodKind(rawValue: kind) ?? .wet }
}

/// One feed. What it took from its food's stock is kept, so that changing or deleting it gives
/// exactly that back; its food's name and kcal are kept too, so the log stays true when the
/// food is deleted.
final class FeedRecord: Model, @unchecked Sendable {
    static let schema = "feeds"

    @ID(custom: .id) var id: Care.Feed.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @OptionalParent(key: "food_id") var food: FoodRecord?
    @Field(key: "food_name") var foodName: String
    @Field(key: "kind") var kind: String
    /// Nil once the member who fed has deleted their account: the pet's log stays whole.
    @OptionalParent(key: "fed_by_id") var fedBy: UserRecord?
    @Field(key: "client_id") var clientID: UUID
    @Field(key: "fed_at") var fedAt: Date
    /// `fedAt` in microseconds (`ActivityCursor`): the log's order and its days' ranges,
    /// compared exactly on both databases.
    @Field(key: "activity") var activity: Int64
    @Field(key: "units") var units: Int
    /// The share of the feeding gap this portion lasts (`FeedingRules.gapShare`).
    @Field(key: "gap_share") var gapShare: Double
    @Field(key: "kcal") var kcal: Double
    /// Units taken from the food's stock; nil when its stock was not kept.
    @OptionalField(key: "taken_units") var takenUnits: Int?
    @Field(key: "created_at") var createdAt: Date

    init() {}

    var foodKind: FoodKind { FoodKind(rawValue: kind) ?? .wet }
}

/// A medication schedule: a dose every so often from a first dose until a last day.
final class MedicationRecord: Model, @unchecked Sendable {
    static let schema = "medications"

    @ID(custom: .id) var id: Care.Medication.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "name") var name: String
    @Field(key: "dose") var dose: String
    @Field(key: "every_minutes") var everyMinutes: Int
    @Field(key: "starts_at") var startsAt: Date
    /// The course's last day in the household's calendar; nil: until stopped.
    @OptionalField(key: "until_on") var untilOn: String?
    @OptionalParent(key: "created_by_id") var createdBy: UserRecord?
    @Field(key: "created_at") var createdAt: Date

    init() {}

    var interval: MedicationInterval { MedicationInterval(minutes: everyMinutes) }
}

/// One dose marked given, idempotent by the client's id as feeds are.
final class DoseRecord: Model, @unchecked Sendable {
    static let schema = "medication_doses"

    @ID(custom: .id) var id: Care.Dose.ID?
    @Parent(key: "medication_id") var medication: MedicationRecord
    @OptionalParent(key: "given_by_id") var givenBy: UserRecord?
    @Field(key: "client_id") var clientID: UUID
    @Field(key: "given_at") var givenAt: Date
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A reminder waiting for its time: one row per pet and subject (the pet itself for its next
/// feed, a medication, a vaccination), moved when someone acts, sent once by the scheduled job
/// (`CareReminders`).
final class CareReminderRecord: Model, @unchecked Sendable {
    static let schema = "care_reminders"

    enum Kind: String, Codable { case feeding, medication, vaccination }

    @ID(custom: .id) var id: Care.Reminder.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "kind") var kind: String
    @Field(key: "subject_id") var subjectID: UUID
    @Field(key: "due_at") var dueAt: Date
    /// The vaccination's due day this reminder was planned for (a changed date plans anew).
    @OptionalField(key: "for_day") var forDay: String?
    @OptionalField(key: "sent_at") var sentAt: Date?

    init() {}
}

/// When a member last got a push about a pet from Care: at most one per `pushCooldown`.
final class CarePushRecord: Model, @unchecked Sendable {
    static let schema = "care_pushes"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "pushed_at") var pushedAt: Date

    init() {}
}

/// A pet's weight on a day: one per day, the latest write wins.
final class WeightRecord: Model, @unchecked Sendable {
    static let schema = "pet_weights"

    @ID(custom: .id) var id: Care.Weight.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "on_date") var onDate: String
    @Field(key: "kilograms") var kilograms: Double
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum CareMigrations {
    static let all: [any Migration] = [
        CreateFamilies(), CreateFamilyMembers(), CreateFamilyJoinRequests(), CreateFamilyPets(), CreateCareSettings(),
        CreateFoods(), CreateFeeds(), CreateWeights(),
        AddIndexes(
            name: "CareIndexes",
            indexes: [
                IndexSpec(name: "families_by_owner", table: "families", columns: ["owner_id"]),
                IndexSpec(name: "family_members_by_user", table: "family_members", columns: ["user_id"]),
                IndexSpec(name: "family_join_requests_by_user", table: "family_join_requests", columns: ["user_id"]),
                IndexSpec(name: "foods_by_pet", table: "foods", columns: ["pet_id"]),
                // A pet's log newest first, its last feed and its days: every Care page.
                IndexSpec(name: "feeds_by_pet_time", table: "feeds", columns: ["pet_id", "activity", "id"]),
                IndexSpec(name: "feeds_by_food", table: "feeds", columns: ["food_id"]),
            ]),
        CreateMedications(), CreateDoses(), CreateCareReminders(), CreateCarePushes(), AddVaccinationLeadDays(),
        AddIndexes(
            name: "CareReminderIndexes",
            indexes: [
                IndexSpec(name: "medications_by_pet", table: "medications", columns: ["pet_id"]),
                IndexSpec(name: "medication_doses_by_time", table: "medication_doses", columns: ["medication_id", "given_at"]),
                // The job's one question: what is due and not sent.
                IndexSpec(name: "care_reminders_due", table: "care_reminders", columns: ["sent_at", "due_at"]),
                // Vaccinations falling due soon, for their reminders.
                IndexSpec(name: "vaccinations_by_next_due", table: "vaccinations", columns: ["next_due_on"]),
            ]),
        AddIndexes(
            name: "CareFamilyPetIndexes",
            indexes: [
                // A family's pets: the Care tab's pets of a member's families, the family page.
                // Without it SQLite read every pet (100,000 in the bench) for each Care tab.
                IndexSpec(name: "family_pets_by_family", table: "family_pets", columns: ["family_id"])
            ]),
    ]
}

struct CreateFamilies: CreatesTable {
    static let table = FamilyRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("name", .string, .required)
            // A member who owns a family cannot delete their account (`CareService`); the
            // cascade only keeps the database whole.
            .field("owner_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("time_zone", .string, .required)
            .field("invite_code", .string)
            .field("invite_expires_at", .datetime)
            .field("pending_owner_id", .uuid, .references(UserRecord.schema, "id", onDelete: .setNull))
            .field("created_at", .datetime, .required)
            .unique(on: "invite_code")
            .create()
    }
}

struct CreateFamilyMembers: CreatesTable {
    static let table = FamilyMemberRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("family_id", .uuid, .required, .references(FamilyRecord.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("role", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "family_id", "user_id")
            .create()
    }
}

struct CreateFamilyJoinRequests: CreatesTable {
    static let table = FamilyJoinRequestRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("family_id", .uuid, .required, .references(FamilyRecord.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "family_id", "user_id")
            .create()
    }
}

struct CreateFamilyPets: CreatesTable {
    static let table = FamilyPetRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("family_id", .uuid, .required, .references(FamilyRecord.schema, "id", onDelete: .cascade))
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "pet_id")
            .create()
    }
}

struct CreateCareSettings: CreatesTable {
    static let table = CareSettingsRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("feeding_gap_minutes", .int, .required)
            .field("time_zone", .string)
            .field("dietary_notes", .string)
            .field("energy_factor", .double)
            .unique(on: "pet_id")
            .create()
    }
}

struct CreateFoods: CreatesTable {
    static let table = FoodRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("kind", .string, .required)
            .field("kcal", .double)
            .field("packets_per_box", .int)
            .field("packets_per_bag", .int)
            .field("usual_units", .int, .required)
            .field("stock_units", .int)
            .field("low_stock_units", .int)
            .field("low_alert_sent", .bool, .required)
            .field("empty_alert_sent", .bool, .required)
            .field("created_at", .datetime, .required)
            .create()
    }
}

struct CreateFeeds: CreatesTable {
    static let table = FeedRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("food_id", .uuid, .references(FoodRecord.schema, "id", onDelete: .setNull))
            .field("food_name", .string, .required)
            .field("kind", .string, .required)
            .field("fed_by_id", .uuid, .references(UserRecord.schema, "id", onDelete: .setNull))
            .field("client_id", .uuid, .required)
            .field("fed_at", .datetime, .required)
            .field("activity", .int64, .required)
            .field("units", .int, .required)
            .field("gap_share", .double, .required)
            .field("kcal", .double, .required)
            .field("taken_units", .int)
            .field("created_at", .datetime, .required)
            // A retry with the same client id finds the first (`CareService.logFeeds`).
            .unique(on: "fed_by_id", "client_id")
            .create()
    }
}

struct CreateWeights: CreatesTable {
    static let table = WeightRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("on_date", .string, .required)
            .field("kilograms", .double, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "pet_id", "on_date")
            .create()
    }
}

struct CreateMedications: CreatesTable {
    static let table = MedicationRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("dose", .string, .required)
            .field("every_minutes", .int, .required)
            .field("starts_at", .datetime, .required)
            .field("until_on", .string)
            .field("created_by_id", .uuid, .references(UserRecord.schema, "id", onDelete: .setNull))
            .field("created_at", .datetime, .required)
            .create()
    }
}

struct CreateDoses: CreatesTable {
    static let table = DoseRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("medication_id", .uuid, .required, .references(MedicationRecord.schema, "id", onDelete: .cascade))
            .field("given_by_id", .uuid, .references(UserRecord.schema, "id", onDelete: .setNull))
            .field("client_id", .uuid, .required)
            .field("given_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            // A retry with the same client id finds the first (`MedicationService.give`).
            .unique(on: "medication_id", "client_id")
            .create()
    }
}

struct CreateCareReminders: CreatesTable {
    static let table = CareReminderRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("subject_id", .uuid, .required)
            .field("due_at", .datetime, .required)
            .field("for_day", .string)
            .field("sent_at", .datetime)
            // One reminder per subject: moving it is an upsert.
            .unique(on: "kind", "subject_id")
            .create()
    }
}

struct CreateCarePushes: CreatesTable {
    static let table = CarePushRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("pushed_at", .datetime, .required)
            .unique(on: "pet_id", "user_id")
            .create()
    }
}

struct AddVaccinationLeadDays: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(CareSettingsRecord.schema).field("vaccination_lead_days", .int).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(CareSettingsRecord.schema).deleteField("vaccination_lead_days").update()
    }
}
