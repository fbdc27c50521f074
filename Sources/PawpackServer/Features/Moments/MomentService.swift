import Fluent
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PawpackCore
import SQLKit

struct MomentPetValue: Sendable, Equatable {
    var id: Pet.ID
    var name: String
    var species: Species
}

/// A photo as one viewer sees it.
struct MomentValue: Sendable, Equatable {
    var id: Moments.Photo.ID
    var owner: MemberNameValue
    var pets: [MomentPetValue]
    var caption: String?
    var privacy: PhotoPrivacy
    var width: Int
    var height: Int
    var originalKey: String
    var displayKey: String?
    var thumbnailKey: String?
    var createdAt: Date
    var activity: Int64
    var votes: Int
    var votedByMe: Bool
    var mine: Bool
    /// Posted by one of the viewer's friends.
    var byFriend: Bool
    /// Its entry in the contest running now, if it is entered: public while it is.
    var entry: Moments.Entry.ID? = nil
    /// On a finished contest's kept leaderboard: seen with its results, as it was while
    /// entered, until its owner makes it private.
    var placed = false
    /// Entered in a contest, running or ended: a photo enters one contest only.
    var inAContest = false

    var cursor: ActivityCursor<Moments.Photo> { .init(activity: activity, id: id) }
}

/// A page of a feed, newest first.
struct MomentPage: Sendable {
    var items: [MomentValue]
    var next: ActivityCursor<Moments.Photo>?
}

/// A photo as posted: its files and words.
struct MomentUpload: Sendable {
    var original: Data
    var display: Data?
    var thumbnail: Data?
    var caption: String?
    var privacy: PhotoPrivacy
    var pets: [Pet.ID]
}

/// What a member's export holds of Moments beyond friends.
struct MomentsExport: Sendable {
    var photos: [MomentValue]
    var votes: [(photo: Moments.Photo.ID, at: Date)]
    var reports: [(photo: Moments.Photo.ID, reason: String, text: String?, at: Date)]
}

/// Why a member reports a photo.
enum MomentReportReason: String, Sendable, CaseIterable {
    case notAPet = "not_a_pet"
    case spam, nudity, violence, harassment
    case animalWelfare = "animal_welfare"
    case other
}

/// Moments' photos: posting (the original cleaned, the copies phones made checked by size),
/// editing, deleting, the feeds, votes and reports. Every read decides who may see a photo with
/// Core's `PhotoVisibility`, once the SQL has picked the candidates: the SQL is how a page is
/// found fast, the rule is what lets a photo through.
final class MomentService: Sendable {
    let pets: PetService
    let friends: FriendService
    let blocks: BlockService
    let photos: PhotoIntake
    let clock: any AppClock
    let writes: SQLWrites
    let rules = MomentPhotoRules()
    private let posts: RateLimiter
    /// Photos' shared parts read for the contest's pages, for `values(_:for:kept:on:)`; what
    /// changes here drops a photo's (`forgetKeptParts`), another instance's shows within the
    /// time kept (docs/PERFORMANCE.md, "Moments").
    private let keptParts = NIOLockedValueBox<[Moments.Photo.ID: (parts: SharedPhoto, readAt: NIODeadline)]>([:])

    init(pets: PetService, friends: FriendService, blocks: BlockService, photos: PhotoIntake, clock: any AppClock, writes: SQLWrites) {
        self.writes = writes
        self.pets = pets
        self.friends = friends
        self.blocks = blocks
        self.photos = photos
        self.clock = clock
        posts = RateLimiter(limit: 60, window: 60 * 60)
    }

    // MARK: Who is looking

    /// What the rule needs to know of a viewer, read once a request.
    struct Viewer: Sendable {
        var me: User.ID?
        var friends: Set<User.ID> = []
        var blocked: Set<User.ID> = []
        /// Pets the viewer owns or guards.
        var guarded: Set<Pet.ID> = []

        func canSee(_ photo: MomentValue) -> Bool {
            let relation = PhotoViewer(
                isOwner: photo.owner.id == me, guardsAPetInIt: photo.pets.contains { guarded.contains($0.id) },
                isFriend: friends.contains(photo.owner.id), signedIn: me != nil)
            return PhotoVisibility.canSee(
                photo.privacy, viewer: relation, blocked: blocked.contains(photo.owner.id),
                entered: photo.entry != nil || photo.placed)
        }
    }

