import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Care's forms as a browser sends them, with what a careless or hostile member types: numbers
/// no integer holds, times that are not times; and what a form sent twice or late still does.
@Suite struct CarePagesTests {
    @Test func numbersNoIntegerHoldsAndMalformedTimesAreRefusedNamingTheField() async throws {
        try await TestServer.run { server in
            let (ada, _) = try await server.adaAndBob()
            let food = try await server.food(for: ada.dogID, token: ada.token)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            _ = try await browser.get(WebPath.carePet(ada.dog))
            // given numbers a member can type that no integer holds, the form is refused, the server lives
            for (form, field) in [
                (["name": "Kibble", "kind": "dry", "usual": "1e300"], "usual"), (["name": "Kibble", "kind": "dry", "usual": "nan"], "usual"),
                (["name": "Tins", "kind": "wet", "packetsPerBox": "1e300"], "packetsPerBox"),
                (["name": "Tins", "kind": "wet", "packetsPerBox": "inf"], "packetsPerBox"),
                (["name": "Kibble", "kind": "dry", "usual": "12.5"], "usual"),
            ] {
                let page = try await browser.post(WebPath.careFoods(ada.dog), form)
                #expect(page.status == 422 && page.html.contains("\(field)-error"), "\(form): \(page.status)")
            }
            // and a time that is not one is refused; nothing was logged
            for time in ["2026-03-01T10:xx", "2026-03-01T10:30:99:7", "2026-03-01T25:00", "2026-03-01T10:30:", "2026-03-01"] {
                let page = try await browser.post(
                    WebPath.careFeeds(ada.dog), ["id": UUID().uuidString, "food": food.id, "time": time])
                #expect(page.status == 422 && page.html.contains("time-error"), "\(time): \(page.status)")
            }
            // and a time in the household's zone with the seconds a browser adds is read as said
            let logged = try await browser.post(
                WebPath.careFeeds(ada.dog), ["id": UUID().uuidString, "food": food.id, "time": "2026-03-01T11:15:00.000"])
            #expect(logged.status == 303)
            let feeds = try await server.get(APIPath.feeds(ada.dogID), token: ada.token, as: Components.Schemas.FeedPage.self)
            #expect(feeds.items.map(\.fedAt) == [TestServer.startDate.addingTimeInterval(-45 * 60)], "11:15 in UTC, the pet's zone")
            #expect(
                try await server.get(APIPath.foods(ada.dogID), token: ada.token, as: Operations.ListFoods.Output.Ok.Body.JsonPayload.self)
                    .items.count == 1)

            // a feed kept offline comes later with the instant it was logged (`at`), read exactly;
            // one that is not an instant is refused
            let kept = TestServer.startDate.addingTimeInterval(-20 * 60 - 0.5)
            let javaScriptTime = ISO8601DateFormatter()
            javaScriptTime.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let offline = try await browser.post(
                WebPath.careFeeds(ada.dog),
                ["id": UUID().uuidString, "food": food.id, "at": javaScriptTime.string(from: kept), "logAnyway": "1"])
            #expect(offline.status == 303, "\(offline.html)")
            let after = try await server.get(APIPath.feeds(ada.dogID), token: ada.token, as: Components.Schemas.FeedPage.self)
            #expect(after.items.first.map { abs($0.fedAt.timeIntervalSince(kept)) < 1 } == true, "\(after.items.map(\.fedAt))")
            let unreadable = try await browser.post(
                WebPath.careFeeds(ada.dog), ["id": UUID().uuidString, "food": food.id, "at": "yesterday"])
            #expect(unreadable.status == 422 && unreadable.html.contains("time-error"))
        }
    }

    @Test func homeShowsTheFeedsAndDosesDueToWhoMayGiveThemUntilGiven() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            // Ada's dog, never fed, with a food and a medication due now; Bob a viewer in her family
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token, role: "viewer")
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let food = try await server.food(for: ada.dogID, token: ada.token)
            let medication = try await server.medication(for: ada.dogID, token: ada.token)
            let adas = try await TestBrowser.signedIn(server, as: ada.member)
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)

            // Ada's Home shows both, with the dog's card and the dose's link
            let home = try await adas.get(WebPath.home).html
            #expect(home.contains(#"id="home-feeds""#) && home.contains(HTMLEscaping.escape("Ada's dog is waiting to eat")))
            #expect(home.contains(#"id="care-\#(ada.dogID)""#))
            #expect(home.contains(#"id="home-doses""#) && home.contains(WebPath.careHealth(ada.dog)))
            // Bob, who may only look, is asked for neither
            let bobsHome = try await bobs.get(WebPath.home).html
            #expect(!bobsHome.contains(#"id="home-feeds""#) && !bobsHome.contains(#"id="home-doses""#))

            // once Ada fed the dog and gave the dose, Home asks no more
            #expect(try await server.feed(ada.dogID, food: food.id, token: ada.token).status == 201)
            #expect(try await server.send(.POST, APIPath.doses(medication.id), object: ["id": UUID().uuidString], token: ada.token).status == 201)
            let after = try await adas.get(WebPath.home).html
            #expect(!after.contains(#"id="home-feeds""#) && !after.contains(#"id="home-doses""#))
        }
    }

    @Test func aFoodIsEditedInPlaceAndBagsThenCountPurchases() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let food = try await server.food(for: ada.dogID, token: ada.token)
            let (adas, bobs, eves) = (
                try await TestBrowser.signedIn(server, as: ada.member), try await TestBrowser.signedIn(server, as: bob.member),
                try await TestBrowser.signedIn(server, as: eve.member)
            )
            let edit = WebPath.editFood(Care.Food.ID(string: food.id)!)
            // Ada's page offers the form, Bob's (a member, who logs but does not manage) not
            #expect((try await adas.get(WebPath.carePet(ada.dog))).html.contains(#"action="\#(edit)""#))
            #expect(!(try await bobs.get(WebPath.carePet(ada.dog))).html.contains(#"action="\#(edit)""#))

            // a bag of 1.5 packets is refused beside its field in the open form; nothing changes
            let refused = try await adas.post(edit, ["name": "Tuna", "packetsPerBag": "1.5"])
            #expect(refused.status == 422 && refused.html.contains(#"id="food-\#(food.id)-packetsPerBag-error""#))
            #expect(refused.html.contains(#"class="edit-food" open"#))
            // then saved: the new name and kcal, and purchases counted in bags
            let saved = try await adas.post(edit, ["name": "Tuna pouches", "kcal": "90", "usual": "0.5", "packetsPerBag": "24"])
            #expect(saved.status == 303, "\(saved.html)")
            let foods = try await server.get(APIPath.foods(ada.dogID), token: ada.token, as: Operations.ListFoods.Output.Ok.Body.JsonPayload.self)
            #expect(foods.items.first?.name == "Tuna pouches" && foods.items.first?.kcal == 90 && foods.items.first?.packetsPerBag == 24)
            #expect(foods.items.first?.usualPortion.packets == 0.5)
            #expect((try await adas.get(WebPath.carePet(ada.dog))).html.contains(#"<option value="bags">bags</option>"#))
            // Bob may not, Eve finds nothing, and the name stays
            #expect(try await bobs.post(edit, ["name": "Bob's"]).status == 403)
            let _ = try await eves.get(WebPath.care)
            #expect(try await eves.post(edit, ["name": "Eve's"]).status == 404)
            #expect(
                try await server.get(APIPath.foods(ada.dogID), token: ada.token, as: Operations.ListFoods.Output.Ok.Body.JsonPayload.self)
                    .items.first?.name == "Tuna pouches")
        }
    }

    @Test func aNewTimeAloneLeavesTheStockAndAFoodlessFeedCanStillBeMoved() async throws {
        try await TestServer.run { server in
            let (ada, _) = try await server.adaAndBob()
            let food = try await server.food(for: ada.dogID, token: ada.token)
            // given a feed logged before the stock was kept, then a purchase of 10
            let fed = try await server.feed(ada.dogID, food: food.id, token: ada.token).decode(Components.Schemas.Feed.self)
            _ = try await server.send(.POST, APIPath.stock(food.id), object: ["set": 10, "unit": "packets"], token: ada.token)
            // when its time is corrected, the stock stays 10: it took nothing, it takes nothing
            let earlier = CareAPITests.rfc3339(TestServer.startDate.addingTimeInterval(-3_600))
            let moved = try await server.send(.PATCH, APIPath.feed(fed.id), object: ["fedAt": earlier], token: ada.token)
            #expect(moved.status == 200, "\(moved.text)")
            let foods = try await server.get(APIPath.foods(ada.dogID), token: ada.token, as: Operations.ListFoods.Output.Ok.Body.JsonPayload.self)
            #expect(foods.items.first?.stock == 10)
            // and once its food is deleted, the feed keeps its name and may still be moved
            #expect(try await server.request(.DELETE, APIPath.food(food.id), token: ada.token).status == 204)
            let again = try await server.send(
                .PATCH, APIPath.feed(fed.id), object: ["fedAt": CareAPITests.rfc3339(TestServer.startDate.addingTimeInterval(-7_200))],
                token: ada.token)
            #expect(again.status == 200, "\(again.text)")
            #expect(try again.decode(Components.Schemas.Feed.self).foodName == "Salmon pouches")
        }
    }

    @Test func aWithdrawnRequestCannotBeAcceptedAndSharingSaysNothingToAStranger() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let family = try await server.family(of: ada.token)
            let code = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self)
            let request = try await server.send(.POST, APIPath.joinFamily, object: ["code": code.code], token: bob.token)
                .decode(Components.Schemas.FamilyJoinRequest.self)
            // Bob withdraws; Ada's accept a moment later finds nothing
            #expect(try await server.request(.POST, APIPath.familyJoinRequest(request.id, "decline"), token: bob.token).status == 204)
            #expect(try await server.request(.POST, APIPath.familyJoinRequest(request.id, "accept"), token: ada.token).status == 404)
            #expect(try await server.get(APIPath.family(family.id), token: ada.token, as: Components.Schemas.Family.self).members.count == 1)
            // Eve, in a family of her own, cannot tell Ada's dog from a dog that does not exist
            let eves = try await server.family(of: eve.token, name: "Eve's")
            let theirs = try await server.request(.PUT, APIPath.familyPet(eves.id, ada.dogID), token: eve.token)
            let unknown = UUID().uuidString.lowercased()
            let none = try await server.request(.PUT, APIPath.familyPet(eves.id, unknown), token: eve.token)
            #expect(theirs.status == 404 && none.status == 404)
            #expect(theirs.text.replacingOccurrences(of: ada.dogID, with: "…") == none.text.replacingOccurrences(of: unknown, with: "…"))
        }
    }
}
