import Fluent
import Foundation
import PawpackCore
import SQLKit

/// What a notification says, made by the feature that raises it.
struct NotificationDraft: Sendable {
    /// The member whose action caused it; nil for the server's own (a reminder). Required of
    /// every kind: the flood limits (`NotificationPolicy`) count per member.
    var from: User.ID?
    var kind: NotificationKind
    var title: String
    var body: String
    var chat: Chats.Chat.ID?
    var meetup: Meetups.Meetup.ID?
    /// The other member's dog it is about; for Care, the household's pet.
    var pet: Pet.ID?
    /// Those of the recipients it may be pushed to as well (Care: once per pet a minute); nil:
    /// all. Asked once the notifications are stored, with every recipient who got one.
    var mayPush: (@Sendable ([User.ID], any SQLWriteStatements) async throws -> Set<User.ID>)? = nil
}

/// One entry of the inbox, as its member sees it.
struct NotificationValue: Sendable, Equatable {
    var id: Notifications.Notification.ID
    var kind: NotificationKind
    var title: String
    var body: String
    var chat: Chats.Chat.ID?
    var meetup: Meetups.Meetup.ID?
    var pet: Pet.ID?
    var count: Int
    var activity: Int64
    var createdAt: Date
    var readAt: Date?

    init(_ record: NotificationRecord) throws {
        id = try record.requireID()
        kind = NotificationKind(rawValue: record.kind) ?? .match
        title = record.title
        body = record.body
        chat = record.chatID
        meetup = record.meetupID
        pet = record.petID
        count = record.count
        activity = record.activity
        createdAt = record.createdAt
        readAt = record.readAt
    }

    /// The columns `init(row:)` reads, in SQL.
    static let columns = #""id", "kind", "title", "body", "chat_id", "meetup_id", "pet_id", "count", "activity", "created_at", "read_at""#

    init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: Notifications.Notification.ID.self)
        kind = NotificationKind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .match
        title = try row.decode(column: "title", as: String.self)
        body = try row.decode(column: "body", as: String.self)
        chat = try row.decode(column: "chat_id", as: Chats.Chat.ID?.self)
        meetup = try row.decode(column: "meetup_id", as: Meetups.Meetup.ID?.self)
        pet = try row.decode(column: "pet_id", as: Pet.ID?.self)
        count = try row.decode(column: "count", as: Int.self)
        activity = try row.decode(column: "activity", as: Int64.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        readAt = try row.decode(column: "read_at", as: Date?.self)
    }

    var updatedAt: Date { ActivityCursor<Notifications.Notification>.date(ofActivity: activity) }

    /// The web app's page it opens (the inbox's link, a push's tap); apps map it to their own
    /// screen.
    var opens: String {
        switch kind {
        case .message: chat.map { WebPath.chat($0) } ?? WebPath.chats
        case .match: chat.map { WebPath.chat($0) } ?? WebPath.matches
        case .matchRequest: WebPath.matchRequests
        case .meetup, .review: WebPath.meetups
        case .guardianInvitation: WebPath.pets
        case .family: WebPath.families
        case .stock, .fed: WebPath.care
        case .feeding: pet.map { WebPath.carePet($0) } ?? WebPath.care
        case .health: pet.map { WebPath.careHealth($0) } ?? WebPath.care
        case .friend: WebPath.friends
        case .contest: WebPath.contests
        }
    }
    var cursor: ActivityCursor<Notifications.Notification> { .init(activity: activity, id: id) }
}

/// The inbox: what a member should learn about while away. A notification is written in the
/// transaction of its cause, with the realtime event that tells the member's open apps (the
/// bell's count), unless the member muted its kind. A chat's messages collapse into one
/// notification while it is unread, and reading the chat reads it.
final class NotificationService: Sendable {
    /// What else carries notifications to their members, in their transaction: the pushes to
    /// their devices (`PushOutbox.enqueue`).
    typealias Carrier = @Sendable ([Stored], any SQLWriteStatements) async throws -> Void

    /// A notification as stored for one member, with what its pushes need: the member's unread
    /// count, and the realtime event a socket may acknowledge instead (messages).
    struct Stored: Sendable {
        var value: NotificationValue
        var user: User.ID
        var unread: Int
        var ackSeq: Int64?
    }

    let realtime: RealtimeEvents
    let carry: Carrier
    let clock: any AppClock
    let policy: NotificationPolicy

