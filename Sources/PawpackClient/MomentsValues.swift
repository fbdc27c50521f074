import Foundation
import PawpackAPI
import PawpackCore

/// A member found by ``PawpackClient/searchMembers(_:limit:cursor:)``, and how you stand to them.
public struct MemberResult: Sendable, Equatable {
    public var username: String
    public var displayName: String
    public var friendship: Friendship

    init(_ dto: Components.Schemas.MemberResult) throws {
        username = dto.username
        displayName = dto.displayName
        friendship = try same(dto.friendship, as: Friendship.self)
    }
}

/// A page of members found; pass `nextCursor` back for the next.
public struct MemberPage: Sendable, Equatable {
    public var items: [MemberResult]
    public var nextCursor: String?
}

public struct Friend: Sendable, Equatable {
    public var username: String
    public var displayName: String
    public var since: Date

    init(_ dto: Components.Schemas.Friend) {
        username = dto.username
        displayName = dto.displayName
        since = dto.since
    }
}

/// A page of friends by username; pass `nextCursor` back for the next.
public struct FriendPage: Sendable, Equatable {
    public var items: [Friend]
    public var nextCursor: String?
}

/// A page of friend requests, newest first; pass `nextCursor` back for the next.
public struct FriendRequestPage: Sendable, Equatable {
    public var items: [FriendRequest]
    public var nextCursor: String?
}

/// A friend request waiting for an answer.
public struct FriendRequest: Sendable, Equatable, Identifiable {
    public typealias ID = Moments.FriendRequest.ID

    public var id: ID
    /// Sent to you (true) or by you.
    public var isIncoming: Bool
    /// The other member.
    public var username: String
    public var displayName: String
    public var createdAt: Date

    init(_ dto: Components.Schemas.FriendRequest) throws {
        id = try serverID(dto.id)
        isIncoming = dto.direction == .incoming
        username = dto.member.username
        displayName = dto.member.displayName
        createdAt = dto.createdAt
    }
}

/// What ``PawpackClient/sendFriendRequest(to:)`` came to.
public enum FriendRequestOutcome: Sendable, Equatable {
    /// Waiting for their answer.
    case requested(FriendRequest)
    /// They had asked you first: friends at once.
    case friends(Friend)
}

/// A pet photo as you see it: whose, which pets, its files and its votes.
public struct Moment: Sendable, Equatable, Identifiable {
    public typealias ID = Moments.Photo.ID

    public struct PetTag: Sendable, Equatable {
        public var id: Pet.ID
        public var name: String
        public var species: Species
    }

    public var id: ID
    public var ownerUsername: String
    public var ownerDisplayName: String
    public var isMine: Bool
    /// Posted by one of your friends.
    public var isByFriend: Bool
    public var pets: [PetTag]
    public var caption: String?
    public var privacy: PhotoPrivacy
    /// The original's size in pixels, to keep its place in a feed before it loads.
    public var width: Int
    public var height: Int
    public var originalURL: URL
    /// The display size (about 1,080 px), or the original when the poster sent none.
    public var displayURL: URL
    /// The thumbnail (about 320 px), else the display size, else the original.
    public var thumbnailURL: URL
    public var votes: Int
    public var votedByMe: Bool
    public var createdAt: Date
    /// Its entry in the contest running now: public while entered.
    public var contestEntryID: Moments.Entry.ID?

    init(_ dto: Components.Schemas.Moment) throws {
        id = try serverID(dto.id)
        ownerUsername = dto.owner.username
        ownerDisplayName = dto.owner.displayName
        isMine = dto.mine
        isByFriend = dto.byFriend
        pets = try dto.pets.map { PetTag(id: try serverID($0.id), name: $0.name, species: try same($0.species, as: Species.self)) }
        caption = dto.caption
        privacy = try same(dto.privacy, as: PhotoPrivacy.self)
        width = dto.width
        height = dto.height
        guard let original = URL(string: dto.originalUrl), let display = URL(string: dto.displayUrl),
            let thumbnail = URL(string: dto.thumbnailUrl)
        else { throw PawpackError.malformed("a photo's address") }
        originalURL = original
        displayURL = display
        thumbnailURL = thumbnail
        votes = dto.votes
        votedByMe = dto.votedByMe
        createdAt = dto.createdAt
        contestEntryID = try dto.contestEntryId.map(serverID)
    }
}

