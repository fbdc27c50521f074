import Foundation
import PawpackCore
import Plot
import Vapor

/// How Moments shows on a page, the same in every feed, on a photo's page, a pet's and a
/// contest's: a photo's card, its vote button, the feeds' switch and the "more" link.
enum MomentViews {
    /// "Miso and Pixel", "Miso, Pixel and Bo".
    static func names(_ pets: [MomentPetValue]) -> String {
        let names = pets.map(\.name)
        guard names.count > 1 else { return names.first ?? "A pet" }
        return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
    }

    static func privacy(_ privacy: PhotoPrivacy) -> String {
        switch privacy {
        case .public: "Everyone"
        case .friends: "Friends"
        case .private: "Only me"
        }
    }

    /// Who sees a photo, in a sentence for its owner.
    static func audience(_ photo: MomentValue) -> String {
        if photo.entry != nil { return "Everyone sees it while it is in the contest." }
        switch photo.privacy {
        case .public: return "Everyone sees it."
        case .friends: return "Your friends see it."
        case .private: return "Only you and the pets' guardians see it."
        }
    }

    /// The picture a card shows: the display copy the app made, else the original.
    static func image<Context: HTML.BodyContext>(_ photo: MomentValue, thumbnail: Bool = false, lazy: Bool = true) -> Node<Context> {
        let key = thumbnail ? (photo.thumbnailKey ?? photo.displayKey ?? photo.originalKey) : (photo.displayKey ?? photo.originalKey)
        return .img(
            .src(WebPath.media(key)), .alt("Photo of \(names(photo.pets))"),
            .attribute(named: "width", value: String(photo.width)), .attribute(named: "height", value: String(photo.height)),
            .attribute(named: "loading", value: lazy ? "lazy" : nil))
    }

    /// A photo in a feed: who posted it and when, the picture (to its page), its pets, the
    /// caption, its place in the contest and the vote.
    /// `vote` replaces the photo's vote (a contest's entry is voted for as an entry).
    static func card(
        _ req: Request, _ photo: MomentValue, back: String, linked: Bool = true, vote: Node<HTML.BodyContext>? = nil
    ) -> Node<HTML.BodyContext> {
        .element(
            named: "article",
            nodes: [
                .class("card moment"), .id("moment-\(photo.id)"),
                .div(
                    .class("moment-head"),
                    .strong(.text(photo.mine ? "You" : photo.owner.displayName)),
                    .span(.class("muted"), .text(" @\(photo.owner.username) · "), TimeViews.time(photo.createdAt, style: .short)),
                    .if(photo.byFriend, .span(.class("badge"), .text("Friend"))),
                    .if(photo.entry != nil, .span(.class("badge state-fed"), .text("In the contest"))),
                    .if(photo.mine && photo.entry == nil, .span(.class("badge"), .text(privacy(photo.privacy))))),
                .if(
                    linked,
                    .a(
                        .class("moment-photo"), .href(WebPath.moment(photo.id)),
                        .attribute(named: "aria-label", value: "Open the photo of \(names(photo.pets))"), image(photo)),
                    else: .div(.class("moment-photo"), image(photo, lazy: false))),
                .unwrap(photo.caption) { .p(.class("moment-caption"), .text($0)) },
                .div(
                    .class("moment-foot"),
                    .ul(
                        .class("chips moment-pets"),
                        .forEach(photo.pets) { pet in .li(.a(.href(WebPath.pet(pet.id)), .text(pet.name))) }),
                    vote ?? voteForm(req, photo, back: back)),
            ])
    }

    /// Vote or take the vote back: a form that says which (so two taps sent at once stay one
    /// vote), sent in the background by the page's script (`moments.js`).
    static func voteForm(_ req: Request, _ photo: MomentValue, back: String) -> Node<HTML.BodyContext> {
        .if(
            photo.mine, .span(.class("vote-count muted"), .text(count(photo.votes))),
            else: voteButton(
                req, action: WebPath.momentAction(photo.id, .vote), kind: "moment", id: "vote-\(photo.id)", votes: photo.votes,
                voted: photo.votedByMe, back: back))
    }

    /// "1 vote", "12 votes".
    static func count(_ votes: Int) -> String { "\(votes) vote\(votes == 1 ? "" : "s")" }

    /// The vote button of a photo or of a contest's entry (`kind`), posted to `action`.
    static func voteButton(
        _ req: Request, action: String, kind: String, id: String, votes: Int, voted: Bool, back: String
    ) -> Node<HTML.BodyContext> {
        .form(
            .class("inline vote-form"), .action(action), .method(.post), .data(named: "vote", value: kind),
            WebPages.csrfField(req),
            .input(.type(.hidden), .name("vote"), .value(voted ? "0" : "1")),
            .input(.type(.hidden), .name("back"), .value(back)),
            .button(
                .type(.submit), .class(voted ? "button small vote voted" : "button small secondary vote"),
                .id(id), .attribute(named: "aria-pressed", value: voted ? "true" : "false"),
                Icon.heart.node(), .span(.class("vote-label"), .text(" \(count(votes))"))))
    }

    /// Friends, Everyone, Contest: the three feeds one tap apart.
    static func feedSwitch(current: String) -> Node<HTML.BodyContext> {
        .nav(
            .class("feed-switch"), .attribute(named: "aria-label", value: "Feeds"),
            .forEach([(WebPath.moments, "Friends"), (WebPath.momentsEveryone, "Everyone"), (WebPath.contest, "Contest")]) { link in
                .a(
                    .href(link.0), .id("feed-\(link.1.lowercased())"),
                    .if(link.0 == current, .attribute(named: "aria-current", value: "page")), .text(link.1))
            })
    }

    /// A feed's photos and the link to the next page, which the script follows as the reader
    /// scrolls near it (infinite scroll) and a reader without it taps.
    static func feed(
        _ req: Request, _ page: MomentPage, path: String, back: String, empty: Node<HTML.BodyContext>
    ) -> Node<HTML.BodyContext> {
        .group(
            .if(page.items.isEmpty, empty),
            .div(.class("moment-feed"), .id("moment-feed"), .forEach(page.items) { card(req, $0, back: back) }),
            .unwrap(page.next) { next in
                more(path + (path.contains("?") ? "&" : "?") + "after=\(next.text)", into: "moment-feed")
            })
    }

    /// "More": a plain link; with the script, the next page's items are added to `container`.
    static func more(_ href: String, into container: String) -> Node<HTML.BodyContext> {
        .p(
            .class("more"),
            .a(.class("button quiet"), .id("more"), .href(href), .data(named: "more", value: container), .text("More")))
    }
}
