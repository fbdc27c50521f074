import Fluent
import Foundation
import PawpackCore
import SQLKit

/// One message as its chat's two members see it.
struct ChatMessageValue: Sendable, Equatable {
    var id: Chats.Message.ID
    var chat: Chats.Chat.ID
    /// 1 for the chat's first message, then 2, 3…
    var position: Int
    var sender: User.ID
    var clientMessageID: UUID
    var text: String?
    var photoKey: String?
    var photoContentType: String?
    var createdAt: Date

    init(_ record: ChatMessageRecord) throws {
        id = try record.requireID()
        chat = record.$chat.id
        position = record.position
        sender = record.$sender.id
        clientMessageID = record.clientMessageID
        text = record.text
        photoKey = record.photoKey
        photoContentType = record.photoContentType
        createdAt = record.createdAt
    }
}

/// A chat as one of its members sees it: their dog first.
struct ChatValue: Sendable {
    var id: Chats.Chat.ID
    var match: Playdates.Match.ID
    var myPet: PetCardValue
    var otherPet: PetCardValue
    var lastMessage: ChatMessageValue?
    /// The other member's messages this member has not read.
    var unreadCount: Int
    /// How far the other member has read (a message `position`; 0 for nothing yet), and when.
    var theirReadPosition: Int
    var theirReadAt: Date?
    /// After an unmatch or a block: the history stays, nothing more can be sent.
    var closed: Bool
    /// The newest message's time, or the opening's, in microseconds (`ChatListCursor`).
    var activity: Int64

    var activityAt: Date { ChatListCursor.date(ofActivity: activity) }
    /// Where a page of chats that ends with this one ends.
    var cursor: ChatListCursor { ChatListCursor(activity: activity, id: id) }
}

/// Chats: one per match, between the two owners. Opened by a match, closed by an unmatch or
/// a block; only its two members can list, read or post in it, and anyone else gets the same
/// 404 as for a chat that does not exist.
final class ChatService: Sendable {
    /// Where chat photos come in (`PhotoIntake`, shared with every area that takes photos).
    let photos: PhotoIntake
    let pets: PetService
    let clock: any AppClock
    let realtime: RealtimeEvents
    let notifications: NotificationService
    /// Where a message is written: on SQLite, the own writing connection.
    let writes: SQLWrites
    private let rules = ChatRules()
    /// Messages per member and minute.
    private let sends: RateLimiter
    /// Tells the areas standing on chats that these closed, in the closing transaction
    /// (`Area.chatsClosed`: Meetups cancels their open meet-ups).
    private let closed: @Sendable ([Chats.Chat.ID], Date, any Database) async throws -> Void

    init(
        pets: PetService, photos: PhotoIntake, clock: any AppClock, realtime: RealtimeEvents, notifications: NotificationService,
        writes: SQLWrites, closed: @escaping @Sendable ([Chats.Chat.ID], Date, any Database) async throws -> Void
    ) {
        self.closed = closed
        self.pets = pets
        self.photos = photos
        self.writes = writes
        self.notifications = notifications
        self.clock = clock
        self.realtime = realtime
        sends = RateLimiter(limit: pets.config.messagesPerMinute, window: 60)
    }

    // MARK: Opening and closing (called by the areas whose matches chats belong to, in their transactions)

    /// Opens the chat of a match between two dogs (in their match's order: the lower id first) and their
    /// owners, or opens again the one the same two dogs had before; its id.
    @discardableResult
    static func open(
        match matchID: Playdates.Match.ID, pets: (a: Pet.ID, b: Pet.ID), owners: (a: User.ID, b: User.ID),
        now: Date, on db: any Database
    ) async throws -> Chats.Chat.ID {
        if let chat = try await ChatRecord.query(on: db).filter(\.$petA.$id == pets.a)
            .filter(\.$petB.$id == pets.b).first()
        {
            chat.matchID = matchID
            chat.closedAt = nil
            try await chat.save(on: db)
            return try chat.requireID()
        }
        let chat = ChatRecord()
        chat.matchID = matchID
        chat.$petA.id = pets.a
        chat.$petB.id = pets.b
        chat.$userA.id = owners.a
        chat.$userB.id = owners.b
        chat.createdAt = now
        chat.activity = ChatListCursor.activity(at: now)
        chat.lastPosition = 0
        chat.aReadPosition = 0
        chat.bReadPosition = 0
        chat.aUnread = 0
        chat.bUnread = 0
        try await chat.create(on: db)
        return try chat.requireID()
    }

