import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Moments: the member directory, friends, pet photos, feeds, votes and reports. Friendship is
// mutual: a request, then the other member's answer; a block ends it. Who sees a photo is the
// server's decision (public, friends, private; the pets' guardians always; a block never).

extension PawpackClient {
    // MARK: The directory

    /// Members whose username or display name starts with `query` (2–40 characters), by
    /// username; never you, anyone blocked either way, or a member who chose not to be found.
    /// Limited to 30 searches a minute (`too_many_requests`).
    public func searchMembers(_ query: String, limit: Int = 20, cursor: String? = nil) async throws -> MemberPage {
        try await signedIn {
            let page = try await client.searchMembers(query: .init(query: query, limit: limit, cursor: cursor)).ok.body.json
            return MemberPage(items: try page.items.map(MemberResult.init), nextCursor: page.nextCursor)
        }
    }

    /// Whether the member search finds you.
    public func isFindable() async throws -> Bool {
        try await signedIn { try await client.getMomentsSettings().ok.body.json.findable }
    }

    /// Lets the member search find you, or not.
    public func setFindable(_ findable: Bool) async throws {
        try await signedIn { _ = try await client.updateMomentsSettings(body: .json(.init(findable: findable))).ok }
    }

    // MARK: Friends

    public func friends(limit: Int = 50, cursor: String? = nil) async throws -> FriendPage {
        try await signedIn {
            let page = try await client.listFriends(query: .init(limit: limit, cursor: cursor)).ok.body.json
            return FriendPage(items: page.items.map(Friend.init), nextCursor: page.nextCursor)
        }
    }

    /// Ends a friendship, for both.
    public func removeFriend(_ username: String) async throws {
        try await signedIn { _ = try await client.removeFriend(path: .init(username: username)).noContent }
    }

