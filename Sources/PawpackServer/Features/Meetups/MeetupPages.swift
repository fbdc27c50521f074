import Foundation
import PawpackCore
import Plot
import Vapor

/// The meet-up pages: the proposal form of a chat (a typed place near a town, or "use my
/// location"), the answers and changes as small forms on each card, the list of upcoming,
/// past and to-review meet-ups. The rules are the service's; the review form is Reviews'.
struct MeetupPages {
    let meetups: MeetupService
    let chats: ChatService

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.meetups.pathComponents, use: list)
        routes.get(WebPath.newMeetup(Param.chat).pathComponents) { req in try await proposalPage(req, form: nil) }
        routes.post(WebPath.chatMeetups(Param.chat).pathComponents, use: propose)
        for action in MeetupAction.allCases {
            routes.post(WebPath.meetupAction(Param.meetup, action).pathComponents) { req in try await act(req, action) }
        }
    }

    @Sendable func list(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let toReview = try await meetups.meetups(user, filter: .toReview, limit: 20, on: req.db)
        let planned = try await meetups.meetups(user, filter: .upcoming, limit: 50, on: req.db)
        // Each meet-up is listed once: one that has started leaves "Upcoming" for "How did it
        // go?" (to mark done, then to review), and a finished one to review is not also past.
        let now = meetups.clock.now()
        let started = planned.filter { $0.startsAt <= now && $0.status == .accepted }
        let upcoming = planned.filter { $0.startsAt > now }
        let reviewing = Set(toReview.map(\.id))
        let past = try await meetups.meetups(user, filter: .past, limit: 20, on: req.db).filter { !reviewing.contains($0.id) }
        let followUp = started + toReview
        return WebPages.page(
            req, title: "Meet-ups", back: (WebPath.chats, "Chats"),
            main: .group(
                .if(
                    !followUp.isEmpty,
                    .section(
                        .id("meetups-to-review"),
                        .h2(.text("How did it go?")),
                        .forEach(followUp) { MeetupViews.card(req, $0, viewer: me, back: WebPath.meetups) })),
                .section(
                    .id("meetups-upcoming"),
                    .h2(.text("Upcoming")),
                    .if(
                        upcoming.isEmpty,
                        .div(
                            .class("empty"), Icon.calendar.node(),
                            .p(.text("Nothing planned. Propose a meet-up from a chat with a match.")),
                            .a(.class("button"), .href(WebPath.chats), .text("Your chats")))),
                    .forEach(upcoming) { MeetupViews.card(req, $0, viewer: me, back: WebPath.meetups) }),
                .if(
                    !past.isEmpty,
                    .section(
                        .id("meetups-past"),
                        .h2(.text("Past")),
                        .forEach(past) { MeetupViews.card(req, $0, viewer: me, back: WebPath.meetups) }))
            ))
    }

    // MARK: Proposing

    struct ProposalForm: Content {
        var date: String?
        var time: String?
        /// Minutes the browser's time is behind UTC (`Date.getTimezoneOffset`), set by the script.
        var offset: String?
        var placeName: String?
        var town: String?
        var latitude: String?
        var longitude: String?
        var note: String?
    }

    func proposalPage(
        _ req: Request, form: ProposalForm?, errors: FormErrors = [],
        status: HTTPResponseStatus = .ok
    ) async throws -> Response {
        let user = try req.requireWebUser().user
        let id = try req.idParameter(Param.chat)
        let chat = try await chats.chat(user, id: id, on: req.db)
        let now = meetups.clock.now()
        // In UTC, and a day wider each way: the member's own date may already be tomorrow or
        // still yesterday. The rules check the instant.
        let today = LocalDate(utc: now).dayNumber
        let first = LocalDate(dayNumber: today - 1)?.description
        let last = LocalDate(dayNumber: today + MeetupRules.maximumDaysAhead + 1)?.description
        let reason = try await meetups.puppyModeReason(
            [chat.myPet.id, chat.otherPet.id], writingDates: DateWords.writer(for: req),
            on: req.db)
        return WebPages.page(
            req, title: "Propose a meet-up", status: status, errors: errors,
            back: (WebPath.chat(id), chat.otherPet.name),
            main: .group(
                .p(
                    .class("muted"),
                    .text("\(chat.myPet.name) and \(chat.otherPet.name), with \(chat.otherPet.ownerDisplayName). They answer in the chat.")),
                .unwrap(
                    reason,
                    { reason in
                        .p(.class("notice"), .id("meetups-unavailable"), Icon.shield.node(), .text(" Meet-ups are not available yet: \(reason)"))
                    },
                    else: .form(
                        .class("card"), .id("meetup-form"), .action(WebPath.chatMeetups(id)), .method(.post),
                        WebPages.csrfField(req),
                        .input(.type(.hidden), .name("offset"), .id("meetup-offset"), .value(form?.offset ?? "")),
                        .div(
                            .class("row"),
                            WebPages.field(
                                "Date", name: "date", type: .date, value: form?.date, autocomplete: "off",
                                limits: .init(min: first, max: last), errors: errors),
                            WebPages.field(
                                "Time", name: "time", type: .time, value: form?.time ?? "10:00", autocomplete: "off",
                                errors: errors)),
                        .element(named: "noscript", nodes: [.p(.class("hint"), .text("Without JavaScript the time is read as UTC."))]),
                        WebPages.field(
                            "Place", name: "placeName", value: form?.placeName, autocomplete: "off",
                            hint: "Where to meet: a park, a gate, a café.",
                            limits: .init(maxLength: MeetupRules.maximumPlaceNameLength), errors: errors),
                        .input(.type(.hidden), .name("latitude"), .id("meetup-latitude"), .value(form?.latitude ?? "")),
                        .input(.type(.hidden), .name("longitude"), .id("meetup-longitude"), .value(form?.longitude ?? "")),
                        WebPages.field(
                            "Town (optional)", name: "town", value: form?.town, autocomplete: "address-level2", required: false,
                            hint: "The town it is in, to put it on the map; or use your location below.",
                            limits: .init(maxLength: 80), errors: errors),
                        .p(
                            .button(
                                .type(.button), .class("button secondary"), .id("meetup-locate"), .attribute(named: "hidden"),
                                .data(named: "locate", value: "fill"), .data(named: "locate-status", value: "meetup-locate-status"),
                                .data(named: "located", value: " The meet-up is placed where you are now."),
                                .data(named: "denied", value: " Your location is not available: name the town instead."),
                                .data(named: "unavailable", value: " Your location is not available: name the town instead."),
                                Icon.pin.node(), .text("Use my location")),
                            .span(.class("hint"), .id("meetup-locate-status"), .attribute(named: "role", value: "status"))),
                        FormControls.textarea(
                            "Note (optional)", name: "note", id: "meetup-note", value: form?.note,
                            maxLength: MeetupRules.maximumNoteLength, errors: errors),
                        WebPages.submit("Propose", id: "meetup-submit")))
            ))
    }

    @Sendable func propose(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.chat)
        let form = try req.content.decode(ProposalForm.self)
        do {
            let place = try Self.place(form)
            _ = try await meetups.propose(
                user, chat: id,
                .init(
                    pet: nil, startsAt: try Self.start(form), placeName: form.placeName ?? "",
                    latitude: place.latitude, longitude: place.longitude, note: form.note),
                writingDates: DateWords.writer(for: req), on: req.db)
            return WebPages.redirect(WebPath.chat(id), flash: .proposed)
        } catch let problem as Problem where problem.status == 422 || problem.status == 409 {
            return try await proposalPage(
                req, form: form, errors: FormErrors(problem.renamingFields(["startsAt": "date"])),
                status: .init(statusCode: problem.status))
        }
    }

    /// The date and time as the member's browser reads them (its offset from UTC), as an instant.
    static func start(_ form: ProposalForm) throws -> Date {
        guard let date = form.date.flatMap(LocalDate.init) else { throw Problem.invalidField("date", "must be a date") }
        let parts = (form.time ?? "").split(separator: ":").compactMap { Int($0) }
        guard parts.count >= 2, (0..<24).contains(parts[0]), (0..<60).contains(parts[1]) else {
            throw Problem.invalidField("time", "must be a time such as 10:30")
        }
        let offset = form.offset.flatMap(Int.init).map { max(-14 * 60, min(14 * 60, $0)) } ?? 0
        return Date(timeIntervalSince1970: Double(date.dayNumber * 86_400 + parts[0] * 3_600 + parts[1] * 60 + offset * 60))
    }

    /// Where the browser is (its location, when the member used it), or the town named.
    static func place(_ form: ProposalForm) throws -> GeoPoint {
        if let latitude = form.latitude.flatMap(Double.init), let longitude = form.longitude.flatMap(Double.init) {
            return GeoPoint(latitude: latitude, longitude: longitude)
        }
        guard let town = form.town?.trimmingCharacters(in: .whitespaces), !town.isEmpty else {
            throw Problem.invalidField("town", "name the town the place is in, or use your location")
        }
        guard let found = LocationPages.places.search(town, limit: 1).first else {
            throw Problem.invalidField("town", "is not a town we know; try a nearby larger one")
        }
        return found.centre
    }

    // MARK: Answering

    @Sendable func act(_ req: Request, _ action: MeetupAction) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let meetup = try await meetups.act(
            action, user, meetup: try req.idParameter(Param.meetup),
            writingDates: DateWords.writer(for: req), on: req.db)
        let back = WebPages.safeNext(try? req.content.get(String.self, at: "next")) ?? WebPath.chat(meetup.chat)
        let flash: Flash =
            switch action {
            case .accept: .meetupAccepted
            case .reject: .meetupRejected
            case .cancel: .meetupCancelled
            case .complete: .meetupCompleted
            }
        return WebPages.redirect(back, flash: flash)
    }
}

