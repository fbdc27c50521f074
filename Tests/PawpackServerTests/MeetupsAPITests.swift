import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Meet-ups and reviews through the HTTP API: proposed in a chat, answered by the other owner,
/// completed after the start, reviewed once by each; refused while a dog is in Puppy Mode, in
/// a closed chat, at a wrong time or beside a waiting proposal; for their two owners only.
@Suite struct MeetupsAPITests {
    typealias Meetup = Components.Schemas.Meetup

    func act(_ server: TestServer, _ action: String, _ meetup: String, as owner: TestServer.Owner) async throws -> TestServer.Reply {
        try await server.request(.POST, APIPath.meetup(meetup, action), token: owner.token)
    }

    /// Two owners of vaccinated adult dogs, matched, and a stranger.
    func matchedPair(_ server: TestServer) async throws -> (ada: TestServer.Owner, bob: TestServer.Owner, eve: TestServer.Owner, chat: String) {
        let (ada, bob) = try await server.adaAndBob()
        let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
        for owner in [ada, bob, eve] { try await server.vaccinate(owner) }
        return (ada, bob, eve, try await server.matched(ada, bob).id)
    }

    @Test func aMeetupIsProposedAcceptedCompletedAndReviewedByItsTwoOwnersOnly() async throws {
        try await TestServer.run { server in
            var (ada, bob, eve, chat) = try await matchedPair(server)

            server.clock.advance(by: 1) // the inbox is newest first
            // Ada proposes; Bob sees it coming, coordinates included, and is notified
            let proposed = try await server.propose(ada, in: chat, extra: ["note": "  Bring a ball  "])
            #expect(proposed.status == 201, "\(proposed.text)")
            let meetup = try proposed.decode(Meetup.self)
            #expect(meetup.status == .pending && meetup.proposedByMe && meetup.note == "Bring a ball")
            #expect(meetup.myPet.name == "Ada's dog" && meetup.otherPet.name == "Bob's dog")
            let bobs = try await server.get(APIPath.meetups, token: bob.token, as: Components.Schemas.MeetupList.self).items
            #expect(bobs.map(\.id) == [meetup.id] && bobs.first?.proposedByMe == false)
            #expect(bobs.first?.location.latitude == 45.7772 && bobs.first?.placeName == "Parc de la Tête d'Or")
            let inbox = try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
            #expect(inbox.items.first?.kind == .meetup && inbox.items.first?.meetupId == meetup.id)
            #expect(inbox.items.first?.body == "Ada (Ada's dog) would like to meet Bob's dog at Parc de la Tête d'Or.")

            // a stranger gets exactly what a meet-up that does not exist gets, and changes nothing
            var answers: [[String]] = []
            for id in [meetup.id, UUID().uuidString.lowercased()] {
                let replies = [
                    try await server.request(.GET, APIPath.meetup(id), token: eve.token),
                    try await act(server, "accept", id, as: eve),
                    try await act(server, "cancel", id, as: eve),
                    try await act(server, "complete", id, as: eve),
                    try await server.send(.POST, APIPath.meetupReviews(id), object: ["rating": 1], token: eve.token),
                ]
                #expect(replies.map(\.status) == [404, 404, 404, 404, 404])
                answers.append(replies.map { $0.text.replacingOccurrences(of: id, with: "…") })
            }
            #expect(answers[0] == answers[1])
            #expect(try await server.request(.GET, APIPath.chatMeetups(chat), token: eve.token).status == 404)
            #expect(try await server.propose(eve, in: chat).status == 404)
            #expect(try await server.get(APIPath.meetups, token: eve.token, as: Components.Schemas.MeetupList.self).items.isEmpty)

            // Ada cannot answer her own proposal; Bob accepts; nobody completes it before it starts
            #expect(try await act(server, "accept", meetup.id, as: ada).code == "meetup_state_conflict")
            let accepted = try await act(server, "accept", meetup.id, as: bob)
            #expect(try accepted.decode(Meetup.self).status == .accepted)
            #expect(try await act(server, "reject", meetup.id, as: bob).code == "meetup_state_conflict")
            #expect(try await act(server, "complete", meetup.id, as: ada).code == "meetup_state_conflict")
            #expect(try await server.send(.POST, APIPath.meetupReviews(meetup.id), object: ["rating": 5], token: bob.token).status == 409)

            // after the start either marks it completed; it waits for both reviews
            server.clock.advance(by: 2 * 3_600 + 60)
            ada = try await server.signedInAgain(ada)
            bob = try await server.signedInAgain(bob)
            #expect(try await act(server, "cancel", meetup.id, as: bob).code == "meetup_state_conflict", "too late to cancel")
            #expect(try await act(server, "complete", meetup.id, as: bob).status == 200)
            let toReview = try await server.get("/v1/meetups?filter=to_review", token: ada.token, as: Components.Schemas.MeetupList.self)
            #expect(toReview.items.map(\.status) == [.completed])

            // each reviews once; the second time a friendly 409
            let bad = try await server.send(.POST, APIPath.meetupReviews(meetup.id), object: ["rating": 6], token: ada.token)
            #expect(bad.status == 422 && bad.json["errors"].debugDescription.contains("rating"))
            let review = try await server.send(
                .POST, APIPath.meetupReviews(meetup.id),
                object: ["rating": 4, "text": " Great fun "], token: ada.token)
            #expect(review.status == 201)
            #expect(try review.decode(Components.Schemas.Review.self).text == "Great fun")
            let again = try await server.send(.POST, APIPath.meetupReviews(meetup.id), object: ["rating": 1], token: ada.token)
            #expect(again.status == 409 && again.code == "already_reviewed")
            #expect(try await server.send(.POST, APIPath.meetupReviews(meetup.id), object: ["rating": 5], token: bob.token).status == 201)
            #expect(try await server.get("/v1/meetups?filter=to_review", token: ada.token, as: Components.Schemas.MeetupList.self).items.isEmpty)
            let past = try await server.get("/v1/meetups?filter=past", token: ada.token, as: Components.Schemas.MeetupList.self).items
            #expect(past.first?.reviewedByMe == true && past.first?.reviewedByThem == true)
            #expect(try await server.rowCounts()["reviews"] == 2)

            // the averages show on the dog's card for everyone, and the list pages
            eve = try await server.signedInAgain(eve)
            let card = try await server.get(APIPath.pet(bob.dogID), token: eve.token, as: Components.Schemas.PetView.self).card
            #expect(card.averageRating == 4 && card.reviewCount == 1 && card.ownerAverageRating == 4 && card.ownerReviewCount == 1)
            let list = try await server.get(APIPath.petReviews(bob.dogID), token: eve.token, as: Components.Schemas.ReviewPage.self)
            #expect(list.items.map(\.authorDisplayName) == ["Ada"] && list.averageRating == 4 && list.reviewCount == 1)
            #expect(list.items.first?.aboutMe == false)
            let owners = try await server.get(
                "/v1/pets/\(ada.dogID)/reviews?about=owner&limit=1", token: eve.token,
                as: Components.Schemas.ReviewPage.self)
            #expect(owners.items.map(\.rating) == [5] && owners.nextCursor == nil)

            // Bob may report the review he received; nobody else can
            let received = try #require(list.items.first)
            #expect(try await server.send(.POST, APIPath.reportReview(received.id), object: ["reason": "x"], token: ada.token).status == 404)
            #expect(try await server.send(.POST, APIPath.reportReview(received.id), object: ["reason": "x"], token: eve.token).status == 404)
            let empty = try await server.send(.POST, APIPath.reportReview(received.id), object: ["reason": "  "], token: bob.token)
            #expect(empty.status == 422)
            #expect(try await server.send(.POST, APIPath.reportReview(received.id), object: ["reason": "Not true"], token: bob.token).status == 204)
            #expect(try await server.send(.POST, APIPath.reportReview(received.id), object: ["reason": "Again"], token: bob.token).status == 204)
            #expect(try await server.rowCounts()["review_reports"] == 1)
        }
    }

