import Foundation
import PawpackCore
import Plot
import SQLKit
import Vapor

/// The app shell every web page shares, and the helpers forms are built from. Pages are plain
/// HTML forms that work without JavaScript; the page script (`WebAssets`) makes them nicer where it runs.
enum WebPages {
    /// A tab of the app's navigation: a bottom bar on a phone, a side rail on a wide screen.
    /// Areas bring their tabs (`Area.tab`); only areas that exist are tabs.
    struct Tab: Sendable, Equatable {
        /// Names its link (`nav-<id>`).
        var id: String
        var title: String
        var path: String
        var icon: Icon
        /// Left to right in the bar.
        var position: Int
        /// The `Badge` it shows, by id.
        var badge: String?
        /// The pages below it (a dog's deck is Playdates, under `/pets/…`).
        var owns: @Sendable (_ path: String) -> Bool

        static func == (lhs: Tab, rhs: Tab) -> Bool { lhs.id == rhs.id }
    }

    /// Pages of one area shown under another area's tab (meet-ups under Chats).
    struct TabPages: Sendable {
        /// The tab's id.
        var tab: String
        var owns: @Sendable (_ path: String) -> Bool
    }

    /// A count a signed-in page shows, on a tab or the bell, with its words for screen readers.
    /// Every badge's count is read in one query (`WebSessionMiddleware`): `count` is a scalar
    /// subquery for the member.
    struct Badge: Sendable {
        /// The count's element id, which the page script updates for a `live` one.
        var id: String
        var one: String
        var many: String
        var live = false
        var count: @Sendable (User.ID) -> SQLQueryString
    }

    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data: blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'; manifest-src 'self'; worker-src 'self'"

