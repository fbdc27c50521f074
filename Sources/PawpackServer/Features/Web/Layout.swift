import Foundation
import PawpackCore
import Plot
import Vapor

/// The page frame every web page shares, and helpers for forms. Pages are plain HTML forms
/// that work without JavaScript; one stylesheet, mobile first.
enum WebPages {
    static func page(_ request: Request, title: String, status: HTTPResponseStatus = .ok,
                     errors: [String] = [], main: Node<HTML.BodyContext>) -> Response {
        let flash = request.query[String.self, at: "flash"].flatMap(Flash.init(rawValue:))?.message
        let html = HTML(
            .lang(.english),
            .head(
                .meta(.charset(.utf8)),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1")),
                .title("\(title) · Pawpack"),
                .link(.rel(.stylesheet), .href(WebPath.stylesheet)),
                .script(.src(WebPath.script), .attribute(named: "defer"))
            ),
            .body(
                .header(.class("top"),
                    .a(.class("brand"), .href(request.webUser == nil ? WebPath.landing : WebPath.home), .text("Pawpack")),
                    .unwrap(request.webUser) { navigation(request, $0) }
                ),
                .main(
                    .h1(.text(title)),
                    .unwrap(flash) { .p(.class("flash"), .attribute(named: "role", value: "status"), .text($0)) },
                    .forEach(errors) { .p(.class("error"), .attribute(named: "role", value: "alert"), .text($0)) },
                    main
                )
            )
        )
        let response = Response(status: status, body: .init(string: html.render()))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: "Content-Security-Policy",
                                      value: "default-src 'self'; img-src 'self' data: blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
        // Links in mail carry tokens in the query: never send a Referer to another site. Not
        // `no-referrer`: with it browsers send `Origin: null` on our own forms, which the
        // Origin check (`checkCSRF`) must refuse.
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    /// The areas later features fill; those not built yet are listed, not linked.
    static func navigation(_ request: Request, _ webUser: WebUser) -> Node<HTML.BodyContext> {
        let areas = ["Chats", "Care", "Moments"]
        return .nav(.id("app-nav"), .attribute(named: "aria-label", value: "Main"),
            .ul(
                .li(.a(.href(WebPath.home), .text("Home"))),
                .li(.a(.id("nav-pets"), .href(WebPath.pets), .text("Pets"))),
                .li(.a(.id("nav-playdates"), .href(WebPath.playdates), .text("Playdates"))),
                .forEach(areas) { .li(.span(.class("soon"), .attribute(named: "aria-disabled", value: "true"),
                                            .text($0), .span(.class("badge"), .text("soon")))) },
                .li(.a(.id("nav-account"), .href(WebPath.account), .text("Account")))
            ),
            .form(.id("logout-form"), .action(WebPath.logOut), .method(.post),
                csrfField(request),
                .button(.id("logout-button"), .type(.submit), .class("link"), .text("Log out"))
            )
        )
    }

    static func csrfField(_ request: Request) -> Node<HTML.FormContext> {
        .input(.type(.hidden), .name("_csrf"), .value(request.csrfToken))
    }

    /// A labelled input. `autocomplete` helps password managers fill the right field.
    static func field(_ label: String, name: String, type: HTMLInputType = .text, value: String? = nil,
                      autocomplete: String, required: Bool = true, hint: String? = nil,
                      idPrefix: String = "") -> Node<HTML.FormContext> {
        let id = idPrefix.isEmpty ? name : "\(idPrefix)-\(name)"
        return .div(.class("field"),
            .label(.for(id), .text(label)),
            .input(.type(type), .name(name), .id(id), .value(value ?? ""),
                   .attribute(named: "autocomplete", value: autocomplete), .required(required),
                   // Numbers such as a weight in kg take decimals.
                   .attribute(named: "step", value: type == .number ? "any" : nil),
                   .attribute(named: "aria-describedby", value: hint == nil ? nil : "\(id)-hint")),
            .unwrap(hint) { .small(.id("\(id)-hint"), .class("hint"), .text($0)) }
        )
    }

    static func submit(_ title: String, id: String, danger: Bool = false) -> Node<HTML.FormContext> {
        .button(.id(id), .type(.submit), .class(danger ? "button danger" : "button"), .text(title))
    }

    /// Turns a problem into lines a person can act on, one per field.
    static func messages(for problem: Problem) -> [String] {
        if problem.errors.isEmpty { return [problem.detail] }
        return problem.errors.map { "\(fieldLabels[$0.field] ?? $0.field): \($0.message)" }
    }

    static let fieldLabels = [
        "email": "Email", "password": "Password", "username": "Username", "displayName": "Display name",
        "dateOfBirth": "Date of birth", "city": "City", "newEmail": "New email",
        "currentPassword": "Current password", "newPassword": "New password", "latitude": "Location",
        "name": "Name", "species": "Species", "breed": "Breed", "weightKg": "Weight", "estimatedAgeMonths": "Estimated age",
        "personality": "Personality", "notes": "Notes", "givenOn": "Date given", "nextDueOn": "Next due",
        "otherName": "Vaccine name", "clinic": "Clinic", "photo": "Photo", "playStyles": "Play style",
        "environment": "Home", "neutered": "Neutered", "vaccinations": "Vaccinations",
        "maxDistanceKm": "Maximum distance", "minAgeMonths": "Youngest", "maxAgeMonths": "Oldest",
    ]

    /// The page a browser sees for an error outside a form.
    @Sendable static func errorPage(_ problem: Problem, _ request: Request) -> Response {
        page(request, title: problem.title, status: .init(statusCode: problem.status),
             errors: [problem.detail],
             main: .p(.a(.href(request.webUser == nil ? WebPath.landing : WebPath.home), .text("Back to Pawpack"))))
    }

    /// "See other" to a page of `WebPath`, which shows `flash` once it loads.
    static func redirect(_ path: String, flash: Flash? = nil) -> Response {
        let location = flash.map { path + "?flash=" + $0.rawValue } ?? path
        return Response(status: .seeOther, headers: ["Location": location])
    }
}