    /// Everything the rule asks of a viewer, in one read through the hot reads: their friends,
    /// the members blocked either way, the pets they own or guard.
    func viewer(_ user: UserRecord?, on db: any Database) async throws -> Viewer {
        guard let user else { return Viewer(me: nil) }
        let me = try user.requireID()
        var viewer = Viewer(me: me)
        for row in try await pets.reads.rows(
            """
            SELECT 'f' AS "kind", "friend_id" AS "id" FROM "friendships" WHERE "member_id" = \(bind: me)
            UNION ALL SELECT 'b', "blocked_id" FROM "blocks" WHERE "blocker_id" = \(bind: me)
            UNION ALL SELECT 'b', "blocker_id" FROM "blocks" WHERE "blocked_id" = \(bind: me)
            UNION ALL SELECT 'g', "id" FROM "pets" WHERE "owner_id" = \(bind: me)
            UNION ALL SELECT 'g', "pet_id" FROM "pet_guardians"
                WHERE "user_id" = \(bind: me) AND "status" = \(bind: GuardianRecord.Status.active.rawValue)
            """, on: db)
        {
            let id = try row.decode(column: "id", as: User.ID.self)
            switch try row.decode(column: "kind", as: String.self) {
            case "f": viewer.friends.insert(id)
            case "b": viewer.blocked.insert(id)
            default: viewer.guarded.insert(Pet.ID(id.rawValue))
            }
        }
        return viewer
    }

    // MARK: Posting and changing

    func post(_ user: UserRecord, _ upload: MomentUpload, on db: any Database) async throws -> MomentValue {
        let me = try user.requireID()
        let caption = try upload.caption.map { try rules.caption.validate($0, field: "caption") }.flatMap { $0.isEmpty ? nil : $0 }
        let petIDs = Array(Set(upload.pets))
        let viewer = try await viewer(user, on: db)
        guard !petIDs.isEmpty, petIDs.count <= rules.mostPets, petIDs.allSatisfy(viewer.guarded.contains) else {
            throw Problem.invalidField("pets", "must be 1 to \(rules.mostPets) of your pets or pets you guard")
        }
        try await posts.take("moment:\(me)", now: clock.now(), what: "photos")
        // Every copy checked before any is stored: a refused thumbnail stores nothing.
        let original = try await photos.measured(upload.original, field: "photo")
        var copies: [(name: String, image: ImageSanitizer.CleanedImage)] = []
        for (name, data) in [("display", upload.display), ("thumbnail", upload.thumbnail)] {
            guard let data else { continue }
            let image = try await photos.measured(data, field: name)
            if let problem = rules.sizeProblem(of: name, longestSide: image.longestSide) { throw problem }
            if let problem = rules.shapeProblem(of: name, width: image.width, height: image.height, original: (original.width, original.height)) {
                throw problem
            }
            copies.append((name, image))
        }
        let now = clock.now()
        let id = Moments.Photo.ID.timeOrdered(at: now)
        var stored: [PhotoIntake.Stored] = []
        do {
            let first = try await photos.store(original, key: "moments/\(id)/original")
            stored.append(first)
            let record = MomentPhotoRecord()
            record.id = id
            record.$owner.id = me
            record.caption = caption
            record.privacy = upload.privacy
            record.width = original.width
            record.height = original.height
            record.originalKey = first.key
            record.originalType = first.contentType
            for (name, image) in copies {
                let copy = try await photos.store(image, key: "moments/\(id)/\(name)")
                stored.append(copy)
                if name == "display" { record.displayKey = copy.key } else { record.thumbnailKey = copy.key }
            }
            record.createdAt = now
            record.activity = ActivityCursor<Moments.Photo>.activity(at: now)
            try await db.transaction { tx in
                try await record.create(on: tx)
                for pet in petIDs {
                    let row = MomentPetRecord()
                    row.id = UUID()
                    row.$photo.id = id
                    row.$pet.id = pet
                    try await row.create(on: tx)
                }
            }
        } catch {
            await photos.remove(stored.map(\.key))
            throw error
        }
        return try await moment(user, id: id, on: db)
    }

