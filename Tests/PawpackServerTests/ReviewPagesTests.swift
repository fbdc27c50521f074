import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Reviews on the web: the words shown where the dog is, sent once, and reported by the one
/// they are about.
@Suite struct ReviewPagesTests {
    @Test func aReviewsWordsReachTheReviewedOwnerAndTheDogsPageAndMayBeReportedByThem() async throws {
        try await TestServer.run { server in
            // given Ada and Bob met and marked it done
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let meetup = try (try await server.propose(ada, in: chat, hours: 2)).decode(Components.Schemas.Meetup.self).id
            #expect(try await server.send(.POST, APIPath.meetup(meetup, "accept"), object: [:], token: bob.token).status == 200)
            server.clock.advance(by: 3 * 3_600)
            let adaAgain = try await server.signedInAgain(ada)
            #expect(try await server.send(.POST, APIPath.meetup(meetup, "complete"), object: [:], token: adaAgain.token).status == 200)

            // when Ada reviews Bob's dog from the web
            let adas = try await TestBrowser.signedIn(server, as: adaAgain.member)
            let sent = try await adas.post("/meetups/\(meetup)/review", ["rating": "4", "text": "Played so gently <3"])
            #expect(sent.location == "/meetups?flash=reviewed")

            // then the form does not come back: the page shows what she sent
            let again = try await adas.get("/meetups/\(meetup)/review")
            #expect(!again.html.contains(#"id="review-form""#) && again.html.contains(#"id="review-sent""#))
            #expect(again.html.contains("Played so gently &lt;3"))
            // and Bob's notification says the words
            let bobAgain = try await server.signedInAgain(bob)
            let inbox = try await server.get(APIPath.notifications, token: bobAgain.token, as: Components.Schemas.NotificationPage.self)
            let told = inbox.items.first { $0.kind == .review }
            #expect(told?.body.contains("“Played so gently <3”") == true, "\(inbox.items.map(\.body))")
            // and the dog's page shows the newest review, with the way to all
            let bobs = try await TestBrowser.signedIn(server, as: bobAgain.member)
            let dogPage = try await adas.get("/pets/\(bob.dogID)")
            #expect(dogPage.html.contains(#"id="pet-reviews""#) && dogPage.html.contains("Played so gently &lt;3"))
            #expect(dogPage.html.contains(#"href="/pets/\#(bob.dogID)/reviews""#))

            // when Bob opens his dog's reviews, he may report it; Ada, its author, may not
            let review = try #require(
                try await server.get("/v1/pets/\(bob.dogID)/reviews", token: bobAgain.token, as: Components.Schemas.ReviewPage.self).items.first
            ).id
            #expect(try await bobs.get("/pets/\(bob.dogID)/reviews").html.contains(#"id="report-\#(review)""#))
            #expect(!(try await adas.get("/pets/\(bob.dogID)/reviews").html.contains(#"id="report-\#(review)""#)))
            let stranger = try await server.member("eve")
            let eves = try await TestBrowser.signedIn(server, as: stranger)
            #expect(try await eves.post("/reviews/\(review)/report", ["reason": "spam"]).status == 404)
            #expect(try await adas.post("/reviews/\(review)/report", ["reason": "mine"]).status == 404)
            #expect(try await server.rowCounts()["review_reports"] == 0)

            // then his report is kept once, and the page says so
            let reported = try await bobs.post("/reviews/\(review)/report", ["reason": "We never met at that park."])
            #expect(reported.location == "/pets/\(bob.dogID)/reviews?flash=review-reported")
            #expect(try await bobs.post("/reviews/\(review)/report", ["reason": "Again"]).status == 303)
            #expect(try await server.rowCounts()["review_reports"] == 1)
            let empty = try await bobs.post("/reviews/\(review)/report", ["reason": "  "])
            #expect(empty.status == 422)
        }
    }
}
