import Foundation

/// A typed identifier: `User.ID` and `Pet.ID` are different types, so one can never be
/// passed where the other is expected, yet both are plain UUIDs on the wire.
public struct Identifier<Owner>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID = UUID()) { self.rawValue = rawValue }

    /// Parses the canonical UUID text form; `nil` for anything else.
    public init?(string: String) {
        guard let uuid = UUID(uuidString: string) else { return nil }
        self.rawValue = uuid
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue.uuidString.lowercased() }
}

/// Namespace for account identifiers and values.
public enum User {
    public typealias ID = Identifier<User>
}