    /// The owner changes the caption (empty: none) or who may see it; anyone else who can see
    /// it is refused (403), anyone who cannot finds nothing (404).
    func update(
        _ user: UserRecord, id: Moments.Photo.ID, caption: String?, privacy: PhotoPrivacy?, on db: any Database
    ) async throws -> MomentValue {
        let record = try await ownPhoto(user, id: id, on: db)
        if let caption {
            let text = try rules.caption.validate(caption, field: "caption")
            record.caption = text.isEmpty ? nil : text
        }
        if let privacy { record.privacy = privacy }
        try await db.transaction { tx in
            // The privacy written first, then the entry looked for, as an entry is inserted
            // first and the privacy read after (`ContestService.enter`), both holding the photo's
            // lock on PostgreSQL and SQLite's one writer: whichever comes second sees the other,
            // so that a photo entered at the same moment is never left private and entered.
            try await ContestService.oneAtATime("moment-photo:\(id)", on: tx)
            try await record.save(on: tx)
            if privacy == .private, try await self.running(entryOf: [id], on: tx)[id] != nil {
                throw Problem(
                    status: 422, code: .validationFailed, title: "Entered in the contest",
                    detail:
                        "While it is entered, the contest shows this photo to everyone. Withdraw it from the contest to make it private.",
                    errors: [.init(field: "privacy", message: "cannot be private while the photo is entered in a contest")])
            }
        }
        forgetKeptParts(of: id)
        return try await moment(user, id: id, on: db)
    }

    /// The owner deletes the photo; its files go once the row is gone.
    func delete(_ user: UserRecord, id: Moments.Photo.ID, on db: any Database) async throws {
        let record = try await ownPhoto(user, id: id, on: db)
        try await record.delete(on: db)
        forgetKeptParts(of: id)
        await photos.remove(record.keys)
    }

    private func ownPhoto(_ user: UserRecord, id: Moments.Photo.ID, on db: any Database) async throws -> MomentPhotoRecord {
        let value = try await moment(user, id: id, on: db)
        guard value.mine, let record = try await MomentPhotoRecord.find(id, on: db) else {
            throw Problem(status: 403, code: .forbidden, title: "Not your photo", detail: "Only the member who posted a photo may change it.")
        }
        return record
    }

    // MARK: Reading

    /// A photo the viewer may see; 404 otherwise, as for one that does not exist.
    func moment(_ user: UserRecord?, id: Moments.Photo.ID, on db: any Database) async throws -> MomentValue {
        guard let value = try await values([id], for: try await viewer(user, on: db), on: db).first else { throw Problem.notFound }
        return value
    }

    /// My photos and my friends' (public and friends-only), newest first.
    func friendsFeed(_ user: UserRecord, limit: Int, after cursor: ActivityCursor<Moments.Photo>?, on db: any Database) async throws
        -> MomentPage
    {
        let viewer = try await viewer(user, on: db)
        let me = try user.requireID()
        // The page found in the covering index (`CoverTheFriendsFeed`), its photos read after.
        let found = try await pets.reads.rows(
            """
            SELECT p."id", p."activity" FROM "moment_photos" p
            WHERE p."owner_id" IN (\(binds: [me] + viewer.friends.sorted { $0.description < $1.description }))
              AND (p."owner_id" = \(bind: me) OR p."privacy" <> \(bind: PhotoPrivacy.private.rawValue))
              \(Self.after(cursor))
            ORDER BY p."activity" DESC, p."id" DESC LIMIT \(literal: limit + 1)
            """, on: db
        ).map(Self.placed)
        return try await page(found, limit: limit, for: viewer, on: db)
    }

