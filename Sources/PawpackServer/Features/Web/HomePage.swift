import Foundation
import PawpackCore
import Plot
import Vapor

/// One thing Home shows, brought by an area (`Area.home`). Home puts the areas' cards in the
/// order of their urgency, the areas' order within one urgency, so what needs the member now
/// comes first whichever area it is from.
struct HomeCard {
    enum Urgency: Int, Comparable {
        /// What a newcomer still has to do before the area works for them (the first deck).
        case firstSteps = 0
        /// Happening now or within the day (an accepted meet-up).
        case happeningSoon = 10
        /// Someone waits for the member's answer (a request, a proposal, an invitation).
        case answerNeeded = 20
        /// Something new to read (unread chats).
        case unread = 30
        /// Something done that asks for a follow-up (a review).
        case followUp = 40
        /// Ways into the area, always there (each dog's deck).
        case explore = 90

        static func < (lhs: Urgency, rhs: Urgency) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    var urgency: Urgency
    var node: Node<HTML.BodyContext>

    /// A card with a heading, the section Home shows for each card.
    static func section(
        _ urgency: Urgency, id: String, title: String, _ content: Node<HTML.BodyContext>...
    ) -> HomeCard {
        HomeCard(urgency: urgency, node: .section(.class("card home-card"), .id(id), .h2(.text(title)), .group(content)))
    }
}

/// The member's start, across areas: each area's cards (`Area.home`) by urgency; when nothing
/// waits for the member, Home says so above the ways in.
enum HomePage {
    static func render(_ req: Request, services: PawpackServices) async throws -> Response {
        let user = try req.requireWebUser().user
        var cards: [(order: Int, card: HomeCard)] = []
        for area in services.areas {
            guard let home = area.home else { continue }
            for card in try await home(req, services) { cards.append((cards.count, card)) }
        }
        cards.sort { ($0.card.urgency, $0.order) < ($1.card.urgency, $1.order) }
        let caughtUp = !cards.contains { $0.card.urgency < .explore }
        return WebPages.page(
            req, title: "Hello, \(user.displayName)",
            main: .group(
                .if(caughtUp, .p(.class("notice"), .id("caught-up"), Icon.check.node(), .text(" You're all caught up: nothing waits for you."))),
                .forEach(cards) { $0.card.node }
            ))
    }
}
