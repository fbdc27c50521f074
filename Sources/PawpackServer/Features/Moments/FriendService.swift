import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A member as another sees them in Moments.
struct MemberNameValue: Sendable, Equatable {
    var id: User.ID
    var username: String
    var displayName: String
}

/// A search result: who, and how the searcher stands to them.
struct MemberSearchValue: Sendable, Equatable {
    var member: MemberNameValue
    var friendship: Friendship
}

struct FriendValue: Sendable, Equatable {
    var member: MemberNameValue
    var since: Date
}

struct FriendRequestValue: Sendable, Equatable {
    var id: Moments.FriendRequest.ID
    /// Sent to the viewer (true) or by them.
    var incoming: Bool
    /// The other member.
    var member: MemberNameValue
    var createdAt: Date
}

/// What asking to be friends came to: a request waiting, or friends at once when the other
/// member had already asked.
enum FriendRequestOutcome: Sendable {
    case requested(FriendRequestValue)
    case friends(FriendValue)
}

/// What a member's export holds of their friends.
struct FriendsExport: Sendable {
    var friends: [FriendValue]
    var requests: [FriendRequestValue]
    var findable: Bool
}

/// Friends in Moments: the member directory, requests and their answers, friendships (mutual:
/// one row per side, written together) and who may be found. Blocks end friendships and
/// requests both ways (`Area.blockEnds`), and a blocked member never appears in a search.
final class FriendService: Sendable {
    let blocks: BlockService
    let notifications: NotificationService
    let realtime: RealtimeEvents
    let clock: any AppClock
    let rules = FriendRules()
    private let searches: RateLimiter
    private let requestsSent: RateLimiter

    init(blocks: BlockService, notifications: NotificationService, realtime: RealtimeEvents, clock: any AppClock) {
        self.blocks = blocks
        self.notifications = notifications
        self.realtime = realtime
        self.clock = clock
        searches = RateLimiter(limit: rules.searchesPerMinute, window: 60)
        requestsSent = RateLimiter(limit: rules.requestsPerHour, window: 60 * 60)
    }

    // MARK: The directory

    /// Members whose username or display name starts with `query`, by username, a page after
    /// the username `after`; never the searcher, a member who chose not to be found, one
    /// without a verified email (who cannot sign in), or anyone blocked either way.
    func search(
        _ user: UserRecord, query: String, limit: Int, after: String?, denseNames: Int = FriendService.denseNames,
        on db: any Database
    ) async throws -> (items: [MemberSearchValue], next: String?) {
        let me = try user.requireID()
        let prefix = try rules.searchPrefix(query).get()
        try await searches.take("search:\(me)", now: clock.now(), what: "searches")
        let pattern = FriendRules.likePattern(startingWith: prefix)
        let usernameStarts: SQLQueryString = #"u."username" LIKE \#(bind: pattern) ESCAPE '\'"#
        let nameStarts: SQLQueryString = #"LOWER(u."display_name") LIKE \#(bind: pattern) ESCAPE '\'"#
        let rows: [any SQLRow]
        if db.sql.dialect.name == "sqlite" {
            // SQLite's planner knows nothing of how many share a start, and in one statement it
            // walked every member in username order until a page was full: the whole table for a
            // start nobody has. So each kind of start has its own page here, and the first of
            // their usernames make the page (`FindMembersByTheirStart`).
            let end = prefix + "\u{10FFFF}" // past every text that starts with `prefix`
            let byUsername = try await page(
                where: #"u."username" >= \#(bind: prefix) AND u."username" < \#(bind: end) AND \#(usernameStarts)"#,
                viewer: me, after: after, limit: limit, on: db)
            // Names: those who have one that starts so, through the names' index while they are
            // few; when many have it, a walk in username order finds a page of them soon.
            let named =
                try await db.sql.raw(
                    """
                    SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "users" u
                      WHERE LOWER(u."display_name") >= \(bind: prefix) AND LOWER(u."display_name") < \(bind: end)
                      AND u."username" > \(bind: after ?? "") LIMIT \(literal: denseNames + 1)) AS "named"
                    """
                ).first()?.decode(column: "n", as: Int.self) ?? 0
            var byName: [any SQLRow] = []
            if named > 0 {
                let inIndex: SQLQueryString = """
                    u."id" IN (SELECT v."id" FROM "users" v WHERE LOWER(v."display_name") >= \(bind: prefix) AND LOWER(v."display_name") < \(bind: end))
                    """
                byName = try await page(
                    where: named > denseNames ? nameStarts : "\(inIndex) AND \(nameStarts)", viewer: me, after: after, limit: limit, on: db)
            }
            var seen: Set<String> = []
            rows = try (byUsername + byName).map { (try $0.decode(column: "username", as: String.self), $0) }
                .sorted { $0.0 < $1.0 }.filter { seen.insert($0.0).inserted }.prefix(limit + 1).map(\.1)
        } else {
            // PostgreSQL weighs how many share the start (its statistics), and reads the pattern
            // indexes when few do.
            rows = try await page(where: "(\(usernameStarts) OR \(nameStarts))", viewer: me, after: after, limit: limit, on: db)
        }
        let members = try rows.prefix(limit).map(Self.memberName)
        let standings = try await friendships(of: me, with: members.map(\.id), on: db)
        let items = members.map { MemberSearchValue(member: $0, friendship: standings[$0.id] ?? Friendship.none) }
        return (items, rows.count > limit ? members.last?.username : nil)
    }

