import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// The chat, meet-up and inbox pages as a browser without JavaScript uses them: plain forms
/// that post and reload. A stranger sees none of it; what members write is escaped.
@Suite struct ChatPagesTests {
    @Test func withoutJavaScriptOwnersChatProposeAcceptCompleteAndReviewThroughForms() async throws {
        try await TestServer.run { server in
            // given Ada and Bob matched, their dogs vaccinated, each in a browser
            let (ada, bob) = try await server.adaAndBob()
            try await server.vaccinate(ada)
            try await server.vaccinate(bob)
            let chat = try await server.matched(ada, bob).id
            let adas = try await TestBrowser.signedIn(server, as: ada.member)
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)

            // the Chats tab lists the chat; the chat page has a plain form
            let list = try await adas.get("/chats")
            #expect(list.status == 200 && list.html.contains("href=\"/chats/\(chat)\"") && list.html.contains("Bob&#39;s dog"))
            let page = try await adas.get("/chats/\(chat)")
            #expect(page.html.contains("id=\"message-form\"") && page.html.contains("id=\"propose-meetup\""))

            // when Ada sends a message with markup in it (twice: the same id is one message)
            let id = UUID().uuidString.lowercased()
            let sent = try await adas.post("/chats/\(chat)/messages", ["id": id, "text": "<b>Park</b> at ten?"])
            #expect(sent.status == 303 && sent.location?.hasPrefix("/chats/\(chat)") == true)
            _ = try await adas.post("/chats/\(chat)/messages", ["id": id, "text": "<b>Park</b> at ten?"])
            #expect(
                try await server.get(
                    APIPath.messages(chat), token: ada.token,
                    as: Components.Schemas.MessagePage.self
                ).items.count == 1)

            #expect(try await adas.get("/chats/\(chat)").html.contains("id=\"seen\" hidden"), "not read yet")

            // then Bob's tab counts the chat, and his chat page shows the message, escaped
            #expect(Self.count("chats-count", in: try await bobs.get("/home").html) == 1)
            let bobsPage = try await bobs.get("/chats/\(chat)")
            #expect(bobsPage.html.contains("&lt;b&gt;Park&lt;/b&gt; at ten?") && !bobsPage.html.contains("<b>Park</b>"))
            #expect(Self.count("chats-count", in: bobsPage.html) == nil, "the chat read is no longer counted on its own page")
            #expect(Self.count("chats-count", in: try await bobs.get("/home").html) == nil, "opening the chat read it")
            #expect(try await adas.get("/chats/\(chat)").html.contains("id=\"seen\">Seen"), "Ada sees Bob read it")
            // an empty message is refused, naming it, and sends nothing
            let empty = try await bobs.post("/chats/\(chat)/messages", ["id": UUID().uuidString, "text": "   "])
            #expect(empty.status == 422 && empty.html.contains("Message must not be empty."))