    /// Everyone's public photos, newest first, but those of anyone blocked either way.
    func globalFeed(_ user: UserRecord, limit: Int, after cursor: ActivityCursor<Moments.Photo>?, on db: any Database) async throws
        -> MomentPage
    {
        let viewer = try await viewer(user, on: db)
        let me = try user.requireID()
        let now = clock.now()
        // Public photos and those entered in the contest running now (public while entered),
        // but none of anyone blocked either way: found by the SQL with no list of ids, then
        // read.
        let found = try await pets.reads.rows(
            """
            SELECT p."id", p."activity" FROM "moment_photos" p
            WHERE (p."privacy" = \(bind: PhotoPrivacy.public.rawValue) OR EXISTS (
                    SELECT 1 FROM "contest_entries" e JOIN "contests" c ON c."id" = e."contest_id"
                    WHERE e."photo_id" = p."id" AND c."starts_at" <= \(bind: now) AND c."ends_at" > \(bind: now)))
              AND NOT EXISTS (
                    SELECT 1 FROM "blocks" b
                    WHERE (b."blocker_id" = \(bind: me) AND b."blocked_id" = p."owner_id") OR (b."blocker_id" = p."owner_id" AND b."blocked_id" = \(bind: me)))
              \(Self.after(cursor))
            ORDER BY p."activity" DESC, p."id" DESC LIMIT \(literal: limit + 1)
            """, on: db
        ).map(Self.placed)
        return try await page(found, limit: limit, for: viewer, on: db)
    }

    /// The member's own photos, newest first.
    func ownMoments(_ user: UserRecord, limit: Int, after cursor: ActivityCursor<Moments.Photo>?, on db: any Database) async throws
        -> MomentPage
    {
        let viewer = try await viewer(user, on: db)
        let rows = try await MomentPhotoRecord.query(on: db).filter(\.$owner.$id == user.requireID())
            .newestFirst(after: cursor, activity: \.$activity).limit(limit + 1).all().map { (try $0.requireID(), $0.activity) }
        return try await page(rows, limit: limit, for: viewer, on: db)
    }

    /// A photo found for a page: its id, and its place in the order for the next page's cursor.
    private static func placed(_ row: any SQLRow) throws -> (id: Moments.Photo.ID, activity: Int64) {
        (try row.decode(column: "id", as: Moments.Photo.ID.self), Int64(try row.decode(column: "activity", as: Int.self)))
    }

    /// The condition of a page after `cursor`, newest first (`p` the photos).
    private static func after(_ cursor: ActivityCursor<Moments.Photo>?) -> SQLQueryString {
        guard let cursor else { return "" }
        return """
            AND (p."activity" < \(bind: cursor.activity) OR (p."activity" = \(bind: cursor.activity) AND p."id" < \(bind: cursor.id)))
            """
    }

    /// The photos a pet appears in that the viewer may see, newest first; 404 for a pet the
    /// viewer may not see.
    func petMoments(_ user: UserRecord, pet: Pet.ID, limit: Int, after cursor: ActivityCursor<Moments.Photo>?, on db: any Database)
        async throws -> MomentPage
    {
        _ = try await pets.visiblePet(pet, to: user, on: db)
        let viewer = try await viewer(user, on: db)
        let rows = try await MomentPhotoRecord.query(on: db)
            .join(MomentPetRecord.self, on: \MomentPetRecord.$photo.$id == \MomentPhotoRecord.$id)
            .filter(MomentPetRecord.self, \.$pet.$id == pet)
            .newestFirst(after: cursor, activity: \.$activity).limit(limit + 1).all().map { (try $0.requireID(), $0.activity) }
        return try await page(rows, limit: limit, for: viewer, on: db)
    }

    /// A page of the rows the viewer may see: the cursor follows the rows read, so a page
    /// thinned by the rule still leads on to the next.
    private func page(
        _ rows: [(id: Moments.Photo.ID, activity: Int64)], limit: Int, for viewer: Viewer, on db: any Database
    ) async throws -> MomentPage {
        let shown = Array(rows.prefix(limit))
        let items = try await values(shown.map(\.id), for: viewer, on: db)
        guard rows.count > limit, let last = shown.last else { return MomentPage(items: items, next: nil) }
        return MomentPage(items: items, next: .init(activity: last.activity, id: last.id))
    }

    /// What every viewer sees alike of a photo: its row, owner, pets (with their owners, for
    /// blocks), votes, entry in the running contest and whether a finished contest placed it.
    struct SharedPhoto: Sendable {
        var row: MomentPhotoRow
        var owner: MemberNameValue
        var pets: [(pet: MomentPetValue, owner: User.ID)] = []
        var votes: Int
        var entry: Moments.Entry.ID?
        var placed: Bool
        var inAContest: Bool
    }

