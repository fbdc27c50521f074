import FluentKit
import Foundation
import PawpackCore
import SQLiteNIO

// Records keep their typed identifiers (`Pet.ID`, `User.ID`, …) all the way to the database:
// `@ID(custom: .id) var id: Pet.ID?` and `@Parent`'s `$owner.id: User.ID`, so a query can no
// more compare a pet with a user than the code around it can. In a column they are the UUIDs
// they wrap: text on SQLite (`uuidString`, as Fluent stores a UUID there), `uuid` on PostgreSQL
// (through `Codable`, as UUID itself).

/// Fluent makes a new record's identifier with this when none was set.
extension Identifier: RandomGeneratable {
    public static func generateRandom() -> Identifier<Owner> { Identifier() }
}

/// Read and written directly rather than through SQLiteKit's nested decoders, which cost more
/// than the rest of a row on the reads every request makes.
extension Identifier: SQLiteDataConvertible {
    public init?(sqliteData: SQLiteData) {
        guard case .text(let text) = sqliteData, let uuid = UUID(text: text) else { return nil }
        self.init(uuid)
    }

    public var sqliteData: SQLiteData? { .text(rawValue.text(uppercase: true)) }
}