    /// A whole page. `errors` says what went wrong with a form: messages for fields the page
    /// shows stand next to them; the others, and a count, at the top. `back` is the way up
    /// from a page below a tab; `bare` leaves the navigation out (the match screen); `wide`
    /// gives a page the desktop's width (the landing's two columns).
    static func page(
        _ request: Request, title: String, status: HTTPResponseStatus = .ok,
        errors: FormErrors = [], back: (path: String, title: String)? = nil, bare: Bool = false, wide: Bool = false,
        main: Node<HTML.BodyContext>
    ) -> Response {
        let flash = request.query[String.self, at: "flash"].flatMap { request.pawpack.shell.flashes[$0] }?.message
        let signedIn = request.webUser != nil
        let html = HTML(
            .lang(.english),
            .head(
                .meta(.charset(.utf8)),
                .meta(.name("viewport"), .content("width=device-width, initial-scale=1, viewport-fit=cover")),
                .title("\(title) · Pawpack"),
                .meta(.name("description"), .content("Safe playmates for your dog, nearby.")),
                .meta(
                    .name("theme-color"), .content(DesignTokens.themeColour),
                    .attribute(named: "media", value: "(prefers-color-scheme: light)")),
                .meta(
                    .name("theme-color"), .content(DesignTokens.darkThemeColour),
                    .attribute(named: "media", value: "(prefers-color-scheme: dark)")),
                .link(.rel(.manifest), .href(WebPath.manifest)),
                .link(.rel(.icon), .href(WebPath.iconSVG), .attribute(named: "type", value: "image/svg+xml")),
                .link(.rel(.appleTouchIcon), .href(WebPath.icon(size: 192))),
                .link(.rel(.stylesheet), .href(request.pawpack.assets.stylesheet.path)),
                .script(.src(request.pawpack.assets.script.path), .attribute(named: "defer"))
            ),
            .body(
                .class(signedIn ? "signed-in" : "signed-out"),
                .unwrap(request.eventsShownAfter) { .data(named: "events-after", value: String($0)) },
                .a(.class("skip-link"), .href("#main"), .text("Skip to content")),
                .if(!bare, topBar(request)),
                .if(!bare && signedIn, navigation(request)),
                .main(
                    .id("main"), .attribute(named: "tabindex", value: "-1"), .if(wide, .class("wide")),
                    .unwrap(back) { back in
                        .a(.class("back-link"), .href(back.path), Icon.back.node(), .text(back.title))
                    },
                    .if(!bare, .h1(.text(title))),
                    .unwrap(flash) { .div(.class("toast"), .id("toast"), .attribute(named: "role", value: "status"), Icon.check.node(), .text($0)) },
                    errors.summary,
                    main
                )
            )
        )
        let response = Response(status: status, body: .init(string: html.render()))
        response.headers.contentType = .html
        response.headers.replaceOrAdd(name: "Content-Security-Policy", value: contentSecurityPolicy)
        // Links in mail carry tokens in the query: never send a Referer to another site. Not
        // `no-referrer`: with it browsers send `Origin: null` on our own forms, which the
        // Origin check (`checkCSRF`) must refuse.
        response.headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    static func topBar(_ request: Request) -> Node<HTML.BodyContext> {
        let unread = request.unreadNotifications
        return .header(
            .class("topbar"),
            .a(.class("brand"), .href(request.webUser == nil ? WebPath.landing : WebPath.home), Icon.paw.node(), .text("Pawpack")),
            .if(
                request.webUser == nil,
                .div(.class("topbar-actions"), .a(.class("button quiet"), .id("topbar-login"), .href(WebPath.logIn), .text("Log in"))),
                // The bell: the inbox, with how many are unread (kept live by the page script);
                // then the member's own account. Neither is an area, so neither takes a tab.
                else: .div(
                    .class("topbar-actions"),
                    .a(
                        .class("topbar-button"), .id("bell"), .href(WebPath.notifications),
                        .attribute(named: "aria-current", value: request.url.path == WebPath.notifications ? "page" : nil),
                        Icon.bell.node(), .span(.class("visually-hidden"), .text("Notifications")),
                        countBadge(unread, id: "bell-count", one: " unread", many: " unread", live: true)),
                    .a(
                        .class("topbar-button"), .id("topbar-me"), .href(WebPath.account),
                        .attribute(named: "aria-current", value: request.url.path.hasPrefix(WebPath.account) ? "page" : nil),
                        Icon.person.node(), .span(.class("visually-hidden"), .text("Your account")))))
        )
    }

    /// The tabs, the current one marked for assistive technology, each with its badge.
    static func navigation(_ request: Request) -> Node<HTML.BodyContext> {
        let shell = request.pawpack.shell
        let current = shell.tab(of: request.url.path)
        return .nav(
            .class("tabbar"), .id("app-nav"), .attribute(named: "aria-label", value: "Main"),
            .ul(
                .forEach(shell.tabs) { tab in
                    .li(
                        .a(
                            .class("tab"), .id("nav-\(tab.id)"), .href(tab.path),
                            .attribute(named: "aria-current", value: tab == current ? "page" : nil),
                            tab.icon.node(), .span(.text(tab.title)),
                            .unwrap(tab.badge.flatMap(shell.badge(id:))) { badge in
                                countBadge(request.badgeCount(badge.id), id: badge.id, one: badge.one, many: badge.many, live: badge.live)
                            }))
                })
        )
    }

    /// A count on a tab, the bell or a row, "99+" past 99, with its words for screen readers.
    /// A `live` one is there at 0 too (hidden), for the script to update.
    static func countBadge<Context: HTML.BodyContext>(
        _ count: Int, id: String? = nil, one: String, many: String,
        live: Bool = false
    ) -> Node<Context> {
        .if(
            count > 0 || live,
            .span(
                .class("count"), .unwrap(id) { .id($0) }, .attribute(named: "hidden", value: count > 0 ? nil : "hidden"),
                .text(count > 99 ? "99+" : String(count)),
                .span(.class("visually-hidden"), .text(count == 1 ? one : many))))
    }

    static func csrfField(_ request: Request) -> Node<HTML.FormContext> {
        .input(.type(.hidden), .name("_csrf"), .value(request.csrfToken))
    }

    /// The browser's own time zone, filled in by the shell's script (empty without it), for a
    /// form whose time zone the member need not type: read with `browserTimeZone(_:)`. (The
    /// data attribute has a value because Plot leaves out an empty one.)
    static var browserTimeZoneField: Node<HTML.FormContext> {
        .input(.type(.hidden), .name("browserTimeZone"), .data(named: "browser-time-zone", value: "fill"))
    }

    /// The time zone a form's `browserTimeZoneField` sent, if it is one the server knows.
    static func browserTimeZone(_ sent: String?) -> String? {
        sent.flatMap { HouseholdDays.timeZone(named: $0) == nil ? nil : $0 }
    }

    /// The limits an input tells the browser about, so it helps before the server refuses.
    struct Limits {
        var maxLength: Int?
        var min: String?
        var max: String?
        var step: String?
        var pattern: String?

        static let none = Limits()
    }

    /// A labelled input with its hint and, after a failed submit, its error: the input is
    /// marked invalid, described by the error, and the first invalid input takes the focus.
    static func field(
        _ label: String, name: String, type: HTMLInputType = .text, value: String? = nil,
        autocomplete: String, required: Bool = true, hint: String? = nil,
        idPrefix: String = "", limits: Limits = .none, errors: FormErrors = []
    ) -> Node<HTML.FormContext> {
        let id = idPrefix.isEmpty ? name : "\(idPrefix)-\(name)"
        let error = errors.claim(field: name, id: id, label: label)
        let describedBy = [hint.map { _ in "\(id)-hint" }, error.map { _ in "\(id)-error" }].compactMap { $0 }
        let input: Node<HTML.FormContext> = .input(
            .type(type), .name(name), .id(id), .value(value ?? ""),
            .attribute(named: "autocomplete", value: autocomplete), .required(required),
            .attribute(named: "maxlength", value: limits.maxLength.map(String.init)),
            .attribute(named: "min", value: limits.min), .attribute(named: "max", value: limits.max),
            .attribute(named: "pattern", value: limits.pattern),
            // Numbers such as a weight in kg take decimals unless told otherwise.
            .attribute(named: "step", value: limits.step ?? (type == .number ? "any" : nil)),
            .attribute(named: "aria-invalid", value: error == nil ? nil : "true"),
            .attribute(named: "autofocus", value: error != nil && errors.takeFocus() ? "autofocus" : nil),
            .attribute(named: "aria-describedby", value: describedBy.isEmpty ? nil : describedBy.joined(separator: " ")))
        return .div(
            .class(type == .password ? "field password-field" : "field"),
            .label(.for(id), .text(label)),
            // The toggle sits in the input's own box, so a hint or an error below never moves it.
            .if(
                type == .password,
                .div(
                    .class("input-wrap"), input,
                    .button(
                        .type(.button), .class("password-toggle"), .attribute(named: "hidden"),
                        .data(named: "toggles", value: id), .attribute(named: "aria-pressed", value: "false"),
                        .text("Show"))),
                else: input),
            .unwrap(hint) { .small(.id("\(id)-hint"), .class("hint"), .text($0)) },
            .unwrap(error) { .p(.id("\(id)-error"), .class("field-error"), .text($0)) }
        )
    }

    /// A submit button; `busy` is what it says while the server works (slow ones: passwords).
    static func submit(_ title: String, id: String, danger: Bool = false, busy: String? = nil) -> Node<HTML.FormContext> {
        .button(
            .id(id), .type(.submit), .class(danger ? "button danger" : "button"),
            .unwrap(busy) { .data(named: "busy", value: $0) }, .text(title))
    }

    /// The names people know fields by; never the wire's names.
    static let fieldLabels = [
        "email": "Email", "password": "Password", "username": "Username", "displayName": "Display name",
        "dateOfBirth": "Date of birth", "city": "Town or city", "newEmail": "New email",
        "currentPassword": "Current password", "newPassword": "New password", "latitude": "Location", "longitude": "Location",
        "name": "Name", "species": "Species", "breed": "Breed", "weightKg": "Weight", "estimatedAgeMonths": "Age",
        "personality": "Personality", "notes": "Notes", "givenOn": "Date given", "nextDueOn": "Next due date",
        "otherName": "Vaccine name", "clinic": "Clinic", "photo": "Photo", "playStyles": "Play style",
        "environment": "Home", "neutered": "Neutered", "vaccinations": "Vaccinations", "vaccine": "Vaccine",
        "maxDistanceKm": "Maximum distance", "minAgeMonths": "Youngest age", "maxAgeMonths": "Oldest age",
        "minWeightKg": "Lightest weight", "maxWeightKg": "Heaviest weight", "sexes": "Sex", "sizes": "Size",
        "place": "Place", "targetPetId": "Dog", "token": "Link", "query": "Place", "message": "Message",
        "date": "Date", "time": "Time", "placeName": "Place", "town": "Town", "note": "Note", "rating": "Rating",
        "text": "Review", "petId": "Dog", "endpoint": "Subscription", "caption": "Caption", "privacy": "Who sees it",
        "pets": "Pets", "makePublic": "Show it to everyone", "display": "Display copy", "thumbnail": "Thumbnail", "reason": "Reason",
        "after": "Page", "offset": "Page",
    ]

    /// The page a browser sees for an error outside a form: it leads back to where the user
    /// came from (the Referer, when it is one of our pages), else to their home.
    @Sendable static func errorPage(_ problem: Problem, _ request: Request) -> Response {
        let fallback = request.webUser == nil ? WebPath.landing : WebPath.home
        let back = cameFrom(request) ?? fallback
        let errors = FormErrors(nil)
        errors.general = [problem.detail]
        return page(
            request, title: problem.title, status: .init(statusCode: problem.status), errors: errors,
            main: .p(.a(.class("button"), .id("error-back"), .href(back), .text(back == fallback ? "Back to Pawpack" : "Go back"))))
    }

    /// The page of this site the request came from (its Referer), if it is one.
    static func cameFrom(_ request: Request) -> String? {
        request.headers.first(name: .referer).flatMap { localPath(fromReferer: $0, host: request.headers.first(name: .host)) }
    }

    /// The path of a Referer that is one of our own pages (same host), else nil.
    static func localPath(fromReferer referer: String, host: String?) -> String? {
        guard let url = URL(string: referer), let refererHost = url.host, let host,
            (url.port.map { "\(refererHost):\($0)" } ?? refererHost).lowercased() == host.lowercased(),
            let path = url.path.isEmpty ? nil : url.path
        else { return nil }
        return safeNext(path + (url.query.map { "?" + $0 } ?? ""))
    }

    /// `next` when it is a path on this site (never `//host` or a scheme), else nil.
    static func safeNext(_ next: String?) -> String? {
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), next.count <= 300,
            !next.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
        else { return nil }
        return next
    }

