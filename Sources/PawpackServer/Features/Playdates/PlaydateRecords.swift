import Fluent
import Foundation
import PawpackCore

// Fluent models are `@unchecked Sendable`: each instance stays in the task that loaded it.

/// A dog's saved deck preferences, as JSON (`DeckPreferences` is Codable).
final class DeckPreferencesRecord: Model, @unchecked Sendable {
    static let schema = "deck_preferences"

    @ID(custom: .id) var id: Identifier<DeckPreferencesRecord>?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "preferences") var json: String
    @Field(key: "updated_at") var updatedAt: Date

    init() {}
}

/// One dog's decision about another. Passes are the decline pile.
final class SwipeRecord: Model, @unchecked Sendable {
    static let schema = "swipes"

    enum Decision: String, Codable { case like, pass }

    @ID(custom: .id) var id: Playdates.Swipe.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Parent(key: "target_pet_id") var target: PetRecord
    @Field(key: "decision") var decision: Decision
    @Field(key: "created_at") var createdAt: Date
    /// `createdAt` in whole microseconds, which the pass pile pages by (`AddActivity`).
    @Field(key: "activity") var activity: Int64

    init() {}

    init(petID: Pet.ID, targetID: Pet.ID, decision: Decision, now: Date) {
        $pet.id = petID
        $target.id = targetID
        self.decision = decision
        createdAt = now
        activity = ActivityCursor<Playdates.Swipe>.activity(at: now)
    }
}

/// A like waiting for the other owner's answer.
final class MatchRequestRecord: Model, @unchecked Sendable {
    static let schema = "match_requests"

    enum Status: String, Codable { case pending, accepted, rejected, cancelled }

    @ID(custom: .id) var id: Playdates.MatchRequest.ID?
    @Parent(key: "from_pet_id") var fromPet: PetRecord
    @Parent(key: "to_pet_id") var toPet: PetRecord
    @Parent(key: "from_user_id") var fromUser: UserRecord
    @Parent(key: "to_user_id") var toUser: UserRecord
    @Field(key: "status") var status: Status
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "answered_at") var answeredAt: Date?
    /// `createdAt` in whole microseconds, which the lists page by (`AddActivity`).
    @Field(key: "activity") var activity: Int64

    init() {}
}

/// Two dogs whose owners both agreed. `pet_a_id` sorts before `pet_b_id`, so a pair has
/// one row whichever side matched first.
final class MatchRecord: Model, @unchecked Sendable {
    static let schema = "matches"

    @ID(custom: .id) var id: Playdates.Match.ID?
    @Parent(key: "pet_a_id") var petA: PetRecord
    @Parent(key: "pet_b_id") var petB: PetRecord
    @Parent(key: "user_a_id") var userA: UserRecord
    @Parent(key: "user_b_id") var userB: UserRecord
    @Field(key: "created_at") var createdAt: Date
    /// `createdAt` in whole microseconds, which the list of matches pages by (`AddActivity`).
    @Field(key: "activity") var activity: Int64

    init() {}
}

