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
    /// Whether it may be pushed to `user` as well (Care: once per pet a minute); nil: always.
    /// Asked only once the notification is stored.
    var mayPush: (@Sendable (User.ID, any SQLWriteStatements) async throws -> Bool)? = nil
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
        }
    }
    var cursor: ActivityCursor<Notifications.Notification> { .init(activity: activity, id: id) }
}

/// The inbox: what a member should learn about while away. A notification is written in the
/// transaction of its cause, with the realtime event that tells the member's open apps (the
/// bell's count), unless the member muted its kind. A chat's messages collapse into one
/// notification while it is unread, and reading the chat reads it.
final class NotificationService: Sendable {
    /// What else carries a notification to its member, in its transaction: the pushes to
    /// their devices (`PushOutbox.enqueue`), given the notification, the unread count, the
    /// realtime event a socket may acknowledge instead (messages) and the member.
    typealias Carrier = @Sendable (NotificationValue, Int, Int64?, User.ID, any SQLWriteStatements) async throws -> Void

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
        try await notify(draft, to: user, in: FluentWriteStatements(db: tx))
    }

    /// `notify` among the statements of a transaction under way (`SQLWrites`).
    func notify(_ draft: NotificationDraft, to user: User.ID, in statements: any SQLWriteStatements) async throws
        -> [StoredRealtimeEvent]
    {
        let kind = draft.kind.rawValue
        guard
            try await statements.first(
                """
                SELECT 1 AS "muted" FROM "notification_mutes" WHERE "user_id" = \(bind: user) AND "kind" = \(bind: kind)
                """) == nil
        else { return [] }
        let now = clock.now()
        let activity = ActivityCursor<Notifications.Notification>.activity(at: now)
        var stored: (any SQLRow)?
        if draft.kind == .message, let chat = draft.chat {
            // Into the chat's unread notification, when there is one: one entry per chat.
            stored = try await statements.first(
                """
                UPDATE "notifications" SET "count" = "count" + 1, "title" = \(bind: draft.title), "body" = \(bind: draft.body),
                    "activity" = \(bind: activity)
                WHERE "id" = (SELECT "id" FROM "notifications" WHERE "user_id" = \(bind: user) AND "read_at" IS NULL
                    AND "kind" = \(bind: kind) AND "chat_id" = \(bind: chat) LIMIT 1)
                RETURNING \(unsafeRaw: NotificationValue.columns)
                """)
        }
        if stored == nil {
            switch try await decision(for: draft, to: user, now: now, in: statements) {
            case .drop:
                return []
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
                return []
            case .notify:
                break
            }
            stored = try await statements.first(
                """
                INSERT INTO "notifications" ("id", "user_id", "from_user_id", "kind", "title", "body", "chat_id", "meetup_id",
                    "pet_id", "count", "activity", "created_at")
                VALUES (\(bind: Notifications.Notification.ID()), \(bind: user), \(bind: draft.from), \(bind: kind),
                    \(bind: draft.title), \(bind: draft.body), \(bind: draft.chat), \(bind: draft.meetup), \(bind: draft.pet), 1,
                    \(bind: activity), \(bind: now))
                RETURNING \(unsafeRaw: NotificationValue.columns)
                """)
        }
        guard let stored else { throw NotificationNotStored() }
        let value = try NotificationValue(row: stored)
        let unread =
            try await statements.first(
                """
                SELECT COUNT(*) AS "unread" FROM "notifications" WHERE "user_id" = \(bind: user) AND "read_at" IS NULL
                """
            ).map { try $0.decode(column: "unread", as: Int.self) } ?? 0
        let events = try await realtime.record(.notification(value, unreadCount: unread), for: [user], in: statements)
        // A message is pushed only if no socket acknowledges its event in time.
        let pushes = try await draft.mayPush?(user, statements) ?? true
        if pushes { try await carry(value, unread, draft.kind == .message ? events.first?.seq : nil, user, statements) }
        return events
    }

    private struct NotificationNotStored: Error {}

    /// What `NotificationPolicy` says of a new notification: one read of the recipient's
    /// notifications of the last minutes (`notifications_by_creation`).
    private func decision(
        for draft: NotificationDraft, to user: User.ID, now: Date,
        in statements: any SQLWriteStatements
    ) async throws -> NotificationPolicy.Decision {
        let minuteAgo = now.addingTimeInterval(-60)
        let windowStart = now.addingTimeInterval(-policy.coalesceWindow)
        let row = try await statements.first(
            """
            SELECT
                COALESCE(SUM(CASE WHEN "created_at" > \(bind: minuteAgo) THEN 1 ELSE 0 END), 0) AS "in_all",
                COALESCE(SUM(CASE WHEN "created_at" > \(bind: minuteAgo) AND "from_user_id" = \(bind: draft.from) THEN 1 ELSE 0 END), 0) AS "from_sender",
                COALESCE(SUM(CASE WHEN "kind" = \(bind: draft.kind.rawValue) AND "from_user_id" = \(bind: draft.from)
                    AND "read_at" IS NULL AND "created_at" > \(bind: windowStart) THEN 1 ELSE 0 END), 0) AS "coalescible"
            FROM "notifications" WHERE "user_id" = \(bind: user) AND "created_at" > \(bind: min(minuteAgo, windowStart))
            """)
        func count(_ column: String) throws -> Int { try row?.decode(column: column, as: Int.self) ?? 0 }
        return policy.decide(
            coalescible: try draft.from != nil && draft.kind != .message && count("coalescible") > 0,
            fromSenderLastMinute: try count("from_sender"), inAllLastMinute: try count("in_all"),
            fromServer: draft.from == nil)
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
