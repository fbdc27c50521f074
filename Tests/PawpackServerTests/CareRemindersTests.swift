import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Care's reminders: the next feed, medication doses and vaccinations, sent once by the
/// scheduled job to the household's members who may act, stopped once someone acted, pushed at
/// most once per pet a minute; "Mark as fed" from the push and the inbox; "Ada fed Rex".
@Suite struct CareRemindersTests {
    typealias Notification = Components.Schemas.Notification
    typealias Medication = Components.Schemas.Medication

    /// Ada, Bob (member) and Cyd (viewer) in Ada's family sharing her dog, which eats Salmon
    /// pouches (one packet lasts the default six hours).
    func household(_ server: TestServer) async throws -> (ada: TestServer.Owner, bob: TestServer.Owner, cyd: TestServer.Owner, food: String) {
        let (ada, bob) = try await server.adaAndBob()
        let cyd = try await server.owner("cyd", at: TestServer.Place.lyon)
        let family = try await server.family(of: ada.token)
        try await server.join(family.id, owner: ada.token, member: bob.token)
        try await server.join(family.id, owner: ada.token, member: cyd.token, role: "viewer")
        try await server.share(ada.dogID, with: family.id, token: ada.token)
        return (ada, bob, cyd, try await server.food(for: ada.dogID, token: ada.token).id)
    }

    func inbox(_ server: TestServer, _ owner: TestServer.Owner) async throws -> [Notification] {
        try await server.get(
            APIPath.notifications, token: try await server.signedInAgain(owner).token, as: Components.Schemas.NotificationPage.self
        ).items
    }

    func runReminders(_ server: TestServer) async throws {
        try await server.app.pawpack.care.reminders.runDue(on: server.app.db, logger: server.app.logger)
    }

