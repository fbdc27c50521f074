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
        if let date = Self.utc(text) { return date }
        // RFC 3339 allows any offset up to ±23:59; Foundation's parser stops at ±18:00, so the
        // offset is applied here to the time read as UTC.
        let offset = text.suffix(6) // "-23:00"
        let sign: Double? = offset.first == "+" ? 1 : offset.first == "-" ? -1 : nil
        let parts = offset.dropFirst().split(separator: ":")
        if text.count > 6, let sign, parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]),
            hours < 24, minutes < 60, let local = Self.utc(String(text.dropLast(6)) + "Z")
        {
            return local.addingTimeInterval(-sign * Double(hours * 3_600 + minutes * 60))
        }
        throw DecodingError.dataCorrupted(
            .init(
                codingPath: [],
                debugDescription: "Expected an RFC 3339 date-time, got \(text)"))
    }

    private static func utc(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

extension Configuration {
    /// The configuration server and SDK share.
    public static var pawpack: Configuration {
        Configuration(dateTranscoder: RFC3339DateTranscoder(), jsonEncodingOptions: [.sortedKeys])
    }
}