    /// "See other" to a page of `WebPath`, which shows `flash` once it loads.
    static func redirect(_ path: String, flash: Flash? = nil) -> Response {
        let location = flash.map { path + (path.contains("?") ? "&" : "?") + "flash=" + $0.name } ?? path
        return Response(status: .seeOther, headers: ["Location": location])
    }

    /// A placeholder where a pet has no photo yet, drawn for its species.
    static func noPhoto<Context: HTML.BodyContext>(
        _ name: String, species: Species = .dog, class className: String = "avatar placeholder"
    ) -> Node<Context> {
        .span(
            .class(className), .attribute(named: "role", value: "img"), .attribute(named: "aria-label", value: "\(name) has no photo yet"),
            (species == .cat ? Icon.cat : species == .dog ? Icon.dog : Icon.paw).node())
    }
}

/// What went wrong with a form, as people read it: one sentence per field ("Username is
/// already taken."), placed next to the field by `WebPages.field`; messages no field claimed
/// and problems about no field show at the top of the page.
final class FormErrors: ExpressibleByArrayLiteral {
    private var byField: [(field: String, message: String)]
    /// The ids of the inputs that may show these errors (a page with several forms); nil: any.
    private let ids: Set<String>?
    private var claimed: Set<Int> = []
    private var focusTaken = false
    var general: [String]

