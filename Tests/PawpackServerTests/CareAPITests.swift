import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Care through the HTTP API: foods and stock, feeds (idempotent, asked about when another
/// member just fed, restoring exactly what they took), the next feed, today in the household's
/// time zone, calories and the insight, weights, the CSV log; bad input changes nothing.
@Suite struct CareAPITests {
    typealias Feed = Components.Schemas.Feed
    typealias Summary = Components.Schemas.CareSummary

    func summary(_ server: TestServer, _ pet: String, token: String) async throws -> Summary {
        try await server.get(APIPath.petCare(pet), token: token, as: Summary.self)
    }

    func stock(_ server: TestServer, _ pet: String, token: String) async throws -> Double? {
        try await summary(server, pet, token: token).foods.first?.stock
    }

    /// Ada and Bob in one family sharing Ada's dog, which eats Salmon pouches (stock 10).
    func household(_ server: TestServer) async throws -> (ada: TestServer.Owner, bob: TestServer.Owner, food: Components.Schemas.Food) {
        let (ada, bob) = try await server.adaAndBob()
        let family = try await server.family(of: ada.token)
        try await server.join(family.id, owner: ada.token, member: bob.token)
        try await server.share(ada.dogID, with: family.id, token: ada.token)
        let food = try await server.food(for: ada.dogID, token: ada.token)
        let stocked = try await server.send(.POST, APIPath.stock(food.id), object: ["set": 10, "unit": "packets"], token: ada.token)
        #expect(stocked.status == 200, "\(stocked.text)")
        return (ada, bob, food)
    }

    @Test func aFeedTakesItsPortionFromStockAndARetryLogsNothingTwice() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            // Bob's app opens a socket; Ada logs half a packet
            let socket = try await RealtimeTestClient.connect(server, token: bob.token)
            defer { Task { await socket.close() } }
            let id = UUID().uuidString
            let logged = try await server.feed(ada.dogID, food: food.id, token: ada.token, id: id, ["portion": ["packets": 0.5]])
            #expect(logged.status == 201, "\(logged.text)")
            let feed = try logged.decode(Feed.self)
            #expect(feed.portion.packets == 0.5 && feed.kcal == 40 && feed.fedBy?.displayName == "Ada" && feed.fedByMe)
            // Bob sees it at once, as his
            var event = try await socket.next()
            while event["type"] as? String != "feed" { event = try await socket.next() }
            let data = try #require(event["data"] as? [String: any Sendable])
            #expect(data["id"] as? String == feed.id && data["fedByMe"] as? Bool == false)
            #expect(try await stock(server, ada.dogID, token: bob.token) == 9.5)

            // the same id again is the same feed, once; with another body, refused
            let retry = try await server.feed(ada.dogID, food: food.id, token: ada.token, id: id, ["portion": ["packets": 0.5]])
            let retried = try retry.decode(Feed.self)
            #expect(retry.status == 200 && retried.id == feed.id)
            let reused = try await server.feed(ada.dogID, food: food.id, token: ada.token, id: id, ["portion": ["packets": 1]])
            #expect(reused.status == 409 && reused.text.contains("idempotency_key_reused"))
            #expect(try await stock(server, ada.dogID, token: ada.token) == 9.5)
            #expect(try await summary(server, ada.dogID, token: ada.token).today.count == 1)
        }
    }

    @Test func theHouseholdHearsAtOnceOfStockFoodsSettingsAndWeightsAStrangerNothing() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let bobs = try await RealtimeTestClient.connect(server, token: bob.token)
            let eves = try await RealtimeTestClient.connect(server, token: eve.token)
            defer {
                Task {
                    await bobs.close()
                    await eves.close()
                }
            }
            // when Ada buys food, adds one, changes the feeding gap and logs a weight
            let changes: [(String, TestServer.Reply)] = [
                ("stock", try await server.send(.POST, APIPath.stock(food.id), object: ["add": 6, "unit": "packets"], token: ada.token)),
                ("foods", try await server.send(.POST, APIPath.foods(ada.dogID), object: ["name": "Kibble", "kind": "dry"], token: ada.token)),
                ("settings", try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["feedingGapHours": 8], token: ada.token)),
                ("weight", try await server.send(.POST, APIPath.weights(ada.dogID), object: ["kilograms": 12.5], token: ada.token)),
            ]
            // then Bob's screen hears each, for the pet, in order
            for (what, reply) in changes {
                #expect((200..<300).contains(reply.status), "\(what): \(reply.text)")
                var event = try await bobs.next()
                while event["type"] as? String != "care_changed" { event = try await bobs.next() }
                let data = try #require(event["data"] as? [String: any Sendable])
                #expect(data["petId"] as? String == ada.dogID && data["what"] as? String == what, "\(data)")
            }
            // and Eve, who is not of the household, hears nothing of it
            await #expect(throws: (any Error).self) { _ = try await eves.next(within: 1) }
        }
    }

    /// A household's evening round: two members log eight feeds at the same moment (as many as
    /// the test client sends at once: more would wait for its connections, and on a busy
    /// PostgreSQL run past its timeout while the feeds of one food take their turns). Every one
    /// lands (on SQLite a transaction that read the stock before writing failed at once when
    /// another had committed meanwhile: "database is locked"), and each takes exactly its portion.
    @Test func feedsLoggedAtOnceByAHouseholdAllLandAndTakeExactlyTheirPortions() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for number in 0..<8 {
                    let token = number % 2 == 0 ? ada.token : bob.token
                    group.addTask {
                        try await server.feed(ada.dogID, food: food.id, token: token, ["portion": ["packets": 0.25], "logAnyway": true]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 201, count: 8))
            #expect(try await stock(server, ada.dogID, token: ada.token) == 8)
            let page = try await server.get(APIPath.feeds(ada.dogID) + "?limit=100", token: bob.token, as: Components.Schemas.FeedPage.self)
            #expect(page.items.count == 8)
        }
    }

    /// The Care tab reads a household's pets together (`CareService.summaries`): each pet on it
    /// is exactly what its own page shows, with its own feeds, weight and stock, including a pet
    /// last fed before the tab's 14 days.
    @Test func theCareTabShowsEachPetExactlyAsItsOwnPageDoes() async throws {
        try await TestServer.run { server in
            var (ada, bob) = try await server.adaAndBob()
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            let adaFood = try await server.food(for: ada.dogID, token: ada.token)
            let bobFood = try await server.food(for: bob.dogID, token: bob.token, ["name": "Tuna pouches", "kcal": 60.0])
            // Bob's dog fed once, three weeks ago
            let old = try await server.feed(bob.dogID, food: bobFood.id, token: bob.token)
            #expect(old.status == 201, "\(old.text)")
            server.clock.advance(by: 21 * 86_400)
            (ada, bob) = (try await server.signedInAgain(ada), try await server.signedInAgain(bob))
            // Ada's dog fed twice today, weighed, and its food stocked
            try check(try await server.feed(ada.dogID, food: adaFood.id, token: ada.token), 201)
            try check(try await server.feed(ada.dogID, food: adaFood.id, token: bob.token, ["logAnyway": true]), 201)
            try check(try await server.send(.POST, APIPath.weights(ada.dogID), object: ["kilograms": 12.5], token: ada.token), 201)
            try check(try await server.send(.POST, APIPath.stock(adaFood.id), object: ["set": 10, "unit": "packets"], token: ada.token), 200)

            let tab = try await server.get(APIPath.care, token: bob.token, as: Operations.GetCareDashboard.Output.Ok.Body.JsonPayload.self).items
            #expect(Set(tab.map(\.petId)) == [ada.dogID, bob.dogID] && tab.first?.petId == bob.dogID)
            for item in tab {
                let page = try await summary(server, item.petId, token: bob.token)
                #expect(item == page)
            }
            let adas = try #require(tab.first { $0.petId == ada.dogID })
            #expect(adas.today.count == 2 && adas.calories.kilograms == 12.5 && adas.calories.today == 160 && adas.foods.first?.stock == 10)
            let bobs = try #require(tab.first { $0.petId == bob.dogID })
            let oldID = try old.decode(Feed.self).id
            #expect(bobs.today.isEmpty && bobs.lastFeed?.id == oldID && bobs.state == .overdue)
            #expect(bobs.foods.map(\.name) == ["Tuna pouches"] && bobs.calories.feedingDays == 0)
        }
    }

    @Test func aSecondFeedSoonAfterAnotherMembersIsAskedAboutFirst() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            try check(try await server.feed(ada.dogID, food: food.id, token: bob.token), 201)
            server.clock.advance(by: 12 * 60)
            // Ada is told who fed and when, and nothing is logged
            let asked = try await server.feed(ada.dogID, food: food.id, token: ada.token)
            #expect(asked.status == 409 && asked.text.contains("recently_fed"), "\(asked.text)")
            #expect(asked.text.contains("Bob fed Ada's dog 12 minutes ago."))
            // and, for an app to ask in its own words, which pet, who and when
            let said = try asked.decode(Components.Schemas.Problem.self).recentFeeds ?? []
            #expect(said.map(\.petId) == [ada.dogID] && said.first?.fedBy?.username == "bob" && said.first?.fedBy?.displayName == "Bob")
            #expect(said.first?.fedAt == server.clock.now().addingTimeInterval(-12 * 60))
            #expect(try await stock(server, ada.dogID, token: ada.token) == 9)
            // logged anyway, it counts
            try check(try await server.feed(ada.dogID, food: food.id, token: ada.token, ["logAnyway": true]), 201)
            #expect(try await stock(server, ada.dogID, token: ada.token) == 8)
            // half an hour after Bob's, her own second feed is not asked about
            server.clock.advance(by: 19 * 60)
            try check(try await server.feed(ada.dogID, food: food.id, token: ada.token), 201)
        }
    }

    @Test func editingOrDeletingAFeedRestoresExactlyWhatItTook() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server)
            try check(try await server.send(.POST, APIPath.stock(food.id), object: ["set": 0.75, "unit": "packets"], token: ada.token), 200)
            // a whole packet from ¾ takes ¾ and leaves nothing
            let fed = try await server.feed(ada.dogID, food: food.id, token: ada.token)
            let feed = try fed.decode(Feed.self)
            #expect(try await stock(server, ada.dogID, token: ada.token) == 0)
            // a purchase of 2 packets, then the feed changed to a quarter: the ¾ comes back, ¼ goes
            try check(try await server.send(.POST, APIPath.stock(food.id), object: ["add": 2, "unit": "packets"], token: ada.token), 200)
            let changed = try await server.send(.PATCH, APIPath.feed(feed.id), object: ["portion": ["packets": 0.25]], token: ada.token)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(try changed.decode(Feed.self).portion.packets == 0.25)
            #expect(try await stock(server, ada.dogID, token: ada.token) == 2.5)
            // deleted, the quarter comes back
            #expect(try await server.request(.DELETE, APIPath.feed(feed.id), token: ada.token).status == 204)
            #expect(try await stock(server, ada.dogID, token: ada.token) == 2.75)
            #expect(try await server.request(.DELETE, APIPath.feed(feed.id), token: ada.token).status == 404)
        }
    }

    @Test func lowStockAlertsOnlyWhereAThresholdWasSetAndEmptyOnce() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            let stockNotices = {
                try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
                    .items.filter { $0.kind == .stock }.map(\.title)
            }
            // no threshold: 10 packets down to 1 say nothing
            try check(try await server.send(.POST, APIPath.stock(food.id), object: ["set": 1, "unit": "packets"], token: ada.token), 200)
            #expect(try await stockNotices().isEmpty)
            // a threshold of 3: a purchase up to 5, then feeds down to 3 alert once
            try check(try await server.send(.PATCH, APIPath.food(food.id), object: ["lowStockAt": 3], token: ada.token), 200)
            try check(try await server.send(.POST, APIPath.stock(food.id), object: ["add": 4, "unit": "packets"], token: ada.token), 200)
            for _ in 0..<3 {
                try check(try await server.feed(ada.dogID, food: food.id, token: ada.token, ["logAnyway": true]), 201)
            }
            #expect(try await stockNotices() == ["Ada's dog's Salmon pouches is running low"])
            let low = try #require(
                try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self).items
                    .first { $0.kind == .stock })
            // empty: once, however many feeds find it empty
            for _ in 0..<4 {
                try check(try await server.feed(ada.dogID, food: food.id, token: ada.token, ["logAnyway": true]), 201)
            }
            // (the unread low notice is brought up to date, as the inbox does within ten minutes)
            let notices = try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
                .items.filter { $0.kind == .stock }
            #expect(notices.map(\.title) == ["Ada's dog's Salmon pouches ran out"] && notices.first?.id == low.id)
            // Ada, who fed, was not told: she sees it on the page
            let adas = try await server.get(APIPath.notifications, token: ada.token, as: Components.Schemas.NotificationPage.self)
            #expect(!adas.items.contains { $0.kind == .stock })
        }
    }

    @Test func halfAPacketBringsTheNextFeedHalfAGapLaterAndItsStateFollowsTheClock() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server)
            #expect(try await summary(server, ada.dogID, token: ada.token).state == .due, "never fed: due")
            try check(try await server.feed(ada.dogID, food: food.id, token: ada.token, ["portion": ["packets": 0.5]]), 201)
            var care = try await summary(server, ada.dogID, token: ada.token)
            #expect(care.nextFeedAt == TestServer.startDate.addingTimeInterval(3 * 3_600) && care.state == .fed)
            server.clock.advance(by: 3 * 3_600)
            var again = try await server.signedInAgain(ada)
            care = try await summary(server, ada.dogID, token: again.token)
            #expect(care.state == .due)
            server.clock.advance(by: 3_600)
            again = try await server.signedInAgain(ada)
            care = try await summary(server, ada.dogID, token: again.token)
            #expect(care.state == .overdue)
            // a gap of 8 hours: the same half packet lasts 4
            let patched = try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["feedingGapHours": 8], token: again.token)
            #expect(patched.status == 200)
            #expect(try patched.decode(Summary.self).nextFeedAt == TestServer.startDate.addingTimeInterval(4 * 3_600))
        }
    }

    @Test func todayBeginsAtTheHouseholdsMidnightAcrossDaylightSaving() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server) // the family lives in Europe/Oslo
            // 2026-03-28 23:30 Oslo (22:30 UTC), then 00:30 on the 29th, the night the clocks go forward
            let start = TestServer.startDate
            let evening = Date(timeIntervalSince1970: 1_774_737_000) // 2026-03-28T22:30:00Z
            server.clock.advance(by: evening.timeIntervalSince(start))
            var ada2 = try await server.signedInAgain(ada)
            try check(try await server.feed(ada.dogID, food: food.id, token: ada2.token), 201)
            server.clock.advance(by: 3_600) // 00:30 CET on the 29th
            ada2 = try await server.signedInAgain(ada)
            try check(try await server.feed(ada.dogID, food: food.id, token: ada2.token, ["logAnyway": true]), 201)
            server.clock.advance(by: 3 * 3_600) // 04:30 CEST
            ada2 = try await server.signedInAgain(ada)
            try check(try await server.feed(ada.dogID, food: food.id, token: ada2.token, ["logAnyway": true]), 201)
            let care = try await summary(server, ada.dogID, token: ada2.token)
            #expect(care.today.map(\.day) == ["2026-03-29", "2026-03-29"])
            #expect(care.today.map(\.firstOfDay) == [true, false])
            let history = try await server.get(APIPath.feeds(ada.dogID), token: ada2.token, as: Components.Schemas.FeedPage.self)
            #expect(history.items.map(\.day) == ["2026-03-29", "2026-03-29", "2026-03-28"])
            #expect(history.items.map(\.firstOfDay) == [false, true, true])
        }
    }

    @Test func aPetNoFamilyPlacesFollowsItsOwnersTimeZoneThenItsOwnThenItsFamilys() async throws {
        try await TestServer.run { server in
            // given Ada in Auckland, where 12:00 UTC on 1 March is already 01:00 on the 2nd,
            // and Bob in New York, who guards her dog
            let (ada, bob) = try await server.adaAndBob()
            try check(try await server.send(.PATCH, APIPath.me, object: ["timeZone": "Pacific/Auckland"], token: ada.token), 200)
            try check(try await server.send(.PATCH, APIPath.me, object: ["timeZone": "America/New_York"], token: bob.token), 200)
            try check(try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "bob"], token: ada.token), 201)
            let invitations = try await server.get(
                APIPath.guardianInvitations, token: bob.token,
                as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self)
            try check(try await server.request(.POST, APIPath.acceptInvitation(try #require(invitations.items.first).id), token: bob.token), 204)
            let food = try await server.food(for: ada.dogID, token: ada.token)

            // when she feeds it, with no family and no time zone set for the dog
            try check(try await server.feed(ada.dogID, food: food.id, token: ada.token), 201)

            // then its day is Auckland's, for her and for Bob alike
            for token in [ada.token, bob.token] {
                let care = try await summary(server, ada.dogID, token: token)
                #expect(care.timeZone == "Pacific/Auckland")
                #expect(care.today.map(\.day) == ["2026-03-02"])
            }
            // when a time zone is set for the dog itself, it wins over hers
            try check(try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["timeZone": "Europe/Oslo"], token: ada.token), 200)
            var care = try await summary(server, ada.dogID, token: bob.token)
            #expect(care.timeZone == "Europe/Oslo")
            #expect(care.today.map(\.day) == ["2026-03-01"])
            // and cleared, the dog follows her again, wherever she moves
            try check(try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["timeZone": ""], token: ada.token), 200)
            try check(try await server.send(.PATCH, APIPath.me, object: ["timeZone": "Asia/Tokyo"], token: ada.token), 200)
            care = try await summary(server, ada.dogID, token: ada.token)
            #expect(care.timeZone == "Asia/Tokyo")
            // and once shared with a family, the family's days are the dog's
            let family = try await server.family(of: ada.token, timeZone: "America/Chicago")
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            care = try await summary(server, ada.dogID, token: bob.token)
            #expect(care.timeZone == "America/Chicago")
            #expect(care.today.map(\.day) == ["2026-03-01"])
        }
    }

    @Test func whenTheClocksGoBackTheDayHasTwentyFiveHoursAndHistoryPagesAcrossIt() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server) // the family lives in Europe/Oslo
            // 25 October 2026 in Oslo: 03:00 summer time becomes 02:00 winter time; now 23:45
            let now = Date(timeIntervalSince1970: 1_792_968_300) // 2026-10-25T22:45:00Z
            server.clock.advance(by: now.timeIntervalSince(server.clock.now()))
            let token = try await server.signedInAgain(ada).token
            // 23:30 on the 24th; then 00:30, 02:30 summer time, 02:30 winter time and 23:30 on the 25th
            let times = ["2026-10-24T21:30:00Z", "2026-10-24T22:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z", "2026-10-25T22:30:00Z"]
            for time in times {
                try check(try await server.feed(ada.dogID, food: food.id, token: token, ["fedAt": time, "logAnyway": true]), 201)
            }
            // today holds the four of the 25th, the first of them marked
            let care = try await summary(server, ada.dogID, token: token)
            #expect(care.today.map { Self.rfc3339($0.fedAt) } == Array(times.dropFirst()), "\(care.today.map(\.fedAt))")
            #expect(care.today.map(\.firstOfDay) == [true, false, false, false])
            // history, two a page, newest first, goes on by its cursor to the 24th and ends
            var pages: [[String]] = []
            var firsts: [Bool] = []
            var cursor: String?
            repeat {
                let path = APIPath.feeds(ada.dogID) + "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await server.get(path, token: token, as: Components.Schemas.FeedPage.self)
                pages.append(page.items.map(\.day))
                firsts += page.items.map(\.firstOfDay)
                cursor = page.nextCursor
            } while cursor != nil && pages.count < 5
            #expect(pages == [["2026-10-25", "2026-10-25"], ["2026-10-25", "2026-10-25"], ["2026-10-24"]])
            #expect(firsts == [false, false, false, true, true])
            let bad = try await server.request(.GET, APIPath.feeds(ada.dogID) + "?cursor=yesterday", token: token)
            #expect(bad.status == 422 && bad.text.contains("\"cursor\""), "\(bad.text)")
        }
    }

    @Test func caloriesAverageTheDaysWithFeedsAndTheInsightComesAfterFiveDays() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server)
            // a 4 kg neutered adult cat of Ada's: ideal 1.2 × 70 × 4^0.75 ≈ 238 kcal
            let cat = try await server.send(
                .POST, APIPath.pets, object: ["name": "Miso", "species": "cat", "estimatedAgeMonths": 40, "weightKg": 4.0, "neutered": true],
                token: ada.token)
            let miso = try cat.decode(Components.Schemas.PetView.self).card.id
            let pouches = try await server.food(for: miso, token: ada.token, ["kcal": 80.0])
            _ = food
            var token = ada.token
            for day in 0..<5 {
                // two packets a day (160 kcal) on five days, a day apart
                try check(try await server.feed(miso, food: pouches.id, token: token), 201)
                try check(
                    try await server.feed(
                        miso, food: pouches.id, token: token, ["fedAt": Self.rfc3339(server.clock.now().addingTimeInterval(-3_600))]), 201)
                if day < 4 {
                    server.clock.advance(by: 86_400)
                    token = try await server.signedInAgain(ada).token
                }
            }
            var care = try await summary(server, miso, token: token)
            #expect(care.calories.ideal == 238 && care.calories.factor == 1.2 && care.calories.factorIsDefault)
            #expect(care.calories.today == 160)
            #expect(care.calories.feedingDays == 4 && care.calories.averagePerFeedingDay == 160, "today is not over: not counted")
            #expect(care.insight == nil, "four days are not enough")
            server.clock.advance(by: 86_400)
            token = try await server.signedInAgain(ada).token
            care = try await summary(server, miso, token: token)
            #expect(care.calories.feedingDays == 5 && care.calories.today == 0)
            let insight = try #require(care.insight)
            #expect(insight.headline == "About 1 packet more of Salmon pouches a day" && insight.change == 1)
            #expect(insight.why.contains("estimate") && insight.basedOnDays == 5)
            // a newer weight moves the ideal
            try check(try await server.send(.POST, APIPath.weights(miso), object: ["kilograms": 5.0], token: token), 201)
            care = try await summary(server, miso, token: token)
            #expect(care.calories.kilograms == 5 && care.calories.ideal == 281)
            // and a factor set by hand
            let factored = try await server.send(.PATCH, APIPath.petCare(miso), object: ["energyFactor": 1.0], token: token)
            #expect(try factored.decode(Summary.self).calories.ideal == 234)
        }
    }

    @Test func severalPetsAreFedInOneActionAllOrNone() async throws {
        try await TestServer.run { server in
            let (ada, bob, food) = try await household(server)
            let bobsFood = try await server.food(for: bob.dogID, token: bob.token)
            // a feed for a pet Ada cannot reach spoils the whole batch: nothing logged
            let refused = try await server.send(
                .POST, APIPath.feedBatch,
                object: [
                    "items": [
                        ["id": UUID().uuidString, "petId": ada.dogID, "foodId": food.id],
                        ["id": UUID().uuidString, "petId": bob.dogID, "foodId": bobsFood.id],
                    ]
                ], token: ada.token)
            #expect(refused.status == 404)
            #expect(try await summary(server, ada.dogID, token: ada.token).today.isEmpty)
            #expect(try await stock(server, ada.dogID, token: ada.token) == 10)
            // Bob shares his dog: both fed at once
            try await server.share(
                bob.dogID,
                with: try await server.get(APIPath.families, token: bob.token, as: Operations.ListFamilies.Output.Ok.Body.JsonPayload.self).items[0]
                    .id, token: bob.token)
            let fed = try await server.send(
                .POST, APIPath.feedBatch,
                object: [
                    "items": [
                        ["id": UUID().uuidString, "petId": ada.dogID, "foodId": food.id, "portion": ["packets": 0.25]] as [String: any Sendable],
                        ["id": UUID().uuidString, "petId": bob.dogID, "foodId": bobsFood.id],
                    ]
                ], token: ada.token)
            #expect(fed.status == 201, "\(fed.text)")
            #expect(try fed.decode(Components.Schemas.FeedList.self).items.map(\.petId) == [ada.dogID, bob.dogID])
            #expect(try await stock(server, ada.dogID, token: ada.token) == 9.75)

            // a batch's bad input names the item at fault, and logs none of it
            let twice = UUID().uuidString
            let ok: [String: any Sendable] = ["id": UUID().uuidString, "petId": ada.dogID, "foodId": food.id]
            let future = Self.rfc3339(server.clock.now().addingTimeInterval(600))
            for (items, field) in [
                ([ok, ["id": UUID().uuidString, "petId": bob.dogID, "foodId": food.id]], "items[1].foodId"),
                ([ok, ["id": UUID().uuidString, "petId": bob.dogID, "foodId": bobsFood.id, "fedAt": future]], "items[1].fedAt"),
                ([ok, ["id": UUID().uuidString, "petId": bob.dogID, "foodId": bobsFood.id, "portion": ["packets": 0.3]]], "items[1].portion"),
                (
                    [
                        ["id": twice, "petId": ada.dogID, "foodId": food.id], ["id": twice, "petId": bob.dogID, "foodId": bobsFood.id],
                    ] as [[String: any Sendable]], "items[1].id"
                ),
                (Array(repeating: ok, count: 21), "items"), ([], "items"),
            ] as [([[String: any Sendable]], String)] {
                let reply = try await server.send(.POST, APIPath.feedBatch, object: ["items": items, "logAnyway": true], token: ada.token)
                #expect(
                    (reply.status == 422 || reply.status == 400) && reply.text.contains("\"field\":\"\(field)\""), "\(field): \(reply.text)")
            }
            #expect(try await stock(server, ada.dogID, token: ada.token) == 9.75)
            #expect(try await summary(server, ada.dogID, token: ada.token).today.count == 1)
        }
    }

    @Test func badCareInputNamesTheFieldAndWritesNothing() async throws {
        try await TestServer.run { server in
            let (ada, _, food) = try await household(server)
            let future = Self.rfc3339(server.clock.now().addingTimeInterval(600))
            let longAgo = Self.rfc3339(server.clock.now().addingTimeInterval(-40 * 86_400))
            for (fields, field) in [
                (["portion": ["packets": 0.3]], "portion"), (["portion": ["grams": 40]], "portion"),
                (["portion": [String: Int]()], "portion"), (["fedAt": future], "fedAt"), (["fedAt": longAgo], "fedAt"),
                (["foodId": UUID().uuidString], "foodId"), (["id": "not-a-uuid"], "id"),
            ] as [([String: any Sendable], String)] {
                let reply = try await server.feed(ada.dogID, food: food.id, token: ada.token, fields)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(fields): \(reply.text)")
            }
            for (body, field) in [
                (["name": "Kibble", "kind": "dry", "packetsPerBox": 12], "packetsPerBox"),
                (["name": "Kibble", "kind": "dry", "kcal": 1_500], "kcal"), (["name": "", "kind": "wet"], "name"),
                (["name": "Tins", "kind": "wet", "usualPortion": ["grams": 30]], "usualPortion"),
                (["name": "Tins", "kind": "wet", "lowStockAt": 0.3], "lowStockAt"),
            ] as [([String: any Sendable], String)] {
                let reply = try await server.send(.POST, APIPath.foods(ada.dogID), object: body, token: ada.token)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(body): \(reply.text)")
            }
            for (body, field) in [
                (["set": 1, "unit": "grams"], "unit"), (["set": 1.1, "unit": "packets"], "set"), (["unit": "packets"], "set"),
                (["add": 2, "unit": "boxes"], "unit"), (["set": 20_000, "unit": "packets"], "set"), (["add": -1, "unit": "packets"], "add"),
            ] as [([String: any Sendable], String)] {
                let reply = try await server.send(.POST, APIPath.stock(food.id), object: body, token: ada.token)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(body): \(reply.text)")
            }
            for (body, field) in [
                (["feedingGapHours": 0.5], "feedingGapHours"), (["timeZone": "Nowhere/Land"], "timeZone"),
                (["energyFactor": 9], "energyFactor"), (["dietaryNotes": String(repeating: "a", count: 1_001)], "dietaryNotes"),
            ] as [([String: any Sendable], String)] {
                let reply = try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: body, token: ada.token)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(body): \(reply.text)")
            }
            for (body, field) in [(["kilograms": 0], "kilograms"), (["kilograms": 4, "date": "2026-13-01"], "date")]
                as [([String: any Sendable], String)]
            {
                let reply = try await server.send(.POST, APIPath.weights(ada.dogID), object: body, token: ada.token)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(body): \(reply.text)")
            }
            // nothing was written
            let care = try await summary(server, ada.dogID, token: ada.token)
            #expect(care.today.isEmpty && care.foods.count == 1 && care.foods.first?.stock == 10 && care.feedingGapHours == 6)
            #expect(
                try await server.get(APIPath.weights(ada.dogID), token: ada.token, as: Operations.ListWeights.Output.Ok.Body.JsonPayload.self).items
                    .isEmpty)
        }
    }

    @Test func theLogDownloadsAsCSVWithFormulasDefused() async throws {
        try await TestServer.run { server in
            let (ada, bob, _) = try await household(server)
            let hostile = try await server.food(for: ada.dogID, token: ada.token, ["name": "=HYPERLINK(\"x\"), \"tins\""])
            try check(try await server.feed(ada.dogID, food: hostile.id, token: bob.token), 201)
            let csv = try await server.request(.GET, APIPath.feedsCSV(ada.dogID), token: bob.token)
            #expect(csv.status == 200 && csv.headers.first(name: "Content-Type")?.hasPrefix("text/csv") == true)
            let lines = csv.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "pet,day,fed_at,food,portion,unit,kcal,fed_by,first_of_day")
            #expect(lines.count == 2)
            #expect(lines[1].hasPrefix("Ada's dog,2026-03-01,2026-03-01T12:00:00Z,\"'=HYPERLINK(\"\"x\"\"), \"\"tins\"\"\",1.0,packets,80,Bob,yes"))
        }
    }

    static func rfc3339(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle()) }

    func check(_ reply: TestServer.Reply, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(reply.status == status, "\(reply.text)", sourceLocation: sourceLocation)
    }
}
