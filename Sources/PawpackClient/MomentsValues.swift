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
