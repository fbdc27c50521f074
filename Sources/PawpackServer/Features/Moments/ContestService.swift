import Fluent
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PawpackCore
import SQLKit
import SQLiteKit

struct ContestValue: Sendable {
    var id: Moments.Contest.ID
    var themeCode: String
    var themeTitle: String
    var category: ThemeCategory
    var startsAt: Date
    var endsAt: Date
    /// Its final leaderboard is kept and its winners told.
    var isFinal: Bool
    var entryCount: Int
    /// The viewer's own entries in it.
    var myEntries: Int
    /// The top three, once final.
    var winners: [StandingValue]

    func isOpen(at now: Date) -> Bool { startsAt <= now && now < endsAt }
}

/// An entry's row as the reads need it, read column by column (as `MomentPhotoRow`).
struct ContestEntryRow: Sendable {
    var id: Moments.Entry.ID
    var contest: Moments.Contest.ID
    var photo: Moments.Photo.ID
    var enteredAt: Date
    var votes: Int
}

/// A place on a leaderboard.
struct StandingValue: Sendable {
    var rank: Int
    var entry: Moments.Entry.ID
    var votes: Int
    var photo: MomentValue
}

/// An entry as one viewer sees it.
struct EntryValue: Sendable {
    var id: Moments.Entry.ID
    var contest: Moments.Contest.ID
    var photo: MomentValue
    var votes: Int
    var votedByMe: Bool
    var enteredAt: Date
}

/// What a rotation did: contests made final, and the one started.
struct RotationOutcome: Sendable {
    var finished: [ContestValue] = []
    var started: ContestValue?
}

/// The weekly themed contests: one runs at a time, seven days long, rotated by the scheduled
/// job (`rotate`; `pawpack contests rotate` for operators); members enter up to three of their
/// photos, vote for others' entries, and the leaderboard is live until the end, when it is kept
/// as it stood and the winners are told. The rules are Core's (`ContestRules`, `ContestRanking`,
/// `Leaderboard`, `ContestRotation`).
final class ContestService: Sendable {
    let moments: MomentService
    let notifications: NotificationService
    let realtime: RealtimeEvents
    let clock: any AppClock
    let rules = ContestRules()
    let ranking = ContestRanking()
    let rotation = ContestRotation()
    /// What the contest feed and the leaderboard read of a contest besides the page's own
    /// photos (its times, every entry's votes for the order, the top ten), read at most once a
    /// `snapshotFreshness` instead of on every page: reading and decoding a contest's thousands
    /// of entries was most of a contest feed page's time (docs/PERFORMANCE.md, "Moments"). What
    /// this server does shows at once (entering, withdrawing and a rotation drop it, a vote
    /// updates its count and drops the top ten); what another instance does, or a photo deleted,
    /// within about two `snapshotFreshness` (a page reads its own entries afresh, so a deleted
    /// one is not shown and each count is exact). Once read, the entries are renewed in the
    /// background while pages go on with the ones before: a page that waited for them waited
    /// about ten milliseconds, and every request queued behind it on its event loop as long.
    private let snapshots = NIOLockedValueBox<[Moments.Contest.ID: Snapshot]>([:])
    private let snapshotFreshness = TimeAmount.seconds(1)

    private struct Snapshot {
        struct Entry {
            var id: Moments.Entry.ID
            var member: User.ID
            var enteredAt: Date
            var votes: Int
        }
        var endsAt: Date
        var isFinal: Bool
        var readAt: NIODeadline
        /// When the first snapshot of this line was read: entering, withdrawing or a rotation
        /// starts a new line, and entries read for an earlier one are not kept.
        var line: NIODeadline
        /// Read by the first page that needs them, then kept from one snapshot to the next.
        var entries: [Entry]?
        var positions: [Moments.Entry.ID: Int] = [:]
        /// The entries are from an earlier snapshot: a page uses them and has them read again.
        var entriesStale = false
        /// A read of the entries runs; the counts of the votes noted meanwhile, which it may
        /// have read before they were cast.
        var renewing = false
        var votesWhileRenewing: [Moments.Entry.ID: Int] = [:]
        var board: [(rank: Int, entry: Moments.Entry.ID, votes: Int)]?
        /// Counts a vote here: what was read before it is not kept after it.
        var votesNoted = 0

