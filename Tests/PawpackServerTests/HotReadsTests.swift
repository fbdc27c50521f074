import Fluent
import Foundation
import PawpackCore
import PawpackTestSupport
import SQLKit
import SQLiteKit
import SQLiteNIO
import Testing

@testable import PawpackServer

/// The reads every API request makes go, on an SQLite file, through connections of their own
/// (`HotReads`). They must answer exactly as the database would: every commit seen at once, a
/// transaction's own writes seen inside it, and a busy file never waited on.
@Suite struct HotReadsTests {
    @Test func hotReadsSeeEveryCommitAndATransactionsOwnWrites() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            let reads = server.app.pawpack.hotReads
            let onSQLite = TestServer.postgresURL == nil
            _ = try await server.app.pawpack.seedDemo(dogs: 3, seed: 3, on: db, onlyIfEmpty: false)
            let pet = try #require(try await PetRecord.query(on: db).sort(\.$id).first())
            @Sendable func name(on db: any Database) async throws -> String? {
                try await reads.rows("SELECT \"name\" FROM \"pets\" WHERE \"id\" = \(bind: try pet.requireID())", on: db)
                    .first?.decode(column: "name", as: String.self)
            }

            let before = reads.counts.own
            #expect(try await name(on: db) == pet.name)
            #expect(reads.counts.own == before + (onSQLite ? 1 : 0), "on SQLite the read took the own connections")

            // A committed change is read at once.
            pet.name = "Biscuit the Second"
            try await pet.save(on: db)
            #expect(try await name(on: db) == "Biscuit the Second")

            // Inside a transaction the read goes to the transaction, which alone sees its writes.
            try await db.transaction { tx in
                pet.name = "Biscuit the Third"
                try await pet.save(on: tx)
                let own = reads.counts.own
                #expect(try await name(on: tx) == "Biscuit the Third")
                #expect(reads.counts.own == own, "a transaction's read stays in the transaction")
            }
            #expect(try await name(on: db) == "Biscuit the Third")

