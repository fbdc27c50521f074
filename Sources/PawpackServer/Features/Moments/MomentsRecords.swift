import Fluent
import Foundation
import PawpackCore
import SQLKit

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
    /// `createdAt` in whole microseconds, which the lists page by (`AddActivity`).
    @Field(key: "activity") var activity: Int64

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

/// A photo a member posted of one or more pets, with the copies phones load (`MomentPhotoRules`).
final class MomentPhotoRecord: Model, @unchecked Sendable {
    static let schema = "moment_photos"

    @ID(custom: .id) var id: Moments.Photo.ID?
    @Parent(key: "owner_id") var owner: UserRecord
    @OptionalField(key: "caption") var caption: String?
    @Field(key: "privacy") var privacy: PhotoPrivacy
    /// The original's size, so that a feed keeps each photo's place before it loads.
    @Field(key: "width") var width: Int
    @Field(key: "height") var height: Int
    @Field(key: "original_key") var originalKey: String
    @Field(key: "original_type") var originalType: String
    @OptionalField(key: "display_key") var displayKey: String?
    @OptionalField(key: "thumbnail_key") var thumbnailKey: String?
    @Field(key: "created_at") var createdAt: Date
    /// `createdAt` in microseconds (`ActivityCursor`): feeds are newest first.
    @Field(key: "activity") var activity: Int64

    init() {}

    /// Every stored file of the photo.
    var keys: [String] { [originalKey] + [displayKey, thumbnailKey].compactMap { $0 } }
}

/// A photo's row as the reads need it, read column by column: Fluent's decoding of a model
/// walks its properties by reflection on every row, which cost more than the statement on the
/// feeds' pages (docs/PERFORMANCE.md, "Moments").
struct MomentPhotoRow: Sendable {
    var id: Moments.Photo.ID
    var owner: User.ID
    var caption: String?
    var privacy: PhotoPrivacy
    var width: Int
    var height: Int
    var originalKey: String
    var displayKey: String?
    var thumbnailKey: String?
    var createdAt: Date
    var activity: Int64

    /// The columns a row is read from, for a statement's `SELECT` (`p` the photos).
    static let columns =
        #"p."id", p."owner_id", p."caption", p."privacy", p."width", p."height", p."original_key", p."display_key", "#
        + #"p."thumbnail_key", p."created_at", p."activity""#

    init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: Moments.Photo.ID.self)
        owner = try row.decode(column: "owner_id", as: User.ID.self)
        caption = try row.decode(column: "caption", as: String?.self)
        let privacy = try row.decode(column: "privacy", as: String.self)
        guard let known = PhotoPrivacy(rawValue: privacy) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown privacy \(privacy)"))
        }
        self.privacy = known
        width = try row.decode(column: "width", as: Int.self)
        height = try row.decode(column: "height", as: Int.self)
        originalKey = try row.decode(column: "original_key", as: String.self)
        displayKey = try row.decode(column: "display_key", as: String?.self)
        thumbnailKey = try row.decode(column: "thumbnail_key", as: String?.self)
        createdAt = try row.decode(column: "created_at", as: Date.self)
        activity = Int64(try row.decode(column: "activity", as: Int.self))
    }
}

/// A pet a photo shows.
final class MomentPetRecord: Model, @unchecked Sendable {
    static let schema = "moment_pets"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "photo_id") var photo: MomentPhotoRecord
    @Parent(key: "pet_id") var pet: PetRecord

    init() {}
}

/// A member's vote for a photo: one per member and photo (a unique key), so a count is exact
/// however many arrive at once.
final class MomentVoteRecord: Model, @unchecked Sendable {
    static let schema = "moment_votes"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "photo_id") var photo: MomentPhotoRecord
    @Parent(key: "voter_id") var voter: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A member's report of a photo, kept for moderation; one per member and photo. The photo's
/// owner never learns who reported it.
final class MomentReportRecord: Model, @unchecked Sendable {
    static let schema = "moment_reports"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "photo_id") var photo: MomentPhotoRecord
    @Parent(key: "reporter_id") var reporter: UserRecord
    @Field(key: "reason") var reason: String
    @OptionalField(key: "text") var text: String?
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// One week's themed contest. One runs at a time: the rotation job starts the next when the
/// last ends (a unique start keeps two instances from starting the same week twice).
final class ContestRecord: Model, @unchecked Sendable {
    static let schema = "contests"