    @Test func aFeedingReminderGoesOnceToWhoMayFeedAndMarkAsFedFromItsPushEndsIt() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalAPNs.run(clock: clock) { apns in
            try await TestServer.run(adjust: { $0.push.apns = apns.settings }) { server in
                let (ada, bob, cyd, food) = try await household(server)
                let device = try await server.send(
                    .POST, APIPath.devices, object: ["platform": "apns", "token": PushTests.apnsToken, "appId": "org.pawpack.app"],
                    token: bob.token)
                #expect(device.status == 201)
                let dog = try await server.get(APIPath.petCare(ada.dogID), token: ada.token, as: Components.Schemas.CareSummary.self).petName

                // Ada feeds: Bob and Cyd hear who fed, Ada does not
                #expect(try await server.feed(ada.dogID, food: food, token: ada.token).status == 201)
                #expect(try await inbox(server, bob).filter { $0.kind == .fed }.map(\.title) == ["Ada fed \(dog)"])
                #expect(try await inbox(server, cyd).filter { $0.kind == .fed }.count == 1)
                #expect(try await inbox(server, ada).filter { $0.kind == .fed }.isEmpty)

                // nothing before the next feed; at it (or after a server was down past it), one
                // reminder each for Ada and Bob, however often the job runs; the viewer gets none
                server.clock.advance(by: 5 * 3_600)
                try await runReminders(server)
                #expect(try await inbox(server, bob).filter { $0.kind == .feeding }.isEmpty)
                server.clock.advance(by: 3 * 3_600)
                clock.advance(by: 8 * 3_600)
                try await runReminders(server)
                try await runReminders(server)
                let reminder = try #require(try await inbox(server, bob).first { $0.kind == .feeding })
                #expect(reminder.title == "Time to feed \(dog)" && reminder.petId == ada.dogID && reminder.read == false)
                #expect(reminder.body.contains("last fed by Ada"))
                #expect(try await inbox(server, bob).filter { $0.kind == .feeding }.count == 1)
                #expect(try await inbox(server, ada).filter { $0.kind == .feeding }.count == 1)
                #expect(try await inbox(server, cyd).filter { $0.kind == .feeding }.isEmpty)

                // Bob's phone gets it with the "Mark as fed" category, the pet and the notification
                await server.app.pawpack.push.deliverDue(on: server.app.db)
                let pushed = try #require(apns.all.first { $0.payload["notificationId"] as? String == reminder.id })
                let aps = try #require(pushed.payload["aps"] as? [String: any Sendable])
                #expect(aps["category"] as? String == "FEEDING_REMINDER")
                #expect(pushed.payload["petId"] as? String == ada.dogID)

                // the action sends the usual feed with the notification's id: twice is once
                let bobNow = try await server.signedInAgain(bob)
                let marked = try await server.send(.POST, APIPath.feeds(ada.dogID), object: ["id": reminder.id], token: bobNow.token)
                #expect(marked.status == 201, "\(marked.text)")
                let fed = try marked.decode(Components.Schemas.Feed.self)
                #expect(fed.foodId == food && fed.portion.packets == 1 && fed.fedBy?.username == "bob")
                let again = try await server.send(.POST, APIPath.feeds(ada.dogID), object: ["id": reminder.id], token: bobNow.token)
                let sameFeed = try again.decode(Components.Schemas.Feed.self)
                #expect(again.status == 200 && sameFeed.id == fed.id)

                // Ada's reminder is answered: read, and its push, had it waited, never goes
                #expect(try await inbox(server, ada).first { $0.kind == .feeding }?.read == true)
                #expect(try await inbox(server, ada).first { $0.kind == .fed }?.title == "Bob fed \(dog)")

                // the next reminder follows Bob's feed
                server.clock.advance(by: 6 * 3_600 - 60)
                try await runReminders(server)
                #expect(try await inbox(server, ada).filter { $0.kind == .feeding }.count == 1)
                server.clock.advance(by: 120)
                try await runReminders(server)
                #expect(try await inbox(server, ada).filter { $0.kind == .feeding }.count == 2)

                // Bob's feed deleted: the next feed moves back to a time already reminded of, and
                // nobody is asked again for it
                let adaNow = try await server.signedInAgain(ada)
                #expect(try await server.request(.DELETE, APIPath.feed(fed.id), token: adaNow.token).status == 204)
                try await runReminders(server)
                #expect(try await inbox(server, ada).filter { $0.kind == .feeding }.count == 2)
            }
        }
    }

    @Test func theInboxMarksAsFedUntilSomeoneDidAndAPetWithoutFoodIsAskedForOne() async throws {
        try await TestServer.run { server in
            let (ada, bob, _, food) = try await household(server)
            #expect(try await server.feed(ada.dogID, food: food, token: ada.token).status == 201)
            server.clock.advance(by: 6 * 3_600 + 60)
            try await runReminders(server)
            let reminder = try #require(try await inbox(server, bob).first { $0.kind == .feeding })

            let browser = try await TestBrowser.signedIn(server, as: bob.member)
            let page = try await browser.get("/notifications")
            #expect(page.html.contains("id=\"mark-fed-\(reminder.id)\""), "\(page.html)")
            let posted = try await browser.post(
                "/care/pets/\(ada.dogID)/feeds", ["id": reminder.id, "back": "/notifications"])
            #expect(posted.status == 303 && posted.location?.hasPrefix("/notifications") == true, "\(posted.html)")
            let after = try await browser.get("/notifications")
            #expect(!after.html.contains("mark-fed-\(reminder.id)") && after.html.contains("Fed by you"))

            // a pet with no food yet: the usual feed names the field to fill
            let bobNow = try await server.signedInAgain(bob)
            let noFood = try await server.send(.POST, APIPath.feeds(bob.dogID), object: ["id": UUID().uuidString], token: bobNow.token)
            #expect(noFood.status == 422 && noFood.text.contains("foodId"))
        }
    }

    @Test func aPetsPushesToAMemberComeAtMostOnceAMinuteAndTheInboxGetsThemAll() async throws {
        // No worker rounds after the first: the pushes wait in the outbox to be counted.
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob, _, food) = try await household(server)
            #expect(
                try await server.send(
                    .POST, APIPath.devices, object: ["platform": "apns", "token": PushTests.apnsToken, "appId": "org.pawpack.app"],
                    token: bob.token
                ).status == 201)
            let stocked = try await server.send(.POST, APIPath.stock(food), object: ["set": 1, "unit": "packets"], token: ada.token)
            #expect(stocked.status == 200)
            func pushes() async throws -> Int {
                try await PushOutboxRecord.query(on: server.app.db).filter(\.$userID == bob.member.userID).count()
            }

            // one feed empties the stock: Bob's inbox gets both, his phone one push
            #expect(try await server.feed(ada.dogID, food: food, token: ada.token).status == 201)
            #expect(Set(try await inbox(server, bob).map(\.kind)).subtracting([.family]) == [.fed, .stock])
            let kinds = try await PushOutboxRecord.query(on: server.app.db).filter(\.$userID == bob.member.userID).all().map(\.kind)
            #expect(kinds.count == 1, "\(kinds)")

            // half a minute later another feed: in the inbox, not pushed; a minute on, pushed
            server.clock.advance(by: 30)
            #expect(try await server.request(.POST, APIPath.readAllNotifications, token: bob.token).status == 204)
            #expect(try await server.feed(ada.dogID, food: food, token: ada.token, ["portion": ["packets": 0.25]]).status == 201)
            #expect(try await inbox(server, bob).filter { $0.kind == .fed }.count == 2)
            #expect(try await pushes() == 1)
            server.clock.advance(by: 31)
            #expect(try await server.request(.POST, APIPath.readAllNotifications, token: bob.token).status == 204)
            #expect(try await server.feed(ada.dogID, food: food, token: ada.token, ["portion": ["packets": 0.25]]).status == 201)
            #expect(try await pushes() == 2)
        }
    }

    /// A feed tells the household's other members in one pass, and each hears as if alone:
    /// their own unread count on their phone's badge, nothing for one who muted "fed", a push
    /// only to the devices of those told.
    @Test func aFeedTellsEachOtherMemberAsIfAloneWithTheirOwnBadgeAndMutes() async throws {
        // No worker rounds after the first: the pushes wait in the outbox to be read.
        try await TestServer.run(adjust: { $0.push.interval = .seconds(3_600) }) { server in
            let (ada, bob, cyd, food) = try await household(server)
            let dee = try await server.owner("dee", at: TestServer.Place.lyon)
            struct Families: Decodable { var items: [Components.Schemas.Family] }
            let family = try #require(try await server.get(APIPath.families, token: ada.token, as: Families.self).items.first)
            try await server.join(family.id, owner: ada.token, member: dee.token)
            // a phone each (a token names one phone: registered again, it moves to its new member)
            for (member, digit) in [(bob, "1"), (cyd, "2"), (dee, "3")] {
                let device = try await server.send(
                    .POST, APIPath.devices, object: ["platform": "apns", "token": String(repeating: digit, count: 64), "appId": "org.pawpack.app"],
                    token: member.token)
                #expect(device.status == 201)
            }
            #expect(try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["fed"]], token: cyd.token).status == 200)
            // Bob has read everything; Dee has not
            #expect(try await server.request(.POST, APIPath.readAllNotifications, token: bob.token).status == 204)
            func unread(_ owner: TestServer.Owner) async throws -> Int {
                try await server.get(
                    APIPath.notifications, token: try await server.signedInAgain(owner).token, as: Components.Schemas.NotificationPage.self
                ).unreadCount
            }
            let deeBefore = try await unread(dee)
            #expect(deeBefore > 0)

            #expect(try await server.feed(ada.dogID, food: food, token: ada.token).status == 201)
            #expect(try await inbox(server, bob).filter { $0.kind == .fed }.count == 1)
            #expect(try await inbox(server, dee).filter { $0.kind == .fed }.count == 1)
            #expect(try await inbox(server, cyd).filter { $0.kind == .fed }.isEmpty)
            #expect(try await unread(bob) == 1)
            #expect(try await unread(dee) == deeBefore + 1)
            let pushes = try await PushOutboxRecord.query(on: server.app.db).filter(\.$kind == NotificationKind.fed.rawValue).all()
            let badges = Dictionary(pushes.map { ($0.userID, $0.badge) }) { first, _ in first }
            #expect(pushes.count == 2, "\(pushes.map(\.userID))")
            #expect(badges[bob.member.userID] == 1 && badges[dee.member.userID] == deeBefore + 1)
        }
    }

    @Test func aDoseFallsDueIsRemindedUntilGivenAndTheNextFollowsTheLastGiven() async throws {
        try await TestServer.run { server in
            let (ada, bob, cyd, _) = try await household(server)
            let dog = try await dogName(server, ada)
            let start = server.clock.now().addingTimeInterval(3_600)
            let medication = try await server.medication(for: ada.dogID, every: 8, startsAt: start, token: ada.token)
            _ = try await server.medication(
                for: ada.dogID, name: "Ear drops", dose: "2 drops", every: 1, unit: "days", startsAt: start, token: ada.token)
            #expect(medication.nextDueAt.map { abs($0.timeIntervalSince(start)) < 1 } == true && medication.unit == .hours)

            // who may: the owner adds, a member gives, a viewer reads, a stranger sees nothing
            let dan = try await server.owner("dan", at: TestServer.Place.lyon)
            #expect(try await server.request(.GET, APIPath.medications(ada.dogID), token: dan.token).status == 404)
            #expect(
                try await server.send(.POST, APIPath.doses(medication.id), object: ["id": UUID().uuidString], token: dan.token).status == 404)
            #expect(
                try await server.send(
                    .POST, APIPath.medications(ada.dogID), object: ["name": "X", "dose": "1", "every": 1, "unit": "days"],
                    token: bob.token
                ).status == 403)
            #expect(
                try await server.send(.POST, APIPath.doses(medication.id), object: ["id": UUID().uuidString], token: cyd.token).status == 403)
            #expect(
                Set(
                    try await server.get(APIPath.medications(ada.dogID), token: cyd.token, as: Components.Schemas.MedicationList.self).items
                        .map(\.name)) == ["Metacam", "Ear drops"])

            // bad input names its field and adds nothing
            for (object, field) in [
                (["name": "X", "dose": "1", "every": 0, "unit": "hours"], "every"),
                (["name": "X", "dose": "1", "every": 100, "unit": "hours"], "every"),
                (["name": "X", "dose": "1", "every": 91, "unit": "days"], "every"),
                (["name": "X", "dose": "1", "every": 1, "unit": "days", "until": "2001-01-01"], "until"),
                (["name": " ", "dose": "1", "every": 1, "unit": "days"], "name"),
            ] as [([String: any Sendable], String)] {
                let refused = try await server.send(.POST, APIPath.medications(ada.dogID), object: object, token: ada.token)
                #expect((refused.status == 422 || refused.status == 400) && refused.text.contains(field), "\(object): \(refused.text)")
            }
            #expect(
                try await server.get(APIPath.medications(ada.dogID), token: ada.token, as: Components.Schemas.MedicationList.self).items.count == 2)

            // due: Ada and Bob are reminded once, Cyd (viewer) not
            server.clock.advance(by: 3_600 + 60)
            try await runReminders(server)
            try await runReminders(server)
            #expect(
                Set(try await inbox(server, bob).filter { $0.kind == .health }.map(\.title))
                    == ["\(dog)'s Metacam is due", "\(dog)'s Ear drops is due"])
            #expect(try await inbox(server, cyd).filter { $0.kind == .health }.isEmpty)

            // Bob gives it; a retry is the same dose; Ada's reminder is answered
            let id = UUID().uuidString
            let bobNow = try await server.signedInAgain(bob)
            let given = try await server.send(.POST, APIPath.doses(medication.id), object: ["id": id], token: bobNow.token)
            #expect(given.status == 201, "\(given.text)")
            let after = try given.decode(Medication.self)
            #expect(after.doses.count == 1 && after.doses[0].givenBy?.username == "bob")
            #expect(after.nextDueAt.map { abs($0.timeIntervalSince(server.clock.now().addingTimeInterval(8 * 3_600))) < 1 } == true)
            let retry = try await server.send(.POST, APIPath.doses(medication.id), object: ["id": id], token: bobNow.token)
            #expect(retry.status == 200)
            #expect(try retry.decode(Medication.self).doses.count == 1)
            // Ada's Metacam reminder is answered; the ear drops' still asks
            let adaHealth = try await inbox(server, ada).filter { $0.kind == .health }
            #expect(adaHealth.first { $0.title.contains("Metacam") }?.read == true)
            #expect(adaHealth.first { $0.title.contains("Ear drops") }?.read == false)

            // eight hours later, the next one
            server.clock.advance(by: 8 * 3_600 + 60)
            try await runReminders(server)
            #expect(try await inbox(server, ada).filter { $0.kind == .health && $0.title.contains("Metacam") }.count == 2)

            // deleted: no more reminders, and a stranger's delete is a 404
            let (adaNow, danNow) = (try await server.signedInAgain(ada), try await server.signedInAgain(dan))
            #expect(try await server.request(.DELETE, APIPath.medication(medication.id), token: danNow.token).status == 404)
            #expect(try await server.request(.DELETE, APIPath.medication(medication.id), token: adaNow.token).status == 204)
            server.clock.advance(by: 9 * 3_600)
            try await runReminders(server)
            #expect(try await inbox(server, ada).filter { $0.kind == .health && $0.title.contains("Metacam") }.count == 2)
        }
    }

    @Test func aVaccinationIsRemindedToItsOwnerTheChosenDaysBeforeItIsDueOnce() async throws {
        try await TestServer.run { server in
            let (ada, bob, _, _) = try await household(server)
            let today = LocalDate(utc: server.clock.now())
            let due = today.adding(days: 20)
            let recorded = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID),
                object: ["vaccine": "rabies", "givenOn": today.adding(days: -345).description, "nextDueOn": due.description],
                token: ada.token)
            #expect(recorded.status == 201, "\(recorded.text)")

            // 20 days ahead is beyond the default 14: nothing yet
            try await runReminders(server)
            #expect(try await inbox(server, bob).filter { $0.kind == .health }.isEmpty)

            // 30 days' notice: reminded now, once
            let changed = try await server.send(
                .PATCH, APIPath.petCare(ada.dogID), object: ["vaccinationReminderDays": 30], token: ada.token)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(try changed.decode(Components.Schemas.CareSummary.self).vaccinationReminderDays == 30)
            let refused = try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["vaccinationReminderDays": 61], token: ada.token)
            #expect(refused.status == 422 || refused.status == 400)
            try await runReminders(server)
            server.clock.advance(by: 86_400)
            try await runReminders(server)
            let reminders = try await inbox(server, ada).filter { $0.kind == .health }
            #expect(reminders.count == 1 && reminders.first?.body.contains("rabies vaccination is due in 20 days") == true, "\(reminders)")
            // vaccinations are the owner's and guardians': the family's members hear nothing of them
            #expect(try await inbox(server, bob).filter { $0.kind == .health }.isEmpty)
        }
    }

    @Test func afterALongDowntimeAVaccinationDueDaysAgoIsToldAsOverdueAndOneDueLongAgoNotAtAll() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let today = LocalDate(utc: server.clock.now())
            // reminded on the day each is due: rabies in 40 days, DHPP in 2
            #expect(
                try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["vaccinationReminderDays": 0], token: ada.token).status
                    == 200)
            for (vaccine, days) in [("rabies", 40), ("dhpp", 2)] {
                let recorded = try await server.send(
                    .POST, APIPath.vaccinations(ada.dogID),
                    object: ["vaccine": vaccine, "givenOn": today.adding(days: -300).description, "nextDueOn": today.adding(days: days).description],
                    token: ada.token)
                #expect(recorded.status == 201, "\(recorded.text)")
            }
            try await runReminders(server)
            #expect(try await inbox(server, ada).filter { $0.kind == .health }.isEmpty)

            // when the server comes back 50 days later: rabies, due 10 days ago, is told once as
            // overdue; DHPP, due 48 days ago, is past telling
            server.clock.advance(by: 50 * 86_400)
            try await runReminders(server)
            try await runReminders(server)
            let told = try await inbox(server, ada).filter { $0.kind == .health }
            #expect(told.map(\.title) == ["Ada's dog's rabies vaccination is overdue"], "\(told.map(\.title))")
            #expect(told.first?.body == "Ada's dog's rabies vaccination was due on \(today.adding(days: 40)). Book it with your vet.")
        }
    }

    func dogName(_ server: TestServer, _ owner: TestServer.Owner) async throws -> String {
        try await server.get(APIPath.petCare(owner.dogID), token: owner.token, as: Components.Schemas.CareSummary.self).petName
    }
}