        func isSame(as other: Snapshot?) -> Bool { other?.readAt == readAt && other?.votesNoted == votesNoted }

        mutating func keep(_ read: [Entry], positions: [Moments.Entry.ID: Int]? = nil) {
            entries = read
            self.positions = positions ?? ContestService.positions(of: read)
            entriesStale = false
        }
    }

    init(moments: MomentService, notifications: NotificationService, realtime: RealtimeEvents, clock: any AppClock) {
        self.moments = moments
        self.notifications = notifications
        self.realtime = realtime
        self.clock = clock
    }

    // MARK: Rotation

    /// Makes every contest that ended final (its leaderboard kept, its winners told) and starts
    /// the next when none runs; `force` ends the running one now first. Run again, it does
    /// nothing more: idempotent, and on PostgreSQL one instance runs it at a time.
    @discardableResult
    func rotate(force: Bool = false, on db: any Database) async throws -> RotationOutcome {
        let now = clock.now()
        if force, let running = try await runningRecord(at: now, on: db) {
            running.endsAt = now
            try await running.save(on: db)
        }
        var outcome = RotationOutcome()
        let ended = try await ContestRecord.query(on: db).filter(\.$finalizedAt == nil).filter(\.$endsAt <= now).sort(\.$endsAt).all()
        for contest in ended {
            if let finished = try await finish(contest, at: now, on: db) { outcome.finished.append(finished) }
        }
        if try await runningRecord(at: now, on: db) == nil {
            let latest = try await ContestRecord.query(on: db).sort(\.$endsAt, .descending).first()
            let week = rotation.nextWeek(after: latest?.endsAt, now: now)
            let day = LocalDate(utc: week.lowerBound)
            var lastRun: [String: LocalDate] = [:]
            let since = now.addingTimeInterval(-Double(rotation.repeatAfterDays + 14) * 86_400)
            for earlier in try await ContestRecord.query(on: db).filter(\.$startsAt >= since).all() {
                let started = LocalDate(utc: earlier.startsAt)
                if lastRun[earlier.themeCode].map({ $0 < started }) ?? true { lastRun[earlier.themeCode] = started }
            }
            let theme = rotation.theme(startingOn: day, lastRun: lastRun)
            let contest = ContestRecord()
            contest.id = .init()
            contest.themeCode = theme.code
            contest.themeTitle = theme.title
            contest.category = theme.category
            contest.startsAt = week.lowerBound
            contest.endsAt = week.upperBound
            do {
                try await contest.create(on: db)
                outcome.started = try await value(contest, viewer: nil, on: db)
            } catch  where error.isConstraintFailure {
                // Another instance started this week's contest a moment ago.
            }
        }
        forgetSnapshot(of: nil)
        moments.forgetKeptParts(of: nil)
        return outcome
    }

    /// Keeps a contest's leaderboard as it stood at its end and tells its top three, once.
    private func finish(_ contest: ContestRecord, at now: Date, on db: any Database) async throws -> ContestValue? {
        let id = try contest.requireID()
        let title = contest.themeTitle
        let events = try await db.transaction { tx -> [StoredRealtimeEvent]? in
            // A write first: the transaction holds SQLite's lock from its start, and a second
            // instance finishing it at once finds it final already.
            let marked = try await tx.sql.raw(
                """
                UPDATE "contests" SET "finalized_at" = \(bind: now) WHERE "id" = \(bind: id) AND "finalized_at" IS NULL RETURNING "id"
                """
            ).all()
            guard !marked.isEmpty else { return nil }
            // Read once it is final: a vote now finds it so and is not counted after this.
            let top = try await self.liveStandings(of: id, on: tx)
            var events: [StoredRealtimeEvent] = []
            for (index, standing) in top.enumerated() {
                let row = ContestStandingRecord()
                row.id = UUID()
                row.$contest.id = id
                row.$entry.id = standing.entry
                row.rank = index + 1
                row.votes = standing.votes
                try await row.create(on: tx)
                guard index < 3, let member = try await ContestEntryRecord.find(standing.entry, on: tx)?.$member.id else { continue }
                let place = ["1st", "2nd", "3rd"][index]
                let told = NotificationDraft(
                    from: nil, kind: .contest, title: "Your photo came \(place) in “\(title)”",
                    body: "\(standing.votes) vote\(standing.votes == 1 ? "" : "s"). See the winners in Moments.")
                events += try await self.notifications.notify(told, to: member, on: tx)
            }
            return events
        }
        guard let events else { return nil }
        await realtime.deliver(events)
        return try await value(contest, viewer: nil, on: db)
    }

