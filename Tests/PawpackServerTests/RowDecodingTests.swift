import Fluent
import Foundation
import PawpackCore
import PawpackTestSupport
import SQLKit
import SQLiteNIO
import Testing

@testable import PawpackServer

/// The records the deck and every API request read column by column (`PetRows.swift`,
/// `AccountRows.swift`) hold what Fluent's model decoding reads from the same rows, so a column
/// added to a model and forgotten there shows up here, on SQLite and on PostgreSQL.
@Suite struct RowDecodingTests {
    @Test func recordsReadColumnByColumnEqualFluentsOnSeededDogs() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            let services = server.app.pawpack
            _ = try await services.seedDemo(dogs: 60, seed: 7, on: db, onlyIfEmpty: false)
            let pets = try await PetRecord.query(on: db).sort(\.$id).all()
            #expect(pets.count == 63, "60 dogs, the demo member's dog and its household's two cats")
            // Photos on a few dogs, a profile photo and a later gallery one (the card orders them).
            let now = Date(timeIntervalSince1970: 1_790_000_000)
            for (number, pet) in pets.prefix(3).enumerated() {
                for (offset, kind) in [PetPhotoRecord.Kind.gallery, .profile].enumerated() {
                    try await PetPhotoRecord(
                        id: Pet.Photo.ID(), petID: pet.requireID(), kind: kind, storageKey: "pets/\(number)/\(offset).jpg",
                        contentType: "image/jpeg", byteCount: 1_000 + offset,
                        now: now.addingTimeInterval(Double(offset))
                    ).create(on: db)
                }
            }
            let sql = db as! any SQLDatabase

            for pet in pets {
                let row = try #require(try await sql.select().column("*").from(PetRecord.schema).where("id", .equal, try pet.requireID()).first())
                let read = try PetRecord(row: row)
                #expect(try read.profile == pet.profile)
                #expect(read.socialSince == pet.socialSince)
                #expect(read.createdAt == pet.createdAt && read.updatedAt == pet.updatedAt)
            }
            let ids = pets.compactMap(\.id)
            let fast = try await services.pets.cards(ofPets: ids + [Pet.ID()], on: db)
            #expect(fast.count == pets.count, "a pet that does not exist is left out")
            for pet in pets {
                // One pet at a time through Fluent: the whole record, the owner's record, photos,
                // vaccinations, and the card taken from that.
                let a = try #require(fast[try pet.requireID()])
                let b = try await services.pets.snapshot(of: pet, role: nil, on: db)
                #expect(a == b.card)
                #expect(!a.ownerDisplayName.isEmpty)
            }
            #expect(fast.values.contains { $0.sizeClass != nil })
            // The demo dogs have a drawn profile photo of their own already.
            #expect(fast.values.contains { $0.photos.count == 3 && $0.photos.first?.kind == .profile })
            #expect(Set(fast.values.map(\.mode)) == [.puppy, .social, nil], "both modes, so vaccinations were read; cats have none")
            let doses = try await VaccinationRecord.query(on: db).all()
            #expect(!doses.isEmpty)
            for dose in doses.prefix(50) {
                let row = try #require(
                    try await sql.select().columns("vaccine", "other_name", "given_on")
                        .from(VaccinationRecord.schema).where("id", .equal, try dose.requireID()).first())
                #expect(try VaccinationRecord.dose(row: row) == dose.dose)
            }

            // Members, and a token with its member in one row.
            for user in try await UserRecord.query(on: db).all() {
                let row = try #require(try await sql.select().column("*").from(UserRecord.schema).where("id", .equal, try user.requireID()).first())
                let read = try UserRecord(row: row)
                #expect(try read.account == user.account)
                #expect(read.passwordHash == user.passwordHash && read.failedLogins == user.failedLogins)
                #expect(read.emailVerifiedAt == user.emailVerifiedAt && read.lockedUntil == user.lockedUntil)
                #expect(read.createdAt == user.createdAt && read.updatedAt == user.updatedAt)
            }
            let owner = try #require(try await UserRecord.query(on: db).filter(\.$id == pets[0].$owner.id).first())
            let session = try await services.sessions.issueAppSession(for: owner, on: db)
            let (token, member) = try #require(
                try await AuthTokenRecord.accessToken(hash: OpaqueToken.hash(session.accessToken), reads: services.hotReads, on: db))
            let stored = try #require(try await AuthTokenRecord.find(token.id, on: db))
            #expect(token.$user.id == owner.id && member.id == owner.id)
            #expect(token.expiresAt == stored.expiresAt && token.family == stored.family && token.kind == .access)
            #expect(try await AuthTokenRecord.accessToken(hash: OpaqueToken.hash("pat_not-a-token"), reads: services.hotReads, on: db) == nil)

            // A member read this way saves as an update of its row, not as a new one.
            member.city = "Lyon"
            try await member.save(on: db)
            #expect(try await UserRecord.find(owner.id, on: db)?.city == "Lyon")
            #expect(try await UserRecord.query(on: db).count() == 62)
        }
    }

    /// Indexes only: the plan has no search of a table. On PostgreSQL the planner decides from
    /// statistics of its own, so there is no plan to hold it to.
    @Test(.enabled(if: TestServer.postgresURL == nil, "SQLite's query plan"))
    func aPagesCardsAreReadFromIndexesAloneOnSQLite() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            let sql = try #require(db as? any SQLDatabase)
            let ids = (0..<20).map { _ in Pet.ID() }
            let plan = try await sql.raw("EXPLAIN QUERY PLAN \(PetCardValue.rows(ofPets: ids, namingIndexes: true))").all()
                .map { try $0.decode(column: "detail", as: String.self) }
            let searches = plan.filter { $0.hasPrefix("SEARCH") }
            #expect(searches.count == 4, "pets, owners, photos, vaccinations: \(plan)")
            for search in searches {
                #expect(search.contains("COVERING INDEX"), "\(search) visits its table")
            }
        }
    }
}