            // Every API request reads its token this way; a revoked session is refused at once.
            let ada = try await server.member("ada")
            let tokenReads = reads.counts.own
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 200)
            #expect(reads.counts.own == tokenReads + (onSQLite ? 1 : 0), "the token and its member, in one read")
            #expect(try await server.request(.POST, APIPath.logOut, token: ada.accessToken).status == 204)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).status == 401)

            // The busiest requests (decks, the Care tab, feed pages), each statement run more than
            // once with other values: binding a value again must not make SQLite prepare the
            // statement again (as clearing the values bound did: `SQLiteOwnConnection.rows`).
            let owner = try #require(try await UserRecord.find(pet.$owner.id, on: db))
            let session = try await server.app.pawpack.sessions.issueAppSession(for: owner, on: db)
            let dogs = try await PetRecord.query(on: db).filter(\.$species == .dog).all()
            let ownDogs = dogs.filter { $0.$owner.id == owner.id }
            #expect(!ownDogs.isEmpty)
            for dog in ownDogs + ownDogs {
                let deck = try await server.request(.GET, "/v1/pets/\(try dog.requireID())/deck?limit=5", token: session.accessToken)
                #expect(deck.status == 200)
            }
            // Two members in turn, so that each statement is bound to other values each time.
            let bea = try await server.member("bea")
            let beforePages = reads.counts.own
            for token in [session.accessToken, bea.accessToken, session.accessToken, bea.accessToken] {
                for path in [APIPath.care, APIPath.friendsFeed + "?limit=5", APIPath.globalFeed + "?limit=5"] {
                    #expect(try await server.request(.GET, path, token: token).status == 200, "\(path)")
                }
            }
            if onSQLite { #expect(reads.counts.own > beforePages + 4 * 3 * 2, "the pages read through the own connections") }
            #expect(reads.counts.reprepared == 0)
        }
    }

    @Test func aReadAnswersBusyAtOnceWhileAWriterHoldsTheFileAndThenSeesItsCommit() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hot-reads-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try await SQLiteConnection.open(storage: .file(path: path))
        let reads = SQLiteReadConnections(path: path)
        do {
            _ = try await writer.query("CREATE TABLE walks (km INTEGER)")
            _ = try await writer.query("INSERT INTO walks (km) VALUES (3)")
            #expect(try reads.rows("SELECT km FROM walks", [])?.count == 1)

            // In the rollback journal's exclusive lock nobody else may read: answered at once.
            _ = try await writer.query("BEGIN EXCLUSIVE")
            _ = try await writer.query("INSERT INTO walks (km) VALUES (5)")
            #expect(try reads.rows("SELECT km FROM walks", []) == nil)
            _ = try await writer.query("COMMIT")

            let kms = try #require(try reads.rows("SELECT km FROM walks WHERE km > ?", [.integer(1)]))
                .map { try $0.decode(column: "km", as: Int.self) }
            #expect(kms.sorted() == [3, 5])
            #expect(reads.counts == .init(own: 2, busy: 1, reprepared: 0))

            // A bad statement is an error, and the connection reads on afterwards.
            #expect(throws: SQLiteReadError.self) { try reads.rows("SELECT nothing FROM nowhere", []) }
            #expect(try reads.rows("SELECT km FROM walks", [])?.count == 2)
            // A connection that only reads.
            #expect(throws: SQLiteReadError.self) { try reads.rows("DELETE FROM walks", []) }
            _ = try await writer.query("SELECT 1")
            #expect(try await writer.query("SELECT COUNT(*) AS n FROM walks").first?.column("n")?.integer == 2)
        } catch {
            reads.close()
            try await writer.close()
            throw error
        }
        reads.close()
        try await writer.close()
    }

    @Test func rowsReadOnTheirOwnConnectionsDecodeAsSQLitesDecoderDoes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hot-rows-\(UUID()).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try await SQLiteConnection.open(storage: .file(path: path))
        let reads = SQLiteReadConnections(path: path)
        defer { reads.close() }
        _ = try await writer.query("CREATE TABLE dogs (species TEXT, size TEXT, name TEXT, born TEXT, weight REAL, neutered INTEGER)")
        _ = try await writer.query("INSERT INTO dogs VALUES ('dog', 'large', 'Biscuit', NULL, 12.5, 1), ('dragon', NULL, NULL, NULL, NULL, NULL)")
        try await writer.close()
        let rows = try #require(try reads.rows("SELECT * FROM dogs ORDER BY rowid", [])).map { $0 as! SQLiteReadRow }
        let (biscuit, dragon) = (rows[0], rows[1])

        // Enums stored as their raw text, plain and optional.
        #expect(try biscuit.decode(column: "species", as: Species.self) == .dog)
        #expect(try biscuit.decode(column: "size", as: SizeClass?.self) == .large)
        #expect(try dragon.decode(column: "size", as: SizeClass?.self) == nil)
        // Text that is no case: an error, plain or optional.
        #expect(throws: (any Error).self) { try dragon.decode(column: "species", as: Species.self) }
        #expect(throws: (any Error).self) { try dragon.decode(column: "species", as: Species?.self) }

        // Every column as every type read this way: what SQLiteKit's decoder reads, or an error
        // where it throws one.
        func same<T: Decodable & Equatable>(_ row: SQLiteReadRow, _ column: String, _ type: T.Type) {
            let value = row.values[row.allColumns.firstIndex(of: column)!]
            let expected = Result { try SQLiteDataDecoder().decode(T.self, from: value) }
            let read = Result { try row.decode(column: column, as: T.self) }
            switch (expected, read) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(column) as \(T.self)")
            case (.failure, .failure): break
            default: Issue.record("\(column) as \(T.self): the decoder gives \(expected), the row \(read)")
            }
        }
        // An enum read as its raw text (`decode(column:asRawValueOf:)`, what the hot paths' records
        // use) reads what decoding the enum reads, and fails where it fails.
        func sameAsRaw<T: RawRepresentable & Decodable & Equatable>(_ row: SQLiteReadRow, _ column: String, _ type: T.Type)
        where T.RawValue == String {
            agree(
                Result { try row.decode(column: column, as: T.self) },
                Result { try row.decode(column: column, asRawValueOf: T.self) }, "\(column) as \(T.self)")
            agree(
                Result { try row.decode(column: column, as: T?.self) },
                Result { try row.decode(column: column, asRawValueOf: T?.self) }, "\(column) as \(T.self)?")
        }
        func agree<T: Equatable>(_ decoded: Result<T, any Error>, _ read: Result<T, any Error>, _ what: String) {
            switch (decoded, read) {
            case (.success(let a), .success(let b)): #expect(a == b, "\(what)")
            case (.failure, .failure): break
            default: Issue.record("\(what): decoding gives \(decoded), the raw text \(read)")
            }
        }
        #expect(try biscuit.decode(column: "size", asRawValueOf: SizeClass?.self) == .large)
        #expect(try dragon.decode(column: "size", asRawValueOf: SizeClass?.self) == nil)
        #expect(throws: DecodingError.self) { try dragon.decode(column: "species", asRawValueOf: Species.self) }
        for row in rows {
            for column in row.allColumns {
                sameAsRaw(row, column, Species.self)
                sameAsRaw(row, column, SizeClass.self)
                same(row, column, Species.self)
                same(row, column, Species?.self)
                same(row, column, SizeClass.self)
                same(row, column, SizeClass?.self)
                same(row, column, String.self)
                same(row, column, String?.self)
                same(row, column, Double.self)
                same(row, column, Double?.self)
                same(row, column, Int.self)
                same(row, column, Int?.self)
                same(row, column, Bool.self)
                same(row, column, Bool?.self)
                same(row, column, Date?.self)
                same(row, column, UUID?.self)
            }
        }
    }
}