    /// Closes the chat of these two dogs (an unmatch); its id, when it was open.
    func close(pets petA: Pet.ID, _ petB: Pet.ID, now: Date, on db: any Database) async throws -> Chats.Chat.ID? {
        guard
            let chat = try await ChatRecord.query(on: db).filter(\.$petA.$id == petA).filter(\.$petB.$id == petB)
                .filter(\.$closedAt == nil).first()
        else { return nil }
        chat.closedAt = now
        try await chat.save(on: db)
        try await closed([chat.requireID()], now, db)
        return try chat.requireID()
    }

    /// Closes every chat between two members (a block); the ids of those that were open.
    func closeAll(between one: User.ID, _ other: User.ID, now: Date, on db: any Database) async throws -> [Chats.Chat.ID] {
        let open = try await ChatRecord.query(on: db).filter(\.$closedAt == nil).between(\.$userA.$id, \.$userB.$id, one, other).all()
        for chat in open {
            chat.closedAt = now
            try await chat.save(on: db)
        }
        let closedIDs = try open.map { try $0.requireID() }
        try await self.closed(closedIDs, now, db)
        return closedIDs
    }

    /// The stored photos of the chats of these pets, or of this member: what deleting them
    /// removes (`ChatsArea`'s part of a deletion; the rows go by their foreign keys).
    static func photoKeys(ofPets pets: [Pet.ID] = [], ofUser user: User.ID? = nil, on db: any Database) async throws -> [String] {
        var query = ChatRecord.query(on: db)
        if let user {
            query = query.involving(\.$userA.$id, \.$userB.$id, user)
        } else {
            guard !pets.isEmpty else { return [] }
            query = query.group(.or) { $0.filter(\.$petA.$id ~~ pets).filter(\.$petB.$id ~~ pets) }
        }
        let chats = try await query.all().map { try $0.requireID() }
        guard !chats.isEmpty else { return [] }
        return try await ChatMessageRecord.query(on: db).filter(\.$chat.$id ~~ chats).filter(\.$photoKey != nil)
            .all().compactMap(\.photoKey)
    }

    // MARK: Reading

    /// The member's chats, newest activity first.
    func chats(_ user: UserRecord, limit: Int, cursor: String?, on db: any Database) async throws
        -> (items: [ChatValue], next: ChatListCursor?)
    {
        let me = try user.requireID()
        let after = try cursor.map(ChatListCursor.init(text:))
        let rows = try await ChatRecord.query(on: db).involving(\.$userA.$id, \.$userB.$id, me)
            .newestFirst(after: after, activity: \.$activity).limit(limit + 1).all()
        let values = try await values(Array(rows.prefix(limit)), viewer: me, on: db)
        return (values, rows.count > limit ? values.last?.cursor : nil)
    }

    /// How many of the member's chats have messages they have not read.
    static func unreadChatCount(of user: User.ID, on db: any Database) async throws -> Int {
        try await ChatRecord.query(on: db).group(.or) { either in
            either.group(.and) { $0.filter(\.$userA.$id == user).filter(\.$aUnread > 0) }
                .group(.and) { $0.filter(\.$userB.$id == user).filter(\.$bUnread > 0) }
        }.count()
    }

    func chat(_ user: UserRecord, id: Chats.Chat.ID, on db: any Database) async throws -> ChatValue {
        let (chat, me, _) = try await participant(user, chat: id, on: db)
        guard let value = try await values([chat], viewer: me, on: db).first else { throw Problem.notFound }
        return value
    }

    /// Messages newest first, `limit` at a time.
    func messages(_ user: UserRecord, chat id: Chats.Chat.ID, limit: Int, cursor: String?, on db: any Database) async throws
        -> (items: [ChatMessageValue], next: MessageCursor?)
    {
        _ = try await participant(user, chat: id, on: db)
        let before = try cursor.map(MessageCursor.init(text:))
        var query = ChatMessageRecord.query(on: db).filter(\.$chat.$id == id)
        if let before { query = query.filter(\.$position < before.before) }
        let rows = try await query.sort(\.$position, .descending).limit(limit + 1).all()
        let items = try rows.prefix(limit).map(ChatMessageValue.init)
        return (items, rows.count > limit ? items.last.map { MessageCursor(before: $0.position) } : nil)
    }