    /// A name start shared by more members than this is searched by walking the members in
    /// username order (a page of them comes soon); by fewer, in the names' index, then sorted:
    /// on the Moments bench's 100,000 members, under 5 ms either way (docs/PERFORMANCE.md).
    static let denseNames = 1_000

    /// `limit + 1` members matching `starts` after the username `after`, by username, whom
    /// `viewer` may find: not themselves, verified, findable, and no block either way.
    private func page(where starts: SQLQueryString, viewer me: User.ID, after: String?, limit: Int, on db: any Database) async throws
        -> [any SQLRow]
    {
        try await db.sql.raw(
            """
            SELECT u."id", u."username", u."display_name" FROM "users" u
            WHERE \(starts)
              AND u."email_verified_at" IS NOT NULL AND u."id" <> \(bind: me) AND u."username" > \(bind: after ?? "")
              AND NOT EXISTS (SELECT 1 FROM "moments_settings" s WHERE s."member_id" = u."id" AND s."findable" = \(bind: false))
              AND NOT EXISTS (
                SELECT 1 FROM "blocks" b
                WHERE (b."blocker_id" = \(bind: me) AND b."blocked_id" = u."id") OR (b."blocker_id" = u."id" AND b."blocked_id" = \(bind: me)))
            ORDER BY u."username" LIMIT \(literal: limit + 1)
            """
        ).all()
    }

    /// How `me` stands to each of `others` (absent: neither asked).
    func friendships(of me: User.ID, with others: [User.ID], on db: any Database) async throws -> [User.ID: Friendship] {
        guard !others.isEmpty else { return [:] }
        var standing: [User.ID: Friendship] = [:]
        for row in try await FriendRequestRecord.query(on: db).filter(\.$from.$id == me).filter(\.$to.$id ~~ others).all() {
            standing[row.$to.id] = .requested
        }
        for row in try await FriendRequestRecord.query(on: db).filter(\.$to.$id == me).filter(\.$from.$id ~~ others).all() {
            standing[row.$from.id] = .askedMe
        }
        for row in try await FriendshipRecord.query(on: db).filter(\.$member.$id == me).filter(\.$friend.$id ~~ others).all() {
            standing[row.$friend.id] = .friends
        }
        return standing
    }

    /// Whether the search finds this member.
    func findable(_ user: UserRecord, on db: any Database) async throws -> Bool {
        try await MomentsSettingsRecord.query(on: db).filter(\.$member.$id == user.requireID()).first()?.findable ?? true
    }

    /// A member found by the search has no row: one is kept only for a member who said no.
    func setFindable(_ user: UserRecord, _ findable: Bool, on db: any Database) async throws {
        let me = try user.requireID()
        guard !findable else {
            try await MomentsSettingsRecord.query(on: db).filter(\.$member.$id == me).delete()
            return
        }
        // Said twice at once: the second finds the first's row (a unique key) and keeps it.
        try await answeringRacesAsSequential {
            guard try await MomentsSettingsRecord.query(on: db).filter(\.$member.$id == me).first() == nil else { return }
            let row = MomentsSettingsRecord()
            row.id = UUID()
            row.$member.id = me
            row.findable = false
            try await row.create(on: db)
        }
    }