/// A page of a feed, newest first; pass `nextCursor` back for the next.
public struct MomentPage: Sendable, Equatable {
    public var items: [Moment]
    public var nextCursor: String?

    init(_ dto: Components.Schemas.MomentPage) throws {
        items = try dto.items.map(Moment.init)
        nextCursor = dto.nextCursor
    }
}

/// A photo to post: the image as taken, and the smaller copies the app made of it (the server
/// makes none: without them, feeds show the original).
public struct MomentUpload: Sendable {
    public var photo: Data
    /// About 1,080 px on its long side (at most 1,600).
    public var display: Data?
    /// About 320 px on its long side (at most 480).
    public var thumbnail: Data?
    public var pets: [Pet.ID]
    public var caption: String?
    public var privacy: PhotoPrivacy

    public init(
        photo: Data, display: Data? = nil, thumbnail: Data? = nil, pets: [Pet.ID], caption: String? = nil,
        privacy: PhotoPrivacy = .friends
    ) {
        self.photo = photo
        self.display = display
        self.thumbnail = thumbnail
        self.pets = pets
        self.caption = caption
        self.privacy = privacy
    }
}

/// Why you report a photo.
public enum MomentReportReason: String, Sendable, CaseIterable {
    case notAPet = "not_a_pet"
    case spam, nudity, violence, harassment
    case animalWelfare = "animal_welfare"
    case other
}

/// One week's themed contest.
public struct Contest: Sendable, Equatable, Identifiable {
    public typealias ID = Moments.Contest.ID

    public var id: ID
    public var themeCode: String
    public var themeTitle: String
    public var category: ThemeCategory
    public var startsAt: Date
    public var endsAt: Date
    /// Entries and votes are taken.
    public var isOpen: Bool
    /// Ended: its leaderboard kept, its winners told.
    public var isFinal: Bool
    public var entryCount: Int
    public var myEntries: Int
    public var maxEntries: Int
    /// The top three, once final.
    public var winners: [Standing]

    init(_ dto: Components.Schemas.Contest) throws {
        id = try serverID(dto.id)
        themeCode = dto.theme.code
        themeTitle = dto.theme.title
        category = try same(dto.theme.category, as: ThemeCategory.self)
        startsAt = dto.startsAt
        endsAt = dto.endsAt
        isOpen = dto.isOpen
        isFinal = dto.isFinal
        entryCount = dto.entryCount
        myEntries = dto.myEntries
        maxEntries = dto.maxEntries
        winners = try dto.winners.map(Standing.init)
    }
}

/// A place on a contest's leaderboard.
public struct Standing: Sendable, Equatable {
    public var rank: Int
    public var entryID: ContestEntry.ID
    public var votes: Int
    public var photo: Moment

    init(_ dto: Components.Schemas.Standing) throws {
        rank = dto.rank
        entryID = try serverID(dto.entryId)
        votes = dto.votes
        photo = try Moment(dto.photo)
    }
}

/// A photo entered in a contest.
public struct ContestEntry: Sendable, Equatable, Identifiable {
    public typealias ID = Moments.Entry.ID

    public var id: ID
    public var contestID: Contest.ID
    public var photo: Moment
    public var votes: Int
    public var votedByMe: Bool
    public var enteredAt: Date

    init(_ dto: Components.Schemas.Entry) throws {
        id = try serverID(dto.id)
        contestID = try serverID(dto.contestId)
        photo = try Moment(dto.photo)
        votes = dto.votes
        votedByMe = dto.votedByMe
        enteredAt = dto.enteredAt
    }
}
