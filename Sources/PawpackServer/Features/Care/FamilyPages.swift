import Foundation
import PawpackCore
import Plot
import Vapor

/// The family pages: the member's families with their code, members and pets, making one,
/// joining one with its code, the owner's answers to requests, roles, handing over, leaving.
struct FamilyPages {
    let families: FamilyService

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.families.pathComponents) { req in try await list(req) }
        routes.post(WebPath.families.pathComponents, use: create)
        routes.post(WebPath.joinFamily.pathComponents, use: join)
        routes.get(WebPath.family(Param.family).pathComponents) { req in try await page(req) }
        for action in [FamilyAction.code, .rename, .delete, .leave, .offer, .takeOver, .declineOffer] {
            routes.post(WebPath.familyAction(Param.family, action).pathComponents) { req in try await act(req, action) }
        }
        for action in [FamilyAction.viewer, .member, .remove] {
            routes.post(WebPath.familyMember(Param.family, Param.member, action).pathComponents) { req in try await actOnMember(req, action) }
        }
        for accept in [true, false] {
            routes.post(WebPath.answerJoinRequest(Param.joinRequest, accept: accept).pathComponents) { req in try await answer(req, accept: accept) }
        }
    }

    // MARK: The list

    func list(_ req: Request, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let mine = try await families.families(of: user, on: req.db)
        let requests = try await families.joinRequests(for: user, on: req.db)
        let incoming = requests.filter(\.incoming)
        let outgoing = requests.filter { !$0.incoming }
        return WebPages.page(
            req, title: "Family", status: status, errors: errors, back: (WebPath.care, "Care"),
            main: .group(
                .p(
                    .class("muted"),
                    .text(
                        "A family shares its pets' care: everyone in it sees who fed which pet and when, logs feeds and hears when food runs low.")),
                .if(
                    !incoming.isEmpty,
                    .section(
                        .class("card"), .id("join-requests"), .h2(.text("Asking to join")),
                        .ul(.class("plain-list"), .forEach(incoming) { Self.requestItem(req, $0) }))),
                .if(
                    mine.isEmpty,
                    .div(.class("empty"), Icon.person.node(), .p(.text("You are in no family yet. Make one, or join one with its code.")))),
                .ul(
                    .class("plain-list family-list"),
                    .forEach(mine) { family in
                        .li(
                            .class("card"), .id("family-\(family.id)"),
                            .h2(.a(.href(WebPath.family(family.id)), .text(family.name))),
                            .p(
                                .class("muted"),
                                .text(
                                    "\(Self.role(family.myRole)) · \(family.members.count) member\(family.members.count == 1 ? "" : "s") · \(family.pets.count) pet\(family.pets.count == 1 ? "" : "s") shared"
                                )))
                    }),
                .if(
                    !outgoing.isEmpty,
                    .section(
                        .class("card"), .id("my-join-requests"), .h2(.text("Waiting for an answer")),
                        .ul(
                            .class("plain-list"),
                            .forEach(outgoing) { request in
                                .li(
                                    .text("You asked to join \(request.familyName). "),
                                    .form(
                                        .class("inline"), .action(WebPath.answerJoinRequest(request.id, accept: false)), .method(.post),
                                        WebPages.csrfField(req),
                                        .button(.type(.submit), .class("button quiet small"), .id("withdraw-\(request.id)"), .text("Withdraw"))))
                            }))),
                .form(
                    .class("card"), .id("join-form"), .action(WebPath.joinFamily), .method(.post), WebPages.csrfField(req),
                    .h2(.text("Join a family")),
                    WebPages.field(
                        "Invite code", name: "code", autocomplete: "off", hint: "Six digits, from the family's owner.",
                        limits: .init(maxLength: 11), errors: errors),
                    WebPages.submit("Ask to join", id: "join")),
                .form(
                    .class("card"), .id("create-family"), .action(WebPath.families), .method(.post), WebPages.csrfField(req),
                    .h2(.text("Make a family")),
                    WebPages.field(
                        "Name", name: "name", autocomplete: "off", hint: "Such as \"The Lindqvists\".", limits: .init(maxLength: 40), errors: errors),
                    WebPages.field(
                        "Time zone", name: "timeZone", autocomplete: "off", required: false,
                        hint: "Where its pets' days begin at midnight, such as Europe/Oslo. Empty: your browser's, or UTC.",
                        limits: .init(maxLength: 64), errors: errors),
                    WebPages.browserTimeZoneField,
                    WebPages.submit("Make the family", id: "create"))
            ))
    }

    static func requestItem(_ req: Request, _ request: FamilyJoinRequestValue) -> Node<HTML.ListContext> {
        .li(
            .id("join-request-\(request.id)"),
            .strong(.text(request.displayName)), .text(" (@\(request.username)) asks to join \(request.familyName). "),
            .form(
                .class("inline"), .action(WebPath.answerJoinRequest(request.id, accept: true)), .method(.post), WebPages.csrfField(req),
                .button(.type(.submit), .name("role"), .value("member"), .class("button small"), .id("accept-\(request.id)"), .text("Accept")),
                .text(" "),
                .button(.type(.submit), .name("role"), .value("viewer"), .class("button secondary small"), .text("As a viewer"))),
            .text(" "),
            .form(
                .class("inline"), .action(WebPath.answerJoinRequest(request.id, accept: false)), .method(.post), WebPages.csrfField(req),
                .button(.type(.submit), .class("button quiet small"), .id("decline-\(request.id)"), .text("Decline"))))
    }

    static func role(_ role: FamilyRole) -> String {
        switch role {
        case .owner: "Owner"
        case .member: "Member"
        case .viewer: "Viewer (reads only)"
        }
    }

    // MARK: One family

    func page(_ req: Request, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = user.username
        let family = try await families.family(user, id: try req.idParameter(Param.family), on: req.db)
        let owner = family.myRole == .owner
        return WebPages.page(
            req, title: family.name, status: status, errors: errors, back: (WebPath.families, "Family"),
            main: .group(
                .p(.class("muted"), .text("\(Self.role(family.myRole)) · its days follow \(family.timeZone)")),
                .if(
                    family.pendingOwnerUsername == me,
                    .section(
                        .class("card notice"), .id("offer"),
                        .p(.text("You are offered the ownership of \(family.name).")),
                        .form(
                            .class("inline"), .action(WebPath.familyAction(family.id, .takeOver)), .method(.post), WebPages.csrfField(req),
                            .button(.type(.submit), .class("button"), .id("take-over"), .text("Take it over"))),
                        .text(" "),
                        .form(
                            .class("inline"), .action(WebPath.familyAction(family.id, .declineOffer)), .method(.post), WebPages.csrfField(req),
                            .button(.type(.submit), .class("button secondary"), .id("decline-offer"), .text("Decline"))))),
                .if(
                    owner,
                    .section(
                        .class("card"), .id("invite"),
                        .h2(.text("Invite code")),
                        .unwrap(
                            family.inviteCode,
                            { code in
                                .group(
                                    .p(.class("invite-code"), .id("invite-code"), .text(code)),
                                    .p(
                                        .class("muted"), .text("Good until "),
                                        .unwrap(family.inviteExpiresAt) { TimeViews.time($0, style: .full) },
                                        .text(". Whoever enters it asks to join; you accept or decline.")))
                            }, else: .p(.class("muted"), .text("No live code. Make one and give it to your household."))),
                        .form(
                            .action(WebPath.familyAction(family.id, .code)), .method(.post), WebPages.csrfField(req),
                            .button(
                                .type(.submit), .class(family.inviteCode == nil ? "button" : "button secondary"), .id("new-code"),
                                .text(family.inviteCode == nil ? "Make a code" : "Make a new code"))))),
                .section(
                    .class("card"), .id("members"),
                    .h2(.text("Members")),
                    .ul(
                        .class("plain-list member-list"),
                        .forEach(family.members) { member in
                            .li(
                                .id("member-\(member.username)"),
                                .strong(.text(member.displayName)), .text(" @\(member.username) · \(Self.role(member.role))"),
                                .if(
                                    family.pendingOwnerUsername == member.username,
                                    .span(.class("badge"), .text("offered the family"))),
                                .if(
                                    owner && member.role != .owner,
                                    .div(
                                        .class("row-actions"),
                                        .form(
                                            .class("inline"),
                                            .action(WebPath.familyMember(family.id, member.user, member.role == .viewer ? .member : .viewer)),
                                            .method(.post), WebPages.csrfField(req),
                                            .button(
                                                .type(.submit), .class("button quiet small"),
                                                .text(member.role == .viewer ? "Let them log" : "Make a viewer"))),
                                        .form(
                                            .class("inline"), .action(WebPath.familyAction(family.id, .offer)), .method(.post),
                                            WebPages.csrfField(req), .input(.type(.hidden), .name("username"), .value(member.username)),
                                            .button(.type(.submit), .class("button quiet small"), .text("Offer the family"))),
                                        DogViews.confirm(
                                            req, summary: "Remove", question: "Remove \(member.displayName)? Their pets leave the family with them.",
                                            action: WebPath.familyMember(family.id, member.user, .remove), button: "Remove \(member.displayName)",
                                            id: "remove-\(member.username)"))))
                        })),
                .section(
                    .class("card"), .id("family-pets"),
                    .h2(.text("Pets shared")),
                    .if(
                        family.pets.isEmpty,
                        .p(.class("muted"), .text("No pet yet. A pet's owner shares it from its Care page."))),
                    .ul(
                        .class("plain-list"),
                        .forEach(family.pets) { pet in
                            .li(.a(.href(WebPath.carePet(pet.pet)), .text(pet.name)), .text(" · \(pet.ownerDisplayName)'s"))
                        })),
                .if(
                    owner,
                    .form(
                        .class("card"), .action(WebPath.familyAction(family.id, .rename)), .method(.post), WebPages.csrfField(req),
                        .h2(.text("Name and time zone")),
                        WebPages.field("Name", name: "name", value: family.name, autocomplete: "off", limits: .init(maxLength: 40), errors: errors),
                        WebPages.field(
                            "Time zone", name: "timeZone", value: family.timeZone, autocomplete: "off", limits: .init(maxLength: 64), errors: errors),
                        WebPages.submit("Save", id: "rename"))),
                .if(
                    owner,
                    DogViews.confirm(
                        req, summary: "Delete the family", question: "Its pets stay with their owners, no longer shared.",
                        action: WebPath.familyAction(family.id, .delete), button: "Delete \(family.name)", id: "delete-family"),
                    else: DogViews.confirm(
                        req, summary: "Leave the family", question: "Your pets leave it with you; you no longer see its pets.",
                        action: WebPath.familyAction(family.id, .leave), button: "Leave \(family.name)", id: "leave-family"))
            ))
    }

    // MARK: Forms

    @Sendable func create(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct CreateForm: Content {
            var name: String?
            var timeZone: String?
            var browserTimeZone: String?
        }
        let form = try req.content.decode(CreateForm.self)
        let typed = form.timeZone?.trimmingCharacters(in: .whitespaces) ?? ""
        // Untyped: this browser's, else the member's own, else UTC.
        let fallback = WebPages.browserTimeZone(form.browserTimeZone) ?? user.timeZone ?? "UTC"
        do {
            let family = try await families.create(
                user, name: form.name ?? "", timeZone: typed.isEmpty ? fallback : typed, on: req.db)
            return WebPages.redirect(WebPath.family(family.id), flash: .familyCreated)
        } catch let problem as Problem where problem.status == 422 || problem.code == .limitReached {
            return try await list(req, errors: FormErrors(problem), status: .init(statusCode: problem.status))
        }
    }

    @Sendable func join(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct JoinForm: Content { var code: String? }
        do {
            _ = try await families.askToJoin(
                user, code: try req.content.decode(JoinForm.self).code ?? "", address: req.clientAddress, on: req.db)
            return WebPages.redirect(WebPath.families, flash: .joinAsked)
        } catch let problem as Problem where problem.field == "code" {
            return try await list(req, errors: FormErrors(problem), status: .init(statusCode: problem.status))
        }
    }

    func act(_ req: Request, _ action: FamilyAction) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.family)
        switch action {
        case .code:
            _ = try await families.newInviteCode(user, family: id, on: req.db)
        case .rename:
            struct RenameForm: Content {
                var name: String?
                var timeZone: String?
            }
            let form = try req.content.decode(RenameForm.self)
            do {
                _ = try await families.update(user, family: id, name: form.name, timeZone: form.timeZone, on: req.db)
            } catch let problem as Problem where problem.status == 422 {
                return try await page(req, errors: FormErrors(problem), status: .unprocessableEntity)
            }
        case .delete:
            try await families.delete(user, family: id, on: req.db)
            return WebPages.redirect(WebPath.families, flash: .familyDeleted)
        case .leave:
            try await families.remove(user, family: id, username: user.username, on: req.db)
            return WebPages.redirect(WebPath.families, flash: .familyLeft)
        case .offer:
            struct OfferForm: Content { var username: String? }
            try await families.offer(user, family: id, to: try req.content.decode(OfferForm.self).username ?? "", on: req.db)
            return WebPages.redirect(WebPath.family(id), flash: .familyOffered)
        case .takeOver, .declineOffer:
            try await families.answerTransfer(user, family: id, accept: action == .takeOver, on: req.db)
        case .viewer, .member, .remove:
            throw Problem.notFound
        }
        return WebPages.redirect(WebPath.family(id))
    }

    func actOnMember(_ req: Request, _ action: FamilyAction) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.family)
        let member = try req.idParameter(Param.member)
        guard let username = try await UserRecord.find(member, on: req.db)?.username else { throw Problem.notFound }
        switch action {
        case .viewer, .member:
            try await families.setRole(user, family: id, username: username, role: action == .viewer ? .viewer : .member, on: req.db)
        case .remove: try await families.remove(user, family: id, username: username, on: req.db)
        default: throw Problem.notFound
        }
        return WebPages.redirect(WebPath.family(id))
    }

    func answer(_ req: Request, accept: Bool) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct AnswerForm: Content { var role: String? }
        let role = FamilyRole(rawValue: (try? req.content.decode(AnswerForm.self).role) ?? nil ?? "") ?? .member
        try await families.answer(user, request: try req.idParameter(Param.joinRequest), accept: accept, role: role, on: req.db)
        return WebPages.redirect(WebPages.cameFrom(req) ?? WebPath.families, flash: accept ? .joinAccepted : nil)
    }
}