    init(_ problem: Problem? = nil, ids: Set<String>? = nil) {
        self.ids = ids
        byField = problem?.errors.map { ($0.field, $0.message) } ?? []
        general = problem.map { $0.errors.isEmpty ? [$0.detail] : [] } ?? []
    }

    convenience init(arrayLiteral elements: String...) {
        self.init(nil)
        general = elements
    }

    var isEmpty: Bool { byField.isEmpty && general.isEmpty }

    /// The sentence for `field` if the problem names it, marking it shown; on a page with
    /// several forms only the inputs of the form sent (`ids`) claim.
    func claim(field: String, id: String, label: String) -> String? {
        guard ids?.contains(id) ?? true else { return nil }
        guard let index = byField.indices.first(where: { byField[$0].field == field && !claimed.contains($0) }) else { return nil }
        claimed.insert(index)
        return Self.sentence(label: Self.plainLabel(label), message: byField[index].message)
    }

    /// True once: the first invalid input gets the focus.
    func takeFocus() -> Bool {
        defer { focusTaken = true }
        return !focusTaken
    }

    /// "Username" + "is already taken" → "Username is already taken."; a message that is a
    /// sentence of its own ("give a date of birth …") is only capitalised.
    static func sentence(label: String, message: String) -> String {
        let trimmed = message.trimmingCharacters(in: .whitespaces)
        let first = trimmed.split(separator: " ").first.map(String.init) ?? ""
        let verbs: Set<String> = ["is", "are", "must", "may", "cannot", "can", "has", "does", "should", "needs", "was", "tags", "at"]
        let text = verbs.contains(first) ? "\(label) \(trimmed)" : trimmed.prefix(1).uppercased() + trimmed.dropFirst()
        return text.hasSuffix(".") ? text : text + "."
    }

