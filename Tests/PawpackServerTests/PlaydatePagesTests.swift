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
        }
    }
}
