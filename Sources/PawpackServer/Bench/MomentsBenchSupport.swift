import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A member `pawpack bench moments` acts as, with an access token.
package struct MomentsBenchMember: Sendable {
    package let id: User.ID
    package let accessToken: String
}

/// What the bench's requests need: who acts, the contest running, and photos to vote for.
package struct MomentsBenchWorld: Sendable {
    package let members: [MomentsBenchMember]
    package let contest: Moments.Contest.ID
    /// Public photos of members other than the bench's, to vote for.
    package let votable: [Moments.Photo.ID]
}

/// How much a moments bench community holds.
package struct MomentsBenchCounts: Sendable {
    package let members: Int
    package let photos: Int
    package let friendships: Int
    package let entries: Int
}

/// What `pawpack bench moments` needs from inside the server: friendships, photos, votes and a
/// contest's entries over the demo community's members, written straight into the database
/// (posting a million photos through HTTP would measure the image checks, not the feeds), and
/// access tokens issued directly.
extension PawpackServices {
    /// The bench's Moments, when the database holds fewer photos than asked: every member with
    /// `friendsLow` to `friendsHigh` friends drawn at random (mutual, so some have more), the
    /// photos spread over the members and the last year (six in ten public, three friends-only,
    /// one private), a vote or two on public ones, and the running contest with `entries`
    /// public photos entered and voted for. Returns false when an earlier run made them.
    package func seedMomentsBench(
        photos photoCount: Int, friendsLow: Int, friendsHigh: Int, entries entryCount: Int, on db: any Database,
        progress: @Sendable (String) -> Void
    ) async throws -> Bool {
        if try await MomentPhotoRecord.query(on: db).count() >= photoCount { return false }
        let now = dependencies.clock.now()
        var random = SeededRandom(seed: 36)
        let rows = try await db.sql.raw(#"SELECT "id", "owner_id" FROM "pets" ORDER BY "id""#).all()
        var petOf: [User.ID: Pet.ID] = [:]
        var members: [User.ID] = []
        for row in rows {
            let owner = try row.decode(column: "owner_id", as: User.ID.self)
            if petOf[owner] == nil {
                petOf[owner] = try row.decode(column: "id", as: Pet.ID.self)
                members.append(owner)
            }
        }
        guard members.count > friendsHigh + 1 else { throw CareBenchError(description: "\(members.count) members are too few") }

        // Friendships: each member draws their count; a pair is one friendship, both ways.
        var pairs = Set<[UUID]>()
        for (index, member) in members.enumerated() {
            let wanted = friendsLow + Int(random.next() % UInt64(friendsHigh - friendsLow + 1))
            for _ in 0..<wanted {
                let other = members[Int(random.next() % UInt64(members.count))]
                guard other != members[index] else { continue }
                pairs.insert([member.rawValue, other.rawValue].sorted { $0.uuidString < $1.uuidString })
            }
        }
        var friendshipRows: [[any Encodable & Sendable]] = []
        for pair in pairs {
            let since = now.addingTimeInterval(-Double(random.next() % 300) * 86_400)
            friendshipRows.append([UUID(), pair[0], pair[1], since])
            friendshipRows.append([UUID(), pair[1], pair[0], since])
        }
        try await insert(friendshipRows, into: "friendships", columns: ["id", "member_id", "friend_id", "created_at"], on: db)
        progress("\(pairs.count) friendships made")

        // Photos, member after member in turn, newest last; their pets; votes on public ones.
        var photoRows: [[any Encodable & Sendable]] = []
        var tagRows: [[any Encodable & Sendable]] = []
        var voteRows: [[any Encodable & Sendable]] = []
        var publicPhotos: [(photo: UUID, owner: User.ID)] = []
        let existing = try await MomentPhotoRecord.query(on: db).count()
        for number in existing..<photoCount {
            let owner = members[number % members.count]
            let at = now.addingTimeInterval(-Double(photoCount - number) * 365 * 86_400 / Double(photoCount))
            let draw = random.next() % 10
            let privacy: PhotoPrivacy = draw < 6 ? .public : draw < 9 ? .friends : .private
            let id = Moments.Photo.ID.timeOrdered(at: at).rawValue
            photoRows.append([
                id, owner.rawValue, "Moment \(number)", privacy.rawValue, 1_080, 1_080, "moments/\(id)/original.jpg", "image/jpeg",
                "moments/\(id)/display.jpg", "moments/\(id)/thumbnail.jpg", at, ActivityCursor<Moments.Photo>.activity(at: at),
            ])
            tagRows.append([UUID(), id, petOf[owner]!.rawValue])
            if privacy == .public {
                publicPhotos.append((id, owner))
                for _ in 0..<Int(random.next() % 3) {
                    let voter = members[Int(random.next() % UInt64(members.count))]
                    if voter != owner { voteRows.append([UUID(), id, voter.rawValue, at.addingTimeInterval(3_600)]) }
                }
            }
            if photoRows.count == 50_000 || number == photoCount - 1 {
                try await insert(
                    photoRows, into: "moment_photos",
                    columns: [
                        "id", "owner_id", "caption", "privacy", "width", "height", "original_key", "original_type", "display_key",
                        "thumbnail_key", "created_at", "activity",
                    ], on: db)
                try await insert(tagRows, into: "moment_pets", columns: ["id", "photo_id", "pet_id"], on: db)
                // A repeat of a pair a member already voted for is dropped by the unique key.
                try await insert(
                    voteRows, into: "moment_votes", columns: ["id", "photo_id", "voter_id", "created_at"], on: db, ignoringRepeats: true)
                photoRows = []
                tagRows = []
                voteRows = []
                progress("\(number + 1) photos written")
            }
        }

        // The running contest: one public photo of each of `entries` members, with votes.
        try await contests.rotate(on: db)
        guard let contest = try await ContestRecord.query(on: db).filter(\.$finalizedAt == nil).sort(\.$startsAt, .descending).first()
        else { return true }
        let contestID = try contest.requireID()
        var entered = Set<User.ID>()
        var entryRows: [[any Encodable & Sendable]] = []
        var contestVotes: [[any Encodable & Sendable]] = []
        for candidate in publicPhotos.reversed() where entered.count < entryCount && !entered.contains(candidate.owner) {
            entered.insert(candidate.owner)
            let entry = UUID()
            let at = contest.startsAt.addingTimeInterval(Double(random.next() % 3_600))
            entryRows.append([entry, contestID.rawValue, candidate.photo, candidate.owner.rawValue, at])
            for _ in 0..<Int(random.next() % 40) {
                let voter = members[Int(random.next() % UInt64(members.count))]
                if voter != candidate.owner { contestVotes.append([UUID(), entry, voter.rawValue, at.addingTimeInterval(60)]) }
            }
        }
        try await insert(entryRows, into: "contest_entries", columns: ["id", "contest_id", "photo_id", "member_id", "entered_at"], on: db)
        try await insert(contestVotes, into: "contest_votes", columns: ["id", "entry_id", "voter_id", "created_at"], on: db, ignoringRepeats: true)
        progress("\(entryRows.count) contest entries and \(contestVotes.count) votes made")
        return true
    }

    /// Rows in batches of a thousand (PostgreSQL takes at most 65,535 values a statement), in
    /// transactions of fifty thousand.
    private func insert(
        _ rows: [[any Encodable & Sendable]], into table: String, columns: [String], on db: any Database, ignoringRepeats: Bool = false
    ) async throws {
        for start in stride(from: 0, to: rows.count, by: 50_000) {
            let chunk = Array(rows[start..<min(start + 50_000, rows.count)])
            try await db.transaction { tx in
                for first in stride(from: 0, to: chunk.count, by: 1_000) {
                    var insert = tx.sql.insert(into: table).columns(columns)
                    for row in chunk[first..<min(first + 1_000, chunk.count)] { insert = insert.values(row) }
                    if ignoringRepeats { insert = insert.ignoringConflicts() }
                    try await insert.run()
                }
            }
        }
    }

    /// Members, photos, friendships and entries in the database.
    package func momentsBenchCounts(on db: any Database) async throws -> MomentsBenchCounts {
        MomentsBenchCounts(
            members: try await UserRecord.query(on: db).count(), photos: try await MomentPhotoRecord.query(on: db).count(),
            friendships: try await FriendshipRecord.query(on: db).count() / 2, entries: try await ContestEntryRecord.query(on: db).count())
    }

    /// `count` members, each with a fresh access token, the running contest and public photos
    /// of others to vote for.
    package func momentsBenchWorld(members count: Int, votable: Int, on db: any Database) async throws -> MomentsBenchWorld {
        var members: [MomentsBenchMember] = []
        for user in try await UserRecord.query(on: db).sort(\.$id).range(0..<count).all() {
            let session = try await sessions.issueAppSession(for: user, on: db)
            members.append(MomentsBenchMember(id: try user.requireID(), accessToken: session.accessToken))
        }
        let now = dependencies.clock.now()
        guard let contest = try await ContestRecord.query(on: db).filter(\.$startsAt <= now).filter(\.$endsAt > now).first() else {
            throw CareBenchError(description: "no contest runs: the rotation job starts one")
        }
        let mine = Set(members.map(\.id))
        let photos = try await MomentPhotoRecord.query(on: db).filter(\.$privacy == .public).sort(\.$activity, .descending)
            .range(0..<(votable + count * 10)).all().filter { !mine.contains($0.$owner.id) }.prefix(votable)
        return MomentsBenchWorld(members: members, contest: try contest.requireID(), votable: try photos.map { try $0.requireID() })
    }
}
