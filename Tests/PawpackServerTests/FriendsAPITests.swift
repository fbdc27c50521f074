import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Moments' friends through the HTTP API: requests and their answers, mutual friendships, the
/// member search and who it never shows, blocks, races and floods.
@Suite struct FriendsAPITests {
    typealias FriendRequest = Components.Schemas.FriendRequest
    typealias Inbox = Components.Schemas.NotificationPage

    @Test func aFriendRequestReachesThePhoneUnlessTheKindIsMuted() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalAPNs.run(clock: clock) { apns in
            try await TestServer.run(adjust: { $0.push.apns = apns.settings }) { server in
                let (ada, bob, cyd) = (try await server.member("ada"), try await server.member("bob"), try await server.member("cyd"))
                let device = try await server.send(
                    .POST, APIPath.devices, object: ["platform": "apns", "token": PushTests.apnsToken, "appId": "org.pawpack.app"],
                    token: bob.accessToken)
                #expect(device.status == 201)
                // Ada asks Bob: his inbox has it, and so does his phone
                #expect(try await server.send(.POST, APIPath.friendRequests, object: ["username": "bob"], token: ada.accessToken).status == 201)
                let told = try #require(try await server.get(APIPath.notifications, token: bob.accessToken, as: Inbox.self).items.first)
                #expect(told.kind == .friend)
                await server.app.pawpack.push.deliverDue(on: server.app.db)
                #expect(apns.all.contains { $0.payload["notificationId"] as? String == told.id })
                // muted, Cyd's request reaches neither, and is still there to answer
                #expect(
                    try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["friend"]], token: bob.accessToken).status == 200)
                let pushed = apns.all.count
                #expect(try await server.send(.POST, APIPath.friendRequests, object: ["username": "bob"], token: cyd.accessToken).status == 201)
                await server.app.pawpack.push.deliverDue(on: server.app.db)
                #expect(apns.all.count == pushed)
                #expect(try await server.get(APIPath.notifications, token: bob.accessToken, as: Inbox.self).items.map(\.id) == [told.id])
                let incoming = try await server.get(
                    APIPath.friendRequests, token: bob.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
                #expect(Set(incoming.items.map(\.member.username)) == ["ada", "cyd"])
            }
        }
    }

    @Test func aRequestAcceptedMakesMutualFriendsAndTellsTheAsker() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob")
            // when Ada asks Bob, he is told and sees her request; asking again is the same one
            let asked = try await server.send(.POST, APIPath.friendRequests, object: ["username": " Bob "], token: ada.accessToken)
            #expect(asked.status == 201, "\(asked.text)")
            let request = try asked.decode(FriendRequest.self)
            #expect(request.direction == .outgoing && request.member.username == "bob" && request.member.displayName == "Bob")
            let again = try await server.send(.POST, APIPath.friendRequests, object: ["username": "bob"], token: ada.accessToken)
            #expect(try again.status == 201 && again.decode(FriendRequest.self).id == request.id, "asking twice is one request")
            let bobsInbox = try await server.get(APIPath.notifications, token: bob.accessToken, as: Inbox.self)
            #expect(bobsInbox.items.map(\.title) == ["Ada wants to be friends"] && bobsInbox.items.first?.kind == .friend)
            let incoming = try await server.get(
                APIPath.friendRequests, token: bob.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(incoming.items.map(\.member.username) == ["ada"] && incoming.items.first?.direction == .incoming)
            let outgoing = try await server.get(
                APIPath.outgoingFriendRequests, token: ada.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(outgoing.items.map(\.id) == [request.id])
            #expect(try await server.searched("bo", by: ada) == ["bob"])
            let standing = try await server.get(APIPath.members("bo"), token: ada.accessToken, as: Components.Schemas.MemberPage.self)
            #expect(standing.items.first?.friendship == .requested)

            // then Bob accepts: friends both ways, and Ada hears it
            let accepted = try await server.request(.POST, APIPath.friendRequest(request.id, "accept"), token: bob.accessToken)
            #expect(accepted.status == 200, "\(accepted.text)")
            let friend = try accepted.decode(Components.Schemas.Friend.self)
            #expect(friend.username == "ada" && friend.since == TestServer.startDate)
            #expect(try await server.friendNames(of: ada) == ["bob"])
            #expect(try await server.friendNames(of: bob) == ["ada"])
            let adasInbox = try await server.get(APIPath.notifications, token: ada.accessToken, as: Inbox.self)
            #expect(adasInbox.items.map(\.title) == ["Bob accepted your friend request"])
            let friends = try await server.get(APIPath.members("ad"), token: bob.accessToken, as: Components.Schemas.MemberPage.self)
            #expect(friends.items.map(\.friendship) == [.friends])
            let twice = try await server.request(.POST, APIPath.friendRequest(request.id, "accept"), token: bob.accessToken)
            #expect(twice.status == 404, "the request is answered")
            let already = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: bob.accessToken)
            #expect(already.status == 409 && already.text.contains("already_friends"), "\(already.text)")

            // and either may end it, for both
            #expect(try await server.request(.DELETE, APIPath.friend("bob"), token: ada.accessToken).status == 204)
            #expect(try await server.friendNames(of: ada) == [])
            #expect(try await server.friendNames(of: bob) == [])
            let gone = try await server.request(.DELETE, APIPath.friend("bob"), token: ada.accessToken)
            #expect(gone.status == 404 && gone.text.contains("\"username\""), "\(gone.text)")
        }
    }

    @Test func askingBackMakesFriendsAndOnlyTheRightSideAnswersOrWithdraws() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob")
            let cat = try await server.member("cat")
            let dan = try await server.member("dan")
            // Bob asking Ada back, while her request waits, is his yes
            let asked = try await server.send(.POST, APIPath.friendRequests, object: ["username": "bob"], token: ada.accessToken)
            let back = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: bob.accessToken)
            #expect(asked.status == 201 && back.status == 200, "\(back.text)")
            #expect(try back.decode(Components.Schemas.Friend.self).username == "ada")
            #expect(try await server.friendNames(of: ada) == ["bob"])

            // Cat's request: Dan, a stranger to it, can neither answer nor withdraw it
            let fromCat = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: cat.accessToken)
                .decode(FriendRequest.self)
            for answer in ["accept", "reject", "cancel"] {
                let byDan = try await server.request(.POST, APIPath.friendRequest(fromCat.id, answer), token: dan.accessToken)
                #expect(byDan.status == 404, "\(answer): \(byDan.text)")
            }
            // the asker cannot accept her own, the asked cannot cancel it
            #expect(try await server.request(.POST, APIPath.friendRequest(fromCat.id, "accept"), token: cat.accessToken).status == 404)
            #expect(try await server.request(.POST, APIPath.friendRequest(fromCat.id, "cancel"), token: ada.accessToken).status == 404)
            #expect(try await server.request(.POST, APIPath.friendRequest(fromCat.id, "accept"), token: nil).status == 401)
            // Ada declines: it is gone for both, and Cat is not told
            #expect(try await server.request(.POST, APIPath.friendRequest(fromCat.id, "reject"), token: ada.accessToken).status == 204)
            let catsOutgoing = try await server.get(
                APIPath.outgoingFriendRequests, token: cat.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(catsOutgoing.items.isEmpty)
            #expect(try await server.get(APIPath.notifications, token: cat.accessToken, as: Inbox.self).items.isEmpty)
            // Dan withdraws his
            let fromDan = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: dan.accessToken)
                .decode(FriendRequest.self)
            #expect(try await server.request(.POST, APIPath.friendRequest(fromDan.id, "cancel"), token: dan.accessToken).status == 204)
            let adasIncoming = try await server.get(
                APIPath.friendRequests, token: ada.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(adasIncoming.items.isEmpty)
            #expect(try await server.friendNames(of: ada) == ["bob"], "declining others changed nothing else")
        }
    }

    @Test func badRequestsNameTheFieldAndChangeNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.signUp(email: "eve@example.com", username: "eve") // never verified
            let cases: [(body: [String: any Sendable], status: Int, field: String)] = [
                (["username": "ada"], 422, "username"), // herself
                (["username": "nobody"], 404, "username"),
                (["username": "eve"], 404, "username"), // cannot sign in: not a member to ask
                (["username": ""], 422, "username"),
                (["username": String(repeating: "a", count: 31)], 422, "username"),
                (["username": "b%"], 422, "username"),
                ([:], 400, "username"),
            ]
            for (body, status, field) in cases {
                let reply = try await server.send(.POST, APIPath.friendRequests, object: body, token: ada.accessToken)
                #expect(reply.status == status && reply.text.contains("\"\(field)\""), "\(body): \(reply.status) \(reply.text)")
            }
            for query in ["b", " b ", String(repeating: "x", count: 41)] {
                let reply = try await server.request(.GET, APIPath.members(query), token: ada.accessToken)
                #expect([400, 422].contains(reply.status) && reply.text.contains("query"), "\(query): \(reply.text)")
            }
            let cursor = try await server.request(.GET, APIPath.members("bo") + "&cursor=%27%20OR%201%3D1", token: ada.accessToken)
            #expect(cursor.status == 422 && cursor.text.contains("\"cursor\""), "\(cursor.text)")
            #expect(try await server.request(.GET, APIPath.members("bo"), token: nil).status == 401)
            let outgoing = try await server.get(
                APIPath.outgoingFriendRequests, token: ada.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(outgoing.items.isEmpty, "nothing was written")
        }
    }

    /// Any number of members may ask one: the list comes a page at a time through the API,
    /// Home shows the five newest and how many, the friends page a page and "More requests".
    @Test func manyAskingComeAPageAtATimeEverywhere() async throws {
        try await TestServer.run { server in
            let zed = try await server.member("zed")
            var askers: Set<String> = []
            for number in 0..<23 {
                let asker = try await server.member("asker\(number)")
                let asked = try await server.send(.POST, APIPath.friendRequests, object: ["username": "zed"], token: asker.accessToken)
                #expect(asked.status == 201, "\(asked.text)")
                askers.insert(asker.username)
            }
            typealias Page = Operations.ListFriendRequests.Output.Ok.Body.JsonPayload
            var seen: [String] = []
            var cursors: [String] = []
            var cursor: String?
            repeat {
                let page = try await server.get(
                    APIPath.friendRequests + "?limit=10" + (cursor.map { "&cursor=\($0)" } ?? ""), token: zed.accessToken, as: Page.self)
                #expect(page.items.count == (cursors.count == 2 ? 3 : 10))
                seen += page.items.map(\.member.username)
                cursor = page.nextCursor
                if let cursor { cursors.append(cursor) }
            } while cursor != nil
            #expect(cursors.count == 2 && seen.count == 23 && Set(seen) == askers, "each once: \(seen)")
            let all = try await server.get(APIPath.friendRequests, token: zed.accessToken, as: Page.self)
            #expect(all.items.map(\.member.username) == seen && all.nextCursor == nil, "the same order in one page of 50")
            for query in ["limit=0", "limit=101", "cursor=-1", "cursor=nonsense"] {
                let refused = try await server.request(.GET, APIPath.friendRequests + "?" + query, token: zed.accessToken)
                let field = query.hasPrefix("limit") ? "limit" : "cursor"
                #expect(refused.status == 422 && refused.text.contains("\"\(field)\""), "\(query): \(refused.text)")
            }

            let zeds = try await TestBrowser.signedIn(server, as: zed)
            let home = try await zeds.get(WebPath.home).html
            #expect(home.contains("23 friend requests"))
            #expect(seen.prefix(5).allSatisfy { home.contains(#"id="accept-\#($0)""#) })
            #expect(!seen.dropFirst(5).contains { home.contains(#"id="accept-\#($0)""#) }, "five on Home")
            let first = try await zeds.get(WebPath.friends).html
            let more = try #require(RequestPagesTests.href(of: "requests-more", in: first))
            #expect(
                first.contains("23 asking to be your friend") && more.hasPrefix("/moments/friends?requestsAfter=") && more.hasSuffix("#requests-in"))
            #expect(seen.prefix(20).allSatisfy { first.contains(#"id="accept-\#($0)""#) })
            let rest = try await zeds.get(String(more.prefix { $0 != "#" })).html
            #expect(seen.suffix(3).allSatisfy { rest.contains(#"id="accept-\#($0)""#) } && !rest.contains(#"id="requests-more""#))
            #expect(!seen.prefix(20).contains { rest.contains(#"id="accept-\#($0)""#) })
        }
    }

    @Test func theSearchFindsNamesByTheirStartButNeverTheBlockedTheHiddenOrTheUnverified() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.member("bella", displayName: "Bella Rossi")
            let bernard = try await server.member("bernard")
            _ = try await server.member("zed", displayName: "Benny Zed")
            let blocker = try await server.member("bertha")
            let hidden = try await server.member("berit")
            _ = try await server.member("rob", displayName: "Rob Bell") // "be" is not where his name starts
            _ = try await server.member("b_e", displayName: "Underscore")
            _ = try await server.signUp(email: "ben@example.com", username: "ben") // never verified
            #expect(try await server.searched("BE", by: ada) == ["bella", "berit", "bernard", "bertha", "zed"])
            #expect(try await server.searched("b_", by: ada) == ["b_e"], "an underscore matches only itself")

            // Bertha blocks Ada; Berit chooses not to be found
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "ada"], token: blocker.accessToken).status == 204)
            let hide = try await server.send(.PATCH, APIPath.momentsSettings, object: ["findable": false], token: hidden.accessToken)
            #expect(hide.status == 200 && hide.text.contains("\"findable\":false"), "\(hide.text)")
            #expect(try await server.searched("be", by: ada) == ["bella", "bernard", "zed"])
            #expect(try await server.searched("ad", by: blocker) == [], "both ways")
            #expect(try await server.searched("ad", by: bernard) == ["ada"])
            let blocked = try await server.send(.POST, APIPath.friendRequests, object: ["username": "bertha"], token: ada.accessToken)
            #expect(blocked.status == 404 && blocked.text.contains("No such member"), "the same answer as for nobody: \(blocked.text)")

            // pages of one, walked by their cursors
            var names: [String] = []
            var cursor: String?
            repeat {
                let page = try await server.get(
                    APIPath.members("be") + "&limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""), token: ada.accessToken,
                    as: Components.Schemas.MemberPage.self)
                names += page.items.map(\.username)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(names == ["bella", "bernard", "zed"])

            // The same pages whether a name start is found in the names' index (few share it) or
            // by walking the members in username order (many do), as SQLite searches.
            let viewer = try #require(try await UserRecord.query(on: server.app.db).filter(\.$username == "ada").first())
            for denseNames in [0, 1, FriendService.denseNames] {
                var walked: [String] = []
                var after: String?
                repeat {
                    let page = try await server.app.pawpack.friends.search(
                        viewer, query: "Be", limit: 1, after: after, denseNames: denseNames, on: server.app.db)
                    walked += page.items.map(\.member.username)
                    after = page.next
                } while after != nil
                #expect(walked == ["bella", "bernard", "zed"], "names dense past \(denseNames)")
            }
        }
    }

    @Test func aBlockEndsTheFriendshipAndItsRequests() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob")
            let cat = try await server.member("cat")
            try await server.makeFriends(ada, bob)
            _ = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: cat.accessToken)
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "bob"], token: ada.accessToken).status == 204)
            #expect(try await server.send(.POST, APIPath.blocks, object: ["username": "cat"], token: ada.accessToken).status == 204)
            #expect(try await server.friendNames(of: ada) == [])
            #expect(try await server.friendNames(of: bob) == [])
            let incoming = try await server.get(
                APIPath.friendRequests, token: ada.accessToken, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(incoming.items.isEmpty)
            let again = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: bob.accessToken)
            #expect(again.status == 404, "\(again.text)")
            // the export holds friends; deleting an account ends its friendships
            try await server.makeFriends(cat, bob)
            let export = try await server.get(APIPath.export, token: bob.accessToken, as: Components.Schemas.AccountExport.self)
            #expect(export.friends.friends.map(\.username) == ["cat"] && export.friends.findable)
            let deleted = try await server.request(.DELETE, APIPath.me, json: ["password": cat.password], token: cat.accessToken)
            #expect(deleted.status == 204, "\(deleted.text)")
            #expect(try await server.friendNames(of: bob) == [])
        }
    }

    @Test func identicalRequestsAndAnswersAtOnceCountOnce() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob")
            let sent = try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await server.send(.POST, APIPath.friendRequests, object: ["username": "bob"], token: ada.accessToken) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sent.map(\.status) == [201, 201, 201, 201], "\(sent.map(\.text))")
            #expect(Set(try sent.map { try $0.decode(FriendRequest.self).id }).count == 1)
            let id = try sent[0].decode(FriendRequest.self).id
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 {
                    group.addTask { try await server.request(.POST, APIPath.friendRequest(id, "accept"), token: bob.accessToken).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.sorted() == [200, 404, 404])
            #expect(try await server.friendNames(of: ada) == ["bob"])
            #expect(try await server.friendNames(of: bob) == ["ada"])
            #expect(try await server.get(APIPath.notifications, token: ada.accessToken, as: Inbox.self).items.count == 1)
        }
    }

    @Test func searchesAndRequestsAreLimitedPerMember() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let rules = FriendRules()
            for _ in 0..<rules.searchesPerMinute {
                #expect(try await server.request(.GET, APIPath.members("zz"), token: ada.accessToken).status == 200)
            }
            let limited = try await server.request(.GET, APIPath.members("zz"), token: ada.accessToken)
            #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") != nil, "\(limited.text)")
            server.clock.advance(by: 61)
            #expect(try await server.request(.GET, APIPath.members("zz"), token: ada.accessToken).status == 200, "a minute later")
            for _ in 0..<rules.requestsPerHour {
                _ = try await server.send(.POST, APIPath.friendRequests, object: ["username": "nobody"], token: ada.accessToken)
            }
            let flood = try await server.send(.POST, APIPath.friendRequests, object: ["username": "nobody"], token: ada.accessToken)
            #expect(flood.status == 429, "\(flood.text)")
        }
    }
}