/// What each push service is given for a feeding reminder: the pet and the notification, and
/// the "Mark as fed" an app or the service worker shows; nothing of it on other kinds.
@Suite struct FeedingPushPayloadTests {
    let pet = UUID()
    let notification = UUID()

    func message(_ kind: NotificationKind) -> PushMessage {
        PushMessage(
            id: UUID(), kind: kind, title: "Time to feed Miso", body: "Miso was last fed by Sam at 18:05.", path: "/care/pets/x",
            collapseKey: nil, badge: 1, expiresAt: TestServer.startDate.addingTimeInterval(3_600), notification: notification, pet: pet)
    }

    func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func aFeedingReminderCarriesMarkAsFedToEveryServiceAndOtherKindsDoNot() throws {
        let (petID, notificationID) = (pet.uuidString.lowercased(), notification.uuidString.lowercased())

        let web = try json(WebPushProvider.payload(message(.feeding)))
        #expect(web["action"] as? String == "mark_fed" && web["petId"] as? String == petID)
        #expect(web["notificationId"] as? String == notificationID)

        let fcm = try json(FCMProvider.body(message(.feeding), token: "t", now: TestServer.startDate))
        let data = try #require((fcm["message"] as? [String: Any])?["data"] as? [String: String])
        #expect(data["action"] == "mark_fed" && data["petId"] == petID && data["notificationId"] == notificationID)

        let apns = try json(APNsProvider.payload(message(.feeding)))
        #expect((apns["aps"] as? [String: Any])?["category"] as? String == "FEEDING_REMINDER")

        // a "fed" notification names the pet but offers nothing to do
        #expect(try json(WebPushProvider.payload(message(.fed)))["action"] == nil)
        let fedData = try #require(
            (try json(FCMProvider.body(message(.fed), token: "t", now: TestServer.startDate))["message"] as? [String: Any])?["data"]
                as? [String: String])
        #expect(fedData["action"] == nil && fedData["petId"] == petID)
        #expect((try json(APNsProvider.payload(message(.fed)))["aps"] as? [String: Any])?["category"] == nil)
    }
}
