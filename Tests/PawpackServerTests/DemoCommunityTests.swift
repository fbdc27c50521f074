import Fluent
import Foundation
import PawpackAPI
import PawpackTestSupport
import Testing

@testable import PawpackServer

@Suite struct DemoCommunityTests {
    /// Who lives where with which dog, in a stable order.
    func census(_ server: TestServer) async throws -> [String] {
        let users = try await UserRecord.query(on: server.app.db).all()
        let pets = try await PetRecord.query(on: server.app.db).all()
        // (the demo member has a dog and, for Care, two cats)
        let petsByOwner = Dictionary(grouping: pets, by: \.$owner.id)
        return try users.map { user in
            let theirs = (petsByOwner[try user.requireID()] ?? []).map { pet in
                "\(pet.name) \(pet.birthDate) \(pet.id?.rawValue.uuidString ?? "-")"
            }
            return "\(user.username) \(user.latitude ?? 0) \(user.longitude ?? 0) \(theirs.sorted().joined(separator: ", "))"
        }.sorted()
    }

    @Test func theSameSeedGivesTheSameCommunity() async throws {
        let first = try await TestServer.run { server in
            _ = try await server.app.pawpack.seedDemo(dogs: 40, seed: 7, on: server.app.db, onlyIfEmpty: false)
            return try await census(server)
        }
        let second = try await TestServer.run { server in
            _ = try await server.app.pawpack.seedDemo(dogs: 40, seed: 7, on: server.app.db, onlyIfEmpty: false)
            return try await census(server)
        }
        let other = try await TestServer.run { server in
            _ = try await server.app.pawpack.seedDemo(dogs: 40, seed: 8, on: server.app.db, onlyIfEmpty: false)
            return try await census(server)
        }
        #expect(first.count == 42) // 40 members, the demo member and Alex, who shares the demo member's cats
        #expect(first == second)
        #expect(first != other)
    }

    @Test func theDemoMemberSeesAFullDeckAtOnce() async throws {
        try await TestServer.run { server in
            let seeded = try await server.app.pawpack.seedDemo(dogs: 100, seed: 1, on: server.app.db, onlyIfEmpty: true)
            #expect(seeded)
            #expect(try await !server.app.pawpack.seedDemo(dogs: 100, seed: 1, on: server.app.db, onlyIfEmpty: true))
            let login = try await server.request(
                .POST, APIPath.logIn,
                json: ["email": DemoCommunity.demoEmail, "password": DemoCommunity.demoPassword])
            #expect(login.status == 200)
            let token = try #require(login.json["accessToken"] as? String)
            let pets = try await server.request(.GET, APIPath.pets, token: token)
            let pixel = try #require(((pets.json["items"] as? [[String: Any]])?.first?["card"] as? [String: Any])?["id"] as? String)
            let deck = try await server.request(.GET, "/v1/pets/\(pixel)/deck?limit=20", token: token)
            #expect(deck.status == 200)
            let cards = try #require(deck.json["items"] as? [[String: Any]])
            #expect(cards.count == 20)
            // every dog in the first deck has its drawn portrait, and owners have human names
            for card in cards {
                let pet = try #require(card["pet"] as? [String: Any])
                let photo = try #require((pet["photos"] as? [[String: Any]])?.first?["url"] as? String)
                let image = try await server.request(.GET, try #require(URL(string: photo)).path, token: token)
                #expect(image.status == 200 && image.headers.contentType == .png)
                #expect(!(pet["ownerDisplayName"] as? String ?? "").hasPrefix("Member"))
            }
            // Pixel is a vaccinated adult in Social Mode with a photo
            let mine = try #require((pets.json["items"] as? [[String: Any]])?.first?["card"] as? [String: Any])
            #expect(mine["mode"] as? String == "social")
            #expect((mine["photos"] as? [Any])?.count == 1)
            #expect(mine["ageText"] as? String == "3 years")
        }
    }

    @Test func theDemoMemberFindsMomentsFull() async throws {
        try await TestServer.run { server in
            await server.app.pawpack.jobs.stop()
            #expect(try await server.app.pawpack.seedDemo(dogs: 60, seed: 1, on: server.app.db, onlyIfEmpty: true))
            let login = try await server.request(
                .POST, APIPath.logIn, json: ["email": DemoCommunity.demoEmail, "password": DemoCommunity.demoPassword])
            let token = try #require(login.json["accessToken"] as? String)
            let friends = try await server.get(APIPath.friends, token: token, as: Components.Schemas.FriendPage.self)
            #expect(friends.items.count == 7 && friends.items.contains { $0.username == "alex" })
            let asking = try await server.get(
                APIPath.friendRequests, token: token, as: Operations.ListFriendRequests.Output.Ok.Body.JsonPayload.self)
            #expect(asking.items.count == 2)
            let feed = try await server.get(APIPath.friendsFeed, token: token, as: Components.Schemas.MomentPage.self)
            #expect(feed.items.count == 20 && feed.items.contains { $0.mine } && feed.items.contains { $0.privacy == .friends })
            #expect(feed.items.contains { $0.votes > 0 })
            // the portraits are served
            let photo = try #require(feed.items.first)
            #expect(try await server.request(.GET, server.path(of: photo.thumbnailUrl), token: token).status == 200)
            let global = try await server.get(APIPath.globalFeed, token: token, as: Components.Schemas.MomentPage.self)
            #expect(global.items.count == 20 && global.items.allSatisfy { $0.privacy == ._public })
            let contest = try await server.get(APIPath.currentContest, token: token, as: Components.Schemas.Contest.self)
            #expect(contest.entryCount == 8 && contest.myEntries == 1)
            let board = try await server.get(
                APIPath.leaderboard(contest.id), token: token, as: Operations.GetLeaderboard.Output.Ok.Body.JsonPayload.self)
            #expect(board.items.count >= 5 && board.items.first?.votes ?? 0 >= (board.items.last?.votes ?? 0))
        }
    }
}
