import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Moments' photos through the HTTP API: who sees a photo and its files (owner, guardian,
/// friend, member, anonymous, blocked), the copies phones make, changes, deletion, votes under
/// concurrency, reports, and bad input refused with nothing stored.
@Suite struct MomentsAPITests {
    typealias Moment = Components.Schemas.Moment

    @Test func aFriendsOnlyPhotoReachesFriendsAndGuardiansButNeverAStrangerOrItsFiles() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let bob = try await server.member("bob")
            let cat = try await server.member("cat")
            let gus = try await server.member("gus")
            try await server.makeFriends(ada.member, bob)
            // Gus guards Ada's dog
            _ = try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "gus"], token: ada.token)
            let invitation = try #require(
                try await server.get(
                    APIPath.guardianInvitations, token: gus.accessToken,
                    as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self
                ).items.first)
            #expect(try await server.request(.POST, APIPath.acceptInvitation(invitation.id), token: gus.accessToken).status == 204)

            // when Ada posts a friends-only photo with the copies her phone made
            let posted = try await server.postMoment(
                pets: [ada.dogID], privacy: "friends", caption: "  Zoomies at dawn  ",
                display: TestImages.png(width: 1_080, height: 810), thumbnail: TestImages.png(width: 320, height: 240), token: ada.token)
            #expect(posted.status == 201, "\(posted.text)")
            let moment = try posted.decode(Moment.self)
            #expect(moment.caption == "Zoomies at dawn" && moment.privacy == .friends && moment.mine && moment.votes == 0)
            #expect(moment.pets.map(\.name) == ["Ada's dog"] && moment.owner.username == "ada")
            #expect(moment.width > 0 && moment.displayUrl.hasSuffix("display.png") && moment.thumbnailUrl.hasSuffix("thumbnail.png"))

            // then Bob, her friend, sees it in his feed and its files without the GPS position
            let bobs = try await server.get(APIPath.friendsFeed, token: bob.accessToken, as: Components.Schemas.MomentPage.self)
            #expect(bobs.items.map(\.id) == [moment.id] && bobs.items.first?.byFriend == true && bobs.items.first?.mine == false)
            let original = try await server.request(.GET, server.path(of: moment.originalUrl), token: bob.accessToken)
            #expect(original.status == 200 && original.headers.first(name: "Content-Type") == "image/jpeg")
            #expect(!original.body.contains("Exif") && !original.body.contains("GPS"))
            #expect(original.headers.first(name: "Cache-Control") == "private, max-age=300", "it may turn private")
            // and Cat, a stranger, finds nothing of it: not the photo, not a feed, not a file
            #expect(try await server.request(.GET, APIPath.moment(moment.id), token: cat.accessToken).status == 404)
            #expect(try await server.feed(APIPath.friendsFeed, token: cat.accessToken) == [])
            #expect(try await server.feed(APIPath.globalFeed, token: cat.accessToken) == [])
            #expect(try await server.feed(APIPath.petMoments(ada.dogID), token: cat.accessToken) == [])
            for url in [moment.originalUrl, moment.displayUrl, moment.thumbnailUrl] {
                #expect(try await server.request(.GET, server.path(of: url), token: cat.accessToken).status == 404, "\(url)")
                #expect(try await server.request(.GET, server.path(of: url)).status == 404, "anonymous: \(url)")
            }

            // made public, everyone sees it, anonymous apps its files too
            let opened = try await server.send(.PATCH, APIPath.moment(moment.id), object: ["privacy": "public"], token: ada.token)
            #expect(try opened.status == 200 && opened.decode(Moment.self).privacy == ._public, "\(opened.text)")
            #expect(try await server.feed(APIPath.globalFeed, token: cat.accessToken) == [moment.id])
            #expect(try await server.request(.GET, server.path(of: moment.thumbnailUrl)).status == 200)

            // made private, only Ada and Gus, who guards the dog in it, see it
            _ = try await server.send(.PATCH, APIPath.moment(moment.id), object: ["privacy": "private", "caption": ""], token: ada.token)
            #expect(try await server.request(.GET, APIPath.moment(moment.id), token: bob.accessToken).status == 404)
            #expect(try await server.request(.GET, server.path(of: moment.originalUrl), token: bob.accessToken).status == 404)
            #expect(try await server.feed(APIPath.friendsFeed, token: bob.accessToken) == [])
            let guarded = try await server.get(APIPath.moment(moment.id), token: gus.accessToken, as: Moment.self)
            #expect(guarded.caption == nil && guarded.privacy == ._private)
            #expect(try await server.feed(APIPath.petMoments(ada.dogID), token: gus.accessToken) == [moment.id])
            #expect(try await server.request(.GET, server.path(of: moment.displayUrl), token: gus.accessToken).status == 200)
            #expect(try await server.feed(APIPath.friendsFeed, token: ada.token) == [moment.id])
        }
    }

    @Test func aBlockHidesEvenPublicPhotosBothWays() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let cat = try await server.owner("cat", at: TestServer.Place.lyonNorth)
            let adas = try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token)
            server.clock.advance(by: 1)
            let cats = try await server.moment(pets: [cat.dogID], privacy: "public", token: cat.token)
            #expect(try await server.feed(APIPath.globalFeed, token: cat.token) == [cats.id, adas.id])
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "cat"], token: ada.token).status == 204)
            #expect(try await server.feed(APIPath.globalFeed, token: cat.token) == [cats.id])
            #expect(try await server.feed(APIPath.globalFeed, token: ada.token) == [adas.id])
            #expect(try await server.request(.GET, APIPath.moment(adas.id), token: cat.token).status == 404)
            #expect(try await server.request(.GET, server.path(of: adas.originalUrl), token: cat.token).status == 404)
            #expect(try await server.request(.PUT, APIPath.momentVote(adas.id), token: cat.token).status == 404)
            let report = try await server.send(.POST, APIPath.reports, object: ["photoId": adas.id, "reason": "spam"], token: cat.token)
            #expect(report.status == 404)
        }
    }

    @Test func badInputNamesTheFieldAndStoresNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let cases: [(reply: TestServer.Reply, status: Int, field: String)] = [
                (try await server.postMoment(pets: [bob.dogID], token: ada.token), 422, "pets"), // not hers
                (try await server.postMoment(pets: [], token: ada.token), 422, "pets"),
                (try await server.postMoment(pets: ["not-an-id"], token: ada.token), 422, "pets"),
                (try await server.postMoment(pets: [ada.dogID], privacy: "secret", token: ada.token), 422, "privacy"),
                (try await server.postMoment(pets: [ada.dogID], caption: String(repeating: "a", count: 501), token: ada.token), 422, "caption"),
                (try await server.postMoment(pets: [ada.dogID], caption: "bell\u{7}", token: ada.token), 422, "caption"),
                (
                    try await server.postMoment(pets: [ada.dogID], display: TestImages.png(width: 2_000, height: 1_500), token: ada.token),
                    422, "display"
                ),
                (
                    try await server.postMoment(pets: [ada.dogID], thumbnail: TestImages.png(width: 600, height: 450), token: ada.token),
                    422, "thumbnail"
                ),
                (
                    try await server.postMoment(pets: [ada.dogID], thumbnail: TestImages.png(width: 300, height: 300), token: ada.token),
                    422, "thumbnail"
                ),
                (try await server.postMoment(pets: [ada.dogID], thumbnail: Data("not an image".utf8), token: ada.token), 415, "thumbnail"),
                (try await server.postMoment(pets: [ada.dogID], photo: try fixture("not-an-image.gif"), token: ada.token), 415, "photo"),
            ]
            for (reply, status, field) in cases {
                #expect(reply.status == status && reply.text.contains("\"field\":\"\(field)\""), "\(field): \(reply.status) \(reply.text)")
            }
            let noPhoto = try await server.upload(APIPath.moments, parts: [.init(name: "pets", data: Data(ada.dogID.utf8))], token: ada.token)
            #expect(noPhoto.status == 400 || noPhoto.status == 422, "\(noPhoto.text)")
            #expect(noPhoto.text.contains("photo"))
            #expect(server.storedMediaFiles().filter { $0.hasPrefix("moments") }.isEmpty, "nothing stored")
            #expect(try await server.feed(APIPath.friendsFeed, token: ada.token) == [])
            #expect(try await server.postMoment(pets: [ada.dogID], token: "nonsense").status == 401)
        }
    }

    @Test func onlyItsOwnerChangesOrDeletesAPhotoAndItsFilesGoWithIt() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let bob = try await server.member("bob")
            let cat = try await server.member("cat")
            let moment = try await server.moment(pets: [ada.dogID], privacy: "friends", token: ada.token)
            try await server.makeFriends(ada.member, bob)
            // Bob sees it: he is refused; Cat does not: she finds nothing
            let byBob = try await server.send(.PATCH, APIPath.moment(moment.id), object: ["caption": "mine now"], token: bob.accessToken)
            #expect(byBob.status == 403, "\(byBob.text)")
            #expect(try await server.request(.DELETE, APIPath.moment(moment.id), token: bob.accessToken).status == 403)
            #expect(try await server.request(.DELETE, APIPath.moment(moment.id), token: cat.accessToken).status == 404)
            let bad = try await server.send(.PATCH, APIPath.moment(moment.id), object: ["privacy": "everyone"], token: ada.token)
            #expect(bad.status == 400 && bad.text.contains("privacy"), "\(bad.text)")
            #expect(try await server.get(APIPath.moment(moment.id), token: ada.token, as: Moment.self).privacy == .friends)
            #expect(server.storedMediaFiles().contains { $0.hasPrefix("moments/\(moment.id)/original") })
            #expect(try await server.request(.DELETE, APIPath.moment(moment.id), token: ada.token).status == 204)
            #expect(try await server.request(.GET, APIPath.moment(moment.id), token: ada.token).status == 404)
            #expect(server.storedMediaFiles().filter { $0.hasPrefix("moments") }.isEmpty)
            // and a member's photos go with the account
            let another = try await server.moment(pets: [ada.dogID], token: ada.token)
            let deleted = try await server.request(.DELETE, APIPath.me, json: ["password": ada.member.password], token: ada.token)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(server.storedMediaFiles().filter { $0.hasPrefix("moments/\(another.id)") }.isEmpty)
        }
    }

    @Test func aHundredVotesAtOnceAndAHundredRepeatsCountExactly() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let moment = try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token)
            var members: [TestServer.Member] = []
            for number in 0..<100 { members.append(try await server.member("voter\(number)")) }
            let voters = members
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for voter in voters {
                    group.addTask { try await server.request(.PUT, APIPath.momentVote(moment.id), token: voter.accessToken).status }
                }
                for _ in 0..<100 {
                    group.addTask { try await server.request(.PUT, APIPath.momentVote(moment.id), token: voters[0].accessToken).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 != 200 }.isEmpty, "\(Set(statuses))")
            let counted = try await server.get(APIPath.moment(moment.id), token: voters[1].accessToken, as: Moment.self)
            #expect(counted.votes == 100 && counted.votedByMe)
            // her own is refused; a vote taken back counts no more; a stranger's token nothing
            #expect(try await server.request(.PUT, APIPath.momentVote(moment.id), token: ada.token).status == 403)
            // taken back twice at once: both answers count it out once
            async let back = server.request(.DELETE, APIPath.momentVote(moment.id), token: voters[0].accessToken)
            async let backAgain = server.request(.DELETE, APIPath.momentVote(moment.id), token: voters[0].accessToken)
            for answer in try await [back, backAgain] {
                let afterBack = try answer.decode(Moment.self)
                #expect(afterBack.votes == 99 && !afterBack.votedByMe)
            }
            #expect(try await server.request(.PUT, APIPath.momentVote(moment.id), token: nil).status == 401)
            let page = try await server.get(APIPath.globalFeed, token: voters[2].accessToken, as: Components.Schemas.MomentPage.self)
            #expect(page.items.first?.votes == 99 && page.items.first?.votedByMe == true)
        }
    }

    @Test func feedsPageNewestFirstAndAReportIsKeptOncePerMember() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let bob = try await server.member("bob")
            var posted: [String] = []
            for _ in 0..<5 {
                posted.append(try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token).id)
                server.clock.advance(by: 60)
            }
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await server.get(
                    APIPath.globalFeed + "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: bob.accessToken,
                    as: Components.Schemas.MomentPage.self)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == posted.reversed())
            let badCursor = try await server.request(.GET, APIPath.globalFeed + "?cursor=nonsense", token: bob.accessToken)
            #expect(badCursor.status == 422 && badCursor.text.contains("cursor"))
            for path in [
                APIPath.globalFeed + "?limit=0", APIPath.friendsFeed + "?limit=51", APIPath.petMoments(ada.dogID) + "?limit=-300608984",
                APIPath.friends + "?limit=101", APIPath.members("bo") + "&limit=-1",
            ] {
                let refused = try await server.request(.GET, path, token: bob.accessToken)
                #expect(refused.status == 422 && refused.text.contains("\"limit\""), "\(path): \(refused.text)")
            }

            for _ in 0..<2 {
                let report = try await server.send(
                    .POST, APIPath.reports, object: ["photoId": posted[0], "reason": "not_a_pet", "text": "a sofa"], token: bob.accessToken)
                #expect(report.status == 204, "\(report.text)")
            }
            let bad = try await server.send(.POST, APIPath.reports, object: ["photoId": posted[0], "reason": "ugly"], token: bob.accessToken)
            #expect(bad.status == 400 && bad.text.contains("reason"), "\(bad.text)")
            let notAnID = try await server.send(.POST, APIPath.reports, object: ["photoId": "a-sofa", "reason": "spam"], token: bob.accessToken)
            #expect(notAnID.status == 422 && notAnID.text.contains("\"photoId\""), "\(notAnID.text)")
            #expect(try await server.rowCounts()["moment_reports"] == 1)
            // the owner's view says nothing of who reported it
            let owners = try await server.request(.GET, APIPath.moment(posted[0]), token: ada.token)
            #expect(!owners.text.contains("bob") && !owners.text.contains("sofa"))
        }
    }
}
