import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The Playdates pages: the deck and the preferences. Through HTTP with cookies, as a browser without JavaScript.
@Suite struct PlaydatePagesTests {
    @Test func anEmptyDeckSaysSoAndAFullOneShowsPhotoCardsWithChipsButNoScore() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let empty = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(empty.status == 200)
            #expect(empty.html.contains(#"id="deck-empty""#))
            #expect(empty.html.contains(#"<form id="undo-form" action="/pets/\#(ada.dogID)/swipes/undo" method="post" hidden="hidden">"#))

            _ = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let full = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(full.html.contains(#"<h2 id="deck-name">Bob&#39;s dog<span>, about 2 years</span></h2>"#))
            #expect(full.html.contains(#"<ul class="chips" id="deck-reasons">"#))
            #expect(!full.html.lowercased().contains("score"))
            #expect(full.html.contains(#"aria-label="Like Bob&#39;s dog""#))

            // a swipe from the deck's script gets JSON, with the words the script shows; from a
            // form, a redirect
            #expect(full.html.contains(#"data-name="Bob&#39;s dog""#), "the script names the next dog from its card")
            let liked = try await browser.post(
                "/pets/\(ada.dogID)/swipes", ["targetPetId": try await server.deck(ada).items[0].pet.id, "decision": "like"],
                headers: [("Accept", "application/json")])
            #expect(liked.status == 200)
            #expect(liked.html == #"{"message":"Liked! Their owner will be asked."}"#)
            let again = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(again.html.contains(#"id="deck-empty""#))
            #expect(again.html.contains(#"<form id="undo-form" action="/pets/\#(ada.dogID)/swipes/undo" method="post">"#))
        }
    }

    @Test func webPreferencesTakeAgesInYearsAndMonthsAndPlaceTheirErrorsThere() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let path = "/pets/\(ada.dogID)/preferences"
            let bad = try await browser.post(path, ["maxDistanceKm": "10", "minAgeYears": "1", "minAgeMonths": "14"])
            #expect(bad.status == 422)
            #expect(bad.html.contains(#"<p id="minAgeYears-error" class="field-error">"#))
            #expect(
                try await server.get(
                    path.replacingOccurrences(of: "/pets", with: APIPath.pets), token: ada.token,
                    as: Components.Schemas.DeckPreferences.self
                ).maxDistanceKm == 25)

            let saved = try await browser.post(
                path,
                [
                    "maxDistanceKm": "10", "minAgeYears": "1", "minAgeMonths": "6",
                    "maxAgeYears": "4", "sexes[]": "female", "sizes[]": "medium",
                    "playStyles[]": "chase", "neuteredOnly": "on", "maxWeightKg": "20,5",
                ])
            #expect(saved.location == "/pets/\(ada.dogID)/deck?flash=preferences")
            let stored = try await server.get(APIPath.preferences(ada.dogID), token: ada.token, as: Components.Schemas.DeckPreferences.self)
            #expect(stored.maxDistanceKm == 10 && stored.minAgeMonths == 18 && stored.maxAgeMonths == 48)
            #expect(stored.sexes == [.female] && stored.sizes == [.medium] && stored.playStyles == [.chase])
            #expect(stored.neuteredOnly == true && stored.maxWeightKg == 20.5)
            let page = try await browser.get(path)
            #expect(page.html.contains(#"name="minAgeYears" id="minAgeYears" value="1""#))
            #expect(page.html.contains(#"name="minAgeMonths" id="minAgeMonths" value="6""#))
            #expect(page.html.contains(#"value="female" id="sexes-female" checked"#))
        }
    }

    @Test func theMatchScreenAndEveryMatchLeadToTheirChatInOneTap() async throws {
        try await TestServer.run { server in
            // given Bob's dog liked Ada's
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(bob, ada)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)

            // when Ada likes back from her deck's form, the match screen opens
            let liked = try await browser.post("/pets/\(ada.dogID)/swipes", ["targetPetId": bob.dogID, "decision": "like"])
            let screen = try #require(liked.location)
            #expect(screen.hasPrefix("/playdates/matches/"))

            // then its main action opens the chat the match opened, as does the match's row
            let chat = try #require(try await server.get("/v1/chats", token: ada.token, as: Components.Schemas.ChatPage.self).items.first).id
            let page = try await browser.get(screen)
            #expect(page.html.contains(#"<a class="button" id="say-hello" href="/chats/\#(chat)">"#))
            let matches = try await browser.get("/playdates/matches")
            #expect(matches.html.contains(#"href="/chats/\#(chat)""#))
            // and the API names the chat of each match, for both sides
            struct Matches: Decodable { var items: [Components.Schemas.Match] }
            for owner in [ada, bob] {
                let listed = try await server.get("/v1/matches", token: owner.token, as: Matches.self)
                #expect(listed.items.map(\.chatId) == [chat])
            }

            // and once it ends, Matches does not say "yet" beside the chat it leaves
            #expect(!matches.html.contains("No matches yet"))
            let match = try #require(try await server.get("/v1/matches", token: ada.token, as: Matches.self).items.first).id
            #expect(try await browser.post("/playdates/matches/\(match)/unmatch", [:]).status == 303)
            let ended = try await browser.get("/playdates/matches")
            #expect(ended.html.contains("No current matches.") && !ended.html.contains("No matches yet"))
        }
    }

    @Test func anotherDogsPageOpenedFromTheDeckLeadsBackWithLikeAndPass() async throws {
        try await TestServer.run { server in
            // given Ada's deck with Bob's dog on it
            let (ada, bob) = try await server.adaAndBob()
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let deck = try await browser.get("/pets/\(ada.dogID)/deck")
            let profile = "/pets/\(bob.dogID)?deck=\(ada.dogID)"
            #expect(deck.html.contains(#"href="\#(profile)""#))

            // when she opens the card, the page leads back to her deck and offers Like and Pass
            let page = try await browser.get(profile)
            #expect(page.html.contains(#"<a class="back-link" href="/pets/\#(ada.dogID)/deck">"#))
            #expect(page.html.contains(#"id="profile-like""#) && page.html.contains(#"id="profile-pass""#))
            // and a like from there sends the request and returns to the deck, saying so
            let liked = try await browser.post("/pets/\(ada.dogID)/swipes", ["targetPetId": bob.dogID, "decision": "like"])
            #expect(liked.location == "/pets/\(ada.dogID)/deck?flash=liked")

            // a deck that is not hers, or no deck, adds nothing; the page leads Home or back
            for other in ["/pets/\(bob.dogID)?deck=\(bob.dogID)", "/pets/\(bob.dogID)?deck=nonsense", "/pets/\(bob.dogID)"] {
                let plain = try await browser.get(other)
                #expect(plain.status == 200)
                #expect(!plain.html.contains(#"id="profile-like""#), "\(other)")
                #expect(plain.html.contains(#"<a class="back-link" href="/home">"#), "\(other)")
            }
            let fromRequests = try await browser.get("/pets/\(bob.dogID)", headers: [("Referer", "\(server.baseURL)/playdates/requests")])
            #expect(fromRequests.html.contains(#"<a class="back-link" href="/playdates/requests">"#))
        }
    }

    @Test func aMemberFarFromEveryoneIsToldHowFarTheDeckLookedAndCanLookFurther() async throws {
        try await TestServer.run { server in
            // given Ada in Lyon and the nearest dog 80 km north
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            _ = try await server.owner("bob", at: GeoPoint(latitude: 45.764 + 80 / 111.2, longitude: 4.8357))
            let browser = try await TestBrowser.signedIn(server, as: ada.member)

            // when she opens her deck, it says how far it looked and offers to look further
            let deck = "/pets/\(ada.dogID)/deck"
            let empty = try await browser.get(deck)
            #expect(empty.html.contains("No more dogs within 25 km of you for now."))
            #expect(empty.html.contains(#"<a class="button" id="look-further" href="\#(deck)?within=50">Look within 50 km</a>"#))
            let wider = try await browser.get(deck + "?within=50")
            #expect(wider.html.contains("within 50 km") && wider.html.contains(#"href="\#(deck)?within=100""#))

            // then at 100 km Bob's dog is there, and her saved preference is unchanged
            let found = try await browser.get(deck + "?within=100")
            #expect(found.html.contains(#"id="deck-card""#) && found.html.contains("Bob&#39;s dog"))
            #expect(try await browser.get(deck).html.contains(#"id="deck-empty""#))
            // a distance outside the allowed range is ignored
            #expect(try await browser.get(deck + "?within=100000").html.contains("within 25 km"))
        }
    }
}
