import Foundation
import PawpackAPI
import PawpackClient
import PawpackCore
import PawpackServer
import PawpackTestSupport
import Testing

/// Every operation of the contract through the SDK, as two apps would use them: each step checks
/// what a member would notice, and at the end the transport must have carried every operation
/// the contract has, so an operation without an SDK method fails here.
@Suite struct PawpackClientTourTests {
    let birthday = LocalDate(year: 1990, month: 5, day: 17)!

    @Test func everyOperationOfTheContractIsReachedThroughTheSDK() async throws {
        try await TestServer.run { server in
            let transport = RecordingTransport()
            let url = URL(string: server.baseURL)!
            let ada = PawpackClient(serverURL: url, transport: transport)
            let bob = PawpackClient(serverURL: url, transport: transport)
            #expect(await ada.isHealthy())

            // Accounts: sign up, verify, a resent link, log in, a refresh, profile, email, password
            try await ada.signUp(
                email: "ada@example.com", password: TestServer.password, username: "ada",
                displayName: "Ada", dateOfBirth: birthday, city: "Lyon")
            try await ada.resendVerification(email: "ada@example.com")
            try await ada.verifyEmail(token: try #require(server.linkToken(to: "ada@example.com")))
            try await ada.logIn(email: "ada@example.com", password: TestServer.password)
            try await ada.refresh()
            #expect(try await ada.me().username == "ada")
            #expect(try await ada.updateProfile(displayName: "Ada L.").displayName == "Ada L.")
            try await ada.changeEmail(to: "ada.l@example.com", password: TestServer.password)
            try await ada.verifyEmail(token: try #require(server.linkToken(to: "ada.l@example.com")))
            try await ada.changePassword(current: TestServer.password, new: "a longer walk in the park")
            try await ada.requestPasswordReset(email: "ada.l@example.com")
            let reset = try #require(server.linkToken(to: "ada.l@example.com", path: "/reset-password"))
            try await ada.resetPassword(token: reset, newPassword: "the longest walk in the park")
            #expect(await ada.session == nil, "a reset signs out everywhere")
            try await ada.logIn(email: "ada.l@example.com", password: "the longest walk in the park")

            try await bob.signUp(
                email: "bob@example.com", password: TestServer.password, username: "bob",
                displayName: "Bob", dateOfBirth: birthday)
            try await bob.verifyEmail(token: try #require(server.linkToken(to: "bob@example.com")))
            try await bob.logIn(email: "bob@example.com", password: TestServer.password)

            // Where they live; Ada clears hers and sets it again
            try await ada.setLocation(TestServer.Place.lyon)
            try await ada.clearLocation()
            #expect(try await ada.me().location == nil)
            try await ada.setLocation(TestServer.Place.lyon)
            try await bob.setLocation(TestServer.Place.lyonNorth)

            // Pets: Ada's dog, with a photo, a vaccination entered by mistake and the right ones
            let biscuit = try await ada.addPet(PetDraft(name: "Biscuit", species: .dog, estimatedAgeMonths: 30, weightKg: 14))
            let photo = try await ada.uploadPhoto(try fixture("plain.jpg"), of: biscuit.id, as: .profile)
            #expect(try await ada.pet(biscuit.id).card.photos.map(\.id) == [photo.id])
            #expect(photo.url.path.hasPrefix("/media/pets/\(biscuit.id)/"))
            // a second photo, made the main one, comes first
            let another = try await ada.uploadPhoto(try fixture("plain.jpg"), of: biscuit.id, as: .gallery)
            try await ada.makeMainPhoto(another.id, of: biscuit.id)
            #expect(try await ada.pet(biscuit.id).card.photos.map(\.id) == [another.id, photo.id])
            try await ada.deletePhoto(another.id, of: biscuit.id)
            try await ada.deletePhoto(photo.id, of: biscuit.id)
            #expect(try await ada.pet(biscuit.id).card.photos.isEmpty)
            let mistake = try await ada.addVaccination(to: biscuit.id, VaccinationInput(vaccine: .rabies, givenOn: "2025-01-05"))
            try await ada.deleteVaccination(mistake.id, of: biscuit.id)
            for date in ["2023-11-10", "2023-12-29", "2025-11-21"] {
                try await ada.addVaccination(to: biscuit.id, VaccinationInput(vaccine: .dhpp, givenOn: date))
            }
            #expect(try await ada.vaccinations(of: biscuit.id).map(\.givenOn.description) == ["2025-11-21", "2023-12-29", "2023-11-10"])
            #expect(try await ada.welfareStatus(of: biscuit.id).eligibleForSocial)
            #expect(try await ada.switchToSocialMode(biscuit.id).mode == .social)
            #expect(try await ada.updatePet(biscuit.id, PetDraft(playStyles: [.chase])).profile?.playStyles == [.chase])

            // Guardians: Bob declines once, then accepts; Ada removes him
            try await ada.inviteGuardian(username: "bob", to: biscuit.id)
            try await bob.declineGuardianInvitation(try #require(try await bob.guardianInvitations().first).id)
            #expect(try await ada.guardians(of: biscuit.id).isEmpty)
            try await ada.inviteGuardian(username: "bob", to: biscuit.id)
            try await bob.acceptGuardianInvitation(try #require(try await bob.guardianInvitations().first).id)
            #expect(try await ada.guardians(of: biscuit.id).map(\.status) == [.active])
            #expect(try await bob.myPets().map(\.role) == [.guardian])
            let bobsID = try #require(await bob.session).account.id
            try await ada.removeGuardian(bobsID, from: biscuit.id)
            #expect(try await bob.myPets().isEmpty)

            // Playdates: preferences, the deck, a pass taken back, a like from the pass pile
            let rex = try await bob.addPet(PetDraft(name: "Rex", species: .dog, estimatedAgeMonths: 20, weightKg: 12))
            var preferences = try await ada.deckPreferences(for: biscuit.id)
            #expect(preferences.maxDistanceKm == 25)
            preferences.maxDistanceKm = 5
            #expect(try await ada.saveDeckPreferences(preferences, for: biscuit.id).maxDistanceKm == 5)
            #expect(try await ada.deck(for: biscuit.id).cards.map(\.pet.name) == ["Rex"])
            try await ada.pass(rex.id, for: biscuit.id)
            #expect(try await ada.deck(for: biscuit.id).cards.isEmpty)
            try await ada.undoLastSwipe(for: biscuit.id)
            try await ada.pass(rex.id, for: biscuit.id)
            #expect(try await ada.passes(for: biscuit.id).items.map(\.name) == ["Rex"])
            let asked = try await ada.likeFromPasses(rex.id, for: biscuit.id)
            let request = try #require(asked.request)

            // Requests both ways: Ada withdraws hers, Bob declines one and accepts another
            #expect(try await ada.matchRequests(.outgoing).items.map(\.id) == [request.id])
            try await ada.withdrawMatchRequest(request.id)
            try await ada.like(rex.id, for: biscuit.id)
            try await bob.declineMatchRequest(try #require(try await bob.matchRequests(.incoming).items.first).id)
            try await ada.undoLastSwipe(for: biscuit.id)
            try await ada.like(rex.id, for: biscuit.id)
            let match = try await bob.acceptMatchRequest(try #require(try await bob.matchRequests(.incoming).items.first).id)
            #expect(match.otherPet.name == "Biscuit")
            #expect(try await ada.matches().items.map(\.id) == [match.id])

            // Chat: the match opened one; Ada writes (once, whatever the retries), Bob reads and
            // answers with a photo
            let chat = try #require(try await ada.chats().items.first)
            #expect(chat.otherPet.name == "Rex" && chat.matchID == match.id && match.chat == chat.id)
            let hello = try await ada.send("  Park on Sunday? ", in: chat.id)
            #expect(hello.text == "Park on Sunday?" && hello.isFromMe)
            #expect(try await ada.send("Park on Sunday?", in: chat.id, id: hello.clientMessageID).id == hello.id)
            #expect(try await bob.chat(chat.id).unreadCount == 1)
            let picture = try await bob.sendPhoto(try fixture("plain.jpg"), in: chat.id)
            #expect(picture.photo?.url.path.hasPrefix("/media/chats/\(chat.id)/") == true)
            try await bob.markRead(upTo: hello.id, in: chat.id)
            let seen = try await ada.chat(chat.id)
            #expect(seen.hasBeenRead(hello) && seen.unreadCount == 1)
            #expect(try await bob.messages(in: chat.id, limit: 1).items.map(\.id) == [picture.id])

            // Meet-ups: Rex gets his core dose; Bob declines a first proposal, accepts a second;
            // Ada withdraws a third; two hours on, the accepted one is completed and reviewed
            try await bob.addVaccination(to: rex.id, VaccinationInput(vaccine: .dhpp, givenOn: "2026-02-01"))
            let park = MeetupProposalInput(
                startsAt: server.clock.now().addingTimeInterval(2 * 3_600), placeName: "Parc Blandan",
                location: GeoPoint(latitude: 45.745, longitude: 4.855), note: "Bring water")
            let declined = try await ada.proposeMeetup(in: chat.id, park)
            #expect(try await bob.rejectMeetup(declined.id).status == .rejected)
            let planned = try await ada.proposeMeetup(in: chat.id, park)
            #expect(try await bob.meetups().map(\.id) == [planned.id])
            #expect(try await bob.acceptMeetup(planned.id).status == .accepted)
            var later = park
            later.startsAt = later.startsAt.addingTimeInterval(86_400)
            let withdrawn = try await ada.proposeMeetup(in: chat.id, later)
            #expect(try await ada.cancelMeetup(withdrawn.id).status == .cancelled)
            #expect(try await ada.meetups(in: chat.id).count == 3)
            server.clock.advance(by: 2 * 3_600 + 60)
            #expect(try await bob.completeMeetup(planned.id).status == .completed)
            #expect(try await ada.meetups(.toReview).map(\.id) == [planned.id])
            let praise = try await ada.review(planned.id, rating: 5, text: "Rex is a gentleman")
            try await bob.review(planned.id, rating: 4)
            #expect(try await ada.meetup(planned.id).reviewedByThem)
            let rexs = try await ada.reviews(of: rex.id)
            #expect(rexs.items.map(\.id) == [praise.id] && rexs.averageRating == 5 && rexs.reviewCount == 1)
            #expect(try await ada.reviews(of: rex.id, aboutOwner: true).reviewCount == 1)
            try await bob.report(praise.id, reason: "Testing the report")
            #expect(try await ada.meetups(.past).count == 3)

            // The inbox: Bob's requests, match, messages, meet-ups and review; he mutes reviews
            let inbox = try await bob.notifications(limit: 50)
            #expect(inbox.items.contains { $0.kind == .review } && inbox.unreadCount > 0)
            try await bob.markRead(try #require(inbox.items.first).id)
            try await bob.markAllNotificationsRead()
            #expect(try await bob.notifications().unreadCount == 0)
            try await bob.muteNotifications([.review, .message])
            #expect(try await bob.mutedNotificationKinds() == [.review, .message])

            // Bob's iPhone is registered for pushes, then unregistered at sign-out
            let phone = try await bob.registerAPNsDevice(token: Data(repeating: 0xab, count: 32), bundleID: "org.pawpack.app")
            #expect(phone.platform == .apns && phone.environment == .production)
            #expect(try await bob.registerAPNsDevice(token: Data(repeating: 0xab, count: 32), bundleID: "org.pawpack.app").id == phone.id)
            #expect(try await bob.devices().map(\.id) == [phone.id])
            try await bob.unregisterDevice(phone.id)
            #expect(try await bob.devices().isEmpty)

            // Care: Ada's family, Bob in it, shares Biscuit; a food, its stock, feeds, a weight
            let home = try await ada.createFamily(name: "Home", timeZone: "Europe/Oslo")
            #expect(try await ada.updateFamily(home.id, name: "The Lindqvists").name == "The Lindqvists")
            let code = try await ada.newInviteCode(for: home.id)
            try await bob.joinFamily(code: code.code)
            try await ada.declineJoinRequest(try #require(try await ada.familyJoinRequests().first).id)
            try await bob.joinFamily(code: code.code)
            try await ada.acceptJoinRequest(try #require(try await ada.familyJoinRequests().first).id, as: .viewer)
            try await ada.changeRole(of: "bob", in: home.id, to: .member)
            try await ada.share(biscuit.id, with: home.id)
            #expect(try await bob.families().map(\.id) == [home.id])
            #expect(try await bob.family(home.id).pets.map(\.name) == ["Biscuit"])
            #expect(try await ada.updateCare(of: biscuit.id, CareSettingsChange(feedingGapHours: 8)).feedingGapHours == 8)
            let kibble = try await ada.addFood(to: biscuit.id, FoodInput(name: "Kibble", kind: .dry, kcal: 380, usualPortion: .grams(60)))
            try await ada.updateFood(kibble.id, FoodInput(lowStockAt: 500))
            #expect(try await ada.updateStock(of: kibble.id, .set(2, .kilograms)).stock == 2_000)
            let breakfast = FeedInput(pet: biscuit.id, food: kibble.id)
            let fed = try await bob.logFeed(breakfast)
            #expect(try await bob.logFeed(breakfast).id == fed.id, "the same id is the same feed")
            do {
                try await ada.logFeed(FeedInput(pet: biscuit.id, food: kibble.id))
                Issue.record("Bob fed Biscuit a moment ago: Ada is asked first")
            } catch let error as PawpackError {
                #expect(error.problemCode == .recentlyFed && error.description.contains("Bob fed Biscuit"))
                #expect(error.recentFeeds.map(\.pet) == [biscuit.id] && error.recentFeeds.first?.fedBy == "bob")
                #expect(error.recentFeeds.first.map { abs($0.fedAt.timeIntervalSince(fed.fedAt)) < 1 } == true)
            }
            let extra = try await ada.logFeeds([FeedInput(pet: biscuit.id, food: kibble.id, portion: .grams(20))], logAnyway: true)
            #expect(try await ada.updateFeed(extra[0].id, portion: .grams(30)).portion == .grams(30))
            try await ada.deleteFeed(extra[0].id)
            #expect(try await ada.feeds(of: biscuit.id).items.map(\.id) == [fed.id])
            #expect(try await ada.foods(of: biscuit.id).first?.stock == 1_940)
            #expect(String(decoding: try await ada.feedLogCSV(of: biscuit.id), as: UTF8.self).contains("Kibble"))
            // "Mark as fed" from a reminder: the usual feed, once however often it is tapped
            let reminder = UUID()
            let marked = try await ada.markFed(biscuit.id, answering: reminder, logAnyway: true)
            #expect(try await ada.markFed(biscuit.id, answering: reminder, logAnyway: true).id == marked.id)
            #expect(marked.foodID == kibble.id && marked.isFedByMe && marked.clientID == reminder)
            // (logged at the same instant as Bob's on the test's clock: either may come first)
            #expect(Set(try await ada.feeds(of: biscuit.id).items.map(\.id)) == [marked.id, fed.id])
            try await ada.deleteFeed(marked.id)
            try await bob.logWeight(14.5, of: biscuit.id)
            #expect(try await ada.weights(of: biscuit.id).map(\.kilograms) == [14.5])
            let drops = try await ada.addMedication(to: biscuit.id, MedicationInput(name: "Ear drops", dose: "2 drops", every: .hours(12)))
            #expect(drops.interval == .hours(12) && drops.nextDueAt != nil)
            let given = try await bob.giveDose(of: drops.id)
            #expect(given.doses.first?.givenBy?.username == "bob" && given.doses.count == 1)
            #expect(try await ada.medications(of: biscuit.id).map(\.name) == ["Ear drops"])
            try await ada.deleteMedication(drops.id)
            #expect(try await bob.medications(of: biscuit.id).isEmpty)
            let glance = try await bob.care(of: biscuit.id)
            #expect(glance.today.map(\.id) == [fed.id] && glance.calories.kilograms == 14.5 && glance.canLog && !glance.canManage)
            #expect(try await bob.careDashboard().map(\.petName) == ["Rex", "Biscuit"], "his own first")
            // Ada offers Bob the family: he declines, then takes it over; she leaves, he deletes it
            try await ada.offerFamily(home.id, to: "bob")
            try await bob.declineFamilyOffer(home.id)
            try await ada.offerFamily(home.id, to: "bob")
            try await bob.acceptFamilyOffer(home.id)
            try await bob.unshare(biscuit.id, from: home.id)
            try await ada.removeMember("ada", from: home.id)
            try await bob.deleteFamily(home.id)
            try await ada.deleteFood(kibble.id)
            #expect(try await ada.care(of: biscuit.id).foods.isEmpty)

            // Moments: Ada finds Bob and asks; he declines, she asks again and withdraws, asks once
            // more and he accepts; Bob hides from the search, and Ada ends the friendship
            #expect(try await ada.searchMembers("bo").items.map(\.username) == ["bob"])
            guard case .requested = try await ada.sendFriendRequest(to: "bob") else { throw TestFailure("a request waits") }
            try await bob.rejectFriendRequest(try #require(try await bob.friendRequests().items.first).id)
            guard case .requested(let second) = try await ada.sendFriendRequest(to: "bob") else { throw TestFailure("a request waits") }
            try await ada.cancelFriendRequest(second.id)
            guard case .requested(let third) = try await ada.sendFriendRequest(to: "bob") else { throw TestFailure("a request waits") }
            #expect(try await ada.friendRequests(incoming: false).items.map(\.id) == [third.id])
            #expect(try await bob.acceptFriendRequest(third.id).username == "ada")
            #expect(try await ada.friends().items.map(\.username) == ["bob"])
            #expect(try await ada.searchMembers("bo").items.map(\.friendship) == [.friends])
            // Ada posts a friends-only photo of Biscuit: Bob sees it, votes and takes it back
            let upload = MomentUpload(photo: try fixture("plain.jpg"), pets: [biscuit.id], caption: "Biscuit asleep")
            let moment = try await ada.postMoment(upload)
            #expect(moment.privacy == .friends && moment.pets.map(\.name) == ["Biscuit"] && moment.displayURL == moment.originalURL)
            #expect(try await bob.friendsFeed().items.map(\.id) == [moment.id])
            #expect(try await bob.vote(for: moment.id).votes == 1)
            #expect(try await bob.unvote(moment.id).votes == 0)
            #expect(try await ada.updateMoment(moment.id, privacy: .public).privacy == .public)
            #expect(try await bob.globalFeed().items.first?.isByFriend == true)
            #expect(try await bob.moments(of: biscuit.id).items.map(\.id) == [moment.id])
            try await bob.report(moment.id, reason: .notAPet, text: "a cushion?")
            #expect(try await bob.moment(moment.id).caption == "Biscuit asleep")
            try await ada.deleteMoment(moment.id)
            // the week's contest: Ada enters a friends-only photo (saying it is public while
            // entered), Bob votes, the leaderboard moves; Ada withdraws; an operator rotates
            _ = try await server.app.pawpack.rotateContestsNow(on: server.app.db)
            let contest = try await ada.currentContest()
            #expect(contest.isOpen && contest.maxEntries == 3)
            let entryPhoto = try await ada.postMoment(MomentUpload(photo: try fixture("plain.jpg"), pets: [biscuit.id]))
            do {
                _ = try await ada.enter(entryPhoto.id, in: contest.id)
                Issue.record("entering a friends-only photo is said first")
            } catch let error as PawpackError {
                #expect(error.problemCode == .entryMakesPublic)
            }
            let entry = try await ada.enter(entryPhoto.id, in: contest.id, makePublic: true)
            #expect(try await bob.entries(of: contest.id).items.map(\.id) == [entry.id])
            #expect(try await bob.vote(forEntry: entry.id).votes == 1)
            #expect(try await bob.leaderboard(of: contest.id).map(\.entryID) == [entry.id])
            #expect(try await bob.unvote(entry: entry.id).votes == 0)
            #expect(try await bob.contest(contest.id).entryCount == 1)
            try await ada.withdraw(entry.id)
            _ = try await server.app.pawpack.rotateContestsNow(on: server.app.db)
            #expect(try await bob.pastContests().items.first?.id == contest.id)
            await #expect(throws: PawpackError.self) { _ = try await bob.moment(moment.id) }
            try await bob.setFindable(false)
            #expect(try await bob.isFindable() == false)
            #expect(try await ada.searchMembers("bo").items.isEmpty)
            try await ada.removeFriend("bob")
            #expect(try await bob.friends().items.isEmpty)

            try await ada.unmatch(match.id)
            #expect(try await bob.matches().items.isEmpty)
            #expect(try await bob.chat(chat.id).isClosed, "the chat stays, closed")
            await #expect(throws: PawpackError.self) { try await bob.send("Still there?", in: chat.id) }

            // Bob blocks Ada: she can no longer see Rex; he lists her, unblocks her and blocks her again
            try await bob.block(username: "ada")
            await #expect(throws: PawpackError.self) { _ = try await ada.pet(rex.id) }
            #expect(try await bob.blockedMembers().map(\.username) == ["ada"])
            try await bob.unblock(username: "ada")
            #expect(try await bob.blockedMembers().isEmpty)
            #expect(try await ada.pet(rex.id).card.name == "Rex")
            try await bob.block(username: "ada")
            // her export holds what she owns; both delete their dogs and accounts
            let export = try await ada.exportData()
            #expect(export.pets.map(\.pet.card.name) == ["Biscuit"])
            #expect(export.pets.first?.preferences?.maxDistanceKm == 5)
            #expect(export.swipes.map(\.liked) == [true])
            try await ada.deletePet(biscuit.id)
            try await bob.deletePet(rex.id)
            #expect(try await bob.myPets().isEmpty)
            try await bob.logOut()
            try await ada.deleteAccount(password: "the longest walk in the park")

            // and every operation of the contract went through the SDK
            let contract = String(decoding: try OpenAPIDocument.yaml(), as: UTF8.self)
            let operations = Set(
                contract.split(separator: "\n").compactMap { line -> String? in
                    let words = line.split(separator: " ")
                    return words.first == "operationId:" ? words.last.map(String.init) : nil
                })
            #expect(operations.count >= 55)
            #expect(
                operations.subtracting(transport.sent).isEmpty,
                "operations no SDK method reached: \(operations.subtracting(transport.sent).sorted())")
        }
    }
}
