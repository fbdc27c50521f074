import Foundation
import PawpackCore
import Plot
import Vapor

/// Registers every web page: the shell here, each area's pages from its own folder (`Area.pages`).
struct WebRoutes {
    let services: PawpackServices

    func register(on app: Application) throws {
        let first = app.routes.all.count
        AppShell.register(on: app, assets: services.assets)
        // Read the bundled towns and postcodes (20 MB) now, not on the first member's search.
        let logger = app.logger
        Task.detached(priority: .background) {
            let started = ContinuousClock.now
            let places = LocationPages.places
            logger.info("Read \(places.count) towns and \(places.postcodeCount) postcode areas in \(ContinuousClock.now - started)")
        }
        app.get(WebPath.landing.pathComponents) { req in landing(req) }
        app.get(WebPath.home.pathComponents) { [services] req in try await HomePage.render(req, services: services) }
        // Which area each page is: the browser tests visit every one (`/dev/pages`).
        var pages = DevPagesList.gets(of: app, from: first, area: "Shell")
        for area in services.areas {
            let before = app.routes.all.count
            try area.pages(app, services)
            pages += DevPagesList.gets(of: app, from: before, area: area.name)
        }
        if services.config.isDevelopment {
            DevPagesList(pages: pages, shell: services.shell).register(on: app)
        }
        if services.config.isDevelopment, let outbox = services.outbox {
            DevMailPage(outbox: outbox).register(on: app)
        }
        if services.config.isDevelopment, let log = services.push.providers.developmentLog {
            DevPushPage(log: log).register(on: app)
        }
        if services.config.isDevelopment, let clock = services.dependencies.clock as? any MovableClock {
            DevClockPage(clock: clock).register(on: app)
        }
    }

    /// What a visitor sees first: what Pawpack does today, and the way in. It promises
    /// nothing that is not built: each area adds its words when it lands.
    func landing(_ req: Request) -> Response {
        if req.webUser != nil { return WebPages.redirect(WebPath.home) }
        return WebPages.page(
            req, title: "Safe playmates for your dog, nearby", wide: true,
            main: .group(
                .div(
                    .class("landing-copy"),
                    .p(
                        .class("lede"),
                        .text(
                            "Swipe through dogs near you, matched on size, age, energy and play style. When both owners say yes, chat and plan a meet-up."
                        )),
                    .div(
                        .class("actions"),
                        .a(.id("signup-link"), .class("button"), .href(WebPath.signUp), .text("Create an account")),
                        .a(.id("login-link"), .class("button secondary"), .href(WebPath.logIn), .text("Log in")))),
                .div(
                    .class("landing-visual"),
                    .forEach(Array(AppShell.landingDogs.enumerated())) { index, dog in
                        .element(
                            named: "figure",
                            nodes: [
                                .class("landing-card"),
                                .img(
                                    .src(WebPath.landingDog(index + 1)), .alt("A drawn dog, \(dog.name)"),
                                    .attribute(named: "width", value: "300"), .attribute(named: "height", value: "400")),
                                .element(named: "figcaption", nodes: [.strong(.text(dog.name)), .span(.class("chip"), .text(dog.line))]),
                            ])
                    }),
                .ul(
                    .class("checklist promises"),
                    .li(
                        .span(.class("tick"), Icon.shield.node()),
                        .span(.class("step"), .text("Puppies stay in Puppy Mode until their vaccinations protect them."))),
                    .li(
                        .span(.class("tick"), Icon.pin.node()),
                        .span(.class("step"), .text("Your home is never shown: others see only a rounded distance."))),
                    .li(.span(.class("tick"), Icon.chat.node()), .span(.class("step"), .text("Nobody can message you unless you matched."))))
            ))
    }
}

/// `/dev/push`: the pushes sent, newest first, as a phone would show them. Registered only
/// when `PAWPACK_ENV=development`.
struct DevPushPage {
    let log: DevelopmentPushLog

    func register(on app: Application) {
        app.get(WebPath.devPush.pathComponents) { req in page(req) }
    }

