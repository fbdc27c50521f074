import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Moments: the member directory and friends. Friendship is mutual: a request, then the other
// member's answer; a block ends it.

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

    /// Requests waiting: sent to you (`incoming`) or by you, newest first.
    public func friendRequests(incoming: Bool = true) async throws -> [FriendRequest] {
        try await signedIn {
            try await client.listFriendRequests(query: .init(direction: incoming ? .incoming : .outgoing)).ok.body.json.items
                .map(FriendRequest.init)
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
}
