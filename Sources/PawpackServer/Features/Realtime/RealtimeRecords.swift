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
