import Fluent
import Foundation
import PawpackCore
import PawpackTestSupport
import SQLKit
import Testing

@testable import PawpackServer

/// The deck's candidate index on the real database (SQLite, and PostgreSQL in CI): it gives the
/// naive path's pages on a seeded community, and it follows every change to dogs and owners.
@Suite struct DeckIndexTests {
    /// Every row of the index as text, in a stable order.
    func indexRows(_ server: TestServer) async throws -> [String] {
        let rows = try await (server.app.db as! any SQLDatabase).select().columns("pet_id", "owner_id", "cell", "bucket", "payload")
            .from(DeckIndex.table).all()
        return try rows.map { row in
            let payload = try row.decode(column: "payload", as: Data.self)
            return "\(try row.decode(column: "pet_id", as: UUID.self)) \(try row.decode(column: "owner_id", as: UUID.self)) "
                + "\(try row.decode(column: "cell", as: Int64.self)) \(try row.decode(column: "bucket", as: Int64.self)) "
                + payload.base64EncodedString()
        }.sorted()
    }

    @Test func theIndexedDeckEqualsTheNaiveDeckOnTwentyThousandSeededDogs() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            _ = try await server.app.pawpack.seedDemo(dogs: 20_000, seed: 3, on: db, onlyIfEmpty: false)
            let services = server.app.pawpack
            #expect(try await services.deckIndexCount(on: db) == 20_001)
            let naive = DeckService(
                pets: services.pets, clock: services.dependencies.clock, source: .naive,
                deckIndex: services.deck.deckIndex, logger: server.app.logger)
            #expect(services.deck.source == .index)
            // The same index read from the table (what the default reads on PostgreSQL, while on
            // SQLite it reads the rows in memory).
            let table = DeckService(
                pets: services.pets, clock: services.dependencies.clock, source: .indexTable,
                deckIndex: services.deck.deckIndex, logger: server.app.logger)

