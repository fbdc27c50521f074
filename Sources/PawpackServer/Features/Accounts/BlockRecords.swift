import Fluent
import Foundation
import PawpackCore

// Blocks are between members, whatever area they meet in: every area checks them
// (`BlockRecord.requireInteraction`), so they sit with the members, before every area.

/// A member who hides another, both ways, everywhere.
final class BlockRecord: Model, @unchecked Sendable {
    static let schema = "blocks"

    @ID(custom: .id) var id: User.Block.ID?
    @Parent(key: "blocker_id") var blocker: UserRecord
    @Parent(key: "blocked_id") var blocked: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A member someone blocked, for their list.
struct BlockedMemberValue: Sendable, Equatable {
    var username: String
    var displayName: String
    var blockedAt: Date
}

extension BlockRecord {
    /// Refuses an operation of `actor` that reaches `other` when either blocked the other
    /// (`InteractionRules`): every service that lets one member act toward another calls this.
    static func requireInteraction(from actor: User.ID, to other: User.ID, on db: any Database) async throws {
        if let refusal = InteractionRules().refusal(blocked: try await between(actor, other, on: db)) { throw refusal }
    }

    /// Whether either member blocked the other: then each is hidden from the other everywhere.
    static func between(_ one: User.ID, _ other: User.ID, on db: any Database) async throws -> Bool {
        guard one != other else { return false }
        return try await query(on: db).between(\.$blocker.$id, \.$blocked.$id, one, other).first() != nil
    }
}
