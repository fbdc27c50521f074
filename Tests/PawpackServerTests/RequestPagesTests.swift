import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import SQLKit
import Testing

@testable import PawpackServer

/// Lists of requests any number of members may send (match requests to a dog, friend
/// requests to a member) come a page at a time, newest first, and a request arriving or
/// answered while a member pages moves nothing between pages: no request seen twice, none
/// skipped, as an offset would have done.
@Suite struct RequestPagesTests {
    typealias MatchRequests = Operations.ListMatchRequests.Output.Ok.Body.JsonPayload

    @Test func manyLikesComeAPageAtATimeNewestFirstAndNothingMovesBetweenPages() async throws {
        try await TestServer.run { server in
            let (zed, likers) = try await Self.zedLiked(by: 23, on: server)
            let newestFirst = likers.reversed().map(\.dogID)
            func page(_ query: String, _ owner: TestServer.Owner = zed) async throws -> MatchRequests {
                try await server.get(APIPath.matchRequests + "?direction=incoming&" + query, token: owner.token, as: MatchRequests.self)
            }

            let first = try await page("limit=10")
            #expect(first.items.map(\.fromPet.id) == Array(newestFirst.prefix(10)))
            // While Zed reads: one more dog asks, and Zed declines two seen already (an offset
            // would now skip one).
            let late = try await server.owner("late", at: TestServer.Place.lyonNear)
            _ = try await server.like(late, zed)
            for seen in [first.items[2], first.items[7]] {
                #expect(try await server.request(.POST, APIPath.rejectRequest(seen.id), token: zed.token).status == 204)
            }
            let second = try await page("limit=10&cursor=\(try #require(first.nextCursor))")
            #expect(second.items.map(\.fromPet.id) == Array(newestFirst[10..<20]), "neither the newcomer again nor one skipped")
            let third = try await page("limit=10&cursor=\(try #require(second.nextCursor))")
            #expect(third.items.map(\.fromPet.id) == Array(newestFirst.suffix(3)) && third.nextCursor == nil)

            let fresh = try await page("limit=100")
            #expect(fresh.items.first?.fromPet.id == late.dogID && fresh.items.count == 22 && fresh.nextCursor == nil)
            let sent = try await server.get(APIPath.matchRequests + "?direction=outgoing", token: likers[0].token, as: MatchRequests.self)
            #expect(sent.items.map(\.toPet.id) == [zed.dogID])
            // Zed's cursor in another member's hands pages their own requests, nothing of Zed's.
            #expect(try await page("cursor=\(try #require(first.nextCursor))", likers[0]).items.isEmpty)
            for query in ["limit=0", "limit=101", "cursor=20", "cursor=nonsense", "cursor=1_x"] {
                let refused = try await server.request(.GET, APIPath.matchRequests + "?direction=incoming&" + query, token: zed.token)
                let field = query.hasPrefix("limit") ? "limit" : "cursor"
                #expect(refused.status == 422 && refused.text.contains("\"\(field)\""), "\(query): \(refused.text)")
            }

            // The web page: twenty, then "More requests" for the rest.
            let browser = try await TestBrowser.signedIn(server, as: zed.member)
            let web = try await browser.get(WebPath.matchRequests)
            let order = fresh.items.map(\.id)
            #expect(order.prefix(20).allSatisfy { web.html.contains(#"id="accept-\#($0)""#) })
            #expect(!order.dropFirst(20).contains { web.html.contains(#"id="accept-\#($0)""#) })
            let more = try #require(Self.href(of: "incoming-more", in: web.html))
            #expect(more.hasPrefix(WebPath.matchRequests + "?incomingAfter="))
            let rest = try await browser.get(more)
            #expect(order.suffix(2).allSatisfy { rest.html.contains(#"id="accept-\#($0)""#) } && !rest.html.contains(#"id="incoming-more""#))
            #expect(!order.prefix(20).contains { rest.html.contains(#"id="accept-\#($0)""#) })
            #expect(try await browser.get(WebPath.matchRequests + "?incomingAfter=%3Cb%3E").status == 422)
        }
    }

