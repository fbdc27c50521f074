import Foundation
import PawpackCore
import Plot
import Vapor

/// Moments' pages: the friends and everyone feeds, my photos, posting a photo (the page's
/// canvas makes the display size and thumbnail), a photo's page with what its owner may change
/// and what others may do, and a pet's moments on its page. Every form works without
/// JavaScript; with it, votes are sent in the background and feeds load on as one scrolls.
struct MomentsPages {
    let moments: MomentService
    let contests: ContestService
    let uploadLimit: Int

    var pets: PetService { moments.pets }
    static let pageSize = 12

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.moments.pathComponents, use: friendsFeed)
        routes.get(WebPath.momentsEveryone.pathComponents, use: everyoneFeed)
        routes.get(WebPath.myMoments.pathComponents, use: mine)
        routes.get(WebPath.newMoment.pathComponents) { req in try await newPage(req) }
        // The original, the two copies the page made and the form around them.
        let body = ByteCount(value: uploadLimit + 5 * 1_048_576 + 256 * 1_024)
        routes.on(.POST, WebPath.newMoment.pathComponents, body: .collect(maxSize: body), use: post)
        routes.get(WebPath.moment(Param.moment).pathComponents) { req in try await photoPage(req) }
        routes.post(WebPath.momentAction(Param.moment, .vote).pathComponents, use: vote)
        routes.post(WebPath.momentAction(Param.moment, .edit).pathComponents, use: edit)
        routes.post(WebPath.momentAction(Param.moment, .delete).pathComponents, use: delete)
        routes.post(WebPath.momentAction(Param.moment, .report).pathComponents, use: report)
    }

    // MARK: Feeds

    @Sendable func friendsFeed(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await moments.friendsFeed(user, limit: Self.pageSize, after: try Self.cursor(req), on: req.db)
        return feedPage(
            req, title: "Moments", path: WebPath.moments, page: page,
            empty: .div(
                .class("empty"), .id("moments-empty"), Icon.camera.node(),
                .p(.text("Your photos and your friends' show here. Post one of your pet, or find your friends.")),
                .a(.class("button"), .href(WebPath.newMoment), .text("Post a photo")), .text(" "),
                .a(.class("button secondary"), .href(WebPath.friends), .text("Find friends"))))
    }

    @Sendable func everyoneFeed(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await moments.globalFeed(user, limit: Self.pageSize, after: try Self.cursor(req), on: req.db)
        return feedPage(
            req, title: "Everyone's moments", path: WebPath.momentsEveryone, page: page,
            empty: .div(
                .class("empty"), Icon.camera.node(), .p(.text("Nobody has shared a photo with everyone yet. Be the first.")),
                .a(.class("button"), .href(WebPath.newMoment), .text("Post a photo"))))
    }

    private func feedPage(
        _ req: Request, title: String, path: String, page: MomentPage, empty: Node<HTML.BodyContext>
    ) -> Response {
        WebPages.page(
            req, title: title,
            main: .group(
                MomentViews.feedSwitch(current: path),
                actions(),
                MomentViews.feed(req, page, path: path, back: path, empty: empty)))
    }

    private func actions() -> Node<HTML.BodyContext> {
        .p(
            .class("care-links"),
            .a(.class("button"), .id("post-moment"), .href(WebPath.newMoment), Icon.camera.node(), .text(" Post a photo")), .text(" "),
            .a(.class("button quiet"), .id("my-moments"), .href(WebPath.myMoments), .text("My photos")), .text(" "),
            .a(.class("button quiet"), .id("my-friends"), .href(WebPath.friends), Icon.person.node(), .text(" Friends")))
    }

    @Sendable func mine(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await moments.ownMoments(user, limit: Self.pageSize, after: try Self.cursor(req), on: req.db)
        return WebPages.page(
            req, title: "My photos", back: (WebPath.moments, "Moments"),
            main: MomentViews.feed(
                req, page, path: WebPath.myMoments, back: WebPath.myMoments,
                empty: .div(
                    .class("empty"), Icon.camera.node(), .p(.text("You have not posted a photo yet.")),
                    .a(.class("button"), .href(WebPath.newMoment), .text("Post a photo")))))
    }

    static func cursor(_ req: Request) throws -> ActivityCursor<Moments.Photo>? {
        guard let text = req.query[String.self, at: "after"], !text.isEmpty else { return nil }
        guard let cursor = try? ActivityCursor<Moments.Photo>(text: text) else { throw Problem.invalidField("after", "is not a page of this feed") }
        return cursor
    }

    // MARK: Posting

    struct PostForm: Content {
        var photo: File?
        /// The display size and thumbnail the page's canvas made (`moments.js`); absent without it.
        var display: File?
        var thumbnail: File?
        var pets: [String]?
        var caption: String?
        var privacy: String?
    }

    func newPage(_ req: Request, form: PostForm? = nil, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let mine = try await pets.listMine(user, on: req.db)
        let rules = moments.rules
        return WebPages.page(
            req, title: "Post a photo", status: status, errors: errors, back: (WebPath.moments, "Moments"),
            main: .if(
                mine.isEmpty,
                .div(
                    .class("empty"), Icon.paw.node(), .p(.text("Add your pet first: a photo in Moments shows one of your pets.")),
                    .a(.class("button"), .href(WebPath.newPet), .text("Add a pet"))),
                else: .form(
                    .class("card"), .id("moment-form"), .action(WebPath.newMoment), .method(.post), .enctype(.multipartData),
                    .data(named: "sizes", value: "\(rules.displayLongestSide),\(rules.thumbnailLongestSide)"),
                    WebPages.csrfField(req),
                    .div(
                        .class("field"),
                        .label(.for("photo"), .text("Photo (JPEG, PNG, WebP or HEIC)")),
                        .input(
                            .type(.file), .name("photo"), .id("photo"), .required(true),
                            .attribute(named: "accept", value: PetPages.photoTypes),
                            .data(named: "preview", value: "photo-preview")),
                        .small(.class("hint"), .text("Its place and camera details are removed. Phones get a smaller copy made here.")),
                        .img(.id("photo-preview"), .class("preview"), .alt("Preview of the chosen photo"))),
                    FormControls.chips(
                        "Who is in it", name: "pets", options: mine.map { ($0.profile.id.description, $0.profile.name) },
                        selected: Set(form?.pets ?? (mine.count == 1 ? [mine[0].profile.id.description] : []))),
                    FormControls.textarea(
                        "Caption (optional)", name: "caption", id: "caption", value: form?.caption, maxLength: rules.caption.maximumCharacters,
                        errors: errors),
                    FormControls.select(
                        "Who sees it", name: "privacy", options: PhotoPrivacy.allCases.map { ($0.rawValue, MomentViews.privacy($0)) },
                        selected: form?.privacy ?? PhotoPrivacy.friends.rawValue,
                        hint: "Friends by default. Only me: you and the pets' guardians.", errors: errors),
                    WebPages.submit("Post", id: "moment-submit", busy: "Posting…"))))
    }

    @Sendable func post(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(PostForm.self)
        do {
            guard let photo = form.photo, photo.data.readableBytes > 0 else { throw Problem.invalidField("photo", "choose a photo to post") }
            guard let privacy = PhotoPrivacy(rawValue: form.privacy ?? PhotoPrivacy.friends.rawValue) else {
                throw Problem.invalidField("privacy", "must be everyone, friends or only me")
            }
            let petIDs = try (form.pets ?? []).map { text in
                guard let id = Pet.ID(string: text) else { throw Problem.invalidField("pets", "choose your pets in it") }
                return id
            }
            // An empty part is a copy the page did not make: the original is shown instead.
            func copy(_ file: File?) -> Data? { file.flatMap { $0.data.readableBytes > 0 ? Data(buffer: $0.data) : nil } }
            let moment = try await moments.post(
                user,
                MomentUpload(
                    original: Data(buffer: photo.data), display: copy(form.display), thumbnail: copy(form.thumbnail),
                    caption: form.caption, privacy: privacy, pets: petIDs),
                on: req.db)
            return WebPages.redirect(WebPath.moment(moment.id), flash: .momentPosted)
        } catch let problem as Problem where problem.status == 422 || problem.status == 413 || problem.status == 415 {
            return try await newPage(req, form: form, errors: FormErrors(problem), status: HTTPResponseStatus(statusCode: problem.status))
        }
    }

    // MARK: A photo

    func photoPage(_ req: Request, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let photo = try await moments.moment(user, id: try req.idParameter(Param.moment), on: req.db)
        let here = WebPath.moment(photo.id)
        let running = photo.mine ? try await contests.running(user, on: req.db) : nil
        return WebPages.page(
            req, title: photo.mine ? "Your photo" : "\(photo.owner.displayName)'s photo", status: status, errors: errors,
            back: (WebPath.moments, "Moments"),
            main: .group(
                MomentViews.card(req, photo, back: here, linked: false),
                .if(
                    photo.mine,
                    .group(
                        .p(.class("muted"), .id("moment-audience"), .text(MomentViews.audience(photo))),
                        contestSection(req, photo, running: running),
                        editForm(req, photo, errors: errors),
                        .section(
                            .class("card"),
                            DogViews.confirm(
                                req, summary: "Delete this photo", question: "It goes for good, with its votes.",
                                action: WebPath.momentAction(photo.id, .delete), button: "Yes, delete", id: "delete-moment"))),
                    else: reportForm(req, photo))))
    }

    /// Enter the contest running now (a friends-only photo only once its owner agrees that it is
    /// public while entered), or withdraw it.
    private func contestSection(_ req: Request, _ photo: MomentValue, running: ContestValue?) -> Node<HTML.BodyContext> {
        .unwrap(running) { contest in
            .section(
                .class("card"), .id("moment-contest"),
                .h2(.text("This week's contest: \(contest.themeTitle)")),
                .unwrap(
                    photo.entry,
                    { entry in
                        .group(
                            .p(.text("This photo is entered. "), .a(.href(WebPath.contest), .text("See the contest"))),
                            .form(
                                .class("inline"), .action(WebPath.withdrawEntry(entry)), .method(.post), WebPages.csrfField(req),
                                .button(.type(.submit), .class("button secondary"), .id("withdraw-entry"), .text("Withdraw it"))))
                    },
                    else: .if(
                        photo.inAContest,
                        .p(.class("muted"), .text("This photo was in an earlier contest: a photo enters one contest only.")),
                        else: .if(
                            photo.privacy == .private,
                            .p(.class("muted"), .text("Only you see this photo: make it visible to friends or everyone to enter it.")),
                            else: .if(
                                contest.myEntries >= contests.rules.entriesPerMember,
                                .p(
                                    .class("muted"),
                                    .text("You have entered \(contest.myEntries) photos, as many as a contest takes from one member.")),
                                else: .form(
                                    .action(WebPath.contestEntries(contest.id)), .method(.post), WebPages.csrfField(req),
                                    .input(.type(.hidden), .name("photo"), .value(photo.id.description)),
                                    .if(
                                        photo.privacy == .friends,
                                        FormControls.toggle(
                                            "Show it to everyone while it is entered", name: "makePublic", checked: false,
                                            hint:
                                                "A contest is for everyone: entered, this friends-only photo is public until the contest ends or you withdraw it; in the top ten it stays public with the results until you make it private."
                                        )),
                                    WebPages.submit("Enter it", id: "enter-contest")))))))
        }
    }

    private func editForm(_ req: Request, _ photo: MomentValue, errors: FormErrors) -> Node<HTML.BodyContext> {
        .form(
            .class("card"), .id("moment-edit"), .action(WebPath.momentAction(photo.id, .edit)), .method(.post),
            WebPages.csrfField(req),
            .h2(.text("Caption and who sees it")),
            FormControls.textarea(
                "Caption (optional)", name: "caption", id: "caption", value: photo.caption,
                maxLength: moments.rules.caption.maximumCharacters, errors: errors),
            FormControls.select(
                "Who sees it", name: "privacy", options: PhotoPrivacy.allCases.map { ($0.rawValue, MomentViews.privacy($0)) },
                selected: photo.privacy.rawValue, errors: errors),
            WebPages.submit("Save", id: "moment-save"))
    }

    private func reportForm(_ req: Request, _ photo: MomentValue) -> Node<HTML.BodyContext> {
        .section(
            .class("card"), .id("moment-report"),
            .element(
                named: "details",
                nodes: [
                    .class("confirm"),
                    .element(named: "summary", nodes: [.id("report-open"), .text("Report this photo")]),
                    .p(.class("muted"), .text("The moderators see your report; the member who posted it never learns who sent it.")),
                    .form(
                        .action(WebPath.momentAction(photo.id, .report)), .method(.post), WebPages.csrfField(req),
                        FormControls.select(
                            "Why", name: "reason", options: MomentReportReason.allCases.map { ($0.rawValue, Self.words($0)) },
                            selected: MomentReportReason.notAPet.rawValue),
                        FormControls.textarea("More (optional)", name: "text", id: "report-text", value: nil, maxLength: 1_000),
                        WebPages.submit("Send the report", id: "report-submit")),
                ]))
    }

    static func words(_ reason: MomentReportReason) -> String {
        switch reason {
        case .notAPet: "Not a pet photo"
        case .spam: "Spam"
        case .nudity: "Nudity"
        case .violence: "Violence"
        case .harassment: "Harassment"
        case .animalWelfare: "An animal at risk"
        case .other: "Something else"
        }
    }

    struct VoteForm: Content {
        /// "1" to vote, "0" to take the vote back: what the button said when tapped.
        var vote: String?
        var back: String?
    }

    /// A vote from its button: the page back (without the script) or the count (with it).
    @Sendable func vote(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.moment)
        let form = try req.content.decode(VoteForm.self)
        let photo =
            form.vote == "0" ? try await moments.unvote(user, photo: id, on: req.db) : try await moments.vote(user, photo: id, on: req.db)
        if req.asksForJSON { return try await VoteOutcome(votes: photo.votes, voted: photo.votedByMe).response(for: req) }
        return WebPages.redirect((WebPages.safeNext(form.back) ?? WebPath.moment(id)) + "#moment-\(id)")
    }

    struct EditForm: Content {
        var caption: String?
        var privacy: String?
    }

    @Sendable func edit(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.moment)
        let form = try req.content.decode(EditForm.self)
        do {
            guard let privacy = PhotoPrivacy(rawValue: form.privacy ?? "") else {
                throw Problem.invalidField("privacy", "must be everyone, friends or only me")
            }
            _ = try await moments.update(user, id: id, caption: form.caption ?? "", privacy: privacy, on: req.db)
            return WebPages.redirect(WebPath.moment(id), flash: .momentSaved)
        } catch let problem as Problem where problem.status == 422 {
            return try await photoPage(req, errors: FormErrors(problem), status: .unprocessableEntity)
        }
    }

    @Sendable func delete(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await moments.delete(user, id: try req.idParameter(Param.moment), on: req.db)
        return WebPages.redirect(WebPath.myMoments, flash: .momentDeleted)
    }

    struct ReportForm: Content {
        var reason: String?
        var text: String?
    }

    @Sendable func report(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.moment)
        let form = try req.content.decode(ReportForm.self)
        guard let reason = MomentReportReason(rawValue: form.reason ?? "") else { throw Problem.invalidField("reason", "choose a reason") }
        try await moments.report(user, photo: id, reason: reason, text: form.text, on: req.db)
        return WebPages.redirect(WebPath.moment(id), flash: .momentReported)
    }

    // MARK: A pet's moments

    /// On a pet's page: the latest photos it is in that the viewer may see.
    static func petSection(_ req: Request, _ context: PetPageContext, services: PawpackServices) async throws -> PetPagePart? {
        let user = try req.requireWebUser().user
        // The newest six the viewer may see: a page the rule thinned (friends-only or private
        // photos) leads on to the next, up to sixty photos read, so that older public ones show.
        var items: [MomentValue] = []
        var cursor: ActivityCursor<Moments.Photo>?
        for _ in 0..<10 {
            let page = try await services.moments.petMoments(user, pet: context.pet, limit: 6, after: cursor, on: req.db)
            items += page.items
            guard items.count < 6, let next = page.next else { break }
            cursor = next
        }
        guard !items.isEmpty else { return nil }
        return PetPagePart(
            section: .section(
                .class("card"), .id("pet-moments"),
                .h2(.text("Moments")),
                .ul(
                    .class("photo-grid moment-grid"),
                    .forEach(items.prefix(6)) { photo in
                        .li(
                            .a(
                                .href(WebPath.moment(photo.id)),
                                .attribute(named: "aria-label", value: "Open the photo of \(MomentViews.names(photo.pets))"),
                                MomentViews.image(photo, thumbnail: true)))
                    })))
    }
}

/// A vote's outcome, for the page's script.
struct VoteOutcome: Content {
    var votes: Int
    var voted: Bool

    func response(for req: Request) async throws -> Response {
        let response = try await encodeResponse(for: req)
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }
}