    // MARK: Friends

    /// The member's friends by username, a page after the username `after`.
    func friends(_ user: UserRecord, limit: Int, after: String?, on db: any Database) async throws -> (items: [FriendValue], next: String?) {
        let rows = try await db.sql.raw(
            """
            SELECT u."id", u."username", u."display_name", f."created_at" FROM "friendships" f
            JOIN "users" u ON u."id" = f."friend_id"
            WHERE f."member_id" = \(bind: user.requireID()) AND u."username" > \(bind: after ?? "")
              AND NOT EXISTS (
                SELECT 1 FROM "blocks" b WHERE (b."blocker_id" = f."member_id" AND b."blocked_id" = f."friend_id")
                    OR (b."blocker_id" = f."friend_id" AND b."blocked_id" = f."member_id"))
            ORDER BY u."username" LIMIT \(literal: limit + 1)
            """
        ).all()
        let items = try rows.prefix(limit).map { row in
            FriendValue(member: try Self.memberName(row), since: try row.decode(column: "created_at", as: Date.self))
        }
        return (items, rows.count > limit ? items.last?.member.username : nil)
    }

    /// The members who are friends of this one.
    func friendIDs(of member: User.ID, on db: any Database) async throws -> Set<User.ID> {
        Set(try await FriendshipRecord.query(on: db).filter(\.$member.$id == member).all().map(\.$friend.id))
    }

    func remove(_ user: UserRecord, username: String, on db: any Database) async throws {
        let me = try user.requireID()
        let other = try await UserRecord.query(on: db).filter(\.$username == AccountRules().normalizedUsername(username)).first()
        var removed = false
        if let them = other?.id {
            removed = try await !db.sql.raw(
                """
                DELETE FROM "friendships"
                WHERE ("member_id" = \(bind: me) AND "friend_id" = \(bind: them)) OR ("member_id" = \(bind: them) AND "friend_id" = \(bind: me))
                RETURNING "id"
                """
            ).all().isEmpty
        }
        guard removed else {
            throw Problem(
                status: 404, code: .notFound, title: "Not a friend", detail: "You are not friends with anyone by that username.",
                errors: [.init(field: "username", message: "is not one of your friends")])
        }
    }

    // MARK: Requests

    /// Requests waiting: sent to the member (`incoming`) or by them, newest first, `limit`
    /// after `cursor` and where the next page starts. Any number of members may ask one; a
    /// member has at most `rules.mostWaitingRequests` of their own waiting.
    func requests(
        _ user: UserRecord, incoming: Bool, limit: Int, after cursor: ActivityCursor<Moments.FriendRequest>? = nil,
        on db: any Database
    ) async throws -> (items: [FriendRequestValue], next: ActivityCursor<Moments.FriendRequest>?) {
        let me = try user.requireID()
        let page = try await FriendRequestRecord.query(on: db).filter(incoming ? \.$to.$id : \.$from.$id, .equal, me)
            .with(incoming ? \.$from : \.$to).newestPage(limit: limit, after: cursor, activity: \.$activity)
        return (try page.rows.map { try Self.requestValue($0, viewer: me) }, page.next)
    }

    /// How many members wait for this member's answer.
    func incomingCount(_ user: UserRecord, on db: any Database) async throws -> Int {
        try await FriendRequestRecord.query(on: db).filter(\.$to.$id == user.requireID()).count()
    }