    private func runningRecord(at now: Date, on db: any Database) async throws -> ContestRecord? {
        try await ContestRecord.query(on: db).filter(\.$startsAt <= now).filter(\.$endsAt > now).first()
    }

    // MARK: Reading

    /// The contest running now; 404 between two (the job starts the next within its interval).
    func current(_ user: UserRecord, on db: any Database) async throws -> ContestValue {
        guard let running = try await runningRecord(at: clock.now(), on: db) else { throw Problem.notFound }
        return try await value(running, viewer: user.requireID(), on: db)
    }

    /// The contest running now, if one is.
    func running(_ user: UserRecord, on db: any Database) async throws -> ContestValue? {
        guard let running = try await runningRecord(at: clock.now(), on: db) else { return nil }
        return try await value(running, viewer: user.requireID(), on: db)
    }

    func contest(_ user: UserRecord, id: Moments.Contest.ID, on db: any Database) async throws -> ContestValue {
        guard let record = try await ContestRecord.find(id, on: db) else { throw Problem.notFound }
        return try await value(record, viewer: user.requireID(), on: db)
    }

    /// Contests that ended, the latest first, with their winners; a page starts after the
    /// contest `cursor` (the last of the page before), not at a count, so that a contest ending
    /// while a member pages neither repeats one nor skips one. One ends a week: their ids are
    /// few enough to order here, which also compares their ends exactly on both databases.
    func past(_ user: UserRecord, limit: Int, after cursor: Moments.Contest.ID?, on db: any Database) async throws
        -> (items: [ContestValue], next: Moments.Contest.ID?)
    {
        // Two ending at one moment (an operator's rotation at a contest's very start): the one
        // that started later ended last.
        let order = try await ContestRecord.query(on: db).filter(\.$finalizedAt != nil).sort(\.$endsAt, .descending)
            .sort(\.$startsAt, .descending).sort(\.$id, .descending).all(\.$id)
        var start = 0
        if let cursor {
            guard let last = order.firstIndex(of: cursor) else { throw Problem.invalidField("cursor", "is not a cursor this list gave") }
            start = last + 1
        }
        let ids = Array(order.dropFirst(start).prefix(limit))
        let rows = try await ContestRecord.query(on: db).filter(\.$id ~~ ids).all()
        var items: [ContestValue] = []
        for id in ids {
            guard let row = rows.first(where: { $0.id == id }) else { continue }
            items.append(try await value(row, viewer: user.requireID(), on: db))
        }
        return (items, start + limit < order.count ? ids.last : nil)
    }

    /// A page of past contests starts after the contest its cursor names (none: the first page).
    static func pastCursor(_ text: String?) throws -> Moments.Contest.ID? {
        guard let text, !text.isEmpty else { return nil }
        guard let id = Moments.Contest.ID(string: text) else { throw Problem.invalidField("cursor", "is not a cursor this list gave") }
        return id
    }