    /// Asks a member to be friends; asking again answers the same request, and when they had
    /// asked you first you are friends at once. Fails with `already_friends`, `not_found` (no
    /// such member, or one you cannot reach), `limit_reached` or `too_many_requests`.
    public func sendFriendRequest(to username: String) async throws -> FriendRequestOutcome {
        try await signedIn {
            switch try await client.sendFriendRequest(body: .json(.init(username: username))) {
            case .created(let created): return .requested(try FriendRequest(try created.body.json))
            case .ok(let ok): return .friends(Friend(try ok.body.json))
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Requests waiting: sent to you (`incoming`) or by you, newest first, a page at a time
    /// (any number of members may ask you; you may have 100 waiting).
    public func friendRequests(incoming: Bool = true, limit: Int = 50, cursor: String? = nil) async throws -> FriendRequestPage {
        try await signedIn {
            let page = try await client.listFriendRequests(
                query: .init(direction: incoming ? .incoming : .outgoing, limit: limit, cursor: cursor)
            ).ok.body.json
            return FriendRequestPage(items: try page.items.map(FriendRequest.init), nextCursor: page.nextCursor)
        }
    }

    @discardableResult
    public func acceptFriendRequest(_ id: FriendRequest.ID) async throws -> Friend {
        try await signedIn { Friend(try await client.acceptFriendRequest(path: .init(requestId: id.description)).ok.body.json) }
    }

    /// Declines a request sent to you; the asker is not told.
    public func rejectFriendRequest(_ id: FriendRequest.ID) async throws {
        try await signedIn { _ = try await client.rejectFriendRequest(path: .init(requestId: id.description)).noContent }
    }

    /// Withdraws a request you sent.
    public func cancelFriendRequest(_ id: FriendRequest.ID) async throws {
        try await signedIn { _ = try await client.cancelFriendRequest(path: .init(requestId: id.description)).noContent }
    }

    // MARK: Photos

    /// Posts a photo of your pets (or pets you guard). Fails naming the field: `pets`, `photo`,
    /// `display` or `thumbnail` (type or size), `caption` (500 characters), `privacy`.
    public func postMoment(_ upload: MomentUpload) async throws -> Moment {
        try await signedIn {
            typealias Part = Operations.PostMoment.Input.Body.MultipartFormPayload
            var parts: [Part] = [
                .photo(.init(payload: .init(body: HTTPBody(upload.photo)), filename: "photo")),
                .pets(.init(payload: .init(body: HTTPBody(upload.pets.map(\.description).joined(separator: ","))))),
                .privacy(.init(payload: .init(body: HTTPBody(upload.privacy.rawValue)))),
            ]
            if let display = upload.display { parts.append(.display(.init(payload: .init(body: HTTPBody(display)), filename: "display"))) }
            if let thumbnail = upload.thumbnail {
                parts.append(.thumbnail(.init(payload: .init(body: HTTPBody(thumbnail)), filename: "thumbnail")))
            }
            if let caption = upload.caption { parts.append(.caption(.init(payload: .init(body: HTTPBody(caption))))) }
            return try Moment(try await client.postMoment(body: .multipartForm(MultipartBody(parts))).created.body.json)
        }
    }

    /// A photo you may see (`not_found` otherwise).
    public func moment(_ id: Moment.ID) async throws -> Moment {
        try await signedIn { try Moment(try await client.getMoment(path: .init(photoId: id.description)).ok.body.json) }
    }

    /// Changes your photo's caption (empty: none) or who may see it; what is nil stays.
    @discardableResult
    public func updateMoment(_ id: Moment.ID, caption: String? = nil, privacy: PhotoPrivacy? = nil) async throws -> Moment {
        try await signedIn {
            let body = Operations.UpdateMoment.Input.Body.JsonPayload(
                caption: caption, privacy: privacy.flatMap { Components.Schemas.PhotoPrivacy(rawValue: $0.rawValue) })
            return try Moment(try await client.updateMoment(path: .init(photoId: id.description), body: .json(body)).ok.body.json)
        }
    }

    /// Deletes your photo and its files.
    public func deleteMoment(_ id: Moment.ID) async throws {
        try await signedIn { _ = try await client.deleteMoment(path: .init(photoId: id.description)).noContent }
    }

    /// Votes for a photo you may see and did not post; again changes nothing.
    @discardableResult
    public func vote(for id: Moment.ID) async throws -> Moment {
        try await signedIn { try Moment(try await client.voteForMoment(path: .init(photoId: id.description)).ok.body.json) }
    }

    @discardableResult
    public func unvote(_ id: Moment.ID) async throws -> Moment {
        try await signedIn { try Moment(try await client.unvoteMoment(path: .init(photoId: id.description)).ok.body.json) }
    }

    /// Your photos and your friends' public and friends-only ones, newest first.
    public func friendsFeed(limit: Int = 20, cursor: String? = nil) async throws -> MomentPage {
        try await signedIn { try MomentPage(try await client.friendsFeed(query: .init(limit: limit, cursor: cursor)).ok.body.json) }
    }

    /// Everyone's public photos, newest first; your friends' are marked.
    public func globalFeed(limit: Int = 20, cursor: String? = nil) async throws -> MomentPage {
        try await signedIn { try MomentPage(try await client.globalFeed(query: .init(limit: limit, cursor: cursor)).ok.body.json) }
    }

    /// The photos a pet appears in that you may see, newest first.
    public func moments(of pet: Pet.ID, limit: Int = 20, cursor: String? = nil) async throws -> MomentPage {
        try await signedIn {
            try MomentPage(
                try await client.petMoments(path: .init(petId: pet.description), query: .init(limit: limit, cursor: cursor)).ok.body.json)
        }
    }

    /// Reports a photo for a moderator; its owner never learns who. Once per photo.
    public func report(_ id: Moment.ID, reason: MomentReportReason, text: String? = nil) async throws {
        try await signedIn {
            let body = Operations.ReportContent.Input.Body.JsonPayload(
                photoId: id.description, reason: .init(rawValue: reason.rawValue) ?? .other, text: text)
            _ = try await client.reportContent(body: .json(body)).noContent
        }
    }

    // MARK: Contests

    /// The contest running now (`not_found` in the moments between two).
    public func currentContest() async throws -> Contest {
        try await signedIn { try Contest(try await client.getCurrentContest().ok.body.json) }
    }

    public func contest(_ id: Contest.ID) async throws -> Contest {
        try await signedIn { try Contest(try await client.getContest(path: .init(contestId: id.description)).ok.body.json) }
    }

    /// Contests that ended, the latest first, each with its winners; pass `nextCursor` back.
    public func pastContests(limit: Int = 10, cursor: String? = nil) async throws -> (items: [Contest], nextCursor: String?) {
        try await signedIn {
            let page = try await client.listContests(query: .init(limit: limit, cursor: cursor)).ok.body.json
            return (try page.items.map(Contest.init), page.nextCursor)
        }
    }

    /// The top ten, live while the contest runs, as kept once it ended.
    public func leaderboard(of contest: Contest.ID) async throws -> [Standing] {
        try await signedIn {
            try await client.getLeaderboard(path: .init(contestId: contest.description)).ok.body.json.items.map(Standing.init)
        }
    }

    /// The entries in your order (yours first, then by score with your own draw, the same all
    /// day, so pages neither repeat nor skip).
    public func entries(of contest: Contest.ID, limit: Int = 20, cursor: String? = nil) async throws
        -> (items: [ContestEntry], nextCursor: String?)
    {
        try await signedIn {
            let page = try await client.listEntries(path: .init(contestId: contest.description), query: .init(limit: limit, cursor: cursor))
                .ok.body.json
            return (try page.items.map(ContestEntry.init), page.nextCursor)
        }
    }

    /// Enters one of your photos. A friends-only photo is public while entered: pass
    /// `makePublic` once the member agreed, else it fails with `entry_makes_public`.
    public func enter(_ photo: Moment.ID, in contest: Contest.ID, makePublic: Bool = false) async throws -> ContestEntry {
        try await signedIn {
            let body = Operations.EnterContest.Input.Body.JsonPayload(photoId: photo.description, makePublic: makePublic)
            switch try await client.enterContest(path: .init(contestId: contest.description), body: .json(body)) {
            case .created(let created): return try ContestEntry(try created.body.json)
            case .ok(let ok): return try ContestEntry(try ok.body.json)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Withdraws your entry before the contest ends.
    public func withdraw(_ entry: ContestEntry.ID) async throws {
        try await signedIn { _ = try await client.withdrawEntry(path: .init(entryId: entry.description)).noContent }
    }

    @discardableResult
    public func vote(forEntry entry: ContestEntry.ID) async throws -> ContestEntry {
        try await signedIn { try ContestEntry(try await client.voteForEntry(path: .init(entryId: entry.description)).ok.body.json) }
    }

    @discardableResult
    public func unvote(entry: ContestEntry.ID) async throws -> ContestEntry {
        try await signedIn { try ContestEntry(try await client.unvoteEntry(path: .init(entryId: entry.description)).ok.body.json) }
    }
}
