import Fluent
import Foundation
import PawpackCore

/// One side of a friendship: a friendship is two rows, one per member, written and deleted
/// together, so "my friends" and "whose photos reach me" are one indexed lookup each.
final class FriendshipRecord: Model, @unchecked Sendable {
    static let schema = "friendships"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "member_id") var member: UserRecord
    @Parent(key: "friend_id") var friend: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(member: User.ID, friend: User.ID, since: Date) {
        id = UUID()
        $member.id = member
        $friend.id = friend
        createdAt = since
    }
}

/// A request to be friends while it waits: answered (accepted, rejected) or cancelled, it goes.
/// One per pair and direction (a unique key): asking twice at once is one request.
final class FriendRequestRecord: Model, @unchecked Sendable {
    static let schema = "friend_requests"

    @ID(custom: .id) var id: Moments.FriendRequest.ID?
    @Parent(key: "from_id") var from: UserRecord
    @Parent(key: "to_id") var to: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A member's choices for Moments; a member without a row has the defaults (and one who chose
/// the defaults again has none).
final class MomentsSettingsRecord: Model, @unchecked Sendable {
    static let schema = "moments_settings"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "member_id") var member: UserRecord
    /// Whether the member search finds them (true by default).
    @Field(key: "findable") var findable: Bool

    init() {}
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum MomentsMigrations {
    static let all: [any Migration] = [
        CreateFriendships(), CreateFriendRequests(), CreateMomentsSettings(),
        AddIndexes(
            name: "FriendIndexes",
            indexes: [
                // Who asked me (the unique key serves the asker's side).
                IndexSpec(name: "friend_requests_by_recipient", table: "friend_requests", columns: ["to_id", "created_at"]),
                IndexSpec(name: "friendships_by_friend", table: "friendships", columns: ["friend_id"]),
            ]),
    ]
}

struct CreateFriendships: CreatesTable {
    static let table = FriendshipRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("member_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("friend_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "member_id", "friend_id")
            .create()
    }
}

struct CreateFriendRequests: CreatesTable {
    static let table = FriendRequestRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("from_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("to_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "from_id", "to_id")
            .create()
    }
}

struct CreateMomentsSettings: CreatesTable {
    static let table = MomentsSettingsRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("member_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("findable", .bool, .required)
            .unique(on: "member_id")
            .create()
    }
}