    /// A label without its "(optional)" or unit: "Weight in kg (optional)" reads "Weight".
    static func plainLabel(_ label: String) -> String {
        var text = label
        if let paren = text.firstIndex(of: "(") { text = String(text[..<paren]) }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// The top of the page: problems not about a field, and those of fields the page did not
    /// show, with how many fields need a look.
    var summary: Node<HTML.BodyContext> {
        let unclaimed = byField.indices.filter { !claimed.contains($0) }.map {
            Self.sentence(label: WebPages.fieldLabels[byField[$0].field] ?? "This", message: byField[$0].message)
        }
        let lines = general + unclaimed
        let fieldCount = claimed.count
        guard !lines.isEmpty || fieldCount > 0 else { return .empty }
        return .div(
            .class("alert"), .id("form-errors"), .attribute(named: "role", value: "alert"),
            .forEach(lines) { .p(.text($0)) },
            .if(
                fieldCount > 0,
                .p(.text(fieldCount == 1 ? "Please check the field marked below." : "Please check the \(fieldCount) fields marked below.")))
        )
    }
}

extension Request {
    private struct BadgeCountsKey: StorageKey { typealias Value = [String: Int] }

    /// The badges' counts as the page began to be drawn, by badge id (`WebSessionMiddleware`).
    var badgeCounts: [String: Int] {
        get { storage[BadgeCountsKey.self] ?? [:] }
        set { storage[BadgeCountsKey.self] = newValue }
    }

    func badgeCount(_ id: String) -> Int { badgeCounts[id] ?? 0 }

    /// Match requests waiting for the signed-in member's answer (the Playdates badge).
    var waitingRequests: Int { badgeCount(WebPages.Badge.waitingRequests) }

    /// Chats with messages the member has not read (the Chats badge).
    var unreadChats: Int {
        get { badgeCount(WebPages.Badge.unreadChats) }
        set { badgeCounts[WebPages.Badge.unreadChats] = newValue }
    }

    /// The bell's count.
    var unreadNotifications: Int {
        get { badgeCount(WebPages.Badge.unreadNotifications) }
        set { badgeCounts[WebPages.Badge.unreadNotifications] = newValue }
    }

    private struct EventsShownAfterKey: StorageKey { typealias Value = Int64 }

    /// The member's newest realtime event as the page began to be drawn (`data-events-after`).
    var eventsShownAfter: Int64? {
        get { storage[EventsShownAfterKey.self] }
        set { storage[EventsShownAfterKey.self] = newValue }
    }
}
