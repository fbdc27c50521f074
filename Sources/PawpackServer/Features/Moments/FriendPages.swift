import Foundation
import PawpackCore
import Plot
import Vapor

/// Friends in the web app: the member search (by the start of a username or name), requests
/// both ways with their answers, the friends by username with Remove, and whether others may
/// find me. Every action is a plain form.
struct FriendPages {
    let friends: FriendService
    static let pageSize = 20

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.friends.pathComponents) { req in try await page(req) }
        routes.post(WebPath.friendRequests.pathComponents, use: send)
        for answer in FriendAnswer.allCases {
            routes.post(WebPath.answerFriendRequest(Param.friendRequest, answer).pathComponents) { req in try await self.answer(req, answer) }
        }
        routes.post(WebPath.removeFriend.pathComponents, use: remove)
        routes.post(WebPath.findable.pathComponents, use: setFindable)
    }

    func page(_ req: Request, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let query = req.query[String.self, at: "query"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        var found: (items: [MemberSearchValue], next: String?)?
        var errors = errors
        if !query.isEmpty {
            do {
                found = try await friends.search(user, query: query, limit: Self.pageSize, after: req.query[String.self, at: "after"], on: req.db)
            } catch let problem as Problem where problem.status == 422 || problem.status == 429 {
                // Said beside the search field: too short, or too many searches this minute.
                errors = FormErrors(problem)
            }
        }
        // Any number of members may ask: a page of them, and where the next starts.
        let requestsAfter = try Self.requestsCursor(req)
        let incoming = try await friends.requests(user, incoming: true, limit: Self.pageSize, after: requestsAfter, on: req.db)
        let asking = incoming.next == nil && requestsAfter == nil ? incoming.items.count : try await friends.incomingCount(user, on: req.db)
        let outgoing = try await friends.requests(user, incoming: false, limit: friends.rules.mostWaitingRequests, on: req.db).items
        let list = try await friends.friends(user, limit: Self.pageSize, after: req.query[String.self, at: "friendsAfter"], on: req.db)
        let findable = try await friends.findable(user, on: req.db)
        return WebPages.page(
            req, title: "Friends", status: status, errors: errors, back: (WebPath.moments, "Moments"),
            main: .group(
                // The results after the search's form, not in it: a form in a form is no form.
                .section(
                    .class("card"), .id("friend-search"),
                    .form(
                        .action(WebPath.friends), .method(.get),
                        WebPages.field(
                            "Find members", name: "query", type: .search, value: query, autocomplete: "off", required: false,
                            hint: "The first letters of a username or a name.", limits: .init(maxLength: friends.rules.longestQuery),
                            errors: errors),
                        WebPages.submit("Search", id: "search-submit")),
                    .unwrap(found) { found in
                        .group(
                            .if(found.items.isEmpty, .p(.class("muted"), .id("search-none"), .text("Nobody found by “\(query)”."))),
                            .ul(.class("plain-list member-list"), .id("search-results"), .forEach(found.items) { result(req, $0, query: query) }),
                            .unwrap(found.next) { next in
                                .a(
                                    .class("button quiet"), .id("search-more"),
                                    .href(WebPath.friends + "?query=\(Self.encoded(query))&after=\(Self.encoded(next))"), .text("More"))
                            })
                    }),
                .if(
                    !incoming.items.isEmpty,
                    .section(
                        .class("card"), .id("requests-in"),
                        .h2(.text(asking == 1 ? "Asking to be your friend" : "\(asking) asking to be your friend")),
                        .ul(.class("plain-list member-list"), .forEach(incoming.items) { Self.requestItem(req, $0) }),
                        .unwrap(incoming.next) { next in
                            .a(
                                .class("button quiet"), .id("requests-more"), .href(WebPath.friends + "?requestsAfter=\(next.text)#requests-in"),
                                .text("More requests"))
                        })),
                .if(
                    !outgoing.isEmpty,
                    .section(
                        .class("card"), .id("requests-out"),
                        .h2(.text("You asked")),
                        .ul(.class("plain-list member-list"), .forEach(outgoing) { Self.requestItem(req, $0) }))),
                .section(
                    .class("card"), .id("friends-list"),
                    .h2(.text("Friends")),
                    .if(list.items.isEmpty, .p(.class("muted"), .text("No friends yet: search for them by name above."))),
                    .ul(
                        .class("plain-list member-list"),
                        .forEach(list.items) { friend in
                            .li(
                                .id("friend-\(friend.member.username)"),
                                Self.who(friend.member),
                                DogViews.confirm(
                                    req, summary: "Remove", question: "Remove \(friend.member.displayName) from your friends?",
                                    action: WebPath.removeFriend, button: "Yes, remove", id: "remove-\(friend.member.username)",
                                    hiddenFields: [("username", friend.member.username)]))
                        }),
                    .unwrap(list.next) { next in
                        .a(.class("button quiet"), .href(WebPath.friends + "?friendsAfter=\(Self.encoded(next))"), .text("More friends"))
                    }),
                .form(
                    .class("card"), .id("findable-form"), .action(WebPath.findable), .method(.post), WebPages.csrfField(req),
                    FormControls.toggle(
                        "Others can find me by my name", name: "findable", checked: findable,
                        hint: "Off: only members you ask can become your friends."),
                    WebPages.submit("Save", id: "findable-submit"))))
    }

    private static func who(_ member: MemberNameValue) -> Node<HTML.BodyContext> {
        .span(.class("member"), .strong(.text(member.displayName)), .span(.class("muted"), .text(" @\(member.username)")))
    }

    private func result(_ req: Request, _ found: MemberSearchValue, query: String) -> Node<HTML.ListContext> {
        .li(
            .id("found-\(found.member.username)"),
            Self.who(found.member),
            Self.standing(req, found, back: WebPath.friends + "?query=\(Self.encoded(query))"))
    }

    private static func standing(_ req: Request, _ found: MemberSearchValue, back: String) -> Node<HTML.BodyContext> {
        switch found.friendship {
        case .friends: return .span(.class("badge state-fed"), .text("Friends"))
        case .requested: return .span(.class("badge"), .text("Asked"))
        case .askedMe: return .a(.class("button small secondary"), .href("#requests-in"), .text("Answer"))
        case .none:
            return .form(
                .class("inline"), .action(WebPath.friendRequests), .method(.post), WebPages.csrfField(req),
                .input(.type(.hidden), .name("username"), .value(found.member.username)),
                .input(.type(.hidden), .name("back"), .value(back)),
                .button(.type(.submit), .class("button small"), .id("add-\(found.member.username)"), .text("Add friend")))
        }
    }

    /// A request with its answers: Accept and Reject to the member asked, Cancel to the asker.
    static func requestItem(_ req: Request, _ request: FriendRequestValue) -> Node<HTML.ListContext> {
        .li(
            .id("request-\(request.id)"),
            who(request.member),
            .div(
                .class("actions"),
                .forEach(request.incoming ? [FriendAnswer.accept, .reject] : [.cancel]) { answer in
                    .form(
                        .class("inline"), .action(WebPath.answerFriendRequest(request.id, answer)), .method(.post), WebPages.csrfField(req),
                        .button(
                            .type(.submit), .class(answer == .accept ? "button small" : "button small secondary"),
                            .id("\(answer.rawValue)-\(request.member.username)"),
                            .text(answer == .accept ? "Accept" : answer == .reject ? "Reject" : "Cancel")))
                }))
    }

    struct SendForm: Content {
        var username: String?
        var back: String?
    }

    @Sendable func send(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(SendForm.self)
        let outcome = try await friends.send(user, to: form.username ?? "", on: req.db)
        let back = WebPages.safeNext(form.back) ?? WebPath.friends
        switch outcome {
        case .requested: return WebPages.redirect(back, flash: .friendAsked)
        case .friends: return WebPages.redirect(back, flash: .friendsNow)
        }
    }

    private func answer(_ req: Request, _ answer: FriendAnswer) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.friendRequest)
        switch answer {
        case .accept:
            _ = try await friends.accept(user, request: id, on: req.db)
            return WebPages.redirect(WebPath.friends, flash: .friendsNow)
        case .reject:
            try await friends.reject(user, request: id, on: req.db)
            return WebPages.redirect(WebPath.friends, flash: .friendRejected)
        case .cancel:
            try await friends.cancel(user, request: id, on: req.db)
            return WebPages.redirect(WebPath.friends, flash: .friendCancelled)
        }
    }

    struct RemoveForm: Content {
        var username: String?
    }

    @Sendable func remove(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(RemoveForm.self)
        try await friends.remove(user, username: form.username ?? "", on: req.db)
        return WebPages.redirect(WebPath.friends, flash: .friendRemoved)
    }

    struct FindableForm: Content {
        var findable: String?
    }

    @Sendable func setFindable(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(FindableForm.self)
        try await friends.setFindable(user, form.findable == "on", on: req.db)
        return WebPages.redirect(WebPath.friends, flash: .momentSaved)
    }

    /// Where the page of requests asked for starts (`requestsAfter`, as the "More" link gave it).
    static func requestsCursor(_ req: Request) throws -> ActivityCursor<Moments.FriendRequest>? {
        guard let text = req.query[String.self, at: "requestsAfter"], !text.isEmpty else { return nil }
        guard let cursor = try? ActivityCursor<Moments.FriendRequest>(text: text) else {
            throw Problem.invalidField("requestsAfter", "is not a page of your requests")
        }
        return cursor
    }

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
