import Fluent
import Foundation
import PawpackCore

/// Blocks between members: a member blocks another by username, and from then on neither sees
/// the other's pets, chats or requests in any area. Every area checks `blockedUsers`; what a
/// new block ends (chats, matches, requests) each area declares (`Area.blockEnds`).
final class BlockService: Sendable {
    let clock: any AppClock
    let realtime: RealtimeEvents
    /// What a block ends in every area, inside its transaction: the events to send after.
    private let ends: @Sendable (User.ID, User.ID, any Database) async throws -> [StoredRealtimeEvent]

    init(
        clock: any AppClock, realtime: RealtimeEvents,
        ends: @escaping @Sendable (User.ID, User.ID, any Database) async throws -> [StoredRealtimeEvent]
    ) {
        self.clock = clock
        self.realtime = realtime
        self.ends = ends
    }

    /// The members a pet's owner and the member acting for it (a guardian, when that is someone
    /// else) blocked or are blocked by: what a dog's swipes and pass pile leave out. The deck
    /// reads the same set with the dog itself (`DeckSeekerState.read`).
    func blockedUsers(aroundOwner owner: User.ID, actor: UserRecord, on db: any Database) async throws -> Set<User.ID> {
        var blocked = try await blockedUsers(of: owner, on: db)
        let actorID = try actor.requireID()
        if actorID != owner { blocked.formUnion(try await blockedUsers(of: actorID, on: db)) }
        return blocked
    }

    /// Users blocked by, or blocking, this user.
    func blockedUsers(of userID: User.ID, on db: any Database) async throws -> Set<User.ID> {
        let blocks = try await BlockRecord.query(on: db)
            .involving(\.$blocker.$id, \.$blocked.$id, userID).all()
        return Set(blocks.map { $0.$blocker.id == userID ? $0.$blocked.id : $0.$blocker.id })
    }

    func block(_ user: UserRecord, username: String, on db: any Database) async throws {
        let name = AccountRules().normalizedUsername(username)
        let me = try user.requireID()
        guard let other = try await UserRecord.query(on: db).filter(\.$username == name).first(),
            let them = other.id, them != me
        else {
            throw Problem(
                status: 404, code: .notFound, title: "No such member", detail: "No other member has that username.",
                errors: [.init(field: "username", message: "is not another member")])
        }
        // Blocked twice at once: one block, and both answers are the same.
        let events = try await answeringRacesAsSequential {
            try await db.transaction { tx -> [StoredRealtimeEvent] in
                var events: [StoredRealtimeEvent] = []
                if try await BlockRecord.query(on: tx).filter(\.$blocker.$id == me).filter(\.$blocked.$id == them).first() == nil {
                    let block = BlockRecord()
                    block.$blocker.id = me
                    block.$blocked.id = them
                    block.createdAt = self.clock.now()
                    try await block.create(on: tx)
                }
                // Blocking ends everything between the two, both ways, in every area (`Area.blockEnds`).
                events += try await self.ends(me, them, tx)
                return events
            }
        }
        await realtime.deliver(events)
    }

    /// The members `user` blocked, newest first (oldest first for the export).
    func blocks(of user: UserRecord, newestFirst: Bool = true, on db: any Database) async throws -> [BlockedMemberValue] {
        try await BlockRecord.query(on: db).filter(\.$blocker.$id == user.requireID()).with(\.$blocked)
            .sort(\.$createdAt, newestFirst ? .descending : .ascending).all()
            .map { BlockedMemberValue(username: $0.blocked.username, displayName: $0.blocked.displayName, blockedAt: $0.createdAt) }
    }

    /// Lifts `user`'s block of the member with this username; 404 when there is none. A block
    /// the other member made stays.
    func unblock(_ user: UserRecord, username: String, on db: any Database) async throws {
        let name = AccountRules().normalizedUsername(username)
        guard let other = try await UserRecord.query(on: db).filter(\.$username == name).first(),
            let block = try await BlockRecord.query(on: db).filter(\.$blocker.$id == user.requireID())
                .filter(\.$blocked.$id == other.requireID()).first()
        else {
            throw Problem(
                status: 404, code: .notFound, title: "Not blocked", detail: "You have not blocked anyone by that username.",
                errors: [.init(field: "username", message: "is not a member you blocked")])
        }
        try await block.delete(on: db)
    }
}

extension PawpackServices {
    var blocks: BlockService { area(BlockService.self) }

    /// What a block between the two ends in every area, in order (`Area.blockEnds`).
    func blockEnds(between blocker: User.ID, _ blocked: User.ID, on tx: any Database) async throws -> [StoredRealtimeEvent] {
        var events: [StoredRealtimeEvent] = []
        for area in areas { if let ends = area.blockEnds { events += try await ends(blocker, blocked, self, tx) } }
        return events
    }
}
