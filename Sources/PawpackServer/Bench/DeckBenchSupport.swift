import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A dog whose deck `pawpack bench deck` asks for, with an access token of its owner.
package struct DeckBenchSeeker: Sendable {
    package let petID: Pet.ID
    package let accessToken: String
}

/// What `pawpack bench deck` needs from inside the server. Tokens are issued directly: signing
/// every owner in through bcrypt would take minutes and measure bcrypt, not the deck.
extension PawpackServices {
    /// Up to `count` dogs with a located owner, spread evenly over the community (the first dog
    /// at or after `count` evenly spaced pet ids; pet ids are random), each with a fresh access
    /// token for its owner.
    package func deckBenchSeekers(count: Int, on db: any Database) async throws -> [DeckBenchSeeker] {
        var seekers: [DeckBenchSeeker] = []
        var seen = Set<Pet.ID>()
        for number in 0..<max(0, count) {
            let prefix = UInt32((UInt64(number) << 32) / UInt64(count))
            let start = Pet.ID(
                UUID(
                    uuid: (
                        UInt8(prefix >> 24), UInt8(prefix >> 16 & 0xFF), UInt8(prefix >> 8 & 0xFF),
                        UInt8(prefix & 0xFF), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
                    )))
            guard
                let row = try await db.sql.select().columns("pet_id", "owner_id").from(DeckIndex.table)
                    .where("pet_id", .greaterThanOrEqual, start).orderBy("pet_id").limit(1).first()
            else { continue }
            let petID = Pet.ID(try row.decode(column: "pet_id", as: UUID.self))
            guard seen.insert(petID).inserted,
                let owner = try await UserRecord.find(User.ID(try row.decode(column: "owner_id", as: UUID.self)), on: db)
            else { continue }
            let session = try await sessions.issueAppSession(for: owner, on: db)
            seekers.append(DeckBenchSeeker(petID: petID, accessToken: session.accessToken))
        }
        return seekers
    }

    /// Dogs in the deck's candidate index.
    package func deckIndexCount(on db: any Database) async throws -> Int {
        try await deck.deckIndex.count(on: db)
    }
}
