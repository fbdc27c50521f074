import Foundation

/// A calendar date without time or zone (a birthday), written `YYYY-MM-DD` on the wire.
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...LocalDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Strict `YYYY-MM-DD`; anything else (including impossible dates like 2023-02-29) is nil.
    public init?(_ text: String) {
        // Read as bytes: every deck card parses a birth date and its vaccination dates, and
        // splitting into Characters cost more than the rest of the card.
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> LocalDate? {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        return LocalDate(year: year, month: month, day: day)
    }

    /// The date on which `instant` falls in UTC. Server rules use UTC so that every instance
    /// agrees; a one-day difference at a birthday is harmless.
    public init(utc instant: Date) {
        // Whole days since 1970-01-01 in UTC, then the calendar date by arithmetic
        // (`LocalDate(dayNumber:)`): `Calendar` took longer than the rule it was asked for.
        let days = (instant.timeIntervalSince1970 / 86_400).rounded(.down)
        let bounded = Swift.min(Swift.max(days, Double(Self.dayNumberRange.lowerBound)), Double(Self.dayNumberRange.upperBound))
        self = LocalDate.clamped(dayNumber: Int(bounded))
    }

    public static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whole years completed on `date`. Someone born on 29 February completes a year on
    /// 1 March in common years.
    public func age(on date: LocalDate) -> Int {
        let hadBirthday = (date.month, date.day) >= (month, day)
        return date.year - year - (hadBirthday ? 0 : 1)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
        }
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = LocalDate(text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Expected a date as YYYY-MM-DD"))
        }
        self = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
