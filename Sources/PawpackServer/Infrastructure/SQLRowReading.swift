import Foundation
import SQLKit

/// A value its own initialiser reads from a plain SQL row, column by column: the records of
/// the hot paths (`PetRows.swift`, `AccountRows.swift`).
///
/// The initialiser is generic over the row so that the rows of `HotReads`' own SQLite
/// connections are read by code specialised for `SQLiteReadRow`. Read through `any SQLRow`,
/// every column paid a dynamic dispatch, a run-time lookup of its type's metadata and a switch
/// over types, which for a page of cards cost more than building the cards.
protocol SQLRowReadable {
    init<Row: SQLRow>(reading row: Row) throws
}

extension SQLRowReadable {
    /// Reads `row`, with the specialised code when it is one of `HotReads`' own: one dynamic
    /// cast per row instead of several per column.
    init(row: any SQLRow) throws {
        if let own = row as? SQLiteReadRow {
            try self.init(reading: own)
        } else {
            try self.init(reading: row)
        }
    }
}

extension SQLRow {
    /// A column holding an enum's raw value as text, as every enum column here is stored
    /// (`.string` in the migrations): read as text and converted directly, where decoding the
    /// enum went through a decoder and its containers. Throws, as decoding does, for text that
    /// names no case.
    func decode<Value: RawRepresentable>(column: String, asRawValueOf type: Value.Type) throws -> Value
    where Value.RawValue == String {
        let text = try decode(column: column, as: String.self)
        guard let value = Value(rawValue: text) else { throw Self.noCase(text, of: Value.self, in: column) }
        return value
    }

    /// The same for a column that may be null.
    func decode<Value: RawRepresentable>(column: String, asRawValueOf type: Value?.Type) throws -> Value?
    where Value.RawValue == String {
        guard let text = try decode(column: column, as: String?.self) else { return nil }
        guard let value = Value(rawValue: text) else { throw Self.noCase(text, of: Value.self, in: column) }
        return value
    }

    private static func noCase<Value>(_ text: String, of type: Value.Type, in column: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "\(column): \"\(text)\" is no \(Value.self)"))
    }
}
