import Foundation
import PawpackAPI
import PawpackCore

extension APIPath {
    package static let members = "/v1/members"
    package static func members(_ query: String) -> String {
        members + "?query=" + (query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? query)
    }
    package static let momentsSettings = "/v1/me/moments"
    package static let friends = "/v1/friends"
    package static func friend(_ username: String) -> String { "\(friends)/\(username)" }
    package static let friendRequests = "/v1/friend-requests"
    package static let outgoingFriendRequests = "/v1/friend-requests?direction=outgoing"
    /// `/v1/friend-requests/{id}/accept` (or `reject`, `cancel`).
    package static func friendRequest(_ id: some CustomStringConvertible, _ answer: String) -> String {
        "\(friendRequests)/\(id)/\(answer)"
    }
}

// Moments' steps.
extension TestServer {
    /// `asker` asks `other` (by username) to be friends and `other` accepts: friends.
    package func makeFriends(_ asker: Member, _ other: Member) async throws {
        let asked = try await send(.POST, APIPath.friendRequests, object: ["username": other.username], token: asker.accessToken)
        guard asked.status == 201 else { throw TestFailure("friend request: \(asked.status) \(asked.text)") }
        let waiting = try asked.decode(Components.Schemas.FriendRequest.self)
        let accepted = try await request(.POST, APIPath.friendRequest(waiting.id, "accept"), token: other.accessToken)
        guard accepted.status == 200 else { throw TestFailure("accept: \(accepted.status) \(accepted.text)") }
    }

    /// The usernames a search for `query` finds, as `member` searches.
    package func searched(_ query: String, by member: Member) async throws -> [String] {
        try await get(APIPath.members(query), token: member.accessToken, as: Components.Schemas.MemberPage.self).items.map(\.username)
    }

    /// The usernames of `member`'s friends.
    package func friendNames(of member: Member) async throws -> [String] {
        try await get(APIPath.friends, token: member.accessToken, as: Components.Schemas.FriendPage.self).items.map(\.username)
    }
}
