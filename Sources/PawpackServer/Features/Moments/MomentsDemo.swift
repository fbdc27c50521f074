import Fluent
import Foundation
import PawpackCore

/// `serve --demo`'s Moments: the demo member (Sam) has friends among the community (Alex and
/// six neighbours) and two requests waiting; members post photos of their pets (their drawn
/// portraits) over the last days, some for friends only, with votes; and the week's contest
/// runs with entries and votes, so every feed and the leaderboard are full at once.
enum MomentsDemo {
    static let captions = [
        "Zoomies at dawn", "Caught mid-yawn", "Sunday nap champion", "Who, me?", "First snow!", "Best friends",
        "Waiting for dinner like…", "Park day", "Sock thief, again", "Window watch",
    ]

    static func seed(_ services: PawpackServices, on db: any Database, now: Date) async throws {
        guard let sam = try await UserRecord.query(on: db).filter(\.$email == DemoCommunity.demoEmail).first() else { return }
        let samID = try sam.requireID()
        guard try await MomentPhotoRecord.query(on: db).filter(\.$owner.$id == samID).count() == 0 else { return }
        var random = SeededRandom(seed: 36)

        // The pets with a drawn portrait, Sam's first, then the community's by name.
        let portraits = try await PetPhotoRecord.query(on: db).filter(\.$kind == .profile).with(\.$pet).all()
            .sorted { ($0.pet.$owner.id == samID ? 0 : 1, $0.pet.name) < ($1.pet.$owner.id == samID ? 0 : 1, $1.pet.name) }
        let others = Array(Set(portraits.map(\.pet.$owner.id)).subtracting([samID])).sorted { $0.description < $1.description }
        guard others.count >= 10 else { return }
        let alex = try await UserRecord.query(on: db).filter(\.$email == CareDemo.alexEmail).first()?.id
        let friends = Array(([alex].compactMap { $0 } + others.prefix(6)).prefix(7))
        let asking = others.dropFirst(6).prefix(2)

        let requests = asking.enumerated().map { index, asker in
            let request = FriendRequestRecord()
            request.id = .init(random.uuid())
            request.$from.id = asker
            request.$to.id = samID
            request.createdAt = now.addingTimeInterval(-Double(index + 1) * 3_600)
            request.activity = ActivityCursor<Moments.FriendRequest>.activity(at: request.createdAt)
            return request
        }
        try await db.transaction { tx in
            for (index, friend) in friends.enumerated() {
                let since = now.addingTimeInterval(-Double(index + 3) * 86_400)
                try await FriendshipRecord(member: samID, friend: friend, since: since).create(on: tx)
                try await FriendshipRecord(member: friend, friend: samID, since: since).create(on: tx)
            }
            for request in requests { try await request.create(on: tx) }
        }

        // Photos over the last days, newest first: Sam's and his friends' pets three times each
        // (in turn), then 24 of the community's once.
        let posters = Set([samID] + friends)
        let close = portraits.filter { posters.contains($0.pet.$owner.id) }
        let chosen = close + close + close + portraits.filter { !posters.contains($0.pet.$owner.id) }.prefix(24)
        var posted: [MomentPhotoRecord] = []
        for (index, portrait) in chosen.enumerated() {
            guard let stored = try await services.photos.media.get(key: portrait.storageKey) else { continue }
            let when = now.addingTimeInterval(-Double(index) * 5_400 - 600)
            let photo = MomentPhotoRecord()
            let id = Moments.Photo.ID(random.uuid())
            photo.id = id
            photo.$owner.id = portrait.pet.$owner.id
            photo.caption = captions[index % captions.count]
            photo.privacy = index % 3 == 1 ? .friends : .public
            let measured = try ImageSanitizer().sanitizeMeasured(stored.data)
            photo.width = measured.width
            photo.height = measured.height
            photo.originalKey = "moments/\(id)/original.\(portrait.storageKey.split(separator: ".").last ?? "png")"
            photo.originalType = stored.contentType
            photo.createdAt = when
            photo.activity = ActivityCursor<Moments.Photo>.activity(at: when)
            try await services.photos.media.put(stored.data, key: photo.originalKey, contentType: stored.contentType)
            posted.append(photo)
            let tag = MomentPetRecord()
            tag.id = random.uuid()
            tag.$photo.id = id
            tag.$pet.id = try portrait.pet.requireID()
            try await db.transaction { tx in
                try await photo.create(on: tx)
                try await tag.create(on: tx)
            }
        }

        // Votes from the community on the public photos.
        let voters = [samID] + others
        var votes: [MomentVoteRecord] = []
        for photo in posted where photo.privacy == .public {
            for voter in voters.shuffled(using: &random).prefix(Int(random.next() % 9)) where voter != photo.$owner.id {
                let vote = MomentVoteRecord()
                vote.id = random.uuid()
                vote.$photo.id = try photo.requireID()
                vote.$voter.id = voter
                vote.createdAt = photo.createdAt.addingTimeInterval(600)
                votes.append(vote)
            }
        }
        let photoVotes = votes
        try await db.transaction { tx in
            for vote in photoVotes { try await vote.create(on: tx) }
        }

        // The week's contest with eight public entries, Sam's among them, and their votes.
        try await services.contests.rotate(on: db)
        guard let contest = try await ContestRecord.query(on: db).filter(\.$finalizedAt == nil).sort(\.$startsAt, .descending).first()
        else { return }
        var entered: [User.ID: Int] = [:]
        var entries: [ContestEntryRecord] = []
        for photo in posted where photo.privacy == .public && entries.count < 8 {
            guard entered[photo.$owner.id, default: 0] < 1 else { continue }
            entered[photo.$owner.id, default: 0] += 1
            let entry = ContestEntryRecord()
            entry.id = .init(random.uuid())
            entry.$contest.id = try contest.requireID()
            entry.$photo.id = try photo.requireID()
            entry.$member.id = photo.$owner.id
            entry.enteredAt = contest.startsAt
            entry.votes = 0
            entries.append(entry)
        }
        var entryVotes: [ContestVoteRecord] = []
        for (index, entry) in entries.enumerated() {
            for voter in voters.shuffled(using: &random).prefix(max(0, 9 - index)) where voter != entry.$member.id {
                let vote = ContestVoteRecord()
                vote.id = random.uuid()
                vote.$entry.id = try entry.requireID()
                vote.$voter.id = voter
                vote.createdAt = contest.startsAt
                entryVotes.append(vote)
            }
        }
        let (contestEntries, contestVotes) = (entries, entryVotes)
        try await db.transaction { tx in
            for entry in contestEntries { try await entry.create(on: tx) }
            for vote in contestVotes { try await vote.create(on: tx) }
        }
    }
}