    // MARK: Sending

    /// Sends a text message. Sending again with the same `clientMessageID` (a retry after a
    /// lost answer) returns the first message and adds nothing: `created` says which.
    func send(
        _ user: UserRecord, chat id: Chats.Chat.ID, clientMessageID: UUID, text raw: String,
        on db: any Database
    ) async throws -> (message: ChatMessageValue, created: Bool) {
        let (chat, me, _) = try await participant(user, chat: id, on: db)
        do {
            let text = try rules.text(raw)
            try refuseIfClosed(chat)
            try await sends.take(me.description, now: clock.now(), what: "messages")
            return try await insert(into: chat, from: me, clientMessageID: clientMessageID, text: text, on: db)
        } catch {
            // Looked for only when sending failed, rather than read before every message: a
            // retry after a lost answer gets the first message, whatever changed since (the
            // chat closed, the limit reached), and the id's unique index stops a second one. The
            // same id with another text is refused: the client reused an id it meant for another.
            if let earlier = try await earlier(clientMessageID, from: me, in: id, on: db) {
                return (try Self.retried(earlier, text: try? rules.text(raw)), false)
            }
            throw error
        }
    }

    /// Sends a photo, cleaned like a pet's (metadata removed, pixels bounded); idempotent like
    /// `send`.
    func sendPhoto(
        _ user: UserRecord, chat id: Chats.Chat.ID, clientMessageID: UUID, data: Data,
        on db: any Database
    ) async throws -> (message: ChatMessageValue, created: Bool) {
        let (chat, me, _) = try await participant(user, chat: id, on: db)
        if let earlier = try await earlier(clientMessageID, from: me, in: id, on: db) {
            return (try Self.retried(earlier, text: nil), false)
        }
        try refuseIfClosed(chat)
        try await sends.take(me.description, now: clock.now(), what: "messages")
        let messageID = Chats.Message.ID.timeOrdered(at: clock.now())
        return try await photos.store(data, key: "chats/\(id)/\(messageID)") { stored in
            try await self.insert(
                into: chat, from: me, clientMessageID: clientMessageID, id: messageID,
                photo: (stored.key, stored.contentType), on: db)
        }
    }

    /// The member's own message with this client id: in this chat, the message; in another,
    /// a conflict (the id names a different message).
    private func earlier(
        _ clientMessageID: UUID, from me: User.ID, in chat: Chats.Chat.ID,
        on db: any Database
    ) async throws -> ChatMessageValue? {
        guard
            let row = try await pets.reads.rows(
                """
                SELECT * FROM "chat_messages" WHERE "sender_id" = \(bind: me) AND "client_message_id" = \(bind: clientMessageID)
                """, on: db
            ).first.map({ try $0.decode(fluentModel: ChatMessageRecord.self) })
        else { return nil }
        guard row.$chat.id == chat else {
            throw Problem(
                status: 409, code: .messageIDReused, title: "Message id already used",
                detail: "You already sent a message with this id in another chat. Choose a new id for each message.",
                errors: [.init(field: "id", message: "is already used by another of your messages")])
        }
        return try ChatMessageValue(row)
    }

    /// The first message, for a retry of it: the same text, or a photo again (its bytes are
    /// not kept to compare). The id sent with anything else is refused: the client meant it
    /// for another message.
    private static func retried(_ earlier: ChatMessageValue, text: String?) throws -> ChatMessageValue {
        guard earlier.text == text else { throw Problem.idempotencyKeyReused(field: "id") }
        return earlier
    }

    private func refuseIfClosed(_ chat: ChatRecord) throws {
        guard chat.closedAt == nil else { throw Self.closed }
    }

    static let closed = Problem(
        status: 409, code: .chatClosed, title: "This chat is closed",
        detail: "The match ended, so no more messages can be sent here. The conversation stays for you to read.")

