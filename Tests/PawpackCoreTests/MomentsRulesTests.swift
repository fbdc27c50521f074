import Foundation
import PawpackCore
import Testing

/// Moments' rules: who sees a photo, the contest's order for each viewer, the leaderboard,
/// entries and votes, and the weekly themes.
@Suite struct MomentsRulesTests {
    func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func everyViewerSeesWhatItsPrivacyAllowsAndABlockHidesEvenPublicPhotos() {
        let sees: [PhotoViewer: Set<PhotoPrivacy>] = [
            .owner: [.public, .friends, .private], .guardian: [.public, .friends, .private], .friend: [.public, .friends],
            .member: [.public], .anonymous: [.public],
        ]
        for viewer in PhotoViewer.allCases {
            for privacy in PhotoPrivacy.allCases {
                #expect(
                    PhotoVisibility.canSee(privacy, viewer: viewer, blocked: false) == sees[viewer]!.contains(privacy),
                    "\(viewer) \(privacy)")
                // blocked either way: nothing, the owner's own photos aside
                #expect(PhotoVisibility.canSee(privacy, viewer: viewer, blocked: true) == (viewer == .owner), "\(viewer) \(privacy)")
                // entered in a contest: public while entered, for everyone not blocked; a private
                // photo never is (no entry makes it public)
                #expect(
                    PhotoVisibility.canSee(privacy, viewer: viewer, blocked: false, entered: true)
                        == (privacy == .private ? sees[viewer]!.contains(.private) : true), "\(viewer) \(privacy) entered")
                #expect(!PhotoVisibility.canSee(privacy, viewer: viewer, blocked: true, entered: true) || viewer == .owner)
            }
        }
        // the strongest tie counts
        #expect(PhotoViewer(isOwner: true, guardsAPetInIt: true, isFriend: true, signedIn: true) == .owner)
        #expect(PhotoViewer(isOwner: false, guardsAPetInIt: true, isFriend: true, signedIn: true) == .guardian)
        #expect(PhotoViewer(isOwner: false, guardsAPetInIt: false, isFriend: true, signedIn: true) == .friend)
        #expect(PhotoViewer(isOwner: false, guardsAPetInIt: false, isFriend: false, signedIn: true) == .member)
        #expect(PhotoViewer(isOwner: false, guardsAPetInIt: false, isFriend: false, signedIn: false) == .anonymous)
    }

    @Test func theScoreIsThreeAVotePlusAFadingBoostPlusTheViewersDraw() {
        let ranking = ContestRanking()
        let contest = Moments.Contest.ID()
        let viewer = User.ID()
        let entered = instant("2026-06-01T12:00:00Z")
        for (hours, votes, boost) in [(0.0, 0, 10.0), (50.0, 2, 5.0), (99.0, 1, 0.1), (100.0, 4, 0.0), (500.0, 1, 0.0)] {
            let now = entered.addingTimeInterval(hours * 3_600)
            let entry = ContestRanking.Entry(id: .init(), votes: votes, enteredAt: entered, mine: false)
            let draw = ranking.randomBoost(viewer: viewer, contest: contest, day: LocalDate(utc: now), entry: entry.id)
            #expect((0..<5).contains(draw))
            #expect(abs(ranking.score(of: entry, viewer: viewer, contest: contest, now: now) - (Double(votes) * 3 + boost + draw)) < 1e-9)
        }
    }

    @Test func aViewersOrderHoldsAllDayAndAcrossPagesButDiffersBetweenViewersAndDays() {
        let ranking = ContestRanking()
        let contest = Moments.Contest.ID()
        let now = instant("2026-06-03T09:00:00Z")
        let entered = instant("2026-06-01T00:00:00Z")
        // equal votes and age: only the draws order them
        let entries = (0..<40).map { _ in ContestRanking.Entry(id: .init(), votes: 2, enteredAt: entered, mine: false) }
        let viewer = User.ID()
        let order = ranking.ordered(entries, viewer: viewer, contest: contest, now: now).map(\.id)
        // the same later that day, from entries given in another order
        #expect(ranking.ordered(entries.reversed(), viewer: viewer, contest: contest, now: now.addingTimeInterval(60)).map(\.id) == order)
        // a page is the same read alone: each entry's draw does not depend on the others
        let firstTwenty = Set(order.prefix(20))
        let alone = ranking.ordered(entries.filter { firstTwenty.contains($0.id) }, viewer: viewer, contest: contest, now: now)
        #expect(alone.map(\.id) == Array(order.prefix(20)))
        // another viewer, or the next day: another order, and every entry leads for someone
        #expect(ranking.ordered(entries, viewer: User.ID(), contest: contest, now: now).map(\.id) != order)
        #expect(ranking.ordered(entries, viewer: viewer, contest: contest, now: now.addingTimeInterval(86_400)).map(\.id) != order)
        var leaders: Set<Moments.Entry.ID> = []
        for _ in 0..<2_000 { leaders.insert(ranking.ordered(entries, viewer: User.ID(), contest: contest, now: now)[0].id) }
        #expect(leaders.count > 30, "\(leaders.count) of 40 entries ever came first")
        // the start of the order alone is the same start, whatever the number asked for
        for first in [0, 1, 3, 4, 20, 39, 40, 41] {
            #expect(ranking.ordered(entries, viewer: viewer, contest: contest, now: now, first: first).map(\.id) == Array(order.prefix(first)))
        }
        // anonymous viewers get an order too, the same for all of them
        #expect(
            ranking.ordered(entries, viewer: nil, contest: contest, now: now).map(\.id)
                == ranking.ordered(entries.reversed(), viewer: nil, contest: contest, now: now).map(\.id))
    }

    @Test func theViewersOwnEntriesComeFirstNewestFirstAndVotesOutweighTheDraw() {
        let ranking = ContestRanking()
        let contest = Moments.Contest.ID()
        let now = instant("2026-06-03T09:00:00Z")
        let old = instant("2026-05-20T00:00:00Z")
        let mineOld = ContestRanking.Entry(id: .init(), votes: 0, enteredAt: old, mine: true)
        let mineNew = ContestRanking.Entry(id: .init(), votes: 0, enteredAt: old.addingTimeInterval(60), mine: true)
        let popular = ContestRanking.Entry(id: .init(), votes: 10, enteredAt: old, mine: false)
        let quiet = ContestRanking.Entry(id: .init(), votes: 8, enteredAt: old, mine: false)
        for _ in 0..<50 {
            let order = ranking.ordered([quiet, mineOld, popular, mineNew], viewer: User.ID(), contest: contest, now: now)
            // two votes (6 points) outweigh any draw (under 5)
            #expect(order.map(\.id) == [mineNew.id, mineOld.id, popular.id, quiet.id])
        }
        // a contest feed's first page of thousands, the viewer's own among them: the same start
        let many = (0..<3_000).map { index in
            ContestRanking.Entry(
                id: .init(), votes: index % 7, enteredAt: old.addingTimeInterval(Double(index % 50) * 3_600), mine: index % 601 == 0)
        }
        let viewer = User.ID()
        let whole = ranking.ordered(many, viewer: viewer, contest: contest, now: now).map(\.id)
        #expect(Array(whole.prefix(5)) == many.filter(\.mine).sorted { $0.enteredAt > $1.enteredAt }.map(\.id))
        for first in [1, 20, 40, 200] {
            #expect(ranking.ordered(many, viewer: viewer, contest: contest, now: now, first: first).map(\.id) == Array(whole.prefix(first)))
        }
    }

    @Test func theLeaderboardIsTheTopTenByVotesATieGoingToWhoReachedItFirst() {
        let start = instant("2026-06-01T00:00:00Z")
        var standings = (0..<15).map { index in
            Leaderboard.Standing(entry: .init(), votes: 20 - index, reachedAt: start.addingTimeInterval(Double(index)))
        }
        let tiedLate = Leaderboard.Standing(entry: .init(), votes: 20, reachedAt: start.addingTimeInterval(3_600))
        let tiedEarly = Leaderboard.Standing(entry: .init(), votes: 20, reachedAt: start.addingTimeInterval(-60))
        standings += [tiedLate, Leaderboard.Standing(entry: .init(), votes: 0, reachedAt: start), tiedEarly]
        let top = Leaderboard.top(standings.shuffled())
        #expect(top.count == 10)
        #expect(top.prefix(3).map(\.entry) == [tiedEarly.entry, standings[0].entry, tiedLate.entry])
        #expect(top.map(\.votes) == [20, 20, 20, 19, 18, 17, 16, 15, 14, 13])
        // nobody voted: nobody leads
        #expect(Leaderboard.top([Leaderboard.Standing(entry: .init(), votes: 0, reachedAt: start)]).isEmpty)
    }

    @Test func anEntryMustBeOwnVisibleToFriendsFreeAndWithinThreeAndAVoteNotOnOnesOwn() throws {
        let rules = ContestRules()
        try rules.checkEntry(ownPhoto: true, privacy: .friends, inAContest: false, myEntries: 2, contestOpen: true)
        try rules.checkEntry(ownPhoto: true, privacy: .public, inAContest: false, myEntries: 0, contestOpen: true)
        for (own, privacy, inAContest, entries, open, field) in [
            (false, PhotoPrivacy.public, false, 0, true, "photoId"), (true, .private, false, 0, true, "photoId"),
            (true, .public, true, 0, true, "photoId"), (true, .public, false, 3, true, "photoId"), (true, .public, false, 0, false, "contestId"),
        ] {
            #expect(throws: Problem.self) {
                try rules.checkEntry(ownPhoto: own, privacy: privacy, inAContest: inAContest, myEntries: entries, contestOpen: open)
            }
            do {
                try rules.checkEntry(ownPhoto: own, privacy: privacy, inAContest: inAContest, myEntries: entries, contestOpen: open)
            } catch {
                #expect(error.field == field)
            }
        }
        try rules.checkVote(ownPhoto: false)
        #expect(throws: Problem.self) { try rules.checkVote(ownPhoto: true) }
        #expect(throws: Problem.self) { try rules.checkVote(ownPhoto: false, contestOpen: false) }
    }

    @Test func aYearOfWeeklyContestsNeverRepeatsAThemeAndRunsSeasonalOnesInSeason() throws {
        let rotation = ContestRotation()
        #expect(rotation.pool.count >= 52)
        #expect(Set(rotation.pool.map(\.code)).count == rotation.pool.count)
        #expect(Set(rotation.pool.map(\.category)) == Set(ThemeCategory.allCases))
        #expect(rotation.pool.allSatisfy { ($0.category == .seasonal) == ($0.months != nil) })

        // three years of rotations, a contest starting when the last ends
        var lastRun: [String: LocalDate] = [:]
        var end: Date? = nil
        let now = instant("2026-11-27T12:00:00Z")
        var week = rotation.nextWeek(after: end, now: now)
        #expect(week == now..<now.addingTimeInterval(7 * 86_400))
        for _ in 0..<(52 * 3) {
            let day = LocalDate(utc: week.lowerBound)
            let theme = rotation.theme(startingOn: day, lastRun: lastRun)
            #expect(theme.inSeason(day), "\(theme.code) on \(day)")
            if let before = lastRun[theme.code] { #expect(before.days(until: day) >= 365, "\(theme.code) on \(before) and \(day)") }
            // the same day gives the same theme (two instances rotating at once agree)
            #expect(rotation.theme(startingOn: day, lastRun: lastRun) == theme)
            lastRun[theme.code] = day
            end = week.upperBound
            let next = rotation.nextWeek(after: end, now: week.lowerBound.addingTimeInterval(3_600))
            #expect(next.lowerBound == week.upperBound)
            week = next
        }
        // a server down for a month starts the next week when it comes back
        let back = week.lowerBound.addingTimeInterval(30 * 86_400)
        #expect(rotation.nextWeek(after: week.lowerBound, now: back).lowerBound == back)
    }

    @Test func theDirectoryTakesAShortPrefixLiterallyAndFriendsAreBounded() throws {
        let rules = FriendRules()
        #expect(try rules.searchPrefix("  Be ").get() == "be")
        for refused in ["b", " b ", String(repeating: "x", count: 41), "b\u{0}"] {
            guard case .failure(let problem) = rules.searchPrefix(refused) else {
                Issue.record("\(refused) searched")
                continue
            }
            #expect(problem.status == 422 && problem.errors.map(\.field) == ["query"])
        }
        #expect(try rules.searchPrefix(String(repeating: "x", count: 40)).get().count == 40)
        // a pattern's own wildcards match only themselves
        #expect(FriendRules.likePattern(startingWith: "b_") == "b\\_%")
        #expect(FriendRules.likePattern(startingWith: "50%") == "50\\%%")
        #expect(FriendRules.likePattern(startingWith: "a\\b") == "a\\\\b%")
        // the last friend and the last waiting request may still be asked for, not one more
        #expect(rules.requestProblem(friends: rules.mostFriends - 1, waiting: rules.mostWaitingRequests - 1) == nil)
        #expect(rules.requestProblem(friends: rules.mostFriends, waiting: 0)?.code == .limitReached)
        #expect(rules.requestProblem(friends: 0, waiting: rules.mostWaitingRequests)?.code == .limitReached)
        #expect(rules.acceptProblem(friends: rules.mostFriends - 1) == nil)
        #expect(rules.acceptProblem(friends: rules.mostFriends)?.status == 409)
    }

    @Test func aPhotosCopiesAreNoLargerThanTheirSizeAndKeepItsShape() {
        let rules = MomentPhotoRules()
        #expect(rules.sizeProblem(of: "display", longestSide: 1_600) == nil)
        #expect(rules.sizeProblem(of: "display", longestSide: 1_601)?.errors.map(\.field) == ["display"])
        #expect(rules.sizeProblem(of: "thumbnail", longestSide: 480) == nil)
        #expect(rules.sizeProblem(of: "thumbnail", longestSide: 481)?.errors.map(\.field) == ["thumbnail"])
        // a 4,032 × 3,024 photo made 320 wide rounds to 240 (or 239): the same shape
        let original = (width: 4_032, height: 3_024)
        #expect(rules.shapeProblem(of: "thumbnail", width: 320, height: 240, original: original) == nil)
        #expect(rules.shapeProblem(of: "thumbnail", width: 320, height: 239, original: original) == nil)
        #expect(rules.shapeProblem(of: "display", width: 1_080, height: 1_080, original: original)?.errors.map(\.field) == ["display"])
        #expect(rules.shapeProblem(of: "display", width: 810, height: 1_080, original: original) != nil, "turned on its side")
    }
}
