import Fluent
import Foundation
import PawpackCore
import PawpackTestSupport
import SQLKit
import Testing
import Vapor

@testable import PawpackServer

/// Adding an area is a folder and one entry in `Areas.all`. `Area.greetings` below is written
/// as an area's folder would be, and nothing outside it names it: the test finds its table,
/// its page under its own tab with its badge, its flash, its job, and its part of deleting a
/// member (its rows by their foreign key, its files by its deletion hook).
@Suite struct AreaRegistrationTests {
    @Test func anAreaDeclaredInOnePlaceIsMigratedServedShownRunAndDeleted() async throws {
        try await TestServer.run(configure: { app, config, dependencies in
            try await configure(app, config: config, dependencies: dependencies, areas: Areas(Areas.all.list + [.greetings]))
        }) { server in
            // given Ada, signed in on the web
            let ada = try await server.member("ada")
            let browser = try await TestBrowser.signedIn(server, as: ada)

            // when she opens the area's page, it is under the area's tab, with its badge at 0
            let empty = try await browser.get("/greetings")
            #expect(empty.status == 200)
            #expect(empty.html.contains(#"<a class="tab" id="nav-greetings" href="/greetings" aria-current="page">"#))
            #expect(!empty.html.contains(#"id="greetings-count""#))
            // and the tab stands after the four of the product, in the place it asked for
            let tabs = empty.html.components(separatedBy: #"id="nav-"#).dropFirst().map { $0.prefix { $0 != "\"" } }
            #expect(tabs == ["home", "playdates", "care", "moments", "chats", "greetings"])

            // when she sends a greeting, the redirect shows the area's flash and the badge counts it
            let sent = try await browser.post("/greetings", ["text": "Woof"])
            #expect(sent.location == "/greetings?flash=greeted")
            let shown = try await browser.get("/greetings?flash=greeted")
            #expect(shown.html.contains("Greeting kept."))
            #expect(shown.html.contains(#"<span class="count" id="greetings-count">1<span class="visually-hidden"> greeting</span></span>"#))
            // a flash another area did not declare shows nothing
            #expect(!(try await browser.get("/greetings?flash=nonsense")).html.contains(#"id="toast""#))

            // its scheduled job runs with the others
            await server.app.pawpack.jobs.runAll(on: server.app.db, logger: server.app.logger)
            let sql = try #require(server.app.db as? any SQLDatabase)
            let waved = try await sql.raw(#"SELECT COUNT(*) AS "n" FROM "greetings" WHERE "waved""#).first()?.decode(column: "n", as: Int.self)
            #expect(waved == 1)

            // its stored file exists until the member is deleted; then rows and file go
            let file = (server.mediaFolder as NSString).appendingPathComponent("greetings/\(ada.username).txt")
            #expect(FileManager.default.fileExists(atPath: file))
            let deleted = try await browser.post("/account/delete", ["password": TestServer.password])
            #expect(deleted.location == "/?flash=deleted")
            #expect(try await server.rowCounts()["greetings"] == 0)
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }
}

extension AreaRegistrationTests {
    @Test func everyNotificationKindAndFlashBelongsToOneArea() throws {
        // the areas in the order their migrations run: the spine before the areas on top of it
        #expect(
            Areas.all.list.map(\.name) == [
                "Accounts", "Realtime", "Notifications", "Push",
                "Pets", "Chats", "Playdates", "Meetups", "Reviews", "Care", "Moments",
            ])
        // each kind a member may mute is sent by exactly one area
        let kinds = Areas.all.list.flatMap(\.notificationKinds).map(\.rawValue)
        #expect(kinds.sorted() == NotificationKind.allCases.map(\.rawValue).sorted())
        // the shell refuses two flashes of one name, and every tab has its own id and place
        let shell = WebShell(areas: Areas.all.list)
        #expect(Set(shell.tabs.map(\.id)).count == shell.tabs.count && Set(shell.tabs.map(\.position)).count == shell.tabs.count)
        #expect(shell.tabs.map(\.id) == ["home", "playdates", "care", "moments", "chats"], "Care took Pets' place")
        #expect(shell.flashes.count == Areas.all.list.flatMap(\.flashes).count)
    }
}

// MARK: The area, as its folder would hold it

extension Area {
    static let greetings = Area(
        name: "Greetings",
        services: { services in [GreetingService(media: services.dependencies.media)] },
        migrations: [CreateGreetings()],
        pages: { app, services in
            app.get("greetings") { req in
                _ = try req.requireWebUser()
                return WebPages.page(req, title: "Greetings", main: .p(.text("Say hello.")))
            }
            app.post("greetings") { req in
                let user = try req.requireWebUser().user
                try req.checkCSRF()
                try await services.greetings.greet(user, on: req.db)
                return WebPages.redirect("/greetings", flash: .greeted)
            }
        },
        tab: .init(
            id: "greetings", title: "Greetings", path: "/greetings", icon: .sparkle, position: 90,
            badge: "greetings-count"
        ) { $0.hasPrefix("/greetings") },
        badges: [
            .init(id: "greetings-count", one: " greeting", many: " greetings") { me in
                #"SELECT COUNT(*) FROM "greetings" WHERE "user_id" = \#(bind: me)"#
            }
        ],
        flashes: [.greeted],
        jobs: { _ in
            [
                .init(name: "greetings") { db in
                    try await db.sql.raw(#"UPDATE "greetings" SET "waved" = \#(bind: true)"#).run()
                }
            ]
        },
        deletion: .init(filesOfMember: { member, db in
            try await db.sql.raw(#"SELECT "file" FROM "greetings" WHERE "user_id" = \#(bind: member)"#).all()
                .map { try $0.decode(column: "file", as: String.self) }
        })
    )
}

extension Flash {
    static let greeted = Flash("greeted", "Greeting kept.")
}

extension PawpackServices {
    var greetings: GreetingService { area(GreetingService.self) }
}

struct GreetingService: Sendable {
    let media: any MediaStore

    func greet(_ user: UserRecord, on db: any Database) async throws {
        let file = "greetings/\(user.username).txt"
        try await media.put(Data("Woof".utf8), key: file, contentType: "text/plain")
        try await db.sql.raw(
            """
            INSERT INTO "greetings" ("id", "user_id", "file", "waved") VALUES (\(bind: UUID()), \(bind: try user.requireID()), \(bind: file), \(bind: false))
            """
        ).run()
    }
}

struct CreateGreetings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("greetings")
            .id()
            .field("user_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("file", .string, .required)
            .field("waved", .bool, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("greetings").delete()
    }
}