    /// Numbers and stores a message in one transaction: the chat's count goes up by one under
    /// the row's lock (PostgreSQL; SQLite runs one transaction's statements at a time), so two
    /// messages sent at once get different positions, and the recipient's unread count goes up
    /// with it.
    private func insert(
        into chat: ChatRecord, from me: User.ID, clientMessageID: UUID, id: Chats.Message.ID? = nil,
        text: String? = nil, photo: (key: String, contentType: String)? = nil,
        on db: any Database
    ) async throws -> (message: ChatMessageValue, created: Bool) {
        let chatID = try chat.requireID()
        guard let side = chat.side(of: me) else { throw Problem.notFound }
        let now = clock.now()
        let id = id ?? .timeOrdered(at: now)
        let unread = "\(side.other.column)_unread"
        let (userA, userB, otherUser, sendingPet) = (chat.$userA.id, chat.$userB.id, chat.user(side.other), chat.pet(side))
        do {
            let (message, events) = try await writes.transaction(on: db) { statements -> (ChatMessageValue, [StoredRealtimeEvent]) in
                guard
                    let row = try await statements.first(
                        """
                        UPDATE "chats" SET "last_position" = "last_position" + 1, "last_message_id" = \(bind: id),
                            "activity" = \(bind: ChatListCursor.activity(at: now)), "\(unsafeRaw: unread)" = "\(unsafeRaw: unread)" + 1
                        WHERE "id" = \(bind: chatID) AND "closed_at" IS NULL RETURNING "last_position"
                        """)
                else { throw Self.closed }
                let record = ChatMessageRecord()
                record.id = id
                record.$chat.id = chatID
                record.position = try row.decode(column: "last_position", as: Int.self)
                record.$sender.id = me
                record.clientMessageID = clientMessageID
                record.text = text
                record.photoKey = photo?.key
                record.photoContentType = photo?.contentType
                record.createdAt = now
                let message = try ChatMessageValue(record)
                try await statements.run(
                    """
                    INSERT INTO "chat_messages" ("id", "chat_id", "position", "sender_id", "client_message_id", "text",
                        "photo_key", "photo_content_type", "created_at")
                    VALUES (\(bind: message.id), \(bind: chatID), \(bind: message.position), \(bind: me), \(bind: clientMessageID),
                        \(bind: text), \(bind: photo?.key), \(bind: photo?.contentType), \(bind: now))
                    """)
                // Both members' apps hear of it: the sender's other devices too.
                var events = try await self.realtime.record(.message(message), for: [userA, userB], in: statements)
                let sender = try await NotificationService.names(of: sendingPet, in: statements)
                let told = NotificationDraft(
                    from: me, kind: .message, title: "\(sender.owner) (\(sender.dog))",
                    body: text.map(NotificationService.preview) ?? "Sent a photo",
                    chat: chatID, pet: sendingPet)
                events += try await self.notifications.notify(told, to: otherUser, in: statements)
                return (message, events)
            }
            await realtime.deliver(events)
            return (message, true)
        } catch let problem as Problem {
            throw problem
        } catch {
            // The same message sent twice at once: the other attempt stored it first.
            if let earlier = try await earlier(clientMessageID, from: me, in: chatID, on: db) {
                return (try Self.retried(earlier, text: text), false)
            }
            throw error
        }
    }

    // MARK: Read receipts