    init(realtime: RealtimeEvents, clock: any AppClock, policy: NotificationPolicy, carry: @escaping Carrier) {
        self.realtime = realtime
        self.carry = carry
        self.clock = clock
        self.policy = policy
    }

    /// Stores the notification for `user` (or adds to the unread one of the same chat, for a
    /// message) with its pushes (`PushOutbox`); the realtime events to deliver after the
    /// commit. Nothing for a muted kind, and as `NotificationPolicy` decides for a repeat or a
    /// flood: the unread one from the same member brought up to date, or nothing.
    func notify(_ draft: NotificationDraft, to user: User.ID, on tx: any Database) async throws -> [StoredRealtimeEvent] {
        try await notify(draft, to: [user], in: FluentWriteStatements(db: tx))
    }

    /// `notify` among the statements of a transaction under way (`SQLWrites`).
    func notify(_ draft: NotificationDraft, to user: User.ID, in statements: any SQLWriteStatements) async throws
        -> [StoredRealtimeEvent]
    {
        try await notify(draft, to: [user], in: statements)
    }

    /// `notify` for several members at once, each as if alone, with the same few statements
    /// whatever their number: a feed told the nine others of a household one at a time, some
    /// seventy statements.
    func notify(_ draft: NotificationDraft, to users: [User.ID], on tx: any Database) async throws -> [StoredRealtimeEvent] {
        try await notify(draft, to: users, in: FluentWriteStatements(db: tx))
    }

    func notify(_ draft: NotificationDraft, to users: [User.ID], in statements: any SQLWriteStatements) async throws
        -> [StoredRealtimeEvent]
    {
        // In one order whatever the cause, as `RealtimeEvents.record` takes its rows.
        let recipients = Set(users).sorted(by: { $0.description < $1.description })
        guard !recipients.isEmpty else { return [] }
        let kind = draft.kind.rawValue
        let muted = Set(
            try await statements.rows(
                """
                SELECT "user_id" FROM "notification_mutes" WHERE "kind" = \(bind: kind) AND "user_id" IN (\(binds: recipients))
                """
            ).map { try $0.decode(column: "user_id", as: User.ID.self) })
        let now = clock.now()
        let activity = ActivityCursor<Notifications.Notification>.activity(at: now)
        var stored: [User.ID: NotificationValue] = [:]
        if draft.kind == .message, let chat = draft.chat {
            // Into the chat's unread notification, when there is one: one entry per chat.
            for user in recipients where !muted.contains(user) {
                stored[user] = try await statements.first(
                    """
                    UPDATE "notifications" SET "count" = "count" + 1, "title" = \(bind: draft.title), "body" = \(bind: draft.body),
                        "activity" = \(bind: activity)
                    WHERE "id" = (SELECT "id" FROM "notifications" WHERE "user_id" = \(bind: user) AND "read_at" IS NULL
                        AND "kind" = \(bind: kind) AND "chat_id" = \(bind: chat) LIMIT 1)
                    RETURNING \(unsafeRaw: NotificationValue.columns)
                    """
                ).map(NotificationValue.init(row:))
            }
        }
        let fresh = recipients.filter { !muted.contains($0) && stored[$0] == nil }
        if !fresh.isEmpty {
            let decisions = try await decisions(for: draft, to: fresh, now: now, in: statements)
            var inserted: [User.ID] = []
            for user in fresh {
                switch decisions[user] ?? .notify {
                case .drop:
                    continue
                case .coalesce:
                    // The same member did the same kind of thing again: the entry says the latest.
                    _ = try await statements.first(
                        """
                        UPDATE "notifications" SET "title" = \(bind: draft.title), "body" = \(bind: draft.body),
                            "chat_id" = \(bind: draft.chat), "meetup_id" = \(bind: draft.meetup), "pet_id" = \(bind: draft.pet)
                        WHERE "id" = (SELECT "id" FROM "notifications" WHERE "user_id" = \(bind: user) AND "kind" = \(bind: kind)
                            AND "from_user_id" = \(bind: draft.from) AND "read_at" IS NULL
                            AND "created_at" > \(bind: now.addingTimeInterval(-policy.coalesceWindow)) LIMIT 1)
                        RETURNING "id"
                        """)
                case .notify:
                    inserted.append(user)
                }
            }
            if !inserted.isEmpty {
                let rows = inserted.map { user in
                    """
                    (\(bind: Notifications.Notification.ID()), \(bind: user), \(bind: draft.from), \(bind: kind), \(bind: draft.title),
                     \(bind: draft.body), \(bind: draft.chat), \(bind: draft.meetup), \(bind: draft.pet), 1, \(bind: activity), \(bind: now))
                    """ as SQLQueryString
                }.joined(separator: ", ")
                for row in try await statements.rows(
                    """
                    INSERT INTO "notifications" ("id", "user_id", "from_user_id", "kind", "title", "body", "chat_id", "meetup_id",
                        "pet_id", "count", "activity", "created_at")
                    VALUES \(rows)
                    RETURNING "user_id", \(unsafeRaw: NotificationValue.columns)
                    """)
                {
                    stored[try row.decode(column: "user_id", as: User.ID.self)] = try NotificationValue(row: row)
                }
                guard inserted.allSatisfy({ stored[$0] != nil }) else { throw NotificationNotStored() }
            }
        }
        let told = recipients.filter { stored[$0] != nil }
        guard !told.isEmpty else { return [] }
        var unread: [User.ID: Int] = [:]
        for row in try await statements.rows(
            """
            SELECT "user_id", COUNT(*) AS "unread" FROM "notifications" WHERE "user_id" IN (\(binds: told)) AND "read_at" IS NULL
            GROUP BY "user_id"
            """)
        {
            unread[try row.decode(column: "user_id", as: User.ID.self)] = try row.decode(column: "unread", as: Int.self)
        }
        let events = try await realtime.record(
            told.compactMap { user in stored[user].map { (user, .notification($0, unreadCount: unread[user] ?? 0)) } }, in: statements)
        // A message is pushed only if no socket acknowledges its event in time.
        let seqs = Dictionary(events.map { ($0.user, $0.seq) }) { first, _ in first }
        let pushed = try await draft.mayPush?(told, statements) ?? Set(told)
        let carried = told.compactMap { user -> Stored? in
            guard pushed.contains(user), let value = stored[user] else { return nil }
            return Stored(value: value, user: user, unread: unread[user] ?? 0, ackSeq: draft.kind == .message ? seqs[user] : nil)
        }
        if !carried.isEmpty { try await carry(carried, statements) }
        return events
    }