    @ID(custom: .id) var id: Moments.Contest.ID?
    @Field(key: "theme_code") var themeCode: String
    @Field(key: "theme_title") var themeTitle: String
    @Field(key: "category") var category: ThemeCategory
    @Field(key: "starts_at") var startsAt: Date
    @Field(key: "ends_at") var endsAt: Date
    /// When its final leaderboard was kept and its winners told; nil while it runs.
    @OptionalField(key: "finalized_at") var finalizedAt: Date?

    init() {}
}

/// A photo entered in a contest: a photo enters one contest only, a member at most three a
/// contest (`ContestRules`); withdrawn, the row goes.
final class ContestEntryRecord: Model, @unchecked Sendable {
    static let schema = "contest_entries"

    @ID(custom: .id) var id: Moments.Entry.ID?
    @Parent(key: "contest_id") var contest: ContestRecord
    @Parent(key: "photo_id") var photo: MomentPhotoRecord
    @Parent(key: "member_id") var member: UserRecord
    @Field(key: "entered_at") var enteredAt: Date
    /// Its votes, and when it reached that count (its latest vote's time): kept by the
    /// database as votes come and go (`CountContestVotes`), so the leaderboard and the contest
    /// feed read them instead of counting every vote.
    @Field(key: "votes") var votes: Int
    @OptionalField(key: "reached_at") var reachedAt: Date?

    init() {}
}

/// A member's vote for an entry, one per member and entry (a unique key).
final class ContestVoteRecord: Model, @unchecked Sendable {
    static let schema = "contest_votes"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "entry_id") var entry: ContestEntryRecord
    @Parent(key: "voter_id") var voter: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

/// A finished contest's leaderboard as it stood at its end.
final class ContestStandingRecord: Model, @unchecked Sendable {
    static let schema = "contest_standings"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "contest_id") var contest: ContestRecord
    @Parent(key: "entry_id") var entry: ContestEntryRecord
    @Field(key: "rank") var rank: Int
    @Field(key: "votes") var votes: Int

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
        CreateMomentPhotos(), CreateMomentPets(), CreateMomentVotes(), CreateMomentReports(),
        AddIndexes(
            name: "MomentIndexes",
            indexes: [
                // A member's photos and the friends feed, newest first; the global feed.
                IndexSpec(name: "moment_photos_by_owner", table: "moment_photos", columns: ["owner_id", "activity"]),
                IndexSpec(name: "moment_photos_by_privacy", table: "moment_photos", columns: ["privacy", "activity"]),
                // A pet's moments (the unique key serves a photo's pets).
                IndexSpec(name: "moment_pets_by_pet", table: "moment_pets", columns: ["pet_id"]),
                // A member's votes (the export; "did I vote" reads by photo and voter, the unique key).
                IndexSpec(name: "moment_votes_by_voter", table: "moment_votes", columns: ["voter_id"]),
                IndexSpec(name: "moment_reports_by_reporter", table: "moment_reports", columns: ["reporter_id"]),
            ]),
        CreateContests(), CreateContestEntries(), CreateContestVotes(), CreateContestStandings(),
        AddIndexes(
            name: "ContestIndexes",
            indexes: [
                IndexSpec(name: "contests_by_end", table: "contests", columns: ["ends_at"]),
                // A contest's entries, a member's entries in it (the unique key serves a photo's entry).
                IndexSpec(name: "contest_entries_by_contest", table: "contest_entries", columns: ["contest_id", "member_id"]),
                IndexSpec(name: "contest_entries_by_member", table: "contest_entries", columns: ["member_id"]),
                IndexSpec(name: "contest_votes_by_voter", table: "contest_votes", columns: ["voter_id"]),
                IndexSpec(name: "contest_standings_by_contest", table: "contest_standings", columns: ["contest_id", "rank"]),
                IndexSpec(name: "contest_standings_by_entry", table: "contest_standings", columns: ["entry_id"]),
            ]),
        CountContestVotes(),
        CoverTheFriendsFeed(),
        AddActivity(
            name: "PageFriendRequests", table: FriendRequestRecord.schema,
            indexes: [
                IndexSpec(name: "friend_requests_to_newest", table: "friend_requests", columns: ["to_id", "activity", "id"]),
                IndexSpec(name: "friend_requests_from_newest", table: "friend_requests", columns: ["from_id", "activity", "id"]),
            ]),
        FindMembersByTheirStart(),
    ]
}