extension MeetupPages {
    /// Meet-ups on Home (`Area.home`): an accepted one from a day before its start until it is
    /// marked done, a proposal waiting for the member's answer, and the last ones to review.
    static func home(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let soon = services.meetups.clock.now().addingTimeInterval(24 * 3600)
        let upcoming = try await services.meetups.meetups(user, filter: .upcoming, limit: 20, on: req.db)
        let comingUp = upcoming.filter { $0.status == .accepted && $0.startsAt <= soon }
        let proposed = upcoming.filter { $0.status == .pending && $0.invitee == me }
        let toReview = try await services.meetups.meetups(user, filter: .toReview, limit: 3, on: req.db)
        var cards: [HomeCard] = []
        if !comingUp.isEmpty {
            cards.append(
                .section(
                    .happeningSoon, id: "home-meetups-soon", title: "Coming up",
                    .forEach(comingUp) { MeetupViews.card(req, $0, viewer: me, back: WebPath.home) }))
        }
        if !proposed.isEmpty {
            cards.append(
                .section(
                    .answerNeeded, id: "home-meetups-proposed",
                    title: proposed.count == 1 ? "A meet-up proposed to you" : "\(proposed.count) meet-ups proposed to you",
                    .forEach(proposed) { MeetupViews.card(req, $0, viewer: me, back: WebPath.home) }))
        }
        if !toReview.isEmpty {
            cards.append(
                .section(
                    .followUp, id: "home-meetups-review", title: "How did it go?",
                    .forEach(toReview) { MeetupViews.card(req, $0, viewer: me, back: WebPath.home) }))
        }
        return cards
    }