    @Test func friendRequestsArrivingOrAnsweredWhilePagingMoveNothing() async throws {
        try await TestServer.run { server in
            let zed = try await server.member("zed")
            var askers: [TestServer.Member] = []
            for number in 0..<12 {
                let asker = try await server.member("asker\(number)")
                #expect(try await server.send(.POST, APIPath.friendRequests, object: ["username": "zed"], token: asker.accessToken).status == 201)
                askers.append(asker)
                server.clock.advance(by: 1)
            }
            typealias Page = Operations.ListFriendRequests.Output.Ok.Body.JsonPayload
            let newestFirst = askers.reversed().map(\.username)
            let first = try await server.get(APIPath.friendRequests + "?limit=5", token: zed.accessToken, as: Page.self)
            #expect(first.items.map(\.member.username) == Array(newestFirst.prefix(5)))
            let late = try await server.member("late")
            #expect(try await server.send(.POST, APIPath.friendRequests, object: ["username": "zed"], token: late.accessToken).status == 201)
            for seen in [first.items[0], first.items[3]] {
                let declined = try await server.request(.POST, APIPath.friendRequest(seen.id, "reject"), token: zed.accessToken)
                #expect(declined.status == 204, "\(declined.text)")
            }
            let second = try await server.get(
                APIPath.friendRequests + "?limit=5&cursor=\(try #require(first.nextCursor))", token: zed.accessToken, as: Page.self)
            #expect(second.items.map(\.member.username) == Array(newestFirst[5..<10]))
        }
    }

    @Test func matchesAndThePassPileComeAPageAtATimeAndNothingMovesBetweenPages() async throws {
        try await TestServer.run { server in
            typealias Matches = Operations.ListMatches.Output.Ok.Body.JsonPayload
            typealias Passes = Operations.ListPasses.Output.Ok.Body.JsonPayload
            // Zed's dog matched with 23 dogs, a second apart, and passed on 12 others
            let (zed, likers) = try await Self.zedLiked(by: 23, on: server)
            for liker in likers {
                #expect(try await server.like(zed, liker).match != nil)
                server.clock.advance(by: 1)
            }
            var passed: [TestServer.Owner] = []
            for number in 0..<12 {
                let other = try await server.owner("passed\(number)", at: TestServer.Place.lyonNear)
                #expect(try await server.swipe(zed, on: other, decision: "pass").status == 201)
                passed.append(other)
                server.clock.advance(by: 1)
            }
            let matchedNewestFirst = likers.reversed().map(\.dogID)

            let first = try await server.get(APIPath.matches + "?limit=10", token: zed.token, as: Matches.self)
            #expect(first.items.map(\.otherPet.id) == Array(matchedNewestFirst.prefix(10)))
            // While Zed reads: a new match, and two seen ended (an offset would now skip one).
            let late = try await server.owner("late", at: TestServer.Place.lyonNear)
            _ = try await server.like(late, zed)
            #expect(try await server.like(zed, late).match != nil)
            for seen in [first.items[1], first.items[4]] {
                #expect(try await server.request(.DELETE, APIPath.match(seen.id), token: zed.token).status == 204)
            }
            let second = try await server.get(
                APIPath.matches + "?limit=10&cursor=\(try #require(first.nextCursor))", token: zed.token, as: Matches.self)
            #expect(second.items.map(\.otherPet.id) == Array(matchedNewestFirst[10..<20]))
            let third = try await server.get(
                APIPath.matches + "?limit=10&cursor=\(try #require(second.nextCursor))", token: zed.token, as: Matches.self)
            #expect(third.items.map(\.otherPet.id) == Array(matchedNewestFirst.suffix(3)) && third.nextCursor == nil)

            let pile = try await server.get(APIPath.passes(zed.dogID) + "?limit=5", token: zed.token, as: Passes.self)
            #expect(pile.items.map(\.id.description) == passed.reversed().prefix(5).map(\.dogID))
            let morePile = try await server.get(
                APIPath.passes(zed.dogID) + "?limit=10&cursor=\(try #require(pile.nextCursor))", token: zed.token, as: Passes.self)
            #expect(morePile.items.map(\.id.description) == passed.reversed().dropFirst(5).map(\.dogID) && morePile.nextCursor == nil)
            for (path, query) in [(APIPath.matches, "limit=0"), (APIPath.matches, "cursor=3"), (APIPath.passes(zed.dogID), "limit=101")] {
                let refused = try await server.request(.GET, path + "?" + query, token: zed.token)
                #expect(
                    refused.status == 422 && refused.text.contains(query.hasPrefix("limit") ? "\"limit\"" : "\"cursor\""), "\(query): \(refused.text)"
                )
            }
            // Another member cannot open Zed's pass pile, with or without a cursor (as their deck: 403).
            let other = try await server.request(
                .GET, APIPath.passes(zed.dogID) + "?cursor=\(try #require(pile.nextCursor))", token: likers[0].token)
            #expect(other.status == 403 && !other.text.contains(passed[0].dogID), "\(other.text)")

            // The web pages: twenty of the 22 matches, then "More matches"; the pass pile's twelve.
            let all = try await server.get(APIPath.matches + "?limit=100", token: zed.token, as: Matches.self).items.map(\.id)
            #expect(all.count == 22)
            let browser = try await TestBrowser.signedIn(server, as: zed.member)
            let matches = try await browser.get(WebPath.matches).html
            #expect(all.prefix(20).allSatisfy { matches.contains(#"id="match-\#($0)""#) })
            #expect(!all.dropFirst(20).contains { matches.contains(#"id="match-\#($0)""#) })
            let rest = try await browser.get(try #require(Self.href(of: "matches-more", in: matches))).html
            #expect(all.suffix(2).allSatisfy { rest.contains(#"id="match-\#($0)""#) } && !rest.contains(#"id="matches-more""#))
            let pilePage = try await browser.get(WebPath.passes(zed.dog)).html
            #expect(passed.allSatisfy { pilePage.contains(#"id="like-\#($0.dogID)""#) } && !pilePage.contains(#"id="passes-more""#))
        }
    }