            // when Ada proposes a meet-up near a town, at 10:00 tomorrow in UTC+1
            let day = LocalDate(utc: server.clock.now().addingTimeInterval(86_400)).description
            let proposed = try await adas.post(
                "/chats/\(chat)/meetups",
                [
                    "date": day, "time": "10:00", "offset": "-60", "placeName": "Parc de la Tête d'Or", "town": "Lyon",
                ])
            #expect(proposed.status == 303, "\(proposed.html)")
            let meetup = try #require(
                try await server.get(
                    "/v1/meetups?filter=upcoming", token: ada.token,
                    as: Components.Schemas.MeetupList.self
                ).items.first)
            #expect(meetup.startsAt == (try RFC3339DateTranscoder().decode("\(day)T09:00:00Z")))
            #expect(abs(meetup.location.latitude - 45.75) < 0.1, "placed at Lyon's centre")

            // then Bob answers on his chat page: accept; its map searches for the place typed
            // around the town, not for the town's centre
            let withCard = try await bobs.get("/chats/\(chat)")
            #expect(withCard.html.contains("id=\"meetup-accept-\(meetup.id)\""))
            #expect(withCard.html.contains("href=\"https://www.openstreetmap.org/search?query=Parc%20de%20la%20T%C3%AAte%20d%27Or#map=15/"))
            let accepted = try await bobs.post("/meetups/\(meetup.id)/accept", ["next": "/chats/\(chat)"])
            #expect(accepted.status == 303 && accepted.location?.hasPrefix("/chats/\(chat)") == true)

            // once it has started, either marks it done; then each reviews the other once
            server.clock.advance(by: 2 * 86_400)
            let adaAgain = try await TestBrowser.signedIn(server, as: try await server.signedInAgain(ada).member)
            #expect(try await adaAgain.get("/chats/\(chat)").html.contains("id=\"meetup-complete-\(meetup.id)\""))
            #expect(try await adaAgain.post("/meetups/\(meetup.id)/complete", [:]).status == 303)
            let reviewForm = try await adaAgain.get("/meetups/\(meetup.id)/review")
            #expect(reviewForm.status == 200 && reviewForm.html.contains("name=\"rating\""))
            let noRating = try await adaAgain.post("/meetups/\(meetup.id)/review", ["text": "Lovely"])
            #expect(
                noRating.status == 422 && noRating.html.contains("id=\"rating-error\"")
                    && noRating.html.contains("Choose from 1 to 5 stars."))
            let tooLong = try await adaAgain.post("/meetups/\(meetup.id)/review", ["rating": "4", "text": String(repeating: "a", count: 1_001)])
            #expect(
                tooLong.status == 422 && tooLong.html.contains("id=\"review-text-error\"")
                    && tooLong.html.contains("value=\"4\" id=\"rating-4\" required checked"), "the form keeps what was chosen")
            let reviewed = try await adaAgain.post("/meetups/\(meetup.id)/review", ["rating": "5", "text": "Lovely"])
            #expect(reviewed.status == 303 && reviewed.location == "/meetups?flash=reviewed")
            let twice = try await adaAgain.post("/meetups/\(meetup.id)/review", ["rating": "4"])
            #expect(twice.status == 409 && twice.html.contains("You already reviewed this meet-up"))
            let rated = try await adaAgain.get("/pets/\(bob.dogID)")
            #expect(rated.html.contains("id=\"pet-rating\"") && rated.html.contains("5.0 · 1 review"))

            // the inbox lists Bob's notifications, the new ones marked; having opened it, Bob
            // has read them all, and the bell says nothing more; each opens its page
            let bobAgain = try await TestBrowser.signedIn(server, as: try await server.signedInAgain(bob).member)
            let unreadBefore = try #require(Self.count("bell-count", in: try await bobAgain.get("/meetups").html))
            #expect(unreadBefore >= 2, "Bob's bell counts what he has not read")
            let inbox = try await bobAgain.get("/notifications")
            #expect(inbox.status == 200 && inbox.html.components(separatedBy: "inbox-item unread").count - 1 == unreadBefore)
            #expect(Self.count("bell-count", in: inbox.html) == nil)
            #expect(Self.count("bell-count", in: try await bobAgain.get("/meetups").html) == nil, "opening the inbox read it")
            let page2 = try await server.get(
                APIPath.notifications, token: try await server.signedInAgain(bob).token,
                as: Components.Schemas.NotificationPage.self)
            #expect(page2.unreadCount == 0)
            let review = try #require(page2.items.first { $0.kind == .review })
            let opened = try await bobAgain.post("/notifications/\(review.id)/open", [:])
            #expect(opened.status == 303 && opened.location == "/meetups")
        }
    }

    /// The number a badge shows (`WebPages.countBadge`), nil when it is hidden or not there.
    static func count(_ id: String, in html: String) -> Int? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let close = rest.firstIndex(of: ">"), !rest[..<close].contains("hidden") else { return nil }
        return Int(rest[rest.index(after: close)...].prefix { $0.isNumber })
    }

    @Test func aMessageSentWhileTheChatPageLoadsStillReachesItsSocket() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            try await server.say("hello", from: ada, in: chat)
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)

            // Bob's page is drawn with "hello" and his newest event then (the request, the match,
            // "hello", each with its notification)
            let page = try await bobs.get("/chats/\(chat)")
            #expect(page.html.contains("hello"))
            let shownAfter = try #require(Self.eventsAfter(in: page.html), "the page says where its socket resumes")
            #expect(shownAfter == 6)
            // Ada answers before his page's script has opened its socket; the socket it opens
            // still brings her answer, and nothing the page already showed
            let answer = try await server.say("see you there", from: ada, in: chat)
            let socket = try await RealtimeTestClient.connect(
                server, token: nil, after: shownAfter,
                headers: [("Cookie", bobs.cookieHeader ?? ""), ("Origin", server.config.publicBaseURL)])
            // (first the read receipt that showing the page made, then her answer and its notification)
            let heard = try await socket.next(3)
            #expect(heard.compactMap(\.eventID) == Array(shownAfter + 1...shownAfter + 3))
            #expect(heard.compactMap(\.eventType) == ["read", "message", "notification"])
            #expect(heard[0].eventData?["byMe"] as? Bool == true && heard[1].eventData?["id"] as? String == answer.id)
            await socket.close()
            // a page drawn again after a refused post carries it too (and reads Ada's answer as it
            // is drawn: the request and the match are left in the bell)
            let refused = try await bobs.post("/chats/\(chat)/messages", ["id": UUID().uuidString, "text": "   "])
            #expect(refused.status == 422 && Self.eventsAfter(in: refused.html) == shownAfter + 3)
            #expect(Self.count("bell-count", in: refused.html) == 2)
            // a page for someone signed out has no socket to resume
            #expect(Self.eventsAfter(in: try await TestBrowser(server).get("/login").html) == nil)
        }
    }

    /// `<body data-events-after="N">`: the newest event as the page was drawn.
    static func eventsAfter(in html: String) -> Int64? {
        guard let start = html.range(of: "data-events-after=\"") else { return nil }
        return Int64(html[start.upperBound...].prefix { $0.isNumber })
    }

    @Test func aStrangerSeesNoChatNoMeetupAndCannotWriteOrAnswer() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            try await server.vaccinate(ada)
            try await server.vaccinate(bob)
            let chat = try await server.matched(ada, bob).id
            let meetup = try await server.propose(ada, in: chat).decode(Components.Schemas.Meetup.self).id
            let eves = try await TestBrowser.signedIn(server, as: eve.member)
            let missing = try await eves.get("/chats/\(UUID().uuidString.lowercased())")
            for path in ["/chats/\(chat)", "/chats/\(chat)/meetups/new"] {
                let page = try await eves.get(path)
                #expect(page.status == 404 && page.html == missing.html, "\(path) tells a stranger more than a chat that does not exist")
            }
            #expect(try await eves.post("/chats/\(chat)/messages", ["id": UUID().uuidString, "text": "hi"]).status == 404)
            #expect(try await eves.post("/meetups/\(meetup)/accept", [:]).status == 404)
            #expect(try await eves.post("/meetups/\(meetup)/reject", [:]).status == 404)
            #expect(try await eves.get("/meetups/\(meetup)/review").status == 404)
            #expect(!(try await eves.get("/meetups").html.contains(meetup)))
            // and a member not signed in is sent to log in
            let anonymous = try await TestBrowser(server).get("/chats")
            #expect(anonymous.status == 303 && anonymous.location?.hasPrefix("/login") == true)
        }
    }

    @Test func aPuppyModeChatSaysWhyMeetupsWaitAndFromWhen() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon, dog: ["estimatedAgeMonths": 2, "name": "Pip"])
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            try await server.vaccinate(bob)
            let chat = try await server.matched(ada, bob).id
            let page = try await TestBrowser.signedIn(server, as: ada.member).get("/chats/\(chat)")
            #expect(page.html.contains("id=\"meetups-unavailable\""))
            #expect(page.html.contains("Pip is in Puppy Mode and may meet other dogs from"))
            #expect(!page.html.contains("id=\"propose-meetup\"") && page.html.contains("id=\"message-form\""))
        }
    }

    @Test func aMeetupIsListedOnceAndLeavesUpcomingWhenItStarts() async throws {
        try await TestServer.run { server in
            // given Ada and Bob matched, vaccinated, and a meet-up in two hours Bob accepted
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let id = try (try await server.propose(ada, in: chat, hours: 2)).decode(Components.Schemas.Meetup.self).id
            #expect(try await server.send(.POST, APIPath.meetup(id, "accept"), object: [:], token: bob.token).status == 200)
            var browser = try await TestBrowser.signedIn(server, as: ada.member)
            /// The section of the meet-ups page the meet-up is listed in, and how many times.
            func listing() async throws -> (section: String?, times: Int) {
                let browser = browser
                let html = try await browser.get("/meetups").html
                let times = html.components(separatedBy: #"id="meetup-\#(id)""#).count - 1
                guard let card = html.range(of: #"id="meetup-\#(id)""#) else { return (nil, times) }
                let before = html[..<card.lowerBound]
                let section = ["meetups-to-review", "meetups-upcoming", "meetups-past"]
                    .compactMap { name in before.range(of: #"id="\#(name)""#).map { (name, $0.lowerBound) } }
                    .max { $0.1 < $1.1 }?.0
                return (section, times)
            }
            #expect(try await listing() == ("meetups-upcoming", 1))

            // when its start has passed, it is no longer upcoming but waits to be marked done
            server.clock.advance(by: 3 * 3_600)
            browser = try await TestBrowser.signedIn(server, as: try await server.signedInAgain(ada).member)
            let started = try await listing()
            #expect(started.section == "meetups-to-review" && started.times == 1, "\(started)")
            // and once done it waits for Ada's review, listed once, not also as past
            #expect(try await browser.post("/meetups/\(id)/complete", [:]).status == 303)
            #expect(try await listing() == ("meetups-to-review", 1))
            // and once reviewed it is past
            #expect(try await browser.post("/meetups/\(id)/review", ["rating": "5"]).status == 303)
            #expect(try await listing() == ("meetups-past", 1))
        }
    }
}