    /// Marks the chat read up to this message (a position never goes back); the other member
    /// sees how far.
    func markRead(
        _ user: UserRecord, chat id: Chats.Chat.ID, upTo messageID: Chats.Message.ID,
        on db: any Database
    ) async throws {
        let (chat, me, side) = try await participant(user, chat: id, on: db)
        guard
            let message = try await ChatMessageRecord.query(on: db).filter(\.$id == messageID)
                .filter(\.$chat.$id == id).first()
        else {
            throw Problem.invalidField("messageId", "is not a message of this chat")
        }
        guard message.position > chat.readPosition(side) else { return }
        let now = clock.now()
        let events = try await db.transaction { tx in
            // The write comes first, counting what is left unread within it: on SQLite a
            // transaction that reads before it writes fails ("busy in snapshot") when another
            // connection commits in between, as the sockets' acknowledgements often do.
            let column = side.column
            guard
                let row = try await tx.sql.raw(
                    """
                    UPDATE "chats" SET "\(unsafeRaw: column)_read_position" = \(bind: message.position),
                        "\(unsafeRaw: column)_read_at" = \(bind: now),
                        "\(unsafeRaw: column)_unread" = (SELECT COUNT(*) FROM "chat_messages" WHERE "chat_id" = \(bind: id)
                            AND "sender_id" <> \(bind: me) AND "position" > \(bind: message.position))
                    WHERE "id" = \(bind: id) AND "\(unsafeRaw: column)_read_position" < \(bind: message.position)
                    RETURNING "\(unsafeRaw: column)_unread" AS "unread"
                    """
                ).first()
            else { return [StoredRealtimeEvent]() }
            if try row.decode(column: "unread", as: Int.self) == 0 {
                try await NotificationService.markChatRead(me, chat: id, now: now, on: tx)
            }
            return try await self.realtime.record(
                .read(chat: id, reader: me, position: message.position, at: now),
                for: [chat.$userA.id, chat.$userB.id], on: tx)
        }
        await realtime.deliver(events)
    }

    // MARK: Export

    /// The member's chats, newest activity first, each with all its messages, oldest first.
    func export(_ user: UserRecord, on db: any Database) async throws -> [(chat: ChatValue, messages: [ChatMessageValue])] {
        let me = try user.requireID()
        let rows = try await ChatRecord.query(on: db).involving(\.$userA.$id, \.$userB.$id, me)
            .sort(\.$activity, .descending).all()
        let chats = try await values(rows, viewer: me, on: db)
        let messages = try await ChatMessageRecord.query(on: db).filter(\.$chat.$id ~~ chats.map(\.id))
            .sort(\.$position).all().map(ChatMessageValue.init)
        let byChat = Dictionary(grouping: messages, by: \.chat)
        return chats.map { ($0, byChat[$0.id] ?? []) }
    }

    // MARK: Photos

    /// A chat photo, for the chat's two members only.
    func photo(key: String, chat id: Chats.Chat.ID, viewer: UserRecord, on db: any Database) async throws -> StoredMedia {
        _ = try await participant(viewer, chat: id, on: db)
        guard try await ChatMessageRecord.query(on: db).filter(\.$chat.$id == id).filter(\.$photoKey == key).first() != nil,
            let stored = try await photos.media.get(key: key)
        else { throw Problem.notFound }
        return stored
    }

    // MARK: Helpers

    /// The chat, when `user` is one of its two members; the same 404 otherwise as for none.
    private func participant(_ user: UserRecord, chat id: Chats.Chat.ID, on db: any Database) async throws
        -> (chat: ChatRecord, me: User.ID, side: ChatRecord.Side)
    {
        let me = try user.requireID()
        guard
            let chat = try await pets.reads.rows(
                """
                SELECT * FROM "chats" WHERE "id" = \(bind: id)
                """, on: db
            ).first.map(ChatRecord.init(row:)), let side = chat.side(of: me)
        else {
            throw Problem.notFound
        }
        return (chat, me, side)
    }

    /// The chats as `viewer` sees them; every dog and last message loaded at once.
    private func values(_ rows: [ChatRecord], viewer: User.ID, on db: any Database) async throws -> [ChatValue] {
        let dogs = try await pets.cards(ofPets: Array(Set(rows.flatMap { [$0.$petA.id, $0.$petB.id] })), on: db)
        let lastIDs = rows.compactMap(\.lastMessageID)
        let last =
            lastIDs.isEmpty
            ? [:]
            : Dictionary(
                try await ChatMessageRecord.query(on: db).filter(\.$id ~~ lastIDs).all().map { ($0.$chat.id, try ChatMessageValue($0)) },
                uniquingKeysWith: { first, _ in first })
        return try rows.compactMap { row in
            guard let side = row.side(of: viewer), let mine = dogs[row.pet(side)], let other = dogs[row.pet(side.other)] else {
                return nil
            }
            let id = try row.requireID()
            return ChatValue(
                id: id, match: row.matchID, myPet: mine, otherPet: other, lastMessage: last[id],
                unreadCount: row.unread(side), theirReadPosition: row.readPosition(side.other),
                theirReadAt: row.readAt(side.other), closed: row.closedAt != nil,
                activity: row.activity)
        }
    }
}