    /// The chat's meet-ups above its messages (`Area.chatPanel`): those planned, and those done
    /// and not yet reviewed by the viewer; then the button to propose one, or why not yet.
    static func chatPanel(_ req: Request, chat: ChatValue, meetups: MeetupService) async throws -> Node<HTML.BodyContext> {
        let user = try req.requireWebUser().user
        let (me, id) = (try user.requireID(), chat.id)
        let planned = try await meetups.meetups(user, chat: id, limit: 10, on: req.db)
            .filter { $0.status == .pending || $0.status == .accepted || ($0.status == .completed && !$0.reviewers.contains(me)) }
        // The cards know each dog's mode; why and until when is read only for a puppy.
        let puppyMode =
            chat.closed || ![chat.myPet, chat.otherPet].contains(where: { $0.mode == .puppy })
            ? nil
            : try await meetups.puppyModeReason([chat.myPet.id, chat.otherPet.id], writingDates: DateWords.writer(for: req), on: req.db)
        return .section(
            .id("chat-meetups"), .attribute(named: "aria-label", value: "Meet-ups"),
            .forEach(planned) { MeetupViews.card(req, $0, viewer: me, back: WebPath.chat(id)) },
            .if(
                !chat.closed,
                .unwrap(
                    puppyMode,
                    { reason in
                        .p(
                            .class("notice"), .id("meetups-unavailable"), Icon.shield.node(),
                            .text(" Meet-ups are not available yet: \(reason) Until then you can keep chatting."))
                    },
                    else: .if(
                        !planned.contains { $0.status == .pending },
                        .p(
                            .a(
                                .class("button secondary"), .id("propose-meetup"), .href(WebPath.newMeetup(id)), Icon.calendar.node(),
                                .text("Propose a meet-up")))))))
    }
}