    private struct NotificationNotStored: Error {}

    /// What `NotificationPolicy` says of a new notification to each member: one read of their
    /// notifications of the last minutes (`notifications_by_creation`).
    private func decisions(
        for draft: NotificationDraft, to users: [User.ID], now: Date,
        in statements: any SQLWriteStatements
    ) async throws -> [User.ID: NotificationPolicy.Decision] {
        let minuteAgo = now.addingTimeInterval(-60)
        let windowStart = now.addingTimeInterval(-policy.coalesceWindow)
        var counts: [User.ID: (all: Int, sender: Int, coalescible: Int)] = [:]
        for row in try await statements.rows(
            """
            SELECT "user_id",
                COALESCE(SUM(CASE WHEN "created_at" > \(bind: minuteAgo) THEN 1 ELSE 0 END), 0) AS "in_all",
                COALESCE(SUM(CASE WHEN "created_at" > \(bind: minuteAgo) AND "from_user_id" = \(bind: draft.from) THEN 1 ELSE 0 END), 0) AS "from_sender",
                COALESCE(SUM(CASE WHEN "kind" = \(bind: draft.kind.rawValue) AND "from_user_id" = \(bind: draft.from)
                    AND "read_at" IS NULL AND "created_at" > \(bind: windowStart) THEN 1 ELSE 0 END), 0) AS "coalescible"
            FROM "notifications" WHERE "user_id" IN (\(binds: users)) AND "created_at" > \(bind: min(minuteAgo, windowStart))
            GROUP BY "user_id"
            """)
        {
            counts[try row.decode(column: "user_id", as: User.ID.self)] = (
                try row.decode(column: "in_all", as: Int.self), try row.decode(column: "from_sender", as: Int.self),
                try row.decode(column: "coalescible", as: Int.self)
            )
        }
        return Dictionary(
            uniqueKeysWithValues: users.map { user in
                let count = counts[user] ?? (0, 0, 0)
                return (
                    user,
                    policy.decide(
                        coalescible: draft.from != nil && draft.kind != .message && count.coalescible > 0,
                        fromSenderLastMinute: count.sender, inAllLastMinute: count.all, fromServer: draft.from == nil)
                )
            })
    }

    // MARK: The inbox

