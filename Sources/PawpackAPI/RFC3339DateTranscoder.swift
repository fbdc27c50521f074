import Foundation
import OpenAPIRuntime

/// RFC 3339 dates for the contract: written with whole seconds, read with or without
/// fractional seconds (iOS's `ISO8601DateFormatter` and JavaScript's `toISOString()` differ).
public struct RFC3339DateTranscoder: DateTranscoder {
    public init() {}

    public func encode(_ date: Date) throws -> String {
        date.formatted(.iso8601)
    }

    public func decode(_ text: String) throws -> Date {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) {
            return date
        }
        throw DecodingError.dataCorrupted(.init(codingPath: [],
                                                debugDescription: "Expected an RFC 3339 date-time, got \(text)"))
    }
}

extension Configuration {
    /// The configuration server and SDK share.
    public static var pawpack: Configuration {
        Configuration(dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys])
    }
}
