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
    package static let moments = "/v1/photos"
    package static func moment(_ id: some CustomStringConvertible) -> String { "\(moments)/\(id)" }
    package static func momentVote(_ id: some CustomStringConvertible) -> String { "\(moments)/\(id)/vote" }
    package static let friendsFeed = "/v1/feeds/friends"
    package static let globalFeed = "/v1/feeds/global"
    package static func petMoments(_ pet: some CustomStringConvertible) -> String { "/v1/pets/\(pet)/moments" }
    package static let reports = "/v1/reports"
    package static let contests = "/v1/contests"
    package static let currentContest = "/v1/contests/current"
    package static func contest(_ id: some CustomStringConvertible) -> String { "\(contests)/\(id)" }
    package static func leaderboard(_ id: some CustomStringConvertible) -> String { "\(contests)/\(id)/leaderboard" }
    package static func contestEntries(_ id: some CustomStringConvertible) -> String { "\(contests)/\(id)/entries" }
    package static func contestEntry(_ id: some CustomStringConvertible) -> String { "/v1/contest-entries/\(id)" }
    package static func entryVote(_ id: some CustomStringConvertible) -> String { "/v1/contest-entries/\(id)/vote" }
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

    /// Posts a photo of `pets` (the fixture `gps.jpg` unless given) and returns the reply.
    package func postMoment(
        pets: [String], privacy: String? = nil, caption: String? = nil, photo: Data? = nil, display: Data? = nil,
        thumbnail: Data? = nil, token: String
    ) async throws -> Reply {
        var parts: [FormPart] = [.init(name: "photo", filename: "moment.jpg", contentType: "image/jpeg", data: try photo ?? fixture("gps.jpg"))]
        if let display { parts.append(.init(name: "display", filename: "display.png", contentType: "image/png", data: display)) }
        if let thumbnail { parts.append(.init(name: "thumbnail", filename: "thumb.png", contentType: "image/png", data: thumbnail)) }
        parts.append(.init(name: "pets", data: Data(pets.joined(separator: ",").utf8)))
        if let privacy { parts.append(.init(name: "privacy", data: Data(privacy.utf8))) }
        if let caption { parts.append(.init(name: "caption", data: Data(caption.utf8))) }
        return try await upload(APIPath.moments, parts: parts, token: token)
    }

    /// Posts a photo of `pets` and returns it.
    package func moment(pets: [String], privacy: String = "friends", caption: String? = nil, token: String) async throws
        -> Components.Schemas.Moment
    {
        let reply = try await postMoment(pets: pets, privacy: privacy, caption: caption, token: token)
        guard reply.status == 201 else { throw TestFailure("moment: \(reply.status) \(reply.text)") }
        return try reply.decode(Components.Schemas.Moment.self)
    }

    /// The ids of a feed's first page, as `token`'s member reads it.
    package func feed(_ path: String, token: String) async throws -> [String] {
        try await get(path, token: token, as: Components.Schemas.MomentPage.self).items.map(\.id)
    }

    /// A URL the server gave, as a path to request.
    package func path(of url: String) -> String { String(url.dropFirst(config.publicBaseURL.count)) }

    /// The usernames a search for `query` finds, as `member` searches.
    package func searched(_ query: String, by member: Member) async throws -> [String] {
        try await get(APIPath.members(query), token: member.accessToken, as: Components.Schemas.MemberPage.self).items.map(\.username)
    }

    /// The usernames of `member`'s friends.
    package func friendNames(of member: Member) async throws -> [String] {
        try await get(APIPath.friends, token: member.accessToken, as: Components.Schemas.FriendPage.self).items.map(\.username)
    }
}