    /// The top ten by votes, a tie to whoever reached the count first: live while it runs, as
    /// kept once final. Entries the viewer may not see (a block) are left out.
    func leaderboard(_ user: UserRecord, contest id: Moments.Contest.ID, on db: any Database) async throws -> [StandingValue] {
        let contest = try await snapshot(of: id, on: db)
        let standings: [(rank: Int, entry: Moments.Entry.ID, votes: Int)]
        if let board = contest.board {
            standings = board
        } else if contest.isFinal {
            // As kept: a place stays its place though a photo above it was deleted since.
            standings = try await ContestStandingRecord.query(on: db).filter(\.$contest.$id == id).sort(\.$rank).all()
                .map { ($0.rank, $0.$entry.id, $0.votes) }
        } else {
            standings = try await liveStandings(of: id, on: db).enumerated().map { ($0.offset + 1, $0.element.entry, $0.element.votes) }
        }
        if contest.board == nil {
            snapshots.withLockedValue { if contest.isSame(as: $0[id]) { $0[id]?.board = standings } }
        }
        let entries = try await entryRecords(standings.map(\.entry), on: db)
        let photos = try await photoValues(of: entries, for: user, on: db)
        var result: [StandingValue] = []
        for standing in standings {
            guard let photo = photos[standing.entry] else { continue }
            result.append(StandingValue(rank: standing.rank, entry: standing.entry, votes: standing.votes, photo: photo))
        }
        return result
    }

    /// The top ten now, from the counts the database keeps on each entry (`CountContestVotes`),
    /// in the index's order, which is `Leaderboard.top`'s.
    private func liveStandings(of contest: Moments.Contest.ID, on db: any Database) async throws -> [Leaderboard.Standing] {
        let rows = try await moments.pets.reads.rows(
            """
            SELECT "id", "votes", "reached_at" FROM "contest_entries" WHERE "contest_id" = \(bind: contest) AND "votes" > 0
            ORDER BY "votes" DESC, "reached_at", "id" LIMIT \(literal: Leaderboard.size)
            """, on: db)
        return Leaderboard.top(
            try rows.map {
                Leaderboard.Standing(
                    entry: try $0.decode(column: "id", as: Moments.Entry.ID.self), votes: try $0.decode(column: "votes", as: Int.self),
                    reachedAt: try $0.decode(column: "reached_at", as: Date.self))
            })
    }

    /// A contest's entries in the order this viewer sees them (`ContestRanking`: their own
    /// first, then by score with their own seeded draw), a page from `offset`. The order holds
    /// all day for the viewer, so pages neither repeat nor skip while the votes stay the same.
    func entries(_ user: UserRecord, contest id: Moments.Contest.ID, limit: Int, offset: Int, on db: any Database) async throws
        -> (items: [EntryValue], next: Int?)
    {
        let contest = try await snapshot(of: id, on: db)
        let me = try user.requireID()
        let all = try await entries(of: id, on: db).map {
            ContestRanking.Entry(id: $0.id, votes: $0.votes, enteredAt: $0.enteredAt, mine: $0.member == me)
        }
        let ranked = ranking.ordered(all, viewer: me, contest: id, now: min(clock.now(), contest.endsAt), first: offset + limit)
        let page = ranked.dropFirst(offset).prefix(limit)
        let pageRows = try await entryRecords(page.map(\.id), on: db)
        let photos = try await photoValues(of: pageRows, for: user, on: db)
        let mine = try await myVotes(me, among: page.map(\.id), on: db)
        let items = page.compactMap { ranked -> EntryValue? in
            guard let row = pageRows.first(where: { $0.id == ranked.id }), let photo = photos[ranked.id] else { return nil }
            // The count as the page's row has it: exact, though the order may be a second old.
            return EntryValue(
                id: ranked.id, contest: id, photo: photo, votes: row.votes, votedByMe: mine.contains(ranked.id), enteredAt: row.enteredAt)
        }
        return (items, all.count > offset + limit ? offset + limit : nil)
    }

    /// The contest as read at most `snapshotFreshness` ago; 404 for one that does not exist.
    private func snapshot(of contest: Moments.Contest.ID, on db: any Database) async throws -> Snapshot {
        let now = NIODeadline.now()
        if let kept = snapshots.withLockedValue({ $0[contest] }), now - kept.readAt < snapshotFreshness { return kept }
        guard let record = try await contestRecord(contest, on: db) else { throw Problem.notFound }
        return snapshots.withLockedValue { snapshots in
            var snapshot = Snapshot(endsAt: record.endsAt, isFinal: record.finalizedAt != nil, readAt: now, line: now)
            if let earlier = snapshots[contest] {
                snapshot.line = earlier.line
                snapshot.entries = earlier.entries
                snapshot.positions = earlier.positions
                snapshot.entriesStale = earlier.entries != nil
                snapshot.renewing = earlier.renewing
                snapshot.votesWhileRenewing = earlier.votesWhileRenewing
            }
            // Only what was read lately stays: a contest nobody reads goes.
            snapshots = snapshots.filter { now - $0.value.readAt < .seconds(60) }
            snapshots[contest] = snapshot
            return snapshot
        }
    }