/// How a meet-up shows, in its chat and on the meet-ups page: the two dogs, when and where,
/// its state, and what the viewer may do now, each a small form that works without a script.
enum MeetupViews {
    static func statusWords(_ meetup: MeetupValue, viewer: User.ID) -> String {
        switch meetup.status {
        case .pending: meetup.proposer == viewer ? "Waiting for their answer" : "Proposed to you"
        case .accepted: "Accepted"
        case .rejected: "Declined"
        case .cancelled: "Cancelled"
        case .completed: "Done"
        case .expired: "Expired (no answer in time)"
        }
    }

    /// OpenStreetMap searching for the place as it was typed, around the meet-up's point (the
    /// town's centre, or where the proposer stood): the search prefers what the map shows, so
    /// "Victoria Park" is the one in that town, not the town's centre.
    static func mapLink(_ meetup: MeetupValue) -> String {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        let query = meetup.placeName.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
        let (latitude, longitude) = (meetup.place.latitude, meetup.place.longitude)
        return "https://www.openstreetmap.org/search?query=\(query)#map=15/\(latitude)/\(longitude)"
    }

    static func card(_ req: Request, _ meetup: MeetupValue, viewer: User.ID, back: String) -> Node<HTML.BodyContext> {
        let (mine, theirs) = meetup.pets(seenBy: viewer)
        let started = meetup.startsAt <= req.pawpack.meetups.clock.now()
        let map = mapLink(meetup)
        func button(_ action: MeetupAction, _ title: String, secondary: Bool = false) -> Node<HTML.BodyContext> {
            .form(
                .class("inline"), .action(WebPath.meetupAction(meetup.id, action)), .method(.post), WebPages.csrfField(req),
                .input(.type(.hidden), .name("next"), .value(back)),
                .button(
                    .type(.submit), .class(secondary ? "button secondary" : "button"), .id("meetup-\(action.rawValue)-\(meetup.id)"),
                    .text(title)))
        }
        return .article(
            .class("card meetup meetup-\(meetup.status.rawValue)"), .id("meetup-\(meetup.id)"),
            .div(
                .class("meetup-head"), Icon.calendar.node(),
                .h2(.text("\(mine.name) & \(theirs.name)")),
                .span(.class("badge"), .text(statusWords(meetup, viewer: viewer)))),
            .p(.class("meetup-when"), TimeViews.time(meetup.startsAt, style: .full)),
            .p(
                .class("meetup-where"), Icon.pin.node(), .text(" \(meetup.placeName) "),
                .a(
                    .class("button quiet"), .id("meetup-map-\(meetup.id)"), .href(map),
                    .attribute(named: "rel", value: "noopener noreferrer"), .attribute(named: "target", value: "_blank"),
                    .text("Map"))),
            .unwrap(meetup.note) { .p(.class("meetup-note"), .text("“\($0)”")) },
            .div(
                .class("actions"),
                .if(
                    meetup.status == .pending && meetup.invitee == viewer,
                    .group(button(.accept, "Accept"), button(.reject, "Decline", secondary: true))),
                .if(
                    (meetup.status == .pending && meetup.proposer == viewer) || (meetup.status == .accepted && !started),
                    button(.cancel, "Cancel", secondary: true)),
                .if(meetup.status == .accepted && started, button(.complete, "We met: mark as done")),
                .if(
                    meetup.status == .completed && !meetup.reviewers.contains(viewer),
                    .a(
                        .class("button"), .id("meetup-review-\(meetup.id)"), .href(WebPath.reviewMeetup(meetup.id)), Icon.star.node(),
                        .text("Review \(theirs.name)"))))
        )
    }
}
