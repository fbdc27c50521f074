import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The web app's routes as a whole: every form that changes something refuses a request
/// without the page's CSRF token, and every address the pages name is one the server serves.
@Suite struct WebRoutesTests {
    @Test func everyFormThatChangesStateRefusesAMissingOrWrongCSRFToken() async throws {
        try await TestServer.run { server in
            // given Ada signed in, with something behind every kind of address: her dog with a
            // photo and a vaccination, a guardian invited, an invitation, a request and a match
            let world = try await Self.adaWithSomethingEverywhere(server)
            let browser = try await TestBrowser.signedIn(server, as: world.ada.member)
            let before = try await server.rowCounts()

            // when every web route that is not a read is posted without the token, or with a wrong one
            let routes = Self.webRoutes(server).filter { $0.method != .GET && $0.method != .HEAD }
            #expect(routes.count >= 30, "\(routes.count) routes found")
            for route in routes {
                let path = try Self.path(of: route, values: world.values)
                for csrf in [TestBrowser.CSRF.missing, .value("not-the-token")] {
                    let page = try await browser.post(path, ["username": "someone", "password": "a walk in the park"], csrf: csrf)
                    // then each is refused as an expired form, whatever the route would have done
                    #expect(
                        page.status == 403 && page.html.contains("This form has expired"),
                        "\(route.method) \(path) with \(csrf): \(page.status)")
                }
            }

            // and nothing was written
            #expect(try await server.rowCounts() == before)
        }
    }

    @Test func everyAddressThePagesNameIsServedAndEveryPageHasOne() async throws {
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            let (pet, photo, vaccination) = (Pet.ID(), Pet.Photo.ID(), Pet.Vaccination.ID())
            let (member, guardianship) = (User.ID(), Pet.Guardianship.ID())
            let (request, match) = (Playdates.MatchRequest.ID(), Playdates.Match.ID())
            let (chat, meetup, notification) = (Chats.Chat.ID(), Meetups.Meetup.ID(), Notifications.Notification.ID())
            let (feed, food, family, joinRequest) = (Care.Feed.ID(), Care.Food.ID(), Care.Family.ID(), Care.JoinRequest.ID())
            let (moment, contest, entry) = (Moments.Photo.ID(), Moments.Contest.ID(), Moments.Entry.ID())
            let friendRequest = Moments.FriendRequest.ID()
            var named: [(HTTPMethod, String)] = [
                (.GET, WebPath.landing), (.GET, WebPath.home), (.GET, server.app.pawpack.assets.stylesheet.path),
                (.GET, server.app.pawpack.assets.script.path),
                (.GET, WebPath.devMail), (.GET, WebPath.devPush), (.GET, WebPath.devClock), (.POST, WebPath.devClock), (.GET, WebPath.devPages),
                (.GET, WebPath.manifest),
                (.GET, WebPath.serviceWorker), (.GET, WebPath.offline),
                (.GET, WebPath.iconSVG), (.GET, WebPath.icon(size: 192)), (.GET, WebPath.icon(size: 512)),
                (.GET, WebPath.landingDog(1)), (.GET, WebPath.landingDog(2)), (.GET, WebPath.landingDog(3)),
                (.GET, WebPath.accountLocation),
                (.GET, WebPath.passes(pet)), (.POST, WebPath.likeFromPasses(pet)), (.GET, WebPath.match(match)),
                (.POST, WebPath.blockOwner(pet)),
                (.GET, WebPath.signUp), (.POST, WebPath.signUp), (.GET, WebPath.verifyEmail),
                (.POST, WebPath.resendVerification), (.GET, WebPath.logIn), (.POST, WebPath.logIn), (.POST, WebPath.logOut),
                (.GET, WebPath.forgotPassword), (.POST, WebPath.forgotPassword), (.GET, WebPath.resetPassword),
                (.POST, WebPath.resetPassword), (.GET, WebPath.account), (.POST, WebPath.accountProfile),
                (.POST, WebPath.accountUsername), (.POST, WebPath.accountEmail), (.POST, WebPath.accountPassword),
                (.POST, WebPath.accountLocation), (.POST, WebPath.accountUnblock), (.GET, WebPath.accountExport),
                (.POST, WebPath.accountDelete),
                (.GET, WebPath.pets), (.POST, WebPath.pets), (.GET, WebPath.newPet), (.GET, WebPath.pet(pet)),
                (.GET, WebPath.editPet(pet)), (.POST, WebPath.editPet(pet)), (.POST, WebPath.deletePet(pet)),
                (.POST, WebPath.petPhotos(pet)), (.POST, WebPath.deletePetPhoto(pet, photo)), (.POST, WebPath.makeMainPetPhoto(pet, photo)),
                (.GET, WebPath.vaccinations(pet)), (.POST, WebPath.vaccinations(pet)),
                (.POST, WebPath.deleteVaccination(pet, vaccination)),
                (.GET, WebPath.guardians(pet)), (.POST, WebPath.guardians(pet)), (.POST, WebPath.removeGuardian(pet, member)),
                (.POST, WebPath.acceptGuardianInvitation(guardianship)), (.POST, WebPath.rejectGuardianInvitation(guardianship)),
                (.GET, WebPath.media("pets/\(pet)/\(photo).jpg")), (.GET, WebPath.media("chats/\(Chats.Chat.ID())/\(Chats.Message.ID()).jpg")),
                (.GET, WebPath.media("moments/\(Moments.Photo.ID())/original.jpg")),
                (.GET, WebPath.playdates), (.GET, WebPath.deck(pet)), (.POST, WebPath.swipes(pet)), (.POST, WebPath.undoSwipe(pet)),
                (.GET, WebPath.deckPreferences(pet)), (.POST, WebPath.deckPreferences(pet)), (.GET, WebPath.matchRequests),
                (.POST, WebPath.acceptMatchRequest(request)), (.POST, WebPath.rejectMatchRequest(request)),
                (.POST, WebPath.cancelMatchRequest(request)), (.GET, WebPath.matches), (.POST, WebPath.unmatch(match)),
                (.GET, WebPath.chats), (.GET, WebPath.chat(chat)), (.POST, WebPath.chatMessages(chat)), (.POST, WebPath.chatRead(chat)),
                (.GET, WebPath.newMeetup(chat)), (.POST, WebPath.chatMeetups(chat)), (.GET, WebPath.meetups),
                (.POST, WebPath.meetupAction(meetup, .accept)), (.POST, WebPath.meetupAction(meetup, .reject)),
                (.POST, WebPath.meetupAction(meetup, .cancel)), (.POST, WebPath.meetupAction(meetup, .complete)),
                (.GET, WebPath.reviewMeetup(meetup)), (.POST, WebPath.reviewMeetup(meetup)),
                (.GET, WebPath.petReviews(pet)), (.POST, WebPath.reportReview(Meetups.Review.ID())),
                (.GET, WebPath.notifications), (.POST, WebPath.openNotification(notification)), (.POST, WebPath.notificationSettings),
                (.POST, WebPath.pushSubscription), (.POST, WebPath.pushUnsubscription),
                (.GET, WebPath.care), (.GET, WebPath.carePet(pet)), (.POST, WebPath.careFeeds(pet)), (.POST, WebPath.deleteFeed(feed)),
                (.GET, WebPath.careHistory(pet)), (.GET, WebPath.careHealth(pet)), (.POST, WebPath.careWeights(pet)),
                (.POST, WebPath.careSettings(pet)), (.POST, WebPath.careFoods(pet)), (.POST, WebPath.foodStock(food)),
                (.POST, WebPath.foodLowAlert(food)), (.POST, WebPath.deleteFood(food)), (.POST, WebPath.editFood(food)),
                (.POST, WebPath.careShare(pet)),
                (.GET, WebPath.careLogCSV(pet)), (.POST, WebPath.careMedications(pet)),
                (.POST, WebPath.medicationDoses(Care.Medication.ID())), (.POST, WebPath.deleteMedication(Care.Medication.ID())),
                (.GET, WebPath.families), (.POST, WebPath.families), (.POST, WebPath.joinFamily),
                (.GET, WebPath.family(family)),
                (.POST, WebPath.answerJoinRequest(joinRequest, accept: true)), (.POST, WebPath.answerJoinRequest(joinRequest, accept: false)),
                (.GET, WebPath.moments), (.GET, WebPath.momentsEveryone), (.GET, WebPath.myMoments), (.GET, WebPath.newMoment),
                (.POST, WebPath.newMoment), (.GET, WebPath.moment(moment)), (.GET, WebPath.contest), (.GET, WebPath.contests),
                (.GET, WebPath.contest(contest)), (.GET, WebPath.leaderboard(contest)), (.POST, WebPath.contestEntries(contest)),
                (.POST, WebPath.entryVote(entry)), (.POST, WebPath.withdrawEntry(entry)), (.GET, WebPath.friends),
                (.POST, WebPath.friendRequests), (.POST, WebPath.removeFriend), (.POST, WebPath.findable),
            ]
            named += MomentAction.allCases.map { (.POST, WebPath.momentAction(moment, $0)) }
            named += FriendAnswer.allCases.map { (.POST, WebPath.answerFriendRequest(friendRequest, $0)) }
            let routes = Self.webRoutes(server)
            named += FamilyAction.allCases.filter { ![.viewer, .member, .remove].contains($0) }.map { (.POST, WebPath.familyAction(family, $0)) }
            named += [FamilyAction.viewer, .member, .remove].map { (.POST, WebPath.familyMember(family, member, $0)) }
            for (method, path) in named {
                #expect(routes.contains { Self.route($0, matches: path, method: method) }, "nothing serves \(method) \(path)")
            }
            for route in routes {
                #expect(
                    named.contains { Self.route(route, matches: $0.1, method: $0.0) },
                    "\(route.method) /\(route.path.string) has no WebPath")
            }
        }
    }

    // MARK: Helpers

    struct World {
        var ada: TestServer.Owner
        /// A value for each path parameter the web routes take.
        var values: [String: String]
    }

    /// Ada and her dog with a photo and a vaccination; Bob invited to guard it; Cyd's invitation
    /// for Ada to guard Cyd's dog and Cyd's dog's request to Ada's; a match with Eve's dog; Fay
    /// blocked by Ada.
    static func adaWithSomethingEverywhere(_ server: TestServer) async throws -> World {
        let (ada, bob) = try await server.adaAndBob()
        let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
        let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
        let photo = try await server.upload(
            APIPath.photos(ada.dogID),
            parts: [
                .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))
            ], token: ada.token
        ).decode(Components.Schemas.Photo.self)
        let vaccination = try await server.send(
            .POST, APIPath.vaccinations(ada.dogID),
            object: ["vaccine": "rabies", "givenOn": "2025-06-01"], token: ada.token
        )
        .decode(Components.Schemas.Vaccination.self)
        _ = try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "bob"], token: ada.token)
        _ = try await server.send(.POST, APIPath.guardians(cyd.dogID), object: ["username": "ada"], token: cyd.token)
        let invitation = try #require(
            try await server.get(
                APIPath.guardianInvitations, token: ada.token,
                as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self
            )
            .items.first)
        let request = try #require(try await server.like(cyd, ada).request)
        _ = try await server.like(eve, ada)
        let match = try #require(try await server.like(ada, eve).match)
        _ = try await server.member("fay", password: "fay's own secret")
        _ = try await server.send(.POST, APIPath.blocks, object: ["username": "fay"], token: ada.token)
        let family = try await server.family(of: ada.token)
        try await server.share(ada.dogID, with: family.id, token: ada.token)
        let food = try await server.food(for: ada.dogID, token: ada.token)
        let feed = try await server.feed(ada.dogID, food: food.id, token: ada.token).decode(Components.Schemas.Feed.self)
        return World(
            ada: ada,
            values: [
                "petId": ada.dogID, "photoId": photo.id, "vaccinationId": vaccination.id, "userId": bob.member.id,
                "invitationId": invitation.id, "requestId": request.id, "matchId": match.id,
                "familyId": family.id, "foodId": food.id, "feedId": feed.id,
                // Refused before they are read: any id does.
                "chatId": Chats.Chat.ID().description, "meetupId": Meetups.Meetup.ID().description,
                "notificationId": Notifications.Notification.ID().description, "reviewId": Meetups.Review.ID().description,
                "medicationId": Care.Medication.ID().description, "momentId": Moments.Photo.ID().description,
                "contestId": Moments.Contest.ID().description, "entryId": Moments.Entry.ID().description,
                "friendRequestId": Moments.FriendRequest.ID().description,
            ])
    }

    /// The routes of the web app: everything but the API, the contract and the health check.
    static func webRoutes(_ server: TestServer) -> [Route] {
        server.app.routes.all.filter { route in
            let first = route.path.first.map { "\($0)" }
            return first != "v1" && first != "healthz" && first != "openapi.yaml"
        }
    }

    /// The route's path with each parameter filled in from `values`.
    static func path(of route: Route, values: [String: String]) throws -> String {
        "/"
            + (try route.path.map { component -> String in
                switch component {
                case .constant(let text): return text
                case .parameter(let name):
                    guard let value = values[name] else { throw TestFailure("no value for :\(name): give one in World.values") }
                    return value
                case .anything, .catchall: throw TestFailure("a wildcard in /\(route.path.string)")
                }
            }).joined(separator: "/")
    }

    static func route(_ route: Route, matches path: String, method: HTTPMethod) -> Bool {
        guard route.method == method else { return false }
        let parts = path.split(separator: "?")[0].split(separator: "/").map(String.init)
        guard parts.count == route.path.count else { return false }
        return zip(route.path, parts).allSatisfy { component, part in
            if case .constant(let text) = component { return text == part }
            return true
        }
    }
}