    /// The contest's entries, as read about `snapshotFreshness` ago: older ones are read again
    /// in the background, and this page goes on with them meanwhile.
    private func entries(of contest: Moments.Contest.ID, on db: any Database) async throws -> [Snapshot.Entry] {
        let read = try await snapshot(of: contest, on: db)
        if let entries = read.entries {
            if read.entriesStale { renewEntries(of: contest, line: read.line, on: db) }
            return entries
        }
        let entries = try await readEntries(of: contest, on: db)
        snapshots.withLockedValue { snapshots in
            guard read.isSame(as: snapshots[contest]) else { return }
            snapshots[contest]?.keep(entries)
        }
        return entries
    }

    /// Reads the entries again unless a read runs already, and keeps them if the snapshot's
    /// line is still the one they were read for.
    private func renewEntries(of contest: Moments.Contest.ID, line: NIODeadline, on db: any Database) {
        let starts = snapshots.withLockedValue { snapshots in
            guard snapshots[contest]?.line == line, snapshots[contest]?.renewing == false else { return false }
            snapshots[contest]?.renewing = true
            snapshots[contest]?.votesWhileRenewing = [:]
            return true
        }
        guard starts else { return }
        Task {
            let entries = try? await self.readEntries(of: contest, on: db)
            self.snapshots.withLockedValue { snapshots in
                guard var snapshot = snapshots[contest], snapshot.line == line else { return }
                snapshot.renewing = false
                if var entries {
                    // A vote noted while they were read may be missing from them: its count as noted.
                    let positions = Self.positions(of: entries)
                    for (entry, votes) in snapshot.votesWhileRenewing { if let at = positions[entry] { entries[at].votes = votes } }
                    snapshot.keep(entries, positions: positions)
                }
                snapshot.votesWhileRenewing = [:]
                snapshots[contest] = snapshot
            }
        }
    }

    /// What the order needs of every entry, its votes as the database keeps them: one
    /// statement, no count over the votes, read and decoded away from the event loop.
    private func readEntries(of contest: Moments.Contest.ID, on db: any Database) async throws -> [Snapshot.Entry] {
        try await moments.pets.reads.rowsAwayFromLoop(
            """
            SELECT "id", "member_id", "entered_at", "votes" FROM "contest_entries" WHERE "contest_id" = \(bind: contest)
            """, on: db
        ) {
            Snapshot.Entry(
                id: try $0.decode(column: "id", as: Moments.Entry.ID.self), member: try $0.decode(column: "member_id", as: User.ID.self),
                enteredAt: try $0.decode(column: "entered_at", as: Date.self), votes: try $0.decode(column: "votes", as: Int.self))
        }
    }

