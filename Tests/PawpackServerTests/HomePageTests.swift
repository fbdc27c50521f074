import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Home is a tab of its own and shows what needs the member now, whichever area it is from,
/// most urgent first (`Area.home`).
@Suite struct HomePageTests {
    @Test func homeShowsWhatWaitsForTheMemberAcrossAreasMostUrgentFirst() async throws {
        try await TestServer.run { server in
            // given Ada matched with Bob and with Cyd, every dog vaccinated
            let (ada, bob, bobChat) = try await server.adaAndBobMatched()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            let cydChat = try await server.matched(ada, cyd).id
            for owner in [ada, bob, cyd] { try await server.vaccinate(owner) }
            // a meet-up with Bob in three hours, accepted; one Cyd proposes, waiting for Ada
            let soon = try await server.propose(ada, in: bobChat, hours: 3, place: "Parc de la Tête d'Or")
            let soonID = try soon.decode(Components.Schemas.Meetup.self).id
            #expect(try await server.send(.POST, APIPath.meetup(soonID, "accept"), object: [:], token: bob.token).status == 200)
            let proposed = try await server.propose(cyd, in: cydChat, hours: 30, place: "Berges du Rhône")
            #expect(proposed.status == 201)
            // Bob writes; Dee's dog likes Ada's; Eve invites Ada to guard her cat
            try await server.say("See you at the park!", from: bob, in: bobChat)
            let dee = try await server.owner("dee", at: TestServer.Place.lyonNorth)
            _ = try await server.like(dee, ada)
            let eve = try await server.owner("eve", at: TestServer.Place.lyon, dog: ["name": "Miso", "species": "cat"])
            #expect(try await server.send(.POST, APIPath.guardians(eve.dogID), object: ["username": "ada"], token: eve.token).status == 201)

            // when Ada opens Home
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let home = try await browser.get("/home")

            // then Home is the current tab and the account link in the top bar is not current
            #expect(home.html.contains(#"<a class="tab" id="nav-home" href="/home" aria-current="page">"#))
            #expect(home.html.contains(#"<a class="topbar-button" id="topbar-me" href="/account">"#))
            // and each area's card stands in the order of its urgency: her first steps (a photo
            // is missing), the meet-up starting soon, the answers she owes, the unread chat,
            // then the ways into the decks
            let order = ["checklist", "home-meetups-soon", "home-invitations", "waiting", "home-meetups-proposed", "home-chats", "your-dogs"]
            let positions = order.map { home.html.range(of: #"id="\#($0)""#)?.lowerBound }
            #expect(positions.allSatisfy { $0 != nil }, "missing: \(zip(order, positions).filter { $0.1 == nil }.map(\.0))")
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
            #expect(home.html.contains("Parc de la Tête d"))
            #expect(home.html.contains("Berges du Rhône"))
            #expect(home.html.contains("See you at the park!"))
            #expect(home.html.contains("invites you to guard <strong>Miso</strong>"))
            #expect(!home.html.contains(#"id="caught-up""#))

            // and a card's actions work from Home: accepting Cyd's proposal comes back to it
            let proposal = try proposed.decode(Components.Schemas.Meetup.self).id
            let accepted = try await browser.post("/meetups/\(proposal)/accept", ["next": "/home"])
            #expect(accepted.location?.hasPrefix("/home") == true)
            let after = try await browser.get("/home")
            #expect(!after.html.contains(#"id="home-meetups-proposed""#))
        }
    }

    @Test func aMemberWithNothingWaitingIsToldSo() async throws {
        try await TestServer.run { server in
            // given Bob, whose dog liked Ada's and who has nothing waiting but his photo
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(bob, ada)
            let photo = try await server.upload(
                APIPath.photos(bob.dogID),
                parts: [.init(name: "photo", filename: "dog.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))],
                token: bob.token)
            #expect(photo.status == 201)

            // when he opens Home, it says nothing waits, above the way to his deck
            let home = try await TestBrowser.signedIn(server, as: bob.member).get("/home")
            #expect(home.html.contains(#"id="caught-up""#))
            #expect(!home.html.contains(#"id="checklist""#))
            #expect(home.html.contains(#"id="your-dogs""#))
        }
    }

    @Test func aMemberWithOnlyACatIsNotPushedTowardsPlaydates() async throws {
        try await TestServer.run { server in
            // given Eve, whose only pet is a cat
            let eve = try await server.owner("eve", at: TestServer.Place.lyon, dog: ["name": "Miso", "species": "cat"])
            // when she opens Home, no checklist asks her to add a dog or like one
            let home = try await TestBrowser.signedIn(server, as: eve.member).get("/home")
            #expect(!home.html.contains(#"id="checklist""#) && !home.html.contains("Add your dog"))
            #expect(home.html.contains(#"id="caught-up""#))
        }
    }
}