    /// Requests made before the lists paged by `activity` get theirs from when they were made,
    /// and keep their order.
    @Test func theMigrationGivesEarlierRequestsTheirPlace() async throws {
        try await TestServer.run { server in
            let (zed, likers) = try await Self.zedLiked(by: 3, askingFriendship: true, on: server)
            _ = try await server.like(zed, likers[0]) // a match (and Zed's swipe)
            let passed = try await server.owner("passed", at: TestServer.Place.lyonNear)
            #expect(try await server.swipe(zed, on: passed, decision: "pass").status == 201)
            let db = server.app.db
            let migrations = (PlaydateMigrations.all + MomentsMigrations.all).compactMap { $0 as? AddActivity }
            #expect(migrations.map(\.table).sorted() == ["friend_requests", "match_requests", "matches", "swipes"])
            for migration in migrations {
                try await migration.revert(on: db)
                try await migration.prepare(on: db)
                let rows = try await db.sql.select().columns("created_at", "activity").from(migration.table).all()
                #expect(!rows.isEmpty, "\(migration.table) has rows made before")
                for row in rows {
                    let made = try row.decode(column: "created_at", as: Date.self)
                    #expect(try row.decode(column: "activity", as: Int64.self) == ActivityCursor<Void>.activity(at: made))
                }
            }
            let page = try await server.get(
                APIPath.matchRequests + "?direction=incoming&limit=1", token: zed.token, as: MatchRequests.self)
            #expect(page.items.map(\.fromPet.id) == [likers[2].dogID])
            let rest = try await server.get(
                APIPath.matchRequests + "?direction=incoming&cursor=\(try #require(page.nextCursor))", token: zed.token, as: MatchRequests.self)
            #expect(rest.items.map(\.fromPet.id) == [likers[1].dogID], "the one Zed liked back is a match now")
        }
    }

    /// Zed's dog, and `count` owners near whose dogs like it a second apart, oldest first
    /// (each also asking Zed to be friends when `askingFriendship`).
    static func zedLiked(by count: Int, askingFriendship: Bool = false, on server: TestServer) async throws
        -> (zed: TestServer.Owner, likers: [TestServer.Owner])
    {
        let zed = try await server.owner("zed", at: TestServer.Place.lyon)
        var likers: [TestServer.Owner] = []
        for number in 0..<count {
            let liker = try await server.owner("liker\(number)", at: TestServer.Place.lyonNear)
            _ = try await server.like(liker, zed)
            if askingFriendship {
                let asked = try await server.send(.POST, APIPath.friendRequests, object: ["username": "zed"], token: liker.token)
                guard asked.status == 201 else { throw TestFailure("friend request: \(asked.text)") }
            }
            likers.append(liker)
            server.clock.advance(by: 1)
        }
        return (zed, likers)
    }

    static func href(of id: String, in html: String) -> String? {
        guard let tag = html.range(of: #"id="\#(id)""#) else { return nil }
        let around = html[html[..<tag.lowerBound].lastIndex(of: "<")!...]
        guard let start = around.range(of: #"href=""#), let end = around[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return String(around[start.upperBound..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