    /// Asks the member with this username to be friends; when they had asked first, this
    /// accepts theirs. Asking again while a request waits answers that request.
    func send(_ user: UserRecord, to username: String, on db: any Database) async throws -> FriendRequestOutcome {
        let me = try user.requireID()
        try await requestsSent.take("friend-request:\(me)", now: clock.now(), what: "friend requests")
        let other = try await member(username, for: me, on: db)
        let them = try other.requireID()
        // Two identical requests at once: the second finds the first's row and answers it.
        return try await answeringRacesAsSequential { () -> FriendRequestOutcome in
            if try await FriendshipRecord.query(on: db).filter(\.$member.$id == me).filter(\.$friend.$id == them).first() != nil {
                throw Problem(
                    status: 409, code: .alreadyFriends, title: "Already friends", detail: "You and \(other.displayName) are friends already.")
            }
            if let mine = try await FriendRequestRecord.query(on: db).filter(\.$from.$id == me).filter(\.$to.$id == them).first() {
                mine.$to.value = other
                return .requested(try Self.requestValue(mine, viewer: me))
            }
            if let theirs = try await FriendRequestRecord.query(on: db).filter(\.$from.$id == them).filter(\.$to.$id == me).first() {
                return .friends(try await self.acceptOnce(user, request: theirs.requireID(), on: db))
            }
            let friends = try await FriendshipRecord.query(on: db).filter(\.$member.$id == me).count()
            let waiting = try await FriendRequestRecord.query(on: db).filter(\.$from.$id == me).count()
            if let problem = self.rules.requestProblem(friends: friends, waiting: waiting) { throw problem }
            let request = FriendRequestRecord()
            request.id = .init()
            request.$from.id = me
            request.$to.id = them
            request.createdAt = self.clock.now()
            request.activity = ActivityCursor<Moments.FriendRequest>.activity(at: request.createdAt)
            let told = NotificationDraft(
                from: me, kind: .friend, title: "\(user.displayName) wants to be friends",
                body: "Friends see each other's friends-only moments. Accept or decline in Moments.")
            let events = try await db.transaction { tx in
                try await request.create(on: tx)
                return try await self.notifications.notify(told, to: them, on: tx)
            }
            await self.realtime.deliver(events)
            request.$to.value = other
            return .requested(try Self.requestValue(request, viewer: me))
        }
    }

    /// Accepts a request sent to this member: both are friends, and the asker is told.
    func accept(_ user: UserRecord, request id: Moments.FriendRequest.ID, on db: any Database) async throws -> FriendValue {
        // Accepted twice at once: the second finds it gone (404), as after the first.
        try await answeringRacesAsSequential { try await acceptOnce(user, request: id, on: db) }
    }

    private func acceptOnce(_ user: UserRecord, request id: Moments.FriendRequest.ID, on db: any Database) async throws -> FriendValue {
        let me = try user.requireID()
        guard let request = try await FriendRequestRecord.query(on: db).filter(\.$id == id).filter(\.$to.$id == me).with(\.$from).first()
        else { throw Problem.notFound }
        let asker = request.from
        let them = try asker.requireID()
        let friends = try await FriendshipRecord.query(on: db).filter(\.$member.$id == me).count()
        if let problem = rules.acceptProblem(friends: friends) { throw problem }
        // The asker may have filled their list since they asked.
        let theirs = try await FriendshipRecord.query(on: db).filter(\.$member.$id == them).count()
        if rules.acceptProblem(friends: theirs) != nil {
            throw Problem(
                status: 409, code: .limitReached, title: "They have too many friends",
                detail: "\(asker.displayName) has \(rules.mostFriends) friends, the most a member may have.")
        }
        let now = clock.now()
        let told = NotificationDraft(
            from: me, kind: .friend, title: "\(user.displayName) accepted your friend request",
            body: "You are friends now: you see each other's friends-only moments.")
        let events = try await db.transaction { tx -> [StoredRealtimeEvent] in
            // A write first, so that the transaction holds SQLite's write lock from its start:
            // the requests of both ways in one statement (two accepts of crossed requests at
            // once then wait on each other instead of deadlocking on PostgreSQL); without this
            // one among them, a concurrent answer took it first.
            let deleted = try await tx.sql.raw(
                """
                DELETE FROM "friend_requests"
                WHERE ("from_id" = \(bind: them) AND "to_id" = \(bind: me)) OR ("from_id" = \(bind: me) AND "to_id" = \(bind: them))
                RETURNING "id"
                """
            ).all().map { try $0.decode(column: "id", as: Moments.FriendRequest.ID.self) }
            guard deleted.contains(id) else { throw LostRace() }
            try await FriendshipRecord(member: me, friend: them, since: now).create(on: tx)
            try await FriendshipRecord(member: them, friend: me, since: now).create(on: tx)
            // A block made meanwhile ends what this would start.
            if try await BlockRecord.between(me, them, on: tx) { throw Problem.notFound }
            return try await self.notifications.notify(told, to: them, on: tx)
        }
        await realtime.deliver(events)
        return FriendValue(member: try Self.memberName(asker), since: now)
    }

