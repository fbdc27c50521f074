import Foundation
import PawpackCore
import Plot
import Vapor

/// The contest's pages: the week's contest (theme, time left, the live leaderboard, entering
/// one of my photos, the entries in my order with their votes), a contest that ended with its
/// kept leaderboard, and past contests with their winners. With the script the leaderboard is
/// read again every few seconds and after each vote.
struct ContestPages {
    let contests: ContestService
    var moments: MomentService { contests.moments }
    static let pageSize = 12

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.contest.pathComponents, use: current)
        routes.get(WebPath.contests.pathComponents, use: past)
        routes.get(WebPath.contest(Param.contest).pathComponents) { req in
            let user = try req.requireWebUser().user
            return try await page(req, contest: try await contests.contest(user, id: try req.idParameter(Param.contest), on: req.db))
        }
        routes.get(WebPath.leaderboard(Param.contest).pathComponents, use: leaderboardFragment)
        routes.post(WebPath.contestEntries(Param.contest).pathComponents, use: enter)
        routes.post(WebPath.entryVote(Param.entry).pathComponents, use: vote)
        routes.post(WebPath.withdrawEntry(Param.entry).pathComponents, use: withdraw)
    }

    @Sendable func current(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        guard let running = try await contests.running(user, on: req.db) else {
            return WebPages.page(
                req, title: "Contest",
                main: .group(
                    MomentViews.feedSwitch(current: WebPath.contest),
                    .div(
                        .class("empty"), .id("contest-none"), Icon.star.node(),
                        .p(.text("The next contest starts within the hour. Meanwhile, see who won before.")),
                        .a(.class("button"), .href(WebPath.contests), .text("Past contests")))))
        }
        return try await page(req, contest: running)
    }

    func page(_ req: Request, contest: ContestValue, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let now = contests.clock.now()
        let open = contest.isOpen(at: now)
        let offset = try Self.offset(req)
        let here = open ? WebPath.contest : WebPath.contest(contest.id)
        let board = try await contests.leaderboard(user, contest: contest.id, on: req.db)
        let entries = try await contests.entries(user, contest: contest.id, limit: Self.pageSize, offset: offset, on: req.db)
        let mine =
            open && contest.myEntries < contests.rules.entriesPerMember
            ? try await moments.ownMoments(user, limit: 24, after: nil, on: req.db).items.filter { !$0.inAContest && $0.privacy != .private }
            : []
        return WebPages.page(
            req, title: contest.themeTitle, status: status, errors: errors, back: open ? nil : (WebPath.contests, "Past contests"),
            main: .group(
                .if(open, MomentViews.feedSwitch(current: WebPath.contest)),
                .section(
                    .class("card contest-head"), .id("contest-head"),
                    .p(
                        .span(.class("badge"), .text(Self.category(contest.category))), .text(" "), .span(.class("muted"), .text(Self.dates(contest)))
                    ),
                    .p(
                        .class("contest-time"),
                        .strong(
                            .text(
                                open
                                    ? "Ends in \(Self.timeLeft(contest.endsAt.timeIntervalSince(now)))"
                                    : contest.isFinal ? "Ended: the results are final" : "Ended"))),
                    .p(
                        .text("\(contest.entryCount) \(contest.entryCount == 1 ? "entry" : "entries")"),
                        .if(open, .text(" · you entered \(contest.myEntries) of \(contests.rules.entriesPerMember)")))),
                leaderboard(contest, board, live: open),
                .if(open && !mine.isEmpty, enterForm(req, contest, photos: mine, errors: errors)),
                .section(
                    .id("entries"),
                    .h2(.text("Entries")),
                    .if(
                        entries.items.isEmpty,
                        .p(.class("muted"), .text(open ? "No entry yet: yours could be the first." : "No entries."))),
                    .div(
                        .class("moment-feed"), .id("contest-entries"),
                        .forEach(entries.items) { entry in
                            MomentViews.card(req, entry.photo, back: here, vote: entryVote(req, entry, open: open, back: here))
                        }),
                    .unwrap(entries.next) { MomentViews.more(here + "?offset=\($0)", into: "contest-entries") }),
                .p(.a(.class("button quiet"), .id("past-contests"), .href(WebPath.contests), Icon.star.node(), .text(" Past contests")))))
    }

    /// The top ten; on a running contest the script reads it again (`data-live`).
    private func leaderboard(_ contest: ContestValue, _ board: [StandingValue], live: Bool) -> Node<HTML.BodyContext> {
        .section(
            .class("card"), .id("leaderboard"),
            .if(live, .data(named: "live", value: WebPath.leaderboard(contest.id))),
            .h2(.text(contest.isFinal ? "Winners" : "Leaderboard")),
            .div(.id("leaderboard-list"), Self.standings(board)))
    }

    static func standings(_ board: [StandingValue]) -> Node<HTML.BodyContext> {
        .if(
            board.isEmpty, .p(.class("muted"), .text("No votes yet: the first vote puts a photo on the board.")),
            else: .ol(
                .class("leaderboard"),
                .forEach(board) { standing in
                    .li(
                        .id("standing-\(standing.entry)"),
                        .span(.class("rank"), .text("\(standing.rank)")),
                        .a(
                            .href(WebPath.moment(standing.photo.id)),
                            .attribute(named: "aria-label", value: "Open the photo of \(MomentViews.names(standing.photo.pets))"),
                            MomentViews.image(standing.photo, thumbnail: true)),
                        .span(
                            .class("standing-who"), .strong(.text(MomentViews.names(standing.photo.pets))),
                            .span(.class("muted"), .text(standing.photo.mine ? "yours" : standing.photo.owner.displayName))),
                        .span(.class("standing-votes"), .text("\(standing.votes) vote\(standing.votes == 1 ? "" : "s")")))
                }))
    }

    /// The leaderboard alone, for the contest page's script; no page.
    @Sendable func leaderboardFragment(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let board = try await contests.leaderboard(user, contest: try req.idParameter(Param.contest), on: req.db)
        let response = Response(status: .ok, body: .init(string: Self.standings(board).render()))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        response.headers.replaceOrAdd(name: "Content-Security-Policy", value: WebPages.contentSecurityPolicy)
        return response
    }

    private func enterForm(_ req: Request, _ contest: ContestValue, photos: [MomentValue], errors: FormErrors) -> Node<HTML.BodyContext> {
        .form(
            .class("card"), .id("contest-enter"), .action(WebPath.contestEntries(contest.id)), .method(.post), WebPages.csrfField(req),
            .h2(.text("Enter a photo")),
            .fieldset(
                .element(named: "legend", nodes: [.text("One of your photos")]),
                .div(
                    .class("photo-choices"),
                    .forEach(photos) { photo in
                        .label(
                            .class("photo-choice"),
                            .input(.type(.radio), .name("photo"), .value(photo.id.description), .id("enter-\(photo.id)"), .required(true)),
                            MomentViews.image(photo, thumbnail: true),
                            .span(.class("visually-hidden"), .text("\(MomentViews.names(photo.pets)), \(MomentViews.privacy(photo.privacy))")))
                    })),
            FormControls.toggle(
                "Show a friends-only photo to everyone while it is entered", name: "makePublic", checked: false,
                hint:
                    "A contest is for everyone: an entered photo is public until the contest ends or you withdraw it; one in the top ten stays public with the results until you make it private."
            ),
            WebPages.submit("Enter it", id: "enter-contest"))
    }

    private func entryVote(_ req: Request, _ entry: EntryValue, open: Bool, back: String) -> Node<HTML.BodyContext> {
        .if(
            entry.photo.mine || !open,
            .group(
                .span(.class("vote-count muted"), .text(MomentViews.count(entry.votes))),
                .if(
                    entry.photo.mine && open,
                    .form(
                        .class("inline"), .action(WebPath.withdrawEntry(entry.id)), .method(.post), WebPages.csrfField(req),
                        .button(.type(.submit), .class("button small quiet"), .id("withdraw-\(entry.id)"), .text("Withdraw"))))),
            else: MomentViews.voteButton(
                req, action: WebPath.entryVote(entry.id), kind: "entry", id: "entry-vote-\(entry.id)", votes: entry.votes,
                voted: entry.votedByMe, back: back))
    }

    // MARK: Past contests

    @Sendable func past(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await contests.past(
            user, limit: Self.pageSize, after: try ContestService.pastCursor(req.query[String.self, at: "cursor"]),
            on: req.db)
        return WebPages.page(
            req, title: "Past contests", back: (WebPath.contest, "This week's contest"),
            main: .group(
                .if(page.items.isEmpty, .div(.class("empty"), Icon.star.node(), .p(.text("No contest has ended yet.")))),
                .ul(
                    .class("plain-list past-contests"), .id("past-list"),
                    .forEach(page.items) { contest in
                        .li(
                            .class("card"), .id("contest-\(contest.id)"),
                            .h2(.a(.href(WebPath.contest(contest.id)), .text(contest.themeTitle))),
                            .p(
                                .class("muted"),
                                .text("\(Self.dates(contest)) · \(contest.entryCount) \(contest.entryCount == 1 ? "entry" : "entries")")),
                            .if(
                                contest.winners.isEmpty, .p(.class("muted"), .text("No votes, no winners.")),
                                else: Self.standings(contest.winners)))
                    }),
                .unwrap(page.next) { MomentViews.more(WebPath.contests + "?cursor=\($0)", into: "past-list") }))
    }

    // MARK: Entering and voting

    struct EnterForm: Content {
        var photo: String?
        var makePublic: String?
    }

    @Sendable func enter(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.contest)
        let form = try req.content.decode(EnterForm.self)
        do {
            guard let photo = form.photo.flatMap(Moments.Photo.ID.init(string:)) else { throw Problem.invalidField("photo", "choose a photo") }
            _ = try await contests.enter(user, contest: id, photo: photo, makePublic: form.makePublic == "on", on: req.db)
            return WebPages.redirect(WebPath.contest, flash: .entered)
        } catch let problem as Problem where problem.status == 422 || problem.status == 409 {
            let contest = try await contests.contest(user, id: id, on: req.db)
            return try await page(
                req, contest: contest, errors: FormErrors(problem.renamingFields(["photoId": "photo"])),
                status: HTTPResponseStatus(statusCode: problem.status))
        }
    }

    @Sendable func vote(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.entry)
        let form = try req.content.decode(MomentsPages.VoteForm.self)
        let entry =
            form.vote == "0" ? try await contests.unvote(user, entry: id, on: req.db) : try await contests.vote(user, entry: id, on: req.db)
        if req.asksForJSON { return try await VoteOutcome(votes: entry.votes, voted: entry.votedByMe).response(for: req) }
        return WebPages.redirect((WebPages.safeNext(form.back) ?? WebPath.contest) + "#moment-\(entry.photo.id)")
    }

    @Sendable func withdraw(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await contests.withdraw(user, entry: try req.idParameter(Param.entry), on: req.db)
        return WebPages.redirect(WebPath.contest, flash: .withdrawn)
    }

    // MARK: Words

    static func offset(_ req: Request) throws -> Int {
        guard let text = req.query[String.self, at: "offset"], !text.isEmpty else { return 0 }
        guard let offset = Int(text), (0...100_000).contains(offset) else { throw Problem.invalidField("offset", "is not a page of this list") }
        return offset
    }

    static func category(_ category: ThemeCategory) -> String {
        category.rawValue.prefix(1).uppercased() + category.rawValue.dropFirst()
    }

    /// "3 days 4 h", "5 h 10 min", "12 min".
    static func timeLeft(_ interval: TimeInterval) -> String {
        let minutes = max(0, Int(interval / 60))
        let (days, hours) = (minutes / 1_440, minutes % 1_440 / 60)
        if days > 0 { return "\(days) day\(days == 1 ? "" : "s")" + (hours > 0 ? " \(hours) h" : "") }
        return CareViews.duration(interval)
    }

    /// "12 Mar – 19 Mar 2026", in UTC as the contest's week is.
    static func dates(_ contest: ContestValue) -> String {
        let day = Date.FormatStyle(date: .abbreviated, time: .omitted, timeZone: TimeZone(identifier: "UTC")!)
        return "\(contest.startsAt.formatted(day)) – \(contest.endsAt.addingTimeInterval(-1).formatted(day))"
    }
}