    @Test func aProposalIsRefusedWhenTheRulesSaySoAndChangesNothing() async throws {
        try await TestServer.run { server in
            let (ada, bob, _, chat) = try await matchedPair(server)
            // a puppy: matched with Ada's dog, but no meet-up before it is protected
            let cleo = try await server.owner("cleo", at: TestServer.Place.lyonNear, dog: ["estimatedAgeMonths": 3])
            let puppyChat = try await server.matched(ada, cleo).id
            let puppy = try await server.propose(ada, in: puppyChat)
            #expect(puppy.status == 409 && puppy.code == "puppy_mode_forbids_meetups")
            let said = puppy.json["detail"] as? String ?? ""
            #expect(said.contains("Cleo's dog is in Puppy Mode and may meet other dogs from "), "\(said)")
            #expect((puppy.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "petId")
            #expect(try await server.propose(cleo, in: puppyChat).code == "puppy_mode_forbids_meetups")

            // times, places and notes out of bounds, each named
            let past = try await server.propose(ada, in: chat, hours: -1)
            #expect(past.status == 422 && past.text.contains("startsAt"))
            #expect(try await server.propose(ada, in: chat, hours: 24 * 91).text.contains("within 90 days"))
            let nowhere = try await server.propose(ada, in: chat, place: "   ")
            #expect(nowhere.status == 422 && nowhere.text.contains("placeName"))
            #expect(try await server.propose(ada, in: chat, extra: ["note": String(repeating: "n", count: 501)]).text.contains("note"))
            #expect(try await server.propose(ada, in: chat, extra: ["petId": cleo.dogID]).text.contains("is not one of your dogs"))
            #expect(try await server.rowCounts()["meetups"] == 0)

            // one waiting proposal per chat, whoever proposes
            #expect(try await server.propose(ada, in: chat).status == 201)
            let second = try await server.propose(bob, in: chat, hours: 5)
            #expect(second.status == 409 && second.code == "meetup_pending")
            #expect((second.json["detail"] as? String)?.contains("Answer or cancel it") == true)

            // an unmatch closes the chat: what was planned is cancelled, nothing new is proposed
            let match = try #require(try await server.get(APIPath.chat(chat), token: ada.token, as: Components.Schemas.Chat.self).matchId)
            #expect(try await server.request(.DELETE, APIPath.match(match), token: bob.token).status == 204)
            let planned = try await server.get(APIPath.chatMeetups(chat), token: ada.token, as: Components.Schemas.MeetupList.self)
            #expect(planned.items.map(\.status) == [.cancelled])
            #expect(try await server.propose(ada, in: chat).code == "chat_closed")
        }
    }