    /// The member's notifications, newest first, with how many are unread.
    func list(_ user: User.ID, limit: Int, cursor: String?, on db: any Database) async throws
        -> (items: [NotificationValue], next: ActivityCursor<Notifications.Notification>?, unread: Int)
    {
        let after = try cursor.map(ActivityCursor<Notifications.Notification>.init(text:))
        let rows = try await NotificationRecord.query(on: db).filter(\.$user.$id == user)
            .newestFirst(after: after, activity: \.$activity).limit(limit + 1).all()
        let items = try rows.prefix(limit).map(NotificationValue.init)
        return (items, rows.count > limit ? items.last?.cursor : nil, try await Self.unreadCount(of: user, on: db))
    }

    static func unreadCount(of user: User.ID, on db: any Database) async throws -> Int {
        try await NotificationRecord.query(on: db).filter(\.$user.$id == user).filter(\.$readAt == nil).count()
    }

    /// Marks one of the member's notifications read, and gives it; anyone else's is a 404, as
    /// one that does not exist.
    @discardableResult
    func markRead(_ user: User.ID, notification id: Notifications.Notification.ID, on db: any Database) async throws
        -> NotificationValue
    {
        guard let record = try await NotificationRecord.query(on: db).filter(\.$id == id).filter(\.$user.$id == user).first() else {
            throw Problem.notFound
        }
        if record.readAt == nil {
            record.readAt = clock.now()
            try await record.save(on: db)
        }
        return try NotificationValue(record)
    }

    func markAllRead(_ user: User.ID, on db: any Database) async throws {
        try await NotificationRecord.query(on: db).filter(\.$user.$id == user).filter(\.$readAt == nil)
            .set(\.$readAt, to: clock.now()).update()
    }

    /// The chat was read to its end: its messages' notification is read too.
    static func markChatRead(_ user: User.ID, chat: Chats.Chat.ID, now: Date, on db: any Database) async throws {
        try await NotificationRecord.query(on: db).filter(\.$user.$id == user).filter(\.$chatID == chat)
            .filter(\.$kind == NotificationKind.message.rawValue).filter(\.$readAt == nil).set(\.$readAt, to: now).update()
    }

    // MARK: Mutes

    func mutedKinds(of user: User.ID, on db: any Database) async throws -> Set<NotificationKind> {
        Set(
            try await NotificationMuteRecord.query(on: db).filter(\.$user.$id == user).all()
                .compactMap { NotificationKind(rawValue: $0.kind) })
    }

    /// Replaces the kinds the member muted.
    func setMutedKinds(_ kinds: Set<NotificationKind>, of user: User.ID, on db: any Database) async throws {
        // Two saves at once: the later replaces the earlier, as one after the other. The
        // member's row is locked first (PostgreSQL; SQLite writes one at a time anyway): without
        // it, six saves at once kept losing to each other's inserts past any number of retries.
        try await answeringRacesAsSequential {
            try await db.transaction { tx in
                try await tx.sql.select().column("id").from(UserRecord.schema).where("id", .equal, user).for(.update).run()
                try await NotificationMuteRecord.query(on: tx).filter(\.$user.$id == user).delete()
                for kind in kinds.sorted(by: { $0.rawValue < $1.rawValue }) {
                    let mute = NotificationMuteRecord()
                    mute.$user.id = user
                    mute.kind = kind.rawValue
                    try await mute.create(on: tx)
                }
            }
        }
    }

    // MARK: Words

    /// A dog's name and its owner's display name, as notifications name who did something.
    static func names(of pet: Pet.ID, on db: any Database) async throws -> (dog: String, owner: String) {
        try await names(of: pet, in: FluentWriteStatements(db: db))
    }

    /// The owner's name is a subquery, not a join: SQLite prepares a join whose key is a bound
    /// value anew each time the value changes, which every message did (`SQLWritesTests`).
    static func names(of pet: Pet.ID, in statements: any SQLWriteStatements) async throws -> (dog: String, owner: String) {
        guard
            let row = try await statements.first(
                """
                SELECT "name", (SELECT "display_name" FROM "users" WHERE "users"."id" = "pets"."owner_id") AS "display_name"
                FROM "pets" WHERE "id" = \(bind: pet)
                """)
        else { return ("A dog", "A member") }
        return (try row.decode(column: "name", as: String.self), try row.decode(column: "display_name", as: String.self))
    }

    /// The start of a message for a notification: one line, at most 100 characters.
    static func preview(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count > 100 ? String(line.prefix(99)) + "…" : line
    }

}
