import Foundation

/// How one member stands to another in Moments, as a search result or a profile says it.
public enum Friendship: String, Sendable, Codable, CaseIterable {
    /// Neither asked.
    case none
    case friends
    /// I asked; they have not answered.
    case requested
    /// They asked me; I have not answered.
    case askedMe = "asked_me"
}

/// Friends and the member directory: what a search may ask and how much, and how many friends
/// and waiting requests a member may have. The limits keep the directory from being read out
/// whole (a short prefix, a page at a time, a few searches a minute) and requests from being
/// a way to spam.
public struct FriendRules: Sendable {
    /// The shortest prefix searched: one letter would list a twenty-sixth of everyone.
    public var shortestQuery = 2
    public var longestQuery = 40
    public var searchesPerMinute = 30
    public var requestsPerHour = 30
    public var mostFriends = 1_000
    /// Requests a member may have waiting for others' answers at once.
    public var mostWaitingRequests = 100

    public init() {}

    /// The prefix to search for (trimmed, lowercased), or the problem naming `query`.
    public func searchPrefix(_ raw: String) -> Result<String, Problem> {
        let prefix = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard prefix.count >= shortestQuery, prefix.count <= longestQuery,
            !prefix.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else {
            return .failure(
                Problem(
                    status: 422, code: .validationFailed, title: "Search needs a few letters",
                    detail: "Type the first \(shortestQuery) to \(longestQuery) letters of a username or a name.",
                    errors: [.init(field: "query", message: "must be \(shortestQuery) to \(longestQuery) characters")]))
        }
        return .success(prefix)
    }

    /// A SQL `LIKE` pattern matching values that start with `prefix`, with `\` as the escape:
    /// the prefix's own `%` and `_` match only themselves.
    public static func likePattern(startingWith prefix: String) -> String {
        var pattern = ""
        for character in prefix {
            if character == "%" || character == "_" || character == "\\" { pattern.append("\\") }
            pattern.append(character)
        }
        return pattern + "%"
    }

    /// Why a member may not ask another to be friends now, if they may not: `friends` is how many
    /// friends the asker has, `waiting` how many of their requests wait for an answer.
    public func requestProblem(friends: Int, waiting: Int) -> Problem? {
        if friends >= mostFriends {
            return Problem(
                status: 409, code: .limitReached, title: "Too many friends",
                detail: "You have \(mostFriends) friends, the most a member may have. Remove one to add another.")
        }
        if waiting >= mostWaitingRequests {
            return Problem(
                status: 409, code: .limitReached, title: "Too many requests waiting",
                detail: "\(mostWaitingRequests) of your friend requests wait for an answer. Cancel some, or wait for answers, before sending more.")
        }
        return nil
    }

    /// Why this member cannot accept another friend, if they cannot.
    public func acceptProblem(friends: Int) -> Problem? {
        guard friends >= mostFriends else { return nil }
        return Problem(
            status: 409, code: .limitReached, title: "Too many friends",
            detail: "You have \(mostFriends) friends, the most a member may have. Remove one to accept another.")
    }
}