    @Test func anUnansweredProposalExpiresAndAnAcceptedOneRemindsBothOwnersOnce() async throws {
        try await TestServer.run { server in
            let (ada, bob, eve, chat) = try await matchedPair(server)
            let other = try await server.matched(eve, ada).id
            let waiting = try await server.propose(ada, in: chat, hours: 3).decode(Meetup.self)
            let planned = try await server.propose(eve, in: other, hours: 3).decode(Meetup.self)
            #expect(try await act(server, "accept", planned.id, as: ada).status == 200)
            let services = server.app.pawpack
            func inbox(_ owner: TestServer.Owner) async throws -> [Components.Schemas.Notification] {
                try await server.get(
                    APIPath.notifications, token: try await server.signedInAgain(owner).token,
                    as: Components.Schemas.NotificationPage.self
                ).items
            }

            // an hour before: both owners of the accepted one are reminded, once
            server.clock.advance(by: 2 * 3_600 + 60)
            try await services.meetups.runDueJobs(on: server.app.db, logger: server.app.logger)
            try await services.meetups.runDueJobs(on: server.app.db, logger: server.app.logger)
            #expect(try await inbox(eve).filter { $0.title == "Meet-up in an hour" }.count == 1)
            #expect(try await inbox(ada).filter { $0.title == "Meet-up in an hour" }.map(\.meetupId) == [planned.id])
            #expect(try await inbox(bob).filter { $0.title == "Meet-up in an hour" }.isEmpty)

            // at its start, the unanswered proposal expires and its proposer hears of it
            server.clock.advance(by: 3_600)
            try await services.meetups.runDueJobs(on: server.app.db, logger: server.app.logger)
            let bobNow = try await server.signedInAgain(bob)
            #expect(try await server.get(APIPath.meetup(waiting.id), token: bobNow.token, as: Meetup.self).status == .expired)
            let eveNow = try await server.signedInAgain(eve)
            #expect(
                try await server.get(APIPath.meetup(planned.id), token: eveNow.token, as: Meetup.self).status == .accepted,
                "an accepted meet-up does not expire")
            #expect(try await inbox(ada).first { $0.meetupId == waiting.id }?.title == "Meet-up proposal expired")
            #expect(try await act(server, "accept", waiting.id, as: bobNow).code == "meetup_state_conflict")
        }
    }

    @Test func aTimeWithAnyRFC3339OffsetIsReadAsTheSameInstant() async throws {
        try await TestServer.run { server in
            let (ada, _, _, chat) = try await matchedPair(server)
            let when = server.clock.now().addingTimeInterval(30 * 3_600)
            // -23:00 is a valid RFC 3339 offset that Foundation's parser alone refuses
            let written = when.addingTimeInterval(-23 * 3_600).formatted(Date.ISO8601FormatStyle()).replacingOccurrences(of: "Z", with: "-23:00")
            let proposed = try await server.propose(ada, in: chat, extra: ["startsAt": written])
            #expect(proposed.status == 201, "\(proposed.text)")
            #expect(try proposed.decode(Meetup.self).startsAt == when)
        }
    }

    @Test(.enabled(if: TestServer.postgresURL != nil, "advisory locks are PostgreSQL's"))
    func onPostgreSQLOnlyOneInstanceRunsAJobAtOnce() async throws {
        try await TestServer.run { first in
            try await TestServer.run(sharing: first) { second in
                let ran = try await ScheduledJobs.runExclusively("test", on: first.app.db) { _ in
                    // while the first instance holds the job's lock, the second is turned away
                    let elsewhere = try await ScheduledJobs.runExclusively("test", on: second.app.db) { _ in }
                    #expect(elsewhere == false)
                }
                #expect(ran)
                #expect(try await ScheduledJobs.runExclusively("test", on: second.app.db) { _ in }, "released after the round")
            }
        }
    }
}
