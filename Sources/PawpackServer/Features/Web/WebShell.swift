import Fluent
import PawpackCore
import SQLKit

/// What the frame of every signed-in page takes from the areas: the tabs in their order, the
/// pages each tab holds, the badges and the flash messages.
struct WebShell: Sendable {
    let tabs: [WebPages.Tab]
    let badges: [WebPages.Badge]
    let flashes: [String: Flash]
    /// Which tab a path is under, asked tab by tab in the bar's order: a dog's deck
    /// (`/pets/…/deck`) is Playdates before it is Pets.
    private let claims: [WebPages.TabPages]

    init(areas: [Area]) {
        // A later area's tab at an earlier one's place takes it over, with its pages: Care
        // takes Pets' (`docs/DESIGN-SYSTEM.md`, "Navigation").
        var byPosition: [Int: WebPages.Tab] = [:]
        var takenOver: [WebPages.TabPages] = []
        for tab in [.home] + areas.compactMap(\.tab) {
            if let earlier = byPosition[tab.position] { takenOver.append(.init(tab: tab.id, owns: earlier.owns)) }
            byPosition[tab.position] = tab
        }
        tabs = byPosition.values.sorted { $0.position < $1.position }
        badges = areas.flatMap(\.badges)
        var flashes: [String: Flash] = [:]
        for flash in areas.flatMap(\.flashes) {
            precondition(flashes.updateValue(flash, forKey: flash.name) == nil, "two flashes named \(flash.name)")
        }
        self.flashes = flashes
        let others = areas.flatMap(\.pagesUnderTab) + takenOver
        claims = tabs.flatMap { tab in [WebPages.TabPages(tab: tab.id, owns: tab.owns)] + others.filter { $0.tab == tab.id } }
    }

    func tab(of path: String) -> WebPages.Tab? {
        guard let claim = claims.first(where: { $0.owns(path) }) else { return nil }
        return tabs.first { $0.id == claim.tab }
    }

    func badge(id: String) -> WebPages.Badge? {
        badges.first { $0.id == id }
    }
}

extension WebPages.Tab {
    /// The shell's own tab, first: what needs the member now, from every area (`Area.home`).
    static let home = WebPages.Tab(id: "home", title: "Home", path: WebPath.home, icon: .home, position: 0) { $0 == WebPath.home }
}

extension WebShell {
    /// What the frame of a signed-in page counts, read in one statement: the member's newest
    /// realtime event (the page's socket resumes after it) and every badge.
    struct FrameCounts {
        var eventsShownAfter: Int64
        var badges: [String: Int]
    }

    func frameCounts(of member: User.ID, on db: any Database) async throws -> FrameCounts {
        // Read before anything the page shows: its script's socket resumes after this id, so
        // whatever commits while the page is drawn and loads still reaches it.
        var columns: [SQLQueryString] = [
            #"COALESCE((SELECT "last_seq" FROM "realtime_counters" WHERE "user_id" = \#(bind: member)), 0) AS "events_after""#
        ]
        for (index, badge) in badges.enumerated() {
            columns.append("(\(badge.count(member))) AS \(ident: "badge_\(index)")")
        }
        guard let row = try await db.sql.raw("SELECT \(columns.joined(separator: ", "))").first() else {
            return FrameCounts(eventsShownAfter: 0, badges: [:])
        }
        var counts: [String: Int] = [:]
        for (index, badge) in badges.enumerated() {
            counts[badge.id] = try row.decode(column: "badge_\(index)", as: Int.self)
        }
        return FrameCounts(eventsShownAfter: try row.decode(column: "events_after", as: Int64.self), badges: counts)
    }
}