/// The member search finds usernames and names by their start in an index each: the username's
/// own (unique) index and one of the lowercased name on SQLite, whose `LIKE` the search gives as
/// a range; indexes of the pattern kind on PostgreSQL, which read `LIKE 'start%'` in them whatever
/// the database's collation. Without them a start nobody has read every member.
struct FindMembersByTheirStart: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        if sql.dialect.name == "sqlite" {
            try await sql.raw(#"CREATE INDEX IF NOT EXISTS "users_by_lower_display_name" ON "users" (LOWER("display_name"), "username", "id")"#).run()
        } else {
            try await sql.raw(#"CREATE INDEX IF NOT EXISTS "users_by_username_start" ON "users" ("username" text_pattern_ops)"#).run()
            try await sql.raw(
                #"CREATE INDEX IF NOT EXISTS "users_by_lower_display_name" ON "users" (LOWER("display_name") text_pattern_ops)"#
            ).run()
        }
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw(#"DROP INDEX IF EXISTS "users_by_lower_display_name""#).run()
        try await database.sql.raw(#"DROP INDEX IF EXISTS "users_by_username_start""#).run()
    }
}

/// The friends feed finds its page in an index holding all it needs (owner, time, privacy, id):
/// the page's twenty photos are read afterwards, instead of every photo of every friend (about
/// two hundred rows read from the table for each page; docs/PERFORMANCE.md, "Moments"). The
/// index it replaces was its first two columns.
struct CoverTheFriendsFeed: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw(
            #"CREATE INDEX IF NOT EXISTS "moment_photos_by_owner_covering" ON "moment_photos" ("owner_id", "activity", "privacy", "id")"#
        ).run()
        try await database.sql.raw(#"DROP INDEX IF EXISTS "moment_photos_by_owner""#).run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw(#"CREATE INDEX IF NOT EXISTS "moment_photos_by_owner" ON "moment_photos" ("owner_id", "activity")"#).run()
        try await database.sql.raw(#"DROP INDEX IF EXISTS "moment_photos_by_owner_covering""#).run()
    }
}

/// Each entry's votes and when it reached that count, kept by the database: triggers on
/// `contest_votes` count every vote in and out, whichever way it goes (a vote taken back, a
/// voter's account deleted, an entry withdrawn), so the count can never drift from the votes.
/// The leaderboard is then the first rows of an index, and the contest feed ranks entries
/// without counting 60,000 votes on each page (docs/PERFORMANCE.md, "Moments").
struct CountContestVotes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        // One column a statement: SQLite adds them one at a time.
        try await database.schema(ContestEntryRecord.schema).field("votes", .int, .required, .sql(.default(0))).update()
        try await database.schema(ContestEntryRecord.schema).field("reached_at", .datetime).update()
        try await sql.raw(
            """
            UPDATE "contest_entries" SET
                "votes" = (SELECT COUNT(*) FROM "contest_votes" v WHERE v."entry_id" = "contest_entries"."id"),
                "reached_at" = (SELECT MAX(v."created_at") FROM "contest_votes" v WHERE v."entry_id" = "contest_entries"."id")
            """
        ).run()
        if sql.dialect.name == "sqlite" {
            try await sql.raw(
                """
                CREATE TRIGGER "contest_vote_counted" AFTER INSERT ON "contest_votes" FOR EACH ROW
                BEGIN UPDATE "contest_entries" SET "votes" = "votes" + 1,
                    "reached_at" = MAX(COALESCE("reached_at", NEW."created_at"), NEW."created_at")
                    WHERE "id" = NEW."entry_id"; END
                """
            ).run()
            try await sql.raw(
                """
                CREATE TRIGGER "contest_vote_uncounted" AFTER DELETE ON "contest_votes" FOR EACH ROW
                BEGIN UPDATE "contest_entries" SET "votes" = "votes" - 1,
                    "reached_at" = (SELECT MAX(v."created_at") FROM "contest_votes" v WHERE v."entry_id" = OLD."entry_id")
                    WHERE "id" = OLD."entry_id"; END
                """
            ).run()
        } else {
            try await sql.raw(
                """
                CREATE FUNCTION "count_contest_vote"() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'INSERT' THEN
                        UPDATE "contest_entries" SET "votes" = "votes" + 1, "reached_at" = GREATEST("reached_at", NEW."created_at")
                            WHERE "id" = NEW."entry_id";
                    ELSE
                        UPDATE "contest_entries" SET "votes" = "votes" - 1,
                            "reached_at" = (SELECT MAX(v."created_at") FROM "contest_votes" v WHERE v."entry_id" = OLD."entry_id")
                            WHERE "id" = OLD."entry_id";
                    END IF;
                    RETURN NULL;
                END $$
                """
            ).run()
            try await sql.raw(
                """
                CREATE TRIGGER "contest_vote_counted" AFTER INSERT OR DELETE ON "contest_votes"
                    FOR EACH ROW EXECUTE FUNCTION "count_contest_vote"()
                """
            ).run()
        }
        // The leaderboard: a contest's entries with votes, most first, a tie to the earlier.
        try await sql.raw(
            """
            CREATE INDEX "contest_entries_by_votes" ON "contest_entries" ("contest_id", "votes" DESC, "reached_at", "id")
            """
        ).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("DROP INDEX IF EXISTS \"contest_entries_by_votes\"").run()
        if sql.dialect.name == "sqlite" {
            try await sql.raw("DROP TRIGGER IF EXISTS \"contest_vote_counted\"").run()
            try await sql.raw("DROP TRIGGER IF EXISTS \"contest_vote_uncounted\"").run()
        } else {
            try await sql.raw("DROP TRIGGER IF EXISTS \"contest_vote_counted\" ON \"contest_votes\"").run()
            try await sql.raw("DROP FUNCTION IF EXISTS \"count_contest_vote\"()").run()
        }
        try await database.schema(ContestEntryRecord.schema).deleteField("reached_at").deleteField("votes").update()
    }
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

struct CreateMomentPhotos: CreatesTable {
    static let table = MomentPhotoRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("owner_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("caption", .string)
            .field("privacy", .string, .required)
            .field("width", .int, .required)
            .field("height", .int, .required)
            .field("original_key", .string, .required)
            .field("original_type", .string, .required)
            .field("display_key", .string)
            .field("thumbnail_key", .string)
            .field("created_at", .datetime, .required)
            .field("activity", .int64, .required)
            .create()
    }
}

struct CreateMomentPets: CreatesTable {
    static let table = MomentPetRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("photo_id", .uuid, .required, .references(MomentPhotoRecord.schema, "id", onDelete: .cascade))
            .field("pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .unique(on: "photo_id", "pet_id")
            .create()
    }
}

struct CreateMomentVotes: CreatesTable {
    static let table = MomentVoteRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("photo_id", .uuid, .required, .references(MomentPhotoRecord.schema, "id", onDelete: .cascade))
            .field("voter_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "photo_id", "voter_id")
            .create()
    }
}

struct CreateMomentReports: CreatesTable {
    static let table = MomentReportRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("photo_id", .uuid, .required, .references(MomentPhotoRecord.schema, "id", onDelete: .cascade))
            .field("reporter_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("reason", .string, .required)
            .field("text", .string)
            .field("created_at", .datetime, .required)
            .unique(on: "photo_id", "reporter_id")
            .create()
    }
}

struct CreateContests: CreatesTable {
    static let table = ContestRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("theme_code", .string, .required)
            .field("theme_title", .string, .required)
            .field("category", .string, .required)
            .field("starts_at", .datetime, .required)
            .field("ends_at", .datetime, .required)
            .field("finalized_at", .datetime)
            .unique(on: "starts_at")
            .create()
    }
}

struct CreateContestEntries: CreatesTable {
    static let table = ContestEntryRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("contest_id", .uuid, .required, .references(ContestRecord.schema, "id", onDelete: .cascade))
            .field("photo_id", .uuid, .required, .references(MomentPhotoRecord.schema, "id", onDelete: .cascade))
            .field("member_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("entered_at", .datetime, .required)
            .unique(on: "photo_id")
            .create()
    }
}

struct CreateContestVotes: CreatesTable {
    static let table = ContestVoteRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("entry_id", .uuid, .required, .references(ContestEntryRecord.schema, "id", onDelete: .cascade))
            .field("voter_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .unique(on: "entry_id", "voter_id")
            .create()
    }
}

struct CreateContestStandings: CreatesTable {
    static let table = ContestStandingRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("contest_id", .uuid, .required, .references(ContestRecord.schema, "id", onDelete: .cascade))
            .field("entry_id", .uuid, .required, .references(ContestEntryRecord.schema, "id", onDelete: .cascade))
            .field("rank", .int, .required)
            .field("votes", .int, .required)
            .create()
    }
}