    /// The photos as the viewer sees them, in the order of `ids`, those the rule lets through:
    /// through the hot reads, each photo's row with its owner's name, votes, the viewer's vote,
    /// its entry in the running contest and whether a finished contest placed it in one
    /// statement, and their pets in another.
    ///
    /// With `kept`, the parts every viewer sees alike may be as old as that (`keptParts`), and
    /// the viewer's votes are one statement of their own: the contest's pages and leaderboard
    /// show the same few hundred photos to everyone.
    func values(_ ids: [Moments.Photo.ID], for viewer: Viewer, kept: TimeAmount? = nil, on db: any Database) async throws
        -> [MomentValue]
    {
        guard !ids.isEmpty else { return [] }
        let now = NIODeadline.now()
        var parts: [Moments.Photo.ID: SharedPhoto] = [:]
        if let kept {
            keptParts.withLockedValue { keptParts in
                for id in ids { if let found = keptParts[id], now - found.readAt < kept { parts[id] = found.parts } }
            }
        }
        let missing = ids.filter { parts[$0] == nil }
        var voted: Set<Moments.Photo.ID> = []
        if !missing.isEmpty {
            let (read, votedAmong) = try await sharedParts(of: missing, votedBy: kept == nil ? viewer.me : nil, on: db)
            parts.merge(read) { _, new in new }
            voted = votedAmong
            if let kept {
                keptParts.withLockedValue { keptParts in
                    // Only what may still be used stays.
                    if keptParts.count > 20_000 { keptParts = keptParts.filter { now - $0.value.readAt < kept } }
                    for (id, part) in read { keptParts[id] = (part, now) }
                }
            }
        }
        if kept != nil, let me = viewer.me {
            voted = Set(
                try await pets.reads.rows(
                    #"SELECT "photo_id" FROM "moment_votes" WHERE "voter_id" = \#(bind: me) AND "photo_id" IN (\#(binds: ids))"#, on: db
                ).map { try $0.decode(column: "photo_id", as: Moments.Photo.ID.self) })
        }
        return ids.compactMap { id in
            guard let found = parts[id] else { return nil }
            let record = found.row
            let value = MomentValue(
                id: id, owner: found.owner,
                // A pet of someone blocked either way is not shown, as its page is not (404).
                pets: found.pets.filter { !viewer.blocked.contains($0.owner) }.map(\.pet), caption: record.caption,
                privacy: record.privacy, width: record.width, height: record.height, originalKey: record.originalKey,
                displayKey: record.displayKey, thumbnailKey: record.thumbnailKey, createdAt: record.createdAt, activity: record.activity,
                votes: found.votes, votedByMe: voted.contains(id), mine: found.owner.id == viewer.me,
                byFriend: viewer.friends.contains(found.owner.id), entry: found.entry, placed: found.placed,
                inAContest: found.inAContest)
            return viewer.canSee(value) ? value : nil
        }
    }

