import Foundation

/// A typed identifier: `User.ID` and `Pet.ID` are different types, so one can never be
/// passed where the other is expected, yet both are plain UUIDs on the wire.
public struct Identifier<Owner>: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UUID

    public init(_ rawValue: UUID = UUID()) { self.rawValue = rawValue }

    /// Parses the canonical UUID text form; `nil` for anything else.
    public init?(string: String) {
        guard let uuid = UUID(text: string) else { return nil }
        self.rawValue = uuid
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(UUID.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue.text(uppercase: false) }
}

extension Identifier {
    /// A new identifier whose text sorts by when it was made (`UUID.timeOrdered`), for rows
    /// written many times a second: their primary key's index then grows at one end.
    public static func timeOrdered(at date: Date = Date()) -> Identifier { Identifier(.timeOrdered(at: date)) }
}

extension UUID {
    /// A version 7 UUID (RFC 9562): the Unix time in milliseconds in its first 48 bits, then 74
    /// random bits. Its bytes, and so its text in either case, sort by the millisecond it was
    /// made. A random UUID as a primary key puts each new row's index entry on a page of its
    /// own, and every such page is one more written at each commit.
    public static func timeOrdered(at date: Date = Date()) -> UUID {
        let milliseconds = UInt64(max(0, date.timeIntervalSince1970 * 1_000))
        // A random UUID's bits, then the time over its first six bytes and the version and
        // variant set again: no array, as this runs for every message and event.
        var bytes = UUID().uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            raw[6] = 0x70 | (raw[6] & 0x0F) // version 7
            raw[8] = 0x80 | (raw[8] & 0x3F) // the RFC's variant
        }
        return UUID(uuid: bytes)
    }
}

extension UUID {
    // Foundation on Linux reads and writes a UUID's text with `sscanf` and `snprintf`, which
    // showed up in every deck request: a page carries and stores dozens of identifiers.

    /// The 36-character text form: in capitals, exactly `uuidString`, or in small letters.
    public func text(uppercase: Bool) -> String {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        return withUnsafeBytes(of: uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { out in
                digits.withUTF8Buffer { digits in
                    var position = 0
                    for (index, byte) in bytes.enumerated() {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            out[position] = UInt8(ascii: "-")
                            position += 1
                        }
                        out[position] = digits[Int(byte >> 4)]
                        out[position + 1] = digits[Int(byte & 0x0F)]
                        position += 2
                    }
                    return position
                }
            }
        }
    }

    /// Parses a UUID's text: the canonical form (hex digits in either case, dashes after the
    /// 8th, 12th, 16th and 20th) directly, anything else through `UUID(uuidString:)`, so that
    /// exactly the same strings are accepted.
    public init?(text: String) {
        var text = text
        if let uuid = text.withUTF8(Self.canonical) {
            self.init(uuid: uuid)
        } else {
            self.init(uuidString: text)
        }
    }

    private static func canonical(_ text: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard text.count == 36 else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
            var position = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard text[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = hexValue(text[position]), let low = hexValue(text[position + 1]) else { return false }
                out[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return parsed ? uuid : nil
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Namespace for account identifiers and values.
public enum User {
    public typealias ID = Identifier<User>

    /// One member hiding another, both ways, everywhere.
    public enum Block {
        public typealias ID = Identifier<Block>
    }
}

/// Namespace for the identifiers of the Playdates area. Its value types carry other names
/// (`DeckCard`, …) so that an app's own `Match` or `MatchRequest`, and the SDK's, never clash
/// with these.
public enum Playdates {
    /// One dog's like or pass of another.
    public enum Swipe {
        public typealias ID = Identifier<Swipe>
    }

    /// A like waiting for the other owner's answer.
    public enum MatchRequest {
        public typealias ID = Identifier<MatchRequest>
    }

    /// Two dogs whose owners both said yes.
    public enum Match {
        public typealias ID = Identifier<Match>
    }
}

/// Talking after a match.
public enum Chats {
    /// The one conversation a match opens between the two owners.
    public enum Chat {
        public typealias ID = Identifier<Chat>
    }

    /// One message in a chat: text or a photo.
    public enum Message {
        public typealias ID = Identifier<Message>
    }
}

/// Meeting after talking: a proposed time and place, and what each side thought of it.
public enum Meetups {
    /// A playdate proposed in a chat: pending, then accepted or not, then completed.
    public enum Meetup {
        public typealias ID = Identifier<Meetup>
    }

    /// One participant's rating of the other owner and dog after a completed meet-up.
    public enum Review {
        public typealias ID = Identifier<Review>
    }
}

/// What a member should learn about while away: the inbox, and the pushes it sends.
public enum Notifications {
    public enum Notification {
        public typealias ID = Identifier<Notification>
    }
}

public enum Devices {
    /// A phone, tablet or browser a member receives pushes on.
    public enum Device {
        public typealias ID = Identifier<Device>
    }
}