            // Seekers spread over the five cities (pet ids are random), plus the demo dog; saved
            // preferences on some, a wider distance on others. The naive path takes about a
            // second per page on 20,000 dogs in a debug build, hence not more.
            var seekers = try await PetRecord.query(on: db).sort(\.$id).range(..<800).all()
                .enumerated().filter { $0.offset % 100 == 0 }.map(\.element)
            seekers.append(try #require(try await PetRecord.query(on: db).filter(\.$name == "Pixel").first()))
            var pages = 0
            var cards = 0
            for (number, pet) in seekers.enumerated() {
                let owner = try #require(try await UserRecord.find(pet.$owner.id, on: db))
                let petID = try pet.requireID()
                if number % 3 == 1 {
                    _ = try await services.deck.savePreferences(
                        owner, pet: petID,
                        DeckPreferences(
                            maxDistanceKm: 10, minAgeMonths: 12, sexes: [.female], sizes: [.small, .medium]), on: db)
                }
                let overrides = DeckService.Overrides(maxDistanceKm: number % 3 == 2 ? 40 : nil)
                var cursor: String?
                for _ in 0..<2 {
                    let indexed = try await services.deck.deck(
                        owner, pet: petID, overrides: overrides, limit: 20,
                        cursor: cursor, on: db)
                    let expected = try await naive.deck(
                        owner, pet: petID, overrides: overrides, limit: 20,
                        cursor: cursor, on: db)
                    #expect(indexed.cards.map(\.card) == expected.cards.map(\.card), "pet \(petID) after \(cursor ?? "-")")
                    #expect(indexed.cards.map(\.pet) == expected.cards.map(\.pet))
                    #expect(indexed.nextCursor == expected.nextCursor)
                    let fromTable = try await table.deck(
                        owner, pet: petID, overrides: overrides, limit: 20,
                        cursor: cursor, on: db)
                    #expect(fromTable.cards.map(\.card) == expected.cards.map(\.card))
                    #expect(fromTable.nextCursor == expected.nextCursor)
                    pages += 1
                    cards += indexed.cards.count
                    guard let next = indexed.nextCursor else { break }
                    cursor = next
                }
            }
            #expect(pages >= 12)
            #expect(cards >= 200)
        }
    }

    @Test func theIndexFollowsDogsOwnersAndLocations() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let rebuiltMatches: () async throws -> Void = {
                let incremental = try await indexRows(server)
                try await DeckIndex().rebuild(on: server.app.db)
                #expect(try await indexRows(server) == incremental)
                // On SQLite the deck reads the rows in memory (loaded by the first deck below,
                // then kept in step): they are the table's.
                if let resident = server.app.pawpack.deck.deckIndex.resident {
                    let inMemory = try #require(resident.rows, "loaded by the first deck")
                    let inTable = try await DeckIndex().allRows(on: server.app.db)
                    #expect(Set(inMemory.map(\.payload)) == Set(inTable.map(\.payload)))
                    #expect(inMemory.count == inTable.count)
                }
            }
            #expect(try await server.deck(ada).names == ["Bob's dog"])
            try await rebuiltMatches()

            // An edit shows at once. Both dogs are in Puppy Mode (no vaccinations), so they are
            // matched on age, size and distance: same weight class first, then far apart.
            func bobsReasons() async throws -> [String] {
                try #require(try await server.deck(ada).items.first, "Bob's dog in Ada's deck").reasons
            }
            #expect(try await bobsReasons().contains("similar size"))
            let edit = try await server.send(.PATCH, APIPath.pet(bob.dogID), object: ["weightKg": 48.0], token: bob.member.accessToken)
            #expect(edit.status == 200, "\(edit.text)")
            #expect(try await !bobsReasons().contains("similar size"))
            try await rebuiltMatches()

            // The switch to Social Mode reaches the index (birth 30 months before the pinned
            // 1 March 2026: the puppy series at 10 and 17 weeks and a recent booster).
            func modeInIndex(_ dogID: String) async throws -> WelfareMode? {
                let row = try await (server.app.db as! any SQLDatabase).select().column("payload").from(DeckIndex.table)
                    .where("pet_id", .equal, try #require(Pet.ID(string: dogID))).first()
                return try row.flatMap { DeckIndexRow(payload: [UInt8](try $0.decode(column: "payload", as: Data.self)))?.dog?.mode }
            }
            #expect(try await modeInIndex(bob.dogID) == .puppy)
            for date in ["2023-11-10", "2023-12-29", "2025-11-21"] {
                let dose = try await server.send(
                    .POST, APIPath.vaccinations(bob.dogID), object: ["vaccine": "dhpp", "givenOn": date],
                    token: bob.member.accessToken)
                #expect(dose.status == 201, "\(dose.text)")
            }
            let social = try await server.request(.POST, APIPath.socialMode(bob.dogID), token: bob.member.accessToken)
            #expect(social.status == 200, "\(social.text)")
            #expect(try await modeInIndex(bob.dogID) == .social)
            try await rebuiltMatches()

            // Moving away, clearing the location and coming back.
            _ = try await server.send(.PUT, APIPath.location, object: ["latitude": 48.8566, "longitude": 2.3522], token: bob.member.accessToken)
            #expect(try await server.deck(ada).items.isEmpty)
            _ = try await server.send(.PUT, APIPath.location, object: ["latitude": 45.7700, "longitude": 4.8357], token: bob.member.accessToken)
            #expect(try await server.deck(ada).names == ["Bob's dog"])
            #expect(try await server.deck(ada).items.first?.distance == "< 1 km")
            _ = try await server.request(.DELETE, APIPath.location, token: bob.member.accessToken)
            #expect(try await server.deck(ada).items.isEmpty)
            try await rebuiltMatches()
            _ = try await server.send(.PUT, APIPath.location, object: ["latitude": 45.7700, "longitude": 4.8357], token: bob.member.accessToken)

            // A new dog appears, a deleted one goes, a deleted account takes its dogs along.
            let second = try await server.send(
                .POST, APIPath.pets, object: ["name": "Bob's second", "species": "dog", "estimatedAgeMonths": 20],
                token: bob.member.accessToken)
            #expect(second.status == 201)
            #expect(Set(try await server.deck(ada).names) == ["Bob's dog", "Bob's second"])
            _ = try await server.request(.DELETE, APIPath.pet(bob.dogID), token: bob.member.accessToken)
            #expect(try await server.deck(ada).names == ["Bob's second"])
            try await rebuiltMatches()
            let gone = try await server.send(.DELETE, APIPath.me, object: ["password": "bob's own secret"], token: bob.member.accessToken)
            #expect(gone.status == 204, "\(gone.text)")
            #expect(try await server.deck(ada).items.isEmpty)
            #expect(try await indexRows(server).count == 1) // Ada's dog
            try await rebuiltMatches()
        }
    }

    @Test func aCursorReadsBackAsItsPositionAndCursorsGivenOutBeforeStillRead() throws {
        let pet = Pet.ID(UUID())
        for score in [0, 1, 0.5, 0.123456, 1e-06, 0.999999, 0.1 + 0.2] {
            let position = DeckPosition(score: score, petID: pet)
            let cursor = DeckService.encodeCursor(position)
            #expect(try DeckService.decodeCursor(cursor) == position)
            #expect(!cursor.contains("=") && !cursor.contains("+") && !cursor.contains("/"), "safe in a URL as it is")
            // What the server gave out before its cursors were written by hand: still read.
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let earlier = try encoder.encode(position).base64URLEncoded
            #expect(try DeckService.decodeCursor(earlier) == position)
        }
        #expect(DeckService.encodeCursor(DeckPosition(score: .nan, petID: pet)) == "")
    }
}