    /// The photos' shared parts, and among them those `voter` voted for (none without one).
    private func sharedParts(of ids: [Moments.Photo.ID], votedBy voter: User.ID?, on db: any Database) async throws
        -> ([Moments.Photo.ID: SharedPhoto], Set<Moments.Photo.ID>)
    {
        let now = clock.now()
        let votedByViewer: SQLQueryString =
            voter.map { #"EXISTS (SELECT 1 FROM "moment_votes" v WHERE v."photo_id" = p."id" AND v."voter_id" = \#(bind: $0))"# }
            ?? "FALSE"
        var parts: [Moments.Photo.ID: SharedPhoto] = [:]
        var voted: Set<Moments.Photo.ID> = []
        for row in try await pets.reads.rows(
            """
            SELECT \(unsafeRaw: MomentPhotoRow.columns), u."username", u."display_name",
                (SELECT COUNT(*) FROM "moment_votes" v WHERE v."photo_id" = p."id") AS "votes",
                \(votedByViewer) AS "voted",
                CASE WHEN c."starts_at" <= \(bind: now) AND c."ends_at" > \(bind: now) THEN e."id" END AS "entry",
                EXISTS (SELECT 1 FROM "contest_standings" s WHERE s."entry_id" = e."id") AS "placed",
                e."id" IS NOT NULL AS "in_a_contest"
            FROM "moment_photos" p JOIN "users" u ON u."id" = p."owner_id"
            -- A photo is entered in one contest at most (a unique key): one row a photo.
            LEFT JOIN "contest_entries" e ON e."photo_id" = p."id" LEFT JOIN "contests" c ON c."id" = e."contest_id"
            WHERE p."id" IN (\(binds: ids))
            """, on: db)
        {
            let photo = try MomentPhotoRow(row: row)
            parts[photo.id] = SharedPhoto(
                row: photo,
                owner: MemberNameValue(
                    id: photo.owner, username: try row.decode(column: "username", as: String.self),
                    displayName: try row.decode(column: "display_name", as: String.self)),
                votes: try row.decode(column: "votes", as: Int.self), entry: try row.decode(column: "entry", as: Moments.Entry.ID?.self),
                placed: try row.decode(column: "placed", as: Bool.self), inAContest: try row.decode(column: "in_a_contest", as: Bool.self))
            if try row.decode(column: "voted", as: Bool.self) { voted.insert(photo.id) }
        }
        for row in try await pets.reads.rows(
            """
            SELECT mp."photo_id", p."id", p."name", p."species", p."owner_id" FROM "moment_pets" mp JOIN "pets" p ON p."id" = mp."pet_id"
            WHERE mp."photo_id" IN (\(binds: ids)) ORDER BY p."name", p."id"
            """, on: db)
        {
            let pet = MomentPetValue(
                id: try row.decode(column: "id", as: Pet.ID.self), name: try row.decode(column: "name", as: String.self),
                species: try row.decode(column: "species", as: Species.self))
            parts[try row.decode(column: "photo_id", as: Moments.Photo.ID.self)]?.pets
                .append((pet, try row.decode(column: "owner_id", as: User.ID.self)))
        }
        return (parts, voted)
    }

    /// A photo changed here (a vote, its caption or privacy, deleted, entered or withdrawn), or
    /// every photo (nil: a contest ended): the next page that keeps parts reads it again.
    func forgetKeptParts(of id: Moments.Photo.ID?) {
        keptParts.withLockedValue { keptParts in
            if let id { keptParts[id] = nil } else { keptParts = [:] }
        }
    }

    /// The entries these photos have in the contest running now, by photo.
    func running(entryOf photos: [Moments.Photo.ID], on db: any Database) async throws -> [Moments.Photo.ID: Moments.Entry.ID] {
        guard !photos.isEmpty else { return [:] }
        var entries: [Moments.Photo.ID: Moments.Entry.ID] = [:]
        for row in try await db.sql.raw(
            """
            SELECT e."id", e."photo_id" FROM "contest_entries" e JOIN "contests" c ON c."id" = e."contest_id"
            WHERE e."photo_id" IN (\(binds: photos)) AND c."starts_at" <= \(bind: clock.now()) AND c."ends_at" > \(bind: clock.now())
            """
        ).all() {
            entries[try row.decode(column: "photo_id", as: Moments.Photo.ID.self)] = try row.decode(column: "id", as: Moments.Entry.ID.self)
        }
        return entries
    }

    /// One of a photo's stored files, for a viewer who may see the photo (anyone, for a
    /// public photo); 404 otherwise, and for a file that is not the photo's.
    func file(_ user: UserRecord?, photo id: Moments.Photo.ID, key: String, on db: any Database) async throws -> StoredMedia {
        let photo = try await moment(user, id: id, on: db)
        guard [photo.originalKey, photo.displayKey, photo.thumbnailKey].contains(key),
            let stored = try await photos.media.get(key: key)
        else { throw Problem.notFound }
        return stored
    }

    // MARK: Votes and reports

    /// Votes for a photo the member may see and did not post; voting again changes nothing.
    func vote(_ user: UserRecord, photo id: Moments.Photo.ID, on db: any Database) async throws -> MomentValue {
        let me = try user.requireID()
        // One row per member and photo, held by the unique key: a repeat inserts nothing. The
        // photo deleted meanwhile (its foreign key refuses the vote): asked again, not found.
        // Through the writer of the busiest paths (`SQLWrites`: on SQLite one connection of its
        // own, votes arriving together in one commit), and answered from the photo as read just
        // before with this vote in it, instead of reading it all again (docs/PERFORMANCE.md,
        // "Moments"): other members' votes meanwhile show on the next read.
        return try await answeringRacesAsSequential {
            var photo = try await self.moment(user, id: id, on: db)
            guard !photo.mine else {
                throw Problem(
                    status: 403, code: .forbidden, title: "Your own photo", detail: "Vote for other members' photos; yours collect theirs.")
            }
            let now = self.clock.now()
            try await self.writes.transaction(on: db) { statements in
                try await statements.run(
                    """
                    INSERT INTO "moment_votes" ("id", "photo_id", "voter_id", "created_at")
                    VALUES (\(bind: UUID()), \(bind: id), \(bind: me), \(bind: now))
                    ON CONFLICT ("photo_id", "voter_id") DO NOTHING
                    """)
            }
            // The member's vote is there now, this one or a repeat sent at the same time: the
            // count read before it was without it unless it was already there.
            self.forgetKeptParts(of: id)
            if !photo.votedByMe { photo.votes += 1 }
            photo.votedByMe = true
            return photo
        }
    }

    /// Takes the member's vote back, as `vote` casts it: through `SQLWrites`, answered from the
    /// photo read before.
    func unvote(_ user: UserRecord, photo id: Moments.Photo.ID, on db: any Database) async throws -> MomentValue {
        let me = try user.requireID()
        var photo = try await moment(user, id: id, on: db)
        try await writes.transaction(on: db) { statements in
            try await statements.run(#"DELETE FROM "moment_votes" WHERE "photo_id" = \#(bind: id) AND "voter_id" = \#(bind: me)"#)
        }
        forgetKeptParts(of: id)
        // Gone now, whichever request took it back: the count read before had it if it was there.
        if photo.votedByMe { photo.votes -= 1 }
        photo.votedByMe = false
        return photo
    }

    /// Reports a photo the member may see; a second report of the same photo changes nothing.
    func report(_ user: UserRecord, photo id: Moments.Photo.ID, reason: MomentReportReason, text: String?, on db: any Database)
        async throws
    {
        let me = try user.requireID()
        let words = try text.map { try TextRule.paragraphs(max: 1_000).validate($0, field: "text") }.flatMap { $0.isEmpty ? nil : $0 }
        // The photo deleted meanwhile: asked again, not found.
        try await answeringRacesAsSequential {
            _ = try await self.moment(user, id: id, on: db)
            try await db.sql.raw(
                """
                INSERT INTO "moment_reports" ("id", "photo_id", "reporter_id", "reason", "text", "created_at")
                VALUES (\(bind: UUID()), \(bind: id), \(bind: me), \(bind: reason.rawValue), \(bind: words), \(bind: self.clock.now()))
                ON CONFLICT ("photo_id", "reporter_id") DO NOTHING
                """
            ).run()
        }
    }

    // MARK: Export

    func export(_ user: UserRecord, on db: any Database) async throws -> MomentsExport {
        let me = try user.requireID()
        let viewer = try await viewer(user, on: db)
        let ids = try await MomentPhotoRecord.query(on: db).filter(\.$owner.$id == me).sort(\.$activity).all().map { try $0.requireID() }
        let votes = try await MomentVoteRecord.query(on: db).filter(\.$voter.$id == me).sort(\.$createdAt).all()
        let reports = try await MomentReportRecord.query(on: db).filter(\.$reporter.$id == me).sort(\.$createdAt).all()
        var photos: [MomentValue] = []
        // A thousand at a time: the databases bound how many values one statement takes.
        for start in stride(from: 0, to: ids.count, by: 1_000) {
            photos += try await values(Array(ids[start..<min(start + 1_000, ids.count)]), for: viewer, on: db)
        }
        return MomentsExport(
            photos: photos, votes: votes.map { ($0.$photo.id, $0.createdAt) },
            reports: reports.map { ($0.$photo.id, $0.reason, $0.text, $0.createdAt) })
    }
}
