import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A playdate proposed in a chat. The proposer brings one of their dogs; the invitee, the
/// chat's other dog. The place's coordinates are for the two participants only.
final class MeetupRecord: Model, @unchecked Sendable {
    static let schema = "meetups"

    @ID(custom: .id) var id: Meetups.Meetup.ID?
    @Parent(key: "chat_id") var chat: ChatRecord
    @Parent(key: "proposer_id") var proposer: UserRecord
    @Parent(key: "proposer_pet_id") var proposerPet: PetRecord
    @Parent(key: "invitee_id") var invitee: UserRecord
    @Parent(key: "invitee_pet_id") var inviteePet: PetRecord
    /// Whole seconds: times compare exactly on both databases.
    @Field(key: "starts_at") var startsAt: Date
    @Field(key: "place_name") var placeName: String
    @Field(key: "latitude") var latitude: Double
    @Field(key: "longitude") var longitude: Double
    @OptionalField(key: "note") var note: String?
    @Field(key: "status") var status: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    /// Who made the last change (nil for the scheduler's expiry).
    @OptionalField(key: "changed_by") var changedBy: User.ID?
    /// When both owners were reminded, an hour before.
    @OptionalField(key: "reminded_at") var remindedAt: Date?

    init() {}

    var meetupStatus: MeetupStatus { MeetupStatus(rawValue: status) ?? .cancelled }

    func isParticipant(_ user: User.ID) -> Bool { $proposer.id == user || $invitee.id == user }

    func other(than user: User.ID) -> User.ID { $proposer.id == user ? $invitee.id : $proposer.id }
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum MeetupMigrations {
    static let all: [any Migration] = [
        CreateMeetups(), CreateOnePendingMeetupPerChat(),
        AddIndexes(
            name: "MeetupIndexes",
            indexes: [
                IndexSpec(name: "meetups_by_chat", table: "meetups", columns: ["chat_id", "starts_at"]),
                IndexSpec(name: "meetups_by_proposer", table: "meetups", columns: ["proposer_id", "starts_at"]),
                IndexSpec(name: "meetups_by_invitee", table: "meetups", columns: ["invitee_id", "starts_at"]),
                // The scheduler's expiries and reminders.
                IndexSpec(name: "meetups_due", table: "meetups", columns: ["status", "starts_at"]),
            ]),
        // A meet-up's notifications go with it.
        DeletedWithParent(name: "notifications_with_their_meetup", table: "notifications", column: "meetup_id", parent: "meetups"),
    ]
}

struct CreateMeetups: CreatesTable {
    static let table = MeetupRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("chat_id", .uuid, .required, .references(ChatRecord.schema, "id", onDelete: .cascade))
            .field("proposer_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("proposer_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("invitee_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("invitee_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("starts_at", .datetime, .required)
            .field("place_name", .string, .required)
            .field("latitude", .double, .required)
            .field("longitude", .double, .required)
            .field("note", .string)
            .field("status", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("changed_by", .uuid)
            .field("reminded_at", .datetime)
            .create()
    }
}

/// At most one pending proposal per chat, even when both owners propose at the same moment:
/// a partial unique index, which SQLite and PostgreSQL write alike.
struct CreateOnePendingMeetupPerChat: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw(
            """
            CREATE UNIQUE INDEX IF NOT EXISTS "meetups_one_pending_per_chat" ON "meetups" ("chat_id") WHERE "status" = 'pending'
            """
        ).run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw(#"DROP INDEX IF EXISTS "meetups_one_pending_per_chat""#).run()
    }
}
