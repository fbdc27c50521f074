import Foundation
import PawpackAPI
import PawpackClient
import PawpackCore
import PawpackTestSupport
import Testing

/// The SDK's stream of realtime events against a live server: typed events as they happen,
/// each acknowledged, and a second stream that resumes after the last id gets exactly what it
/// missed.
@Suite struct PawpackClientRealtimeTests {
    @Test func eventsArriveTypedAndAResumedStreamGetsWhatWasMissed() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let chat = try await server.matched(ada, bob).id
            let app = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await app.logIn(email: bob.member.email, password: bob.member.password)

            // Bob's app listens from the start: the request, the match, each with its notification
            var received: [RealtimeEnvelope] = []
            var events = app.realtimeEvents(after: 0).makeAsyncIterator()
            for _ in 0..<4 { received.append(try #require(try await events.next())) }
            guard case .matchRequest(let request) = received[0].event else {
                Issue.record("\(received[0])")
                return
            }
            #expect(request.fromPet.name == "Ada's dog")
            guard case .match(let match, let chatID) = received[2].event else {
                Issue.record("\(received[2])")
                return
            }
            #expect(match.otherPet.name == "Ada's dog" && chatID?.description == chat)
            guard case .notification(let told, let unread) = received[3].event else {
                Issue.record("\(received[3])")
                return
            }
            #expect(told.kind == .match && unread == 2)
            #expect(received.map(\.id) == [1, 2, 3, 4])

            // live: a message and a proposal, typed
            try await server.say("Park?", from: ada, in: chat)
            let message = try #require(try await events.next())
            guard case .message(let said) = message.event else {
                Issue.record("\(message)")
                return
            }
            #expect(said.text == "Park?" && !said.isFromMe)
            let notified = try #require(try await events.next()) // its notification
            // the stream acknowledged it on the socket, as the server needs to spare the phone a push
            #expect(try await server.acknowledged(bob.member.userID, reaching: try #require(notified.id)))
            #expect(try await server.propose(ada, in: chat).status == 201)
            let proposed = try #require(try await events.next())
            guard case .meetup(let meetup) = proposed.event else {
                Issue.record("\(proposed)")
                return
            }
            #expect(meetup.status == .pending && !meetup.proposedByMe && meetup.placeName == "Parc de la Tête d'Or")
            let lastSeen = try #require(proposed.id)

            // another stream resuming after the last id seen gets what came since, nothing before
            try await server.say("See you there", from: ada, in: chat)
            var resumed = app.realtimeEvents(after: lastSeen).makeAsyncIterator()
            let next = try #require(try await resumed.next())
            #expect(next.id == lastSeen + 1)
            guard case .notification = next.event else {
                Issue.record("\(next)")
                return
            }
        }
    }

    @Test func aHouseholdsFeedsAndOtherCareChangesArriveTyped() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let food = try await server.food(for: ada.dogID, token: ada.token)
            let app = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await app.logIn(email: bob.member.email, password: bob.member.password)

            // Ada's food was added; she feeds the dog, deletes the feed, and buys food: Bob's app
            // hears each, typed
            let fed = try await server.feed(ada.dogID, food: food.id, token: ada.token).decode(Components.Schemas.Feed.self)
            #expect(try await server.request(.DELETE, APIPath.feed(fed.id), token: ada.token).status == 204)
            #expect(try await server.send(.POST, APIPath.stock(food.id), object: ["add": 6, "unit": "packets"], token: ada.token).status == 200)
            var seen: [String] = []
            var events = app.realtimeEvents(after: 0).makeAsyncIterator()
            while seen.count < 4, let envelope = try await events.next() {
                switch envelope.event {
                case .feed(let feed): seen.append("feed \(feed.id) \(feed.isFedByMe)")
                case .feedDeleted(let feed, let pet): seen.append("deleted \(feed) \(pet)")
                case .careChanged(let pet): seen.append("changed \(pet)")
                default: continue
                }
            }
            #expect(seen == ["changed \(ada.dogID)", "feed \(fed.id) false", "deleted \(fed.id) \(ada.dogID)", "changed \(ada.dogID)"])
        }
    }

    @Test(.timeLimit(.minutes(5))) func aSessionEndedElsewhereEndsTheStreamAsNotSignedIn() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let app = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await app.logIn(email: ada.member.email, password: ada.member.password)
            var events = app.realtimeEvents(after: 0).makeAsyncIterator()
            // the stream is open: it hears Bob's like
            _ = try await server.like(bob, ada)
            guard case .matchRequest = try #require(try await events.next()).event else {
                Issue.record("no request")
                return
            }

            // her password is changed from the web or another phone: this app's session is over
            let changed = try await server.send(
                .POST, APIPath.password,
                object: [
                    "currentPassword": ada.member.password, "newPassword": "a-brand-new-long-password",
                ], token: ada.token)
            #expect(changed.status == 204)
            // (past the like's notification, which came before)
            await #expect(throws: PawpackError.notSignedIn) { while try await events.next() != nil {} }
            #expect(await app.session == nil, "the app forgot it and shows the log-in screen")
        }
    }
}
