import Foundation
import PawpackAPI
import PawpackCore

/// The weekly contests' operations.
extension APIHandler {
    var contests: ContestService { services.contests }

    func listContests(_ input: Operations.ListContests.Input) async throws -> Operations.ListContests.Output {
        let auth = try await authenticated()
        let page = try await contests.past(
            auth.user, limit: try Self.pageLimit(input.query.limit, default: 10, most: 20), after: try ContestService.pastCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(
            .init(body: .json(.init(items: page.items.map { .init($0, rules: contests.rules, mapping) }, nextCursor: page.next?.description))))
    }

    func getCurrentContest(_ input: Operations.GetCurrentContest.Input) async throws -> Operations.GetCurrentContest.Output {
        let auth = try await authenticated()
        let contest = try await contests.current(auth.user, on: auth.request.db)
        return .ok(.init(body: .json(.init(contest, rules: contests.rules, mapping))))
    }

    func getContest(_ input: Operations.GetContest.Input) async throws -> Operations.GetContest.Output {
        let auth = try await authenticated()
        let contest = try await contests.contest(auth.user, id: try pathID(input.path.contestId), on: auth.request.db)
        return .ok(.init(body: .json(.init(contest, rules: contests.rules, mapping))))
    }

    func getLeaderboard(_ input: Operations.GetLeaderboard.Input) async throws -> Operations.GetLeaderboard.Output {
        let auth = try await authenticated()
        let standings = try await contests.leaderboard(auth.user, contest: try pathID(input.path.contestId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: standings.map { .init($0, mapping) }))))
    }

    func listEntries(_ input: Operations.ListEntries.Input) async throws -> Operations.ListEntries.Output {
        let auth = try await authenticated()
        let page = try await contests.entries(
            auth.user, contest: try pathID(input.path.contestId), limit: try Self.pageLimit(input.query.limit, default: 20, most: 50),
            offset: try Self.offsetCursor(input.query.cursor), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map { .init($0, mapping) }, nextCursor: page.next.map(String.init)))))
    }

    func enterContest(_ input: Operations.EnterContest.Input) async throws -> Operations.EnterContest.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        guard let photo = Moments.Photo.ID(string: body.photoId) else { throw Problem.invalidField("photoId", "is not a photo id") }
        let entered = try await contests.enter(
            auth.user, contest: try pathID(input.path.contestId), photo: photo, makePublic: body.makePublic ?? false, on: auth.request.db)
        let entry = Components.Schemas.Entry(entered.entry, mapping)
        return entered.created ? .created(.init(body: .json(entry))) : .ok(.init(body: .json(entry)))
    }

    func withdrawEntry(_ input: Operations.WithdrawEntry.Input) async throws -> Operations.WithdrawEntry.Output {
        let auth = try await authenticated()
        try await contests.withdraw(auth.user, entry: try pathID(input.path.entryId), on: auth.request.db)
        return .noContent(.init())
    }

    func voteForEntry(_ input: Operations.VoteForEntry.Input) async throws -> Operations.VoteForEntry.Output {
        let auth = try await authenticated()
        let entry = try await contests.vote(auth.user, entry: try pathID(input.path.entryId), on: auth.request.db)
        return .ok(.init(body: .json(.init(entry, mapping))))
    }

    func unvoteEntry(_ input: Operations.UnvoteEntry.Input) async throws -> Operations.UnvoteEntry.Output {
        let auth = try await authenticated()
        let entry = try await contests.unvote(auth.user, entry: try pathID(input.path.entryId), on: auth.request.db)
        return .ok(.init(body: .json(.init(entry, mapping))))
    }

    /// A page's start in a list whose order is computed (a contest's entries, past contests):
    /// the number of items before it, as the previous page gave it.
    static func offsetCursor(_ text: String?) throws -> Int {
        guard let text else { return 0 }
        guard text.count <= 9, let offset = Int(text), offset >= 0 else {
            throw Problem.invalidField("cursor", "is not a cursor this list gave")
        }
        return offset
    }
}

extension Components.Schemas.Contest {
    init(_ contest: ContestValue, rules: ContestRules, _ mapping: APIMapping) {
        self.init(
            id: contest.id.description,
            theme: .init(code: contest.themeCode, title: contest.themeTitle, category: .init(rawValue: contest.category.rawValue) ?? .special),
            startsAt: contest.startsAt, endsAt: contest.endsAt, isOpen: contest.isOpen(at: mapping.now), isFinal: contest.isFinal,
            entryCount: contest.entryCount, myEntries: contest.myEntries, maxEntries: rules.entriesPerMember,
            winners: contest.winners.map { .init($0, mapping) })
    }
}

extension Components.Schemas.Standing {
    init(_ standing: StandingValue, _ mapping: APIMapping) {
        self.init(rank: standing.rank, entryId: standing.entry.description, votes: standing.votes, photo: .init(standing.photo, mapping))
    }
}

extension Components.Schemas.Entry {
    init(_ entry: EntryValue, _ mapping: APIMapping) {
        self.init(
            id: entry.id.description, contestId: entry.contest.description, photo: .init(entry.photo, mapping), votes: entry.votes,
            votedByMe: entry.votedByMe, enteredAt: entry.enteredAt)
    }
}