    /// Declines a request sent to this member; the asker is not told.
    func reject(_ user: UserRecord, request id: Moments.FriendRequest.ID, on db: any Database) async throws {
        guard try await Self.deleteRequest(id, side: "to_id", is: user.requireID(), on: db) else { throw Problem.notFound }
    }

    /// Withdraws a request this member sent.
    func cancel(_ user: UserRecord, request id: Moments.FriendRequest.ID, on db: any Database) async throws {
        guard try await Self.deleteRequest(id, side: "from_id", is: user.requireID(), on: db) else { throw Problem.notFound }
    }

    /// Deletes the request when `me` is its `side` (`from_id` or `to_id`); false when there was
    /// none, or a concurrent answer deleted it first.
    private static func deleteRequest(_ id: Moments.FriendRequest.ID, side: String, is me: User.ID, on db: any Database) async throws -> Bool {
        try await !db.sql.raw(
            """
            DELETE FROM "friend_requests" WHERE "id" = \(bind: id) AND \(ident: side) = \(bind: me) RETURNING "id"
            """
        ).all().isEmpty
    }

    // MARK: Blocks, export

    /// A block ends the two members' friendship and their requests, both ways.
    func blockEnds(_ one: User.ID, _ other: User.ID, on tx: any Database) async throws {
        try await FriendshipRecord.query(on: tx).between(\.$member.$id, \.$friend.$id, one, other).delete()
        try await FriendRequestRecord.query(on: tx).between(\.$from.$id, \.$to.$id, one, other).delete()
    }

    func export(_ user: UserRecord, on db: any Database) async throws -> FriendsExport {
        var friends: [FriendValue] = []
        var after: String?
        repeat {
            let page = try await self.friends(user, limit: 500, after: after, on: db)
            friends += page.items
            after = page.next
        } while after != nil
        var requests: [FriendRequestValue] = []
        for incoming in [true, false] {
            var after: ActivityCursor<Moments.FriendRequest>?
            repeat {
                let page = try await self.requests(user, incoming: incoming, limit: 500, after: after, on: db)
                requests += page.items
                after = page.next
            } while after != nil
        }
        return FriendsExport(friends: friends, requests: requests, findable: try await findable(user, on: db))
    }

    // MARK: Reading

    /// The member with this username as `me` may reach them: a 404 naming `username` for
    /// nobody, someone unverified, or anyone blocked either way (the same answer for each);
    /// a 422 for oneself.
    private func member(_ username: String, for me: User.ID, on db: any Database) async throws -> UserRecord {
        let name = AccountRules().normalizedUsername(username)
        if let problem = AccountRules().usernameProblem(name) {
            throw Problem(
                status: 422, code: .validationFailed, title: "Not a username", detail: "Type the member's username.",
                errors: [.init(field: "username", message: problem)])
        }
        let found = try await UserRecord.query(on: db).filter(\.$username == name).first()
        if let found, found.id == me {
            throw Problem(
                status: 422, code: .validationFailed, title: "That is you", detail: "Ask another member to be friends.",
                errors: [.init(field: "username", message: "is your own")])
        }
        guard let found, let id = found.id, found.emailVerifiedAt != nil,
            !(try await blocks.blockedUsers(of: me, on: db)).contains(id)
        else {
            throw Problem(
                status: 404, code: .notFound, title: "No such member", detail: "No other member has that username.",
                errors: [.init(field: "username", message: "is not another member")])
        }
        return found
    }

    private static func memberName(_ row: any SQLRow) throws -> MemberNameValue {
        MemberNameValue(
            id: try row.decode(column: "id", as: User.ID.self), username: try row.decode(column: "username", as: String.self),
            displayName: try row.decode(column: "display_name", as: String.self))
    }

    private static func memberName(_ user: UserRecord) throws -> MemberNameValue {
        MemberNameValue(id: try user.requireID(), username: user.username, displayName: user.displayName)
    }

    private static func requestValue(_ row: FriendRequestRecord, viewer: User.ID) throws -> FriendRequestValue {
        let incoming = row.$to.id == viewer
        return FriendRequestValue(
            id: try row.requireID(), incoming: incoming, member: try memberName(incoming ? row.from : row.to), createdAt: row.createdAt)
    }
}
