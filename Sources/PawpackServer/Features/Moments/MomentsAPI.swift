import Foundation
import PawpackAPI
import PawpackCore

/// Moments' operations: the member directory and friends.
extension APIHandler {
    var friends: FriendService { services.friends }

    func searchMembers(_ input: Operations.SearchMembers.Input) async throws -> Operations.SearchMembers.Output {
        let auth = try await authenticated()
        let page = try await friends.search(
            auth.user, query: input.query.query, limit: input.query.limit ?? 20, after: try Self.usernameCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map(Components.Schemas.MemberResult.init), nextCursor: page.next))))
    }

    func getMomentsSettings(_ input: Operations.GetMomentsSettings.Input) async throws -> Operations.GetMomentsSettings.Output {
        let auth = try await authenticated()
        return .ok(.init(body: .json(.init(findable: try await friends.findable(auth.user, on: auth.request.db)))))
    }

    func updateMomentsSettings(_ input: Operations.UpdateMomentsSettings.Input) async throws -> Operations.UpdateMomentsSettings.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        if let findable = body.findable { try await friends.setFindable(auth.user, findable, on: auth.request.db) }
        return .ok(.init(body: .json(.init(findable: try await friends.findable(auth.user, on: auth.request.db)))))
    }

    func listFriends(_ input: Operations.ListFriends.Input) async throws -> Operations.ListFriends.Output {
        let auth = try await authenticated()
        let page = try await friends.friends(
            auth.user, limit: input.query.limit ?? 50, after: try Self.usernameCursor(input.query.cursor), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map(Components.Schemas.Friend.init), nextCursor: page.next))))
    }

    func removeFriend(_ input: Operations.RemoveFriend.Input) async throws -> Operations.RemoveFriend.Output {
        let auth = try await authenticated()
        try await friends.remove(auth.user, username: input.path.username, on: auth.request.db)
        return .noContent(.init())
    }

    func listFriendRequests(_ input: Operations.ListFriendRequests.Input) async throws -> Operations.ListFriendRequests.Output {
        let auth = try await authenticated()
        let rows = try await friends.requests(auth.user, incoming: input.query.direction != .outgoing, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: rows.map(Components.Schemas.FriendRequest.init)))))
    }

    func sendFriendRequest(_ input: Operations.SendFriendRequest.Input) async throws -> Operations.SendFriendRequest.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        switch try await friends.send(auth.user, to: body.username, on: auth.request.db) {
        case .requested(let request): return .created(.init(body: .json(.init(request))))
        case .friends(let friend): return .ok(.init(body: .json(.init(friend))))
        }
    }

    func acceptFriendRequest(_ input: Operations.AcceptFriendRequest.Input) async throws -> Operations.AcceptFriendRequest.Output {
        let auth = try await authenticated()
        let friend = try await friends.accept(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .ok(.init(body: .json(.init(friend))))
    }

    func rejectFriendRequest(_ input: Operations.RejectFriendRequest.Input) async throws -> Operations.RejectFriendRequest.Output {
        let auth = try await authenticated()
        try await friends.reject(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    func cancelFriendRequest(_ input: Operations.CancelFriendRequest.Input) async throws -> Operations.CancelFriendRequest.Output {
        let auth = try await authenticated()
        try await friends.cancel(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    /// A list's cursor by username: the last username of the page before. Usernames are
    /// public, so the cursor is the name itself; one no username could be is refused.
    static func usernameCursor(_ cursor: String?) throws -> String? {
        guard let cursor else { return nil }
        guard cursor.utf8.count <= 100, AccountRules().usernameProblem(cursor) == nil else {
            throw Problem.invalidField("cursor", "is not a cursor this list gave")
        }
        return cursor
    }
}

extension Components.Schemas.MemberName {
    init(_ member: MemberNameValue) {
        self.init(username: member.username, displayName: member.displayName)
    }
}

extension Components.Schemas.MemberResult {
    init(_ result: MemberSearchValue) {
        self.init(
            username: result.member.username, displayName: result.member.displayName,
            friendship: Components.Schemas.Friendship(rawValue: result.friendship.rawValue) ?? Components.Schemas.Friendship.none)
    }
}

extension Components.Schemas.Friend {
    init(_ friend: FriendValue) {
        self.init(username: friend.member.username, displayName: friend.member.displayName, since: friend.since)
    }
}

extension Components.Schemas.FriendRequest {
    init(_ request: FriendRequestValue) {
        self.init(
            id: request.id.description, direction: request.incoming ? .incoming : .outgoing, member: .init(request.member),
            createdAt: request.createdAt)
    }
}