extension MatchRecord {
    /// Opens the match's chat (`ChatService.open`), or opens again the one its dogs had.
    @discardableResult
    func openChat(now: Date, on db: any Database) async throws -> Chats.Chat.ID {
        try await ChatService.open(match: requireID(), pets: ($petA.id, $petB.id), owners: ($userA.id, $userB.id), now: now, on: db)
    }
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum PlaydateMigrations {
    static let all: [any Migration] = [
        CreateDeckPreferences(), CreateSwipes(), CreateMatchRequests(), CreateMatches(),
        CreateDeckIndex(),
        AddIndexes(
            name: "PlaydateLookupIndexes",
            indexes: [
                IndexSpec(name: "swipes_by_target", table: "swipes", columns: ["target_pet_id"]),
                IndexSpec(name: "match_requests_by_recipient", table: "match_requests", columns: ["to_user_id", "status"]),
                IndexSpec(name: "match_requests_by_sender", table: "match_requests", columns: ["from_user_id", "status"]),
                IndexSpec(name: "match_requests_by_pets", table: "match_requests", columns: ["from_pet_id", "to_pet_id"]),
                IndexSpec(name: "matches_by_user_a", table: "matches", columns: ["user_a_id"]),
                IndexSpec(name: "matches_by_user_b", table: "matches", columns: ["user_b_id"]),
                IndexSpec(name: "blocks_by_blocked", table: "blocks", columns: ["blocked_id"]),
                // Deleting a dog clears requests and matches on either side.
                IndexSpec(name: "match_requests_by_recipient_pet", table: "match_requests", columns: ["to_pet_id"]),
                IndexSpec(name: "matches_by_pet_b", table: "matches", columns: ["pet_b_id"]),
            ]),
        BlurMemberLocations(),
        // Chats' migrations run before these (Chats is the earlier area): matches open theirs.
        OpenChatsForEarlierMatches(),
        AddActivity(
            name: "PageMatchRequests", table: MatchRequestRecord.schema,
            indexes: [
                IndexSpec(name: "match_requests_to_newest", table: "match_requests", columns: ["to_user_id", "status", "activity", "id"]),
                IndexSpec(name: "match_requests_from_newest", table: "match_requests", columns: ["from_user_id", "status", "activity", "id"]),
            ]),
        AddActivity(
            name: "PagePasses", table: SwipeRecord.schema,
            indexes: [IndexSpec(name: "swipes_by_pet_newest", table: "swipes", columns: ["pet_id", "decision", "activity", "id"])]),
        AddActivity(
            name: "PageMatches", table: MatchRecord.schema,
            indexes: [
                IndexSpec(name: "matches_of_user_a_newest", table: "matches", columns: ["user_a_id", "activity", "id"]),
                IndexSpec(name: "matches_of_user_b_newest", table: "matches", columns: ["user_b_id", "activity", "id"]),
            ]),
    ]
}

/// Gives every member located before `LocationBlur` a grid of their own and keeps only the
/// centre of their cell, then builds the deck index again from those points. Here, after the
/// deck index exists, because it rebuilds it.
struct BlurMemberLocations: AsyncMigration {
    func prepare(on database: any Database) async throws {
        var lastID: User.ID?
        while true {
            var query = UserRecord.query(on: database).filter(\.$latitude != nil).sort(\.$id).limit(1_000)
            if let lastID { query = query.filter(\.$id > lastID) }
            let members = try await query.all()
            guard let last = members.last else { break }
            try await database.transaction { tx in
                for member in members {
                    member.place(at: member.location, newOffset: LocationBlur.Offset.random)
                    try await member.save(on: tx)
                }
            }
            lastID = last.id
        }
        try await DeckIndex().rebuild(on: database)
    }

    /// The exact positions are gone: there is nothing to go back to.
    func revert(on database: any Database) async throws {}
}

struct CreateDeckPreferences: CreatesTable {
    static let table = DeckPreferencesRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("preferences", .string, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "pet_id")
            .create()
    }
}

struct CreateSwipes: CreatesTable {
    static let table = SwipeRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("target_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("decision", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "pet_id", "target_pet_id")
            .create()
    }
}

struct CreateMatchRequests: CreatesTable {
    static let table = MatchRequestRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("from_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("to_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("from_user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("to_user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("answered_at", .datetime)
            .create()
    }
}

struct CreateMatches: CreatesTable {
    static let table = MatchRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("pet_a_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("pet_b_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("user_a_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("user_b_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "pet_a_id", "pet_b_id")
            .create()
    }
}

/// Matches made before chats existed get theirs, so every match has one.
struct OpenChatsForEarlierMatches: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // The columns of its day: a field added to the model later has no column yet here.
        let columns = MatchRecord.query(on: database).field(\.$id).field(\.$petA.$id).field(\.$petB.$id)
            .field(\.$userA.$id).field(\.$userB.$id).field(\.$createdAt)
        for match in try await columns.all() {
            try await match.openChat(now: match.createdAt, on: database)
        }
    }

    func revert(on database: any Database) async throws {}
}
