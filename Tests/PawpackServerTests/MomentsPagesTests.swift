import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Moments in the web app, without its script: finding a friend and answering, posting a photo
/// with the copies the page makes, who sees it where, votes, and the contest's pages.
@Suite struct MomentsPagesTests {
    @Test func friendsFindEachOtherAndAFriendsOnlyPhotoReachesTheFriendOnly() async throws {
        try await TestServer.run { server in
            // given Ada with her dog, Bob, and Cyd who knows neither
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.member("cyd")
            let adas = try await TestBrowser.signedIn(server, as: ada.member)
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)
            let cyds = try await TestBrowser.signedIn(server, as: cyd)

            // when Bob searches for "ad" and asks Ada
            let found = try await bobs.get(WebPath.friends + "?query=Ad")
            #expect(found.status == 200 && found.html.contains(#"id="found-ada""#) && found.html.contains(#"id="add-ada""#))
            let tooShort = try await bobs.get(WebPath.friends + "?query=a")
            #expect(tooShort.status == 200 && tooShort.html.contains(#"id="query-error""#), "one letter is refused beside the field")
            let asked = try await bobs.post(WebPath.friendRequests, ["username": "ada", "back": "//evil.example/"])
            #expect(asked.status == 303 && asked.location == WebPath.friends + "?flash=friend-asked", "never sent off the site")

            // then Ada hears of it on Home, on the tab's badge and the friends page, and accepts
            let home = try await adas.get(WebPath.home)
            #expect(home.html.contains(#"id="home-friend-requests""#) && home.html.contains(#"id="accept-bob""#))
            #expect(home.html.contains(#"id="moments-count""#))
            let friendsPage = try await adas.get(WebPath.friends)
            #expect(friendsPage.html.contains(#"id="requests-in""#))
            let requestID = try #require(
                try await server.get(APIPath.friendRequests, token: ada.token, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
                    .items.first?.id)
            #expect(try await cyds.post("/moments/friends/requests/\(requestID)/accept", [:]).status == 404, "not Cyd's to answer")
            let accepted = try await adas.post("/moments/friends/requests/\(requestID)/accept", [:])
            #expect(accepted.location == WebPath.friends + "?flash=friends-now")
            #expect(try await adas.get(WebPath.friends).html.contains(#"id="friend-bob""#))
            #expect(try await bobs.get(WebPath.friends).html.contains(#"id="friend-ada""#))

            // when Ada posts a friends-only photo of her dog with the copies her page made
            let refused = try await adas.upload(WebPath.newMoment, parts: [.init(name: "pets[]", data: Data(ada.dogID.utf8))])
            #expect(refused.status == 422 && refused.html.contains("Choose a photo to post"))
            let badPrivacy = try await adas.upload(
                WebPath.newMoment,
                parts: [
                    .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("gps.jpg")),
                    .init(name: "pets[]", data: Data(ada.dogID.utf8)), .init(name: "privacy", data: Data("everybody".utf8)),
                ])
            #expect(badPrivacy.status == 422 && badPrivacy.html.contains(#"id="privacy-error""#))
            #expect(try await server.get(APIPath.friendsFeed, token: ada.token, as: Components.Schemas.MomentPage.self).items.isEmpty)
            let posted = try await adas.upload(
                WebPath.newMoment,
                parts: [
                    .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("gps.jpg")),
                    .init(name: "display", filename: "display.jpg", contentType: "image/png", data: TestImages.png(width: 1_080, height: 810)),
                    .init(name: "thumbnail", filename: "thumbnail.jpg", contentType: "image/png", data: TestImages.png(width: 320, height: 240)),
                    .init(name: "pets[]", data: Data(ada.dogID.utf8)), .init(name: "caption", data: Data("Zoomies at dawn".utf8)),
                    .init(name: "privacy", data: Data("friends".utf8)),
                ])
            #expect(posted.status == 303)
            let location = try #require(posted.location)
            #expect(location.hasPrefix("/moments/photos/") && location.hasSuffix("?flash=moment-posted"))
            let photo = String(location.dropFirst("/moments/photos/".count).prefix(36))
            let stored = try await server.get(APIPath.moment(photo), token: ada.token, as: Components.Schemas.Moment.self)
            #expect(stored.privacy == .friends && stored.caption == "Zoomies at dawn" && stored.displayUrl != nil && stored.thumbnailUrl != nil)

            // then Bob finds it in his feed, on its page and on the dog's page, and sees its picture
            let feed = try await bobs.get(WebPath.moments)
            #expect(feed.html.contains(#"id="moment-\#(photo)""#) && feed.html.contains("Zoomies at dawn"))
            #expect(feed.html.contains(#"<a href="/moments" id="feed-friends" aria-current="page">"#))
            let picture = try #require(feed.html.firstMatch(of: /src="(\/media\/moments\/[^"]+)"/)?.1)
            #expect(picture.contains("display"), "the feed shows the display size")
            #expect(try await bobs.get(String(picture)).status == 200)
            #expect(try await bobs.get(WebPath.moment(Moments.Photo.ID(string: photo)!)).status == 200)
            #expect(try await bobs.get(WebPath.pet(ada.dog)).html.contains(#"id="pet-moments""#))

            // and Cyd sees nothing of it: not in everyone's feed, not its page, its file or on the dog's page
            #expect(!(try await cyds.get(WebPath.momentsEveryone)).html.contains(photo))
            #expect(try await cyds.get(WebPath.moment(Moments.Photo.ID(string: photo)!)).status == 404)
            #expect(try await cyds.get(String(picture)).status == 404)
            #expect(!(try await cyds.get(WebPath.pet(ada.dog))).html.contains(#"id="pet-moments""#))
            // though an older public photo of the dog shows to Cyd under six newer friends-only ones
            let older = try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token).id
            for _ in 0..<6 { _ = try await server.moment(pets: [ada.dogID], privacy: "friends", token: ada.token) }
            let dogForCyd = try await cyds.get(WebPath.pet(ada.dog)).html
            #expect(dogForCyd.contains(#"id="pet-moments""#) && dogForCyd.contains(WebPath.moment(Moments.Photo.ID(string: older)!)))
            #expect(!dogForCyd.contains(photo))
            #expect(try await cyds.post("/moments/photos/\(photo)/vote", ["vote": "1"]).status == 404)

            // when Bob votes twice at once from the script, then takes it back from the form
            let json = [("Accept", "application/json")]
            let (tab, otherTab) = (try await TestBrowser.signedIn(server, as: bob.member), try await TestBrowser.signedIn(server, as: bob.member))
            async let first = tab.post("/moments/photos/\(photo)/vote", ["vote": "1"], headers: json)
            async let second = otherTab.post("/moments/photos/\(photo)/vote", ["vote": "1"], headers: json)
            let (one, two) = try await (first, second)
            #expect(one.html.contains(#""votes":1"#) && two.html.contains(#""votes":1"#) && one.html.contains(#""voted":true"#))
            let unvoted = try await bobs.post("/moments/photos/\(photo)/vote", ["vote": "0", "back": WebPath.moments])
            #expect(unvoted.location == WebPath.moments + "#moment-\(photo)")
            #expect(try await server.get(APIPath.moment(photo), token: ada.token, as: Components.Schemas.Moment.self).votes == 0)
            #expect(try await adas.post("/moments/photos/\(photo)/vote", ["vote": "1"]).status == 403, "not one's own")

            // and when Ada makes it private, Bob loses it too; Bob cannot change or delete it
            #expect(try await bobs.post("/moments/photos/\(photo)/edit", ["privacy": "public"]).status == 403)
            #expect(try await bobs.post("/moments/photos/\(photo)/delete", [:]).status == 403)
            let badEdit = try await adas.post("/moments/photos/\(photo)/edit", ["privacy": "nobody", "caption": "x"])
            #expect(badEdit.status == 422 && badEdit.html.contains(#"id="privacy-error""#))
            #expect(try await adas.post("/moments/photos/\(photo)/edit", ["privacy": "private", "caption": ""]).status == 303)
            #expect(!(try await bobs.get(WebPath.moments)).html.contains(photo))
            #expect(try await bobs.get(String(picture)).status == 404)

            // and a report from Bob is refused now (he cannot see it), one from Ada's own page is not offered
            #expect(try await bobs.post("/moments/photos/\(photo)/report", ["reason": "spam"]).status == 404)
            #expect(!(try await adas.get(WebPath.moment(Moments.Photo.ID(string: photo)!))).html.contains(#"id="moment-report""#))
        }
    }

    @Test func bothEnterTheContestAndVotesMoveTheLeaderboard() async throws {
        try await TestServer.run { server in
            // given a contest running, Ada's friends-only photo and Bob's public one, and Cyd
            let (ada, bob) = try await server.adaAndBob()
            let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
            await server.app.pawpack.jobs.stop()
            try await server.app.pawpack.contests.rotate(on: server.app.db)
            let contest = try await server.get(APIPath.currentContest, token: ada.token, as: Components.Schemas.Contest.self)
            let adasPhoto = try await server.moment(pets: [ada.dogID], privacy: "friends", token: ada.token).id
            let bobsPhoto = try await server.moment(pets: [bob.dogID], privacy: "public", token: bob.token).id
            let (adas, bobs, cyds) = (
                try await TestBrowser.signedIn(server, as: ada.member), try await TestBrowser.signedIn(server, as: bob.member),
                try await TestBrowser.signedIn(server, as: cyd.member)
            )

            // when Ada opens the contest, her photo is offered; entering it without saying it
            // may be public is refused with why
            let page = try await adas.get(WebPath.contest)
            #expect(page.html.contains(HTMLEscaping.escape(contest.theme.title)) && page.html.contains(#"id="enter-\#(adasPhoto)""#))
            #expect(page.html.contains("Ends in 7 days"))
            let enterPath = "/moments/contests/\(contest.id)/entries"
            let unsaid = try await adas.post(enterPath, ["photo": adasPhoto])
            #expect(unsaid.status == 409 && unsaid.html.contains("public"))
            #expect(try await cyds.post(enterPath, ["photo": adasPhoto, "makePublic": "on"]).status == 404, "not Cyd's photo")
            #expect(try await adas.post(enterPath, ["photo": adasPhoto, "makePublic": "on"]).location == WebPath.contest + "?flash=entered")
            #expect(try await bobs.post(enterPath, ["photo": bobsPhoto]).location == WebPath.contest + "?flash=entered")

            // then Cyd sees both entries and an empty board
            let board = "/moments/contests/\(contest.id)/leaderboard"
            #expect(try await cyds.get(board).html.contains("No votes yet"))
            let entries = try await server.get(APIPath.contestEntries(contest.id), token: cyd.token, as: Components.Schemas.EntryPage.self).items
            let adasEntry = try #require(entries.first { $0.photo.id == adasPhoto }).id
            let bobsEntry = try #require(entries.first { $0.photo.id == bobsPhoto }).id
            let cydsPage = try await cyds.get(WebPath.contest)
            #expect(cydsPage.html.contains(#"id="entry-vote-\#(adasEntry)""#) && cydsPage.html.contains(#"id="entry-vote-\#(bobsEntry)""#))
            #expect(cydsPage.html.contains(#"data-live="/moments/contests/\#(contest.id)/leaderboard""#))

            // when Cyd and Bob vote for Ada's entry and Cyd for Bob's, the board follows
            let json = [("Accept", "application/json")]
            #expect(try await cyds.post("/moments/entries/\(adasEntry)/vote", ["vote": "1"], headers: json).html.contains(#""votes":1"#))
            var ranked = try await cyds.get(board).html
            #expect(ranked.contains(#"id="standing-\#(adasEntry)""#) && !ranked.contains(#"id="standing-\#(bobsEntry)""#))
            #expect(try await bobs.post("/moments/entries/\(adasEntry)/vote", ["vote": "1"]).status == 303)
            #expect(try await cyds.post("/moments/entries/\(bobsEntry)/vote", ["vote": "1"], headers: json).status == 200)
            ranked = try await cyds.get(board).html
            let first = try #require(ranked.range(of: "standing-\(adasEntry)"))
            let second = try #require(ranked.range(of: "standing-\(bobsEntry)"))
            #expect(first.lowerBound < second.lowerBound && ranked.contains("2 votes"))
            #expect(try await adas.post("/moments/entries/\(adasEntry)/vote", ["vote": "1"]).status == 403, "not one's own")

            // and a block hides Ada's entry from Cyd's board and page
            _ = try await server.send(.POST, APIPath.blocks, object: ["username": "cyd"], token: ada.token)
            #expect(!(try await cyds.get(board)).html.contains(adasEntry))
            #expect(!(try await cyds.get(WebPath.contest)).html.contains(adasPhoto))

            // when Bob withdraws, his entry leaves the contest
            #expect(try await cyds.post("/moments/entries/\(bobsEntry)/withdraw", [:]).status == 404)
            #expect(try await bobs.post("/moments/entries/\(bobsEntry)/withdraw", [:]).location == WebPath.contest + "?flash=withdrawn")
            #expect(!(try await adas.get(WebPath.contest)).html.contains(#"id="entry-vote-\#(bobsEntry)""#))

            // and once the contest ends, past contests show it with Ada's photo first, votes closed
            server.clock.advance(by: 60)
            _ = try await server.app.pawpack.rotateContestsNow(on: server.app.db)
            let past = try await bobs.get(WebPath.contests)
            #expect(past.html.contains(#"id="contest-\#(contest.id)""#) && past.html.contains(#"id="standing-\#(adasEntry)""#))
            let ended = try await bobs.get("/moments/contests/\(contest.id)")
            #expect(ended.html.contains("Winners") && !ended.html.contains("entry-vote-"))
            #expect(try await bobs.post("/moments/entries/\(adasEntry)/vote", ["vote": "0"]).status == 422)

            // and the next week's contest offers Ada a new photo, not the one that was in this one
            // (the server would refuse it: a photo enters one contest only), whose page says why
            let newPhoto = try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token).id
            let nextWeek = try await adas.get(WebPath.contest).html
            #expect(nextWeek.contains(#"id="enter-\#(newPhoto)""#) && !nextWeek.contains(#"id="enter-\#(adasPhoto)""#))
            let enteredBefore = try await adas.get(WebPath.moment(Moments.Photo.ID(string: adasPhoto)!)).html
            #expect(enteredBefore.contains("a photo enters one contest only") && !enteredBefore.contains(#"id="enter-contest""#))
            #expect((try await adas.get(WebPath.moment(Moments.Photo.ID(string: newPhoto)!))).html.contains(#"id="enter-contest""#))
        }
    }
}
