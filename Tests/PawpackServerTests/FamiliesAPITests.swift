import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Families through the HTTP API: a code to join, the owner's answer, roles, leaving and
/// removing, handing over, sharing pets; strangers see nothing, codes cannot be walked.
@Suite struct FamiliesAPITests {
    typealias Family = Components.Schemas.Family

    @Test func aMemberJoinsWithTheCodeTheOwnerAcceptsAndSharedPetsAppear() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            // given Ada's family and its code
            let family = try await server.family(of: ada.token, name: "  The Lindqvists  ")
            #expect(family.name == "The Lindqvists" && family.myRole == .owner && family.members.map(\.username) == ["ada"])
            #expect(family.inviteCode == nil, "no code until the owner makes one")
            let code = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self)
            #expect(code.code.count == 6 && code.code.allSatisfy(\.isNumber))
            #expect(code.expiresAt == TestServer.startDate.addingTimeInterval(7 * 86_400))

            // when Bob types it with a space, the owner sees his request and is told
            let spaced = String(code.code.prefix(3)) + " " + String(code.code.suffix(3))
            let asked = try await server.send(.POST, APIPath.joinFamily, object: ["code": spaced], token: bob.token)
            #expect(asked.status == 202, "\(asked.text)")
            let again = try await server.send(.POST, APIPath.joinFamily, object: ["code": code.code], token: bob.token)
            let first = try asked.decode(Components.Schemas.FamilyJoinRequest.self)
            let second = try again.decode(Components.Schemas.FamilyJoinRequest.self)
            #expect(again.status == 202 && second.id == first.id, "asking twice is one request")
            let requests = try await server.get(
                APIPath.familyJoinRequests, token: ada.token, as: Operations.ListFamilyJoinRequests.Output.Ok.Body.JsonPayload.self)
            #expect(requests.items.map(\.username) == ["bob"] && requests.items.first?.direction == .incoming)
            let inbox = try await server.get(APIPath.notifications, token: ada.token, as: Components.Schemas.NotificationPage.self)
            #expect(inbox.items.first?.kind == .family && inbox.items.first?.title == "Bob asks to join The Lindqvists")
            // Bob sees nothing of the family until accepted
            #expect(try await server.request(.GET, APIPath.family(family.id), token: bob.token).status == 404)
            let request = try #require(requests.items.first)
            let byBob = try await server.request(.POST, APIPath.familyJoinRequest(request.id, "accept"), token: bob.token)
            #expect(byBob.status == 404, "\(byBob.text)")

            // then accepted, Bob is a member and sees the pet Ada shares, not the code
            #expect(try await server.request(.POST, APIPath.familyJoinRequest(request.id, "accept"), token: ada.token).status == 204)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let bobs = try await server.get(APIPath.family(family.id), token: bob.token, as: Family.self)
            #expect(bobs.myRole == .member && bobs.members.map(\.username) == ["ada", "bob"] && bobs.inviteCode == nil)
            #expect(bobs.pets.map(\.name) == ["Ada's dog"])
            let care = try await server.get(APIPath.petCare(ada.dogID), token: bob.token, as: Components.Schemas.CareSummary.self)
            #expect(care.canLog && !care.canManage && !care.canShare && care.familyName == "The Lindqvists")
            #expect(care.timeZone == "Europe/Oslo", "a shared pet's days are the family's")
            let dashboard = try await server.get(APIPath.care, token: bob.token, as: Operations.GetCareDashboard.Output.Ok.Body.JsonPayload.self)
            #expect(dashboard.items.map(\.petName) == ["Bob's dog", "Ada's dog"], "his own first")
            let adaInbox = try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
            #expect(adaInbox.items.first?.title == "Welcome to The Lindqvists")
        }
    }

    @Test func aBlockKeepsEachOutOfTheOthersFamilyAndEndsWhatWasAsked() async throws {
        try await TestServer.run { server in
            typealias Requests = Operations.ListFamilyJoinRequests.Output.Ok.Body.JsonPayload
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            let dan = try await server.owner("dan", at: TestServer.Place.lyonNear)
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let fay = try await server.owner("fay", at: TestServer.Place.lyonNear)
            // given Bob, who blocked Fay long ago; Ada's family with Cyd and Dan in it, its code,
            // Bob's and Eve's requests to join, then Fay in the family too; and the family
            // offered to Dan
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "fay"], token: bob.token).status == 204)
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: cyd.token)
            try await server.join(family.id, owner: ada.token, member: dan.token)
            let code = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self).code
            for asker in [bob, eve] {
                #expect(try await server.send(.POST, APIPath.joinFamily, object: ["code": code], token: asker.token).status == 202)
            }
            try await server.join(family.id, owner: ada.token, member: fay.token)
            #expect(try await server.send(.POST, APIPath.familyTransfer(family.id), object: ["username": "dan"], token: ada.token).status == 204)

            // when Ada blocks Eve and Dan blocks Ada
            for (blocker, blocked) in [(ada, "eve"), (dan, "ada")] {
                #expect(try await server.send(.POST, APIPath.blocks, object: ["username": blocked], token: blocker.token).status == 204)
            }
            let unread = try await [ada, bob, eve].asyncMap { try await server.unreadCount(of: $0) }

            // then Eve's request is gone at once; Bob's, still listed (his block is older than Fay's
            // place in it), ends when Ada accepts it, as if withdrawn: Ada learns nothing of whom
            // he blocked
            let requests = try await server.get(APIPath.familyJoinRequests, token: ada.token, as: Requests.self)
            #expect(requests.items.map(\.username) == ["bob"])
            let accepting = try await server.request(
                .POST, APIPath.familyJoinRequest(try #require(requests.items.first).id, "accept"), token: ada.token)
            #expect(accepting.status == 404 && accepting.code == "not_found", "\(accepting.text)")
            #expect(try await server.get(APIPath.familyJoinRequests, token: ada.token, as: Requests.self).items.isEmpty)
            #expect(
                try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self).members.map(\.username) == [
                    "ada", "cyd", "dan", "fay",
                ])
            // asking again with the right code answers as a code nobody has, to both
            let nobodys = try await server.send(.POST, APIPath.joinFamily, object: ["code": code == "123456" ? "654321" : "123456"], token: bob.token)
            for asker in [bob, eve] {
                let again = try await server.send(.POST, APIPath.joinFamily, object: ["code": code], token: asker.token)
                #expect(again.status == 404 && again.text == nobodys.text, "\(again.text)")
            }
            // the offer to Dan is gone, and Ada cannot make it again
            let taking = try await server.request(.POST, APIPath.familyTransfer(family.id, "accept"), token: dan.token)
            #expect(taking.status == 409 && taking.code == "no_offer_waiting", "\(taking.text)")
            let offering = try await server.send(.POST, APIPath.familyTransfer(family.id), object: ["username": "dan"], token: ada.token)
            #expect(offering.status == 404, "\(offering.text)")
            #expect(try await server.get(APIPath.family(family.id), token: dan.token, as: Family.self).myRole == .member)
            #expect(try await [ada, bob, eve].asyncMap { try await server.unreadCount(of: $0) } == unread, "nobody was told")
        }
    }

    @Test func thePetsOwnerOrTheFamilysOwnerTakesAPetOutOfTheFamilyNobodyElse() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            let dan = try await server.owner("dan", at: TestServer.Place.lyonNear)
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            // given Ada's family: Bob and Dan members, Cyd a viewer; Bob shares his dog
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.join(family.id, owner: ada.token, member: dan.token)
            try await server.join(family.id, owner: ada.token, member: cyd.token, role: "viewer")
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            func shared() async throws -> [String] {
                try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self).pets.map(\.petId)
            }

            // a member or a viewer who does not own it cannot take it out; Eve, outside, finds nothing
            for (who, status) in [(dan, 403), (cyd, 403), (eve, 404)] {
                let reply = try await server.request(.DELETE, APIPath.familyPet(family.id, bob.dogID), token: who.token)
                #expect(reply.status == status, "\(who.member.username): \(reply.text)")
            }
            #expect(try await shared() == [bob.dogID])
            // a pet the family does not have: not found
            #expect(try await server.request(.DELETE, APIPath.familyPet(family.id, dan.dogID), token: ada.token).status == 404)

            // its owner takes it out, and shares it again; the family's owner takes it out too
            #expect(try await server.request(.DELETE, APIPath.familyPet(family.id, bob.dogID), token: bob.token).status == 204)
            #expect(try await shared().isEmpty)
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            #expect(try await server.request(.DELETE, APIPath.familyPet(family.id, bob.dogID), token: ada.token).status == 204)
            #expect(try await shared().isEmpty)
            // and Dan no longer sees its care
            #expect(try await server.request(.GET, APIPath.petCare(bob.dogID), token: dan.token).status == 404)
        }
    }

    @Test func aStrangerAndAMemberOfAnotherFamilySeeNothingAsForAPetThatDoesNotExist() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let family = try await server.family(of: ada.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            _ = try await server.family(of: eve.token, name: "Eve's")
            let food = try await server.food(for: ada.dogID, token: ada.token)
            let fed = try await server.feed(ada.dogID, food: food.id, token: ada.token)
            let feed = try fed.decode(Components.Schemas.Feed.self)

            for stranger in [bob, eve] {
                var answers: [[String]] = []
                for (pet, family, food, feed) in [
                    (ada.dogID, family.id, food.id, feed.id),
                    (UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased(), UUID().uuidString.lowercased()),
                ] {
                    let replies = [
                        try await server.request(.GET, APIPath.petCare(pet), token: stranger.token),
                        try await server.request(.GET, APIPath.foods(pet), token: stranger.token),
                        try await server.request(.GET, APIPath.feeds(pet), token: stranger.token),
                        try await server.request(.GET, APIPath.feedsCSV(pet), token: stranger.token),
                        try await server.request(.GET, APIPath.weights(pet), token: stranger.token),
                        try await server.feed(pet, food: food, token: stranger.token),
                        try await server.send(.POST, APIPath.stock(food), object: ["add": 4, "unit": "packets"], token: stranger.token),
                        try await server.send(.PATCH, APIPath.food(food), object: ["name": "Mine"], token: stranger.token),
                        try await server.request(.DELETE, APIPath.feed(feed), token: stranger.token),
                        try await server.send(.PATCH, APIPath.feed(feed), object: ["portion": ["packets": 1]], token: stranger.token),
                        try await server.send(.PATCH, APIPath.petCare(pet), object: ["feedingGapHours": 8], token: stranger.token),
                        try await server.send(.POST, APIPath.foods(pet), object: ["name": "Mine", "kind": "dry"], token: stranger.token),
                        try await server.request(.DELETE, APIPath.food(food), token: stranger.token),
                        try await server.send(.POST, APIPath.weights(pet), object: ["kilograms": 9], token: stranger.token),
                        try await server.send(
                            .POST, APIPath.medications(pet), object: ["name": "Drops", "dose": "2", "every": 12, "unit": "hours"],
                            token: stranger.token),
                        try await server.request(.GET, APIPath.family(family), token: stranger.token),
                        try await server.send(.PATCH, APIPath.family(family), object: ["name": "Mine"], token: stranger.token),
                        try await server.request(.POST, APIPath.inviteCode(family), token: stranger.token),
                        try await server.request(.DELETE, APIPath.familyMember(family, "ada"), token: stranger.token),
                        try await server.send(.PATCH, APIPath.familyMember(family, "ada"), object: ["role": "viewer"], token: stranger.token),
                        try await server.send(.POST, APIPath.familyTransfer(family), object: ["username": "ada"], token: stranger.token),
                        try await server.request(.POST, APIPath.familyTransfer(family, "accept"), token: stranger.token),
                        try await server.request(.DELETE, APIPath.familyPet(family, pet), token: stranger.token),
                        try await server.request(.DELETE, APIPath.family(family), token: stranger.token),
                    ]
                    #expect(replies.map(\.status) == Array(repeating: 404, count: replies.count), "\(replies.map(\.text))")
                    answers.append(
                        replies.map {
                            [pet, family, food, feed].reduce($0.text) { text, id in text.replacingOccurrences(of: id, with: "…") }
                        })
                }
                #expect(answers[0] == answers[1])
            }
            // and nothing changed
            let care = try await server.get(APIPath.petCare(ada.dogID), token: ada.token, as: Components.Schemas.CareSummary.self)
            #expect(care.today.count == 1 && care.foods.first?.name == "Salmon pouches" && care.familyName == "Home")
            #expect(care.today.first?.portion.packets == feed.portion.packets)
            #expect(try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self).members.map(\.role) == [.owner])
        }
    }

    @Test func aViewerReadsButLogsNothingAndAMemberChangesOnlyTheirOwnFeeds() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.join(family.id, owner: ada.token, member: cyd.token, role: "viewer")
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let food = try await server.food(for: ada.dogID, token: ada.token)

            // the viewer reads but may not log, and the refusal says why
            let viewed = try await server.get(APIPath.petCare(ada.dogID), token: cyd.token, as: Components.Schemas.CareSummary.self)
            #expect(!viewed.canLog)
            let refused = try await server.feed(ada.dogID, food: food.id, token: cyd.token)
            #expect(refused.status == 403 && refused.text.contains("ask the family's owner"), "\(refused.text)")
            // a member logs, but may not add foods or change settings
            let bobs = try await server.feed(ada.dogID, food: food.id, token: bob.token)
            #expect(bobs.status == 201)
            #expect(try await server.send(.POST, APIPath.foods(ada.dogID), object: ["name": "X", "kind": "dry"], token: bob.token).status == 403)
            #expect(try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["feedingGapHours": 8], token: bob.token).status == 403)
            #expect(try await server.request(.PUT, APIPath.familyPet(family.id, ada.dogID), token: bob.token).status == 403)
            // Ada's feed is hers and the owner's: Bob may not delete it, Ada may delete Bob's
            let adas = try await server.feed(ada.dogID, food: food.id, token: ada.token, ["logAnyway": true])
            #expect(try await server.request(.DELETE, APIPath.feed(try adas.decode(Components.Schemas.Feed.self).id), token: bob.token).status == 403)
            #expect(try await server.request(.DELETE, APIPath.feed(try bobs.decode(Components.Schemas.Feed.self).id), token: ada.token).status == 204)

            // made a viewer, Bob can no longer change even his own feed
            #expect(try await server.send(.PATCH, APIPath.familyMember(family.id, "bob"), object: ["role": "viewer"], token: ada.token).status == 204)
            let again = try await server.feed(ada.dogID, food: food.id, token: bob.token, ["logAnyway": true])
            #expect(again.status == 403)
        }
    }

    @Test func codesAreOneFamilysExpireAndCannotBeWalked() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let family = try await server.family(of: ada.token)
            let first = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self)
            let second = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self)
            // a member asks: a bad code names the field; the old code no longer works
            let bad = try await server.send(.POST, APIPath.joinFamily, object: ["code": "12a456"], token: bob.token)
            #expect(bad.status == 422 && bad.text.contains("\"field\":\"code\""))
            if first.code != second.code {
                let old = try await server.send(.POST, APIPath.joinFamily, object: ["code": first.code], token: bob.token)
                #expect(old.status == 404 && old.text.contains("\"field\":\"code\""))
            }
            // a week later the code has expired
            server.clock.advance(by: 7 * 86_400)
            let bobAgain = try await server.signedInAgain(bob)
            let expired = try await server.send(.POST, APIPath.joinFamily, object: ["code": second.code], token: bobAgain.token)
            #expect(expired.status == 404, "\(expired.text)")
            // ten attempts an hour, right or wrong (the expired one counted): the eleventh waits, even with the right code
            let adaAgain = try await server.signedInAgain(ada)
            let live = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: adaAgain.token)
                .decode(Components.Schemas.FamilyInviteCode.self)
            for attempt in 0..<9 {
                let wrong = String(format: "%06d", (Int(live.code)! + 1 + attempt) % 1_000_000)
                #expect(try await server.send(.POST, APIPath.joinFamily, object: ["code": wrong], token: bobAgain.token).status == 404)
            }
            let limited = try await server.send(.POST, APIPath.joinFamily, object: ["code": live.code], token: bobAgain.token)
            #expect(limited.status == 429, "\(limited.text)")
            #expect(limited.headers.first(name: "Retry-After") != nil)
            #expect(try await server.get(APIPath.family(family.id), token: adaAgain.token, as: Family.self).members.count == 1)
        }
    }

    @Test func theOwnerHandsOverBeforeLeavingOrDeletingTheirAccount() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            // the owner cannot leave, nor delete her account, while she owns it
            let leave = try await server.request(.DELETE, APIPath.familyMember(family.id, "ada"), token: ada.token)
            #expect(leave.status == 409 && leave.text.contains("family_owner_must_hand_over"))
            let delete = try await server.send(.DELETE, APIPath.me, object: ["password": ada.member.password], token: ada.token)
            #expect(delete.status == 409 && delete.text.contains("Hand it over"), "\(delete.text)")
            // a member cannot take it without an offer; offered, Bob takes it over
            #expect(try await server.request(.POST, APIPath.familyTransfer(family.id, "accept"), token: bob.token).status == 409)
            #expect(try await server.send(.POST, APIPath.familyTransfer(family.id), object: ["username": "bob"], token: ada.token).status == 204)
            #expect(try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self).pendingOwner == "bob")
            #expect(try await server.request(.POST, APIPath.familyTransfer(family.id, "accept"), token: bob.token).status == 204)
            let after = try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self)
            #expect(after.myRole == .member && after.members.first { $0.username == "bob" }?.role == .owner && after.pendingOwner == nil)
            // Ada leaves (taking nothing of Bob's) and may now delete her account
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "ada"), token: ada.token).status == 204)
            #expect(try await server.send(.DELETE, APIPath.me, object: ["password": ada.member.password], token: ada.token).status == 204)
            let kept = try await server.get(APIPath.family(family.id), token: bob.token, as: Family.self)
            #expect(kept.members.map(\.username) == ["bob"] && kept.pets.map(\.name) == ["Bob's dog"])
        }
    }

    @Test func aMemberLeavingTakesTheirPetsAndDeletingTheFamilyUnsharesAll() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            #expect(try await server.request(.GET, APIPath.petCare(bob.dogID), token: ada.token).status == 200)
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "bob"), token: bob.token).status == 204)
            #expect(try await server.request(.GET, APIPath.petCare(bob.dogID), token: ada.token).status == 404)
            #expect(try await server.request(.GET, APIPath.petCare(ada.dogID), token: bob.token).status == 404)
            #expect(try await server.request(.DELETE, APIPath.family(family.id), token: ada.token).status == 204)
            let families = try await server.get(APIPath.families, token: ada.token, as: Operations.ListFamilies.Output.Ok.Body.JsonPayload.self)
            #expect(families.items.isEmpty)
            let care = try await server.get(APIPath.petCare(ada.dogID), token: ada.token, as: Components.Schemas.CareSummary.self)
            #expect(care.familyId == nil && care.timeZone == "UTC")
        }
    }

    @Test func theOwnerRemovesAMemberWhosePetsLeaveWithThemAndNobodyElseRemovesAnyone() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            let family = try await server.family(of: ada.token)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.join(family.id, owner: ada.token, member: cyd.token)
            try await server.share(bob.dogID, with: family.id, token: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            // a member cannot remove another, nor the owner; a name not in the family is not found
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "bob"), token: cyd.token).status == 403)
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "ada"), token: bob.token).status == 403)
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "nobody"), token: ada.token).status == 404)
            // the owner removes Bob: his dog leaves the family with him, and he sees Ada's no more
            #expect(try await server.request(.DELETE, APIPath.familyMember(family.id, "bob"), token: ada.token).status == 204)
            let after = try await server.get(APIPath.family(family.id), token: ada.token, as: Family.self)
            #expect(after.members.map(\.username) == ["ada", "cyd"] && after.pets.map(\.petId) == [ada.dogID])
            #expect(try await server.request(.GET, APIPath.petCare(bob.dogID), token: cyd.token).status == 404)
            #expect(try await server.request(.GET, APIPath.petCare(ada.dogID), token: bob.token).status == 404)
            #expect(try await server.request(.GET, APIPath.family(family.id), token: bob.token).status == 404)
            #expect(try await server.request(.GET, APIPath.petCare(bob.dogID), token: bob.token).status == 200, "his dog's care stays his")
        }
    }

    @Test func joinAttemptsFromOneAddressAreLimitedWhoeverMakesThem() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let family = try await server.family(of: ada.token)
            let code = try await server.send(.POST, APIPath.inviteCode(family.id), object: [:], token: ada.token)
                .decode(Components.Schemas.FamilyInviteCode.self).code
            // three members from one address walk codes, ten wrong ones each (each member's own
            // limit): thirty attempts from the address in the hour
            for name in ["bea", "cyd", "dan"] {
                let walker = try await server.owner(name, at: TestServer.Place.lyonNear)
                for attempt in 0..<10 {
                    let wrong = String(format: "%06d", (Int(code)! + 1 + attempt) % 1_000_000)
                    #expect(try await server.send(.POST, APIPath.joinFamily, object: ["code": wrong], token: walker.token).status == 404)
                }
            }
            // so a fourth member from there waits, even with the right code, and asks nothing
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let limited = try await server.send(.POST, APIPath.joinFamily, object: ["code": code], token: eve.token)
            #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") != nil, "\(limited.text)")
            let requests = try await server.get(
                APIPath.familyJoinRequests, token: ada.token, as: Operations.ListFamilyJoinRequests.Output.Ok.Body.JsonPayload.self)
            #expect(requests.items.isEmpty)
            // an hour later the address may try again
            server.clock.advance(by: 3_601)
            let later = try await server.send(.POST, APIPath.joinFamily, object: ["code": code], token: try await server.signedInAgain(eve).token)
            #expect(later.status == 202, "\(later.text)")
        }
    }

    @Test func badFamilyInputNamesTheFieldAndWritesNothing() async throws {
        try await TestServer.run { server in
            let (ada, _) = try await server.adaAndBob()
            for (body, field) in [
                (["name": "", "timeZone": "Europe/Oslo"], "name"), (["name": "Home", "timeZone": "Mars/Olympus"], "timeZone"),
                (["name": String(repeating: "a", count: 41), "timeZone": "UTC"], "name"),
            ] {
                let reply = try await server.send(.POST, APIPath.families, object: body, token: ada.token)
                #expect(reply.status == 422 && reply.text.contains("\"field\":\"\(field)\""), "\(reply.text)")
            }
            for index in 0..<5 { _ = try await server.family(of: ada.token, name: "Home \(index)") }
            let sixth = try await server.send(.POST, APIPath.families, object: ["name": "Sixth", "timeZone": "UTC"], token: ada.token)
            #expect(sixth.status == 409 && sixth.text.contains("limit_reached"))
            let families = try await server.get(APIPath.families, token: ada.token, as: Operations.ListFamilies.Output.Ok.Body.JsonPayload.self)
            #expect(families.items.count == 5)
        }
    }
}