    func page(_ req: Request) -> Response {
        let entries = Array(log.all.reversed())
        return WebPages.page(
            req, title: "Development pushes",
            main: .group(
                .p(.class("muted"), .text("Pushes the server sent to devices, or would have. This page exists only in development.")),
                .if(entries.isEmpty, .p(.text("No pushes yet. Register a device (POST /v1/devices) and get a notification."))),
                .forEach(entries) { entry in
                    .article(
                        .class("mail"),
                        .p(
                            .class("mail-to"),
                            .text(
                                "\(entry.platform.rawValue) · member \(entry.user) · \(entry.message.kind.rawValue)"
                                    + " · badge \(entry.message.badge)")),
                        .h2(.class("mail-subject"), .text(entry.message.title)),
                        .p(.class("mail-body"), .text(entry.message.body)),
                        .p(.a(.class("mail-link"), .href(entry.message.path), .text(entry.message.path)))
                    )
                }
            ))
    }
}

/// `/dev/clock`: the server's time, and a form that moves it forward, so that what is due later
/// (a meet-up's start, its reminder, an expiry) can be tried now. Registered only when
/// `PAWPACK_ENV=development`.
struct DevClockPage {
    let clock: any MovableClock

    struct Form: Content {
        var minutes: Int?
    }

    func register(on app: Application) {
        app.get(WebPath.devClock.pathComponents) { req in page(req) }
        app.post(WebPath.devClock.pathComponents) { req in
            try req.checkCSRF()
            let minutes = try req.content.decode(Form.self).minutes ?? 0
            guard (1...10_080).contains(minutes) else { throw Problem.invalidField("minutes", "must be from 1 to 10080") }
            clock.advance(by: TimeInterval(minutes * 60))
            return WebPages.redirect(WebPath.devClock)
        }
    }

    func page(_ req: Request) -> Response {
        WebPages.page(
            req, title: "Development clock",
            main: .group(
                .p(.class("muted"), .text("The server's time, which only moves forward. This page exists only in development.")),
                .p(.id("server-time"), .text(ISO8601DateFormatter().string(from: clock.now()))),
                .form(
                    .class("card"), .id("clock-form"), .action(WebPath.devClock), .method(.post),
                    WebPages.csrfField(req),
                    WebPages.field(
                        "Minutes forward", name: "minutes", type: .number, autocomplete: "off",
                        limits: .init(min: "1", max: "10080", step: "1")),
                    WebPages.submit("Move the clock", id: "clock-submit"))
            ))
    }
}

/// `/dev/mail`: the development outbox, newest first, with every link clickable. Registered
/// only when `PAWPACK_ENV=development`.
struct DevMailPage {
    let outbox: DevelopmentOutbox

    func register(on app: Application) {
        app.get(WebPath.devMail.pathComponents) { req in page(req) }
    }

    func page(_ req: Request) -> Response {
        let messages = Array(outbox.all.reversed())
        return WebPages.page(
            req, title: "Development outbox",
            main: .group(
                .p(.class("muted"), .text("Mail the server would have sent. This page exists only in development.")),
                .if(messages.isEmpty, .p(.text("No mail yet."))),
                .forEach(messages) { message in
                    .article(
                        .class("mail"),
                        .p(.class("mail-to"), .text(message.to)),
                        .h2(.class("mail-subject"), .text(message.subject)),
                        .pre(.class("mail-body"), .text(message.text)),
                        .forEach(Self.links(in: message.text)) { link in
                            .p(.a(.class("mail-link"), .href(link), .text(link)))
                        }
                    )
                }
            ))
    }

    static func links(in text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
            .filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
    }
}

/// `/dev/pages`: every page the areas register (their GET routes, with `:parameter`s), the area
/// it belongs to and the tab it shows as current, as JSON. The browser tests take their list of
/// pages from it, so a new area's pages are checked at 390 px and on a desktop, light and dark,
/// as soon as it registers them. Registered only when `PAWPACK_ENV=development`.
struct DevPagesList {
    struct Page: Content {
        var area: String
        var path: String
        /// Nil for pages outside the tab bar (the inbox, the landing).
        var tab: String?
    }

    let pages: [Page]

    init(pages: [(area: String, path: String)], shell: WebShell) {
        self.pages = pages.map { Page(area: $0.area, path: $0.path, tab: shell.tab(of: $0.path)?.id) }
    }

    /// The GET routes registered since the `from`-th route, as paths.
    static func gets(of app: Application, from start: Int, area: String) -> [(area: String, path: String)] {
        app.routes.all[start...].filter { $0.method == .GET }.map { (area, "/" + $0.path.map(\.description).joined(separator: "/")) }
    }

    func register(on app: Application) {
        app.get(WebPath.devPages.pathComponents) { _ in pages }
    }
}