    private static func positions(of entries: [Snapshot.Entry]) -> [Moments.Entry.ID: Int] {
        Dictionary(entries.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// An entry came or went here, or a contest ended: the next page reads the contest again.
    private func forgetSnapshot(of contest: Moments.Contest.ID?) {
        snapshots.withLockedValue { snapshots in
            if let contest { snapshots[contest] = nil } else { snapshots = [:] }
        }
    }

    /// A vote here moved an entry's count: the order follows it at once, and the top ten is
    /// read again.
    private func noteVotes(of entry: EntryValue) {
        snapshots.withLockedValue { snapshots in
            snapshots[entry.contest]?.board = nil
            snapshots[entry.contest]?.votesNoted += 1
            if snapshots[entry.contest]?.renewing == true { snapshots[entry.contest]?.votesWhileRenewing[entry.id] = entry.votes }
            guard let position = snapshots[entry.contest]?.positions[entry.id] else { return }
            snapshots[entry.contest]?.entries?[position].votes = entry.votes
        }
    }

    // MARK: Entering and voting

    /// Enters one of the member's photos in a running contest. A friends-only photo is public
    /// while entered, so `makePublic` must say the member knows; the same photo entered again
    /// answers its entry.
    func enter(_ user: UserRecord, contest id: Moments.Contest.ID, photo photoID: Moments.Photo.ID, makePublic: Bool, on db: any Database)
        async throws -> (entry: EntryValue, created: Bool)
    {
        let me = try user.requireID()
        guard let contest = try await ContestRecord.find(id, on: db) else { throw Problem.notFound }
        // Two identical entries at once: the second finds the first (a unique key per photo).
        return try await answeringRacesAsSequential {
            let photo = try await self.moments.moment(user, id: photoID, on: db)
            // Read once: the entry found decides both the answer to a repeat and the refusal.
            let earlier = try await ContestEntryRecord.query(on: db).filter(\.$photo.$id == photoID).first()
            if let earlier, earlier.$contest.id == id, earlier.$member.id == me {
                return (try await self.entry(user, id: try earlier.requireID(), on: db), false)
            }
            let inAContest = earlier != nil
            let mine = try await ContestEntryRecord.query(on: db).filter(\.$contest.$id == id).filter(\.$member.$id == me).count()
            try self.rules.checkEntry(
                ownPhoto: photo.mine, privacy: photo.privacy, inAContest: inAContest, myEntries: mine,
                contestOpen: contest.startsAt <= self.clock.now() && self.clock.now() < contest.endsAt)
            if photo.privacy != .public, !makePublic {
                throw Problem(
                    status: 409, code: .entryMakesPublic, title: "Entering shows it to everyone",
                    detail:
                        "While it is entered, everyone can see this photo and vote for it; afterwards only your friends again, unless it places in the top ten: then it stays public with the results until you make it private. Enter it with makePublic to go on.",
                    errors: [.init(field: "makePublic", message: "must be true for a photo shared with friends only")])
            }
            let row = ContestEntryRecord()
            row.id = .init()
            row.$contest.id = id
            row.$photo.id = photoID
            row.$member.id = me
            row.enteredAt = self.clock.now()
            row.votes = 0
            try await db.transaction { tx in
                // The insert first (SQLite's one writer, from here on), then the count: on
                // PostgreSQL the member's entries are counted one transaction at a time.
                try await Self.oneAtATime("contest-entries:\(me)", on: tx)
                try await Self.oneAtATime("moment-photo:\(photoID)", on: tx)
                try await row.create(on: tx)
                let count = try await ContestEntryRecord.query(on: tx).filter(\.$contest.$id == id).filter(\.$member.$id == me).count()
                // Made private from another device meanwhile: a private photo is never entered.
                let privacy = try await MomentPhotoRecord.find(photoID, on: tx)?.privacy ?? .private
                try self.rules.checkEntry(ownPhoto: true, privacy: privacy, inAContest: false, myEntries: count - 1, contestOpen: true)
            }
            self.forgetSnapshot(of: id)
            self.moments.forgetKeptParts(of: photoID)
            return (try await self.entry(user, id: try row.requireID(), on: db), true)
        }
    }

    /// The member withdraws their entry before the contest ends; its votes go with it.
    func withdraw(_ user: UserRecord, entry id: Moments.Entry.ID, on db: any Database) async throws {
        guard
            let row = try await ContestEntryRecord.query(on: db).filter(\.$id == id).filter(\.$member.$id == user.requireID()).with(\.$contest)
                .first()
        else { throw Problem.notFound }
        guard clock.now() < row.contest.endsAt else {
            throw Problem.invalidField("entryId", "is in a contest that is over: its result stays")
        }
        try await row.delete(on: db)
        forgetSnapshot(of: row.$contest.id)
        moments.forgetKeptParts(of: row.$photo.id)
    }

    func vote(_ user: UserRecord, entry id: Moments.Entry.ID, on db: any Database) async throws -> EntryValue {
        let me = try user.requireID()
        // The entry withdrawn or deleted meanwhile (a foreign key refuses the vote): asked
        // again, it is not found.
        return try await answeringRacesAsSequential {
            let entry = try await self.entry(user, id: id, on: db)
            guard !entry.photo.mine else {
                throw Problem(
                    status: 403, code: .forbidden, title: "Your own entry", detail: "Vote for other members' entries; yours collect theirs.")
            }
            try await self.requireOpen(entry.contest, on: db)
            // Only while the contest is not final: a vote arriving as it ends is not counted
            // after its leaderboard was kept.
            try await db.sql.raw(
                """
                INSERT INTO "contest_votes" ("id", "entry_id", "voter_id", "created_at")
                SELECT \(bind: UUID()), \(bind: id), \(bind: me), \(bind: self.clock.now())
                WHERE EXISTS (SELECT 1 FROM "contests" WHERE "id" = \(bind: entry.contest) AND "finalized_at" IS NULL)
                ON CONFLICT ("entry_id", "voter_id") DO NOTHING
                """
            ).run()
            let counted = try await self.entry(user, id: id, on: db)
            self.noteVotes(of: counted)
            return counted
        }
    }

    func unvote(_ user: UserRecord, entry id: Moments.Entry.ID, on db: any Database) async throws -> EntryValue {
        let entry = try await entry(user, id: id, on: db)
        try await requireOpen(entry.contest, on: db)
        try await ContestVoteRecord.query(on: db).filter(\.$entry.$id == id).filter(\.$voter.$id == user.requireID()).delete()
        let counted = try await self.entry(user, id: id, on: db)
        noteVotes(of: counted)
        return counted
    }

    private func requireOpen(_ contest: Moments.Contest.ID, on db: any Database) async throws {
        guard let record = try await ContestRecord.find(contest, on: db), clock.now() < record.endsAt else {
            throw Problem.invalidField("entryId", "is in a contest that is over: votes are closed")
        }
    }

    /// An entry the viewer may see (its photo's rule: public while entered; a block hides it).
    func entry(_ user: UserRecord, id: Moments.Entry.ID, on db: any Database) async throws -> EntryValue {
        guard let row = try await entryRecords([id], on: db).first, let photo = try await photoValues(of: [row], for: user, on: db)[id]
        else { throw Problem.notFound }
        let voted = try await myVotes(user.requireID(), among: [id], on: db).contains(id)
        return EntryValue(id: id, contest: row.contest, photo: photo, votes: row.votes, votedByMe: voted, enteredAt: row.enteredAt)
    }

    // MARK: Export

    func export(_ user: UserRecord, on db: any Database) async throws
        -> (entries: [ContestEntryRecord], votes: [ContestVoteRecord])
    {
        let me = try user.requireID()
        return (
            try await ContestEntryRecord.query(on: db).filter(\.$member.$id == me).sort(\.$enteredAt).all(),
            try await ContestVoteRecord.query(on: db).filter(\.$voter.$id == me).sort(\.$createdAt).all()
        )
    }

    // MARK: Helpers

    private func value(_ record: ContestRecord, viewer: User.ID?, on db: any Database) async throws -> ContestValue {
        let id = try record.requireID()
        let count = try await ContestEntryRecord.query(on: db).filter(\.$contest.$id == id).count()
        var mine = 0
        if let viewer { mine = try await ContestEntryRecord.query(on: db).filter(\.$contest.$id == id).filter(\.$member.$id == viewer).count() }
        var winners: [StandingValue] = []
        if record.finalizedAt != nil {
            let top = try await ContestStandingRecord.query(on: db).filter(\.$contest.$id == id).filter(\.$rank <= 3).sort(\.$rank).all()
            let entries = try await entryRecords(top.map(\.$entry.id), on: db)
            var viewerRecord: UserRecord?
            if let viewer { viewerRecord = try await UserRecord.find(viewer, on: db) }
            let photos = try await photoValues(of: entries, for: viewerRecord, on: db)
            winners = top.compactMap { standing in
                photos[standing.$entry.id].map { StandingValue(rank: standing.rank, entry: standing.$entry.id, votes: standing.votes, photo: $0) }
            }
        }
        return ContestValue(
            id: id, themeCode: record.themeCode, themeTitle: record.themeTitle, category: record.category, startsAt: record.startsAt,
            endsAt: record.endsAt, isFinal: record.finalizedAt != nil, entryCount: count, myEntries: mine, winners: winners)
    }

    /// A contest's row, through the hot reads.
    private func contestRecord(_ id: Moments.Contest.ID, on db: any Database) async throws -> ContestRecord? {
        try await moments.pets.reads.rows(#"SELECT * FROM "contests" WHERE "id" = \#(bind: id)"#, on: db).first
            .map { try $0.decode(model: ContestRecord.self) }
    }

    /// These entries' rows, in no order, through the hot reads.
    private func entryRecords(_ ids: [Moments.Entry.ID], on db: any Database) async throws -> [ContestEntryRow] {
        guard !ids.isEmpty else { return [] }
        return try await moments.pets.reads.rows(
            """
            SELECT "id", "contest_id", "photo_id", "entered_at", "votes" FROM "contest_entries" WHERE "id" IN (\(binds: ids))
            """, on: db
        ).map {
            ContestEntryRow(
                id: try $0.decode(column: "id", as: Moments.Entry.ID.self), contest: try $0.decode(column: "contest_id", as: Moments.Contest.ID.self),
                photo: try $0.decode(column: "photo_id", as: Moments.Photo.ID.self), enteredAt: try $0.decode(column: "entered_at", as: Date.self),
                votes: try $0.decode(column: "votes", as: Int.self))
        }
    }

    /// The entries' photos as the viewer sees them, by entry; those they may not see left out.
    private func photoValues(of entries: [ContestEntryRow], for user: UserRecord?, on db: any Database) async throws
        -> [Moments.Entry.ID: MomentValue]
    {
        guard !entries.isEmpty else { return [:] }
        let viewer = try await moments.viewer(user, on: db)
        let photos = Dictionary(
            uniqueKeysWithValues: try await moments.values(entries.map(\.photo), for: viewer, kept: snapshotFreshness, on: db).map { ($0.id, $0) })
        var result: [Moments.Entry.ID: MomentValue] = [:]
        for entry in entries { if let photo = photos[entry.photo] { result[entry.id] = photo } }
        return result
    }

    private func myVotes(_ me: User.ID, among entries: [Moments.Entry.ID], on db: any Database) async throws -> Set<Moments.Entry.ID> {
        guard !entries.isEmpty else { return [] }
        return Set(
            try await moments.pets.reads.rows(
                """
                SELECT "entry_id" FROM "contest_votes" WHERE "voter_id" = \(bind: me) AND "entry_id" IN (\(binds: entries))
                """, on: db
            ).map { try $0.decode(column: "entry_id", as: Moments.Entry.ID.self) })
    }

    /// On PostgreSQL, holds a lock named `key` until the transaction ends, so that transactions
    /// that count and then write the same rows run one after another; SQLite's one writer does
    /// so already once a transaction has written.
    static func oneAtATime(_ key: String, on tx: any Database) async throws {
        guard !(tx is any SQLiteDatabase) else { return }
        try await tx.sql.raw("SELECT pg_advisory_xact_lock(hashtext(\(bind: key) || current_schema()))").run()
    }
}

extension PawpackServices {
    /// `pawpack contests rotate`: ends the running contest now (its winners told) and starts
    /// the next, holding the rotation job's lock so that no instance rotates at the same time.
    /// Answers what it did, a line each.
    package func rotateContestsNow(on db: any Database) async throws -> [String] {
        let lines = NIOLockedValueBox<[String]>([])
        let ran = try await ScheduledJobs.runExclusively("contest-rotation", on: db) { db in
            let outcome = try await self.contests.rotate(force: true, on: db)
            var said = outcome.finished.map { "ended: \($0.themeTitle) (\($0.entryCount) entries, \($0.winners.count) winners told)" }
            if let started = outcome.started {
                said.append("started: \(started.themeTitle), until \(started.endsAt.formatted(.iso8601))")
            }
            lines.withLockedValue { $0 = said }
        }
        return ran ? lines.withLockedValue { $0 } : ["another instance is rotating the contests now: nothing done"]
    }
}
