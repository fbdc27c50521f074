import Fluent
import Foundation
import PawpackCore

/// One event for one member, kept for the retention period so that an app that reconnects
/// with the id of the last event it saw gets what it missed. `seq` counts each member's events
/// 1, 2, 3… (`realtime_counters`), so ids never go back and a gap is seen at once.
final class RealtimeEventRecord: Model, @unchecked Sendable {
    static let schema = "realtime_events"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "seq") var seq: Int64
    @Field(key: "kind") var kind: String
    /// The event's `data`, as JSON, as this member sees it.
    @Field(key: "payload") var payload: String
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum RealtimeMigrations {
    static let all: [any Migration] = [
        CreateRealtimeEvents(), CreateRealtimeCounters(),
        AddIndexes(
            name: "RealtimeIndexes",
            indexes: [
                // The retention's deletion reads the oldest first.
                IndexSpec(name: "realtime_events_by_age", table: "realtime_events", columns: ["created_at"])
            ]),
        AddRealtimeAcknowledgements(),
    ]
}

struct CreateRealtimeEvents: CreatesTable {
    static let table = RealtimeEventRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("seq", .int64, .required)
            .field("kind", .string, .required)
            .field("payload", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "user_id", "seq")
            .create()
    }
}

/// Each member's last event number, read and raised in one statement (`RealtimeEvents.record`).
struct CreateRealtimeCounters: CreatesTable {
    static let table = "realtime_counters"

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("last_seq", .int64, .required)
            .unique(on: "user_id")
            .create()
    }
}

/// The highest event each member's apps acknowledged on a socket (`realtime_counters`), which
/// decides whether a message still needs a push.
struct AddRealtimeAcknowledgements: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("realtime_counters").field("acked_seq", .int64, .required, .sql(.default(0))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("realtime_counters").deleteField("acked_seq").update()
    }
}
