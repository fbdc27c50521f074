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
