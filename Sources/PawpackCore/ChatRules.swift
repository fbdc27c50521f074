import Foundation

/// What a chat message may hold, and the opaque cursors of chat lists. Pure: the server and
/// its tests share it.
public struct ChatRules: Sendable {
    /// Longest text message, in characters (what a person reads as letters, emoji included).
    public static let maximumTextLength = 2_000

    public init() {}

    /// The text to keep: without leading or trailing white space, not empty, not too long.
    public func text(_ raw: String) throws -> String {
        try TextRule.paragraphs(max: Self.maximumTextLength, required: true).validate(raw, field: "text")
    }
}

/// Where a page of a list kept newest activity first ended: the last item's activity and
/// id. Written as text the client hands back unread. Chats and notifications use it.
public struct ActivityCursor<Subject>: Sendable, Equatable {
    /// The item's last activity (a chat's newest message, a notification's last update) in
    /// whole microseconds since 1970: an integer, so that both databases compare it exactly.
    public var activity: Int64
    public var id: Identifier<Subject>

    public init(activity: Int64, id: Identifier<Subject>) {
        self.activity = activity
        self.id = id
    }

    public static func activity(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    public static func date(ofActivity activity: Int64) -> Date {
        Date(timeIntervalSince1970: Double(activity) / 1_000_000)
    }

    public var text: String { "\(activity)_\(id)" }

    public init(text: String) throws {
        let parts = text.split(separator: "_")
        guard text.utf8.count <= 80, parts.count == 2, let activity = Int64(parts[0]),
            let id = Identifier<Subject>(string: String(parts[1]))
        else {
            throw Problem.invalidField("cursor", "is not a cursor this list gave")
        }
        self.init(activity: activity, id: id)
    }
}

public typealias ChatListCursor = ActivityCursor<Chats.Chat>

/// Where a page of messages ended: the position of the oldest message on it. Messages are
/// numbered 1, 2, 3… in each chat as they arrive.
public struct MessageCursor: Sendable, Equatable {
    public var before: Int

    public init(before: Int) { self.before = before }

    public var text: String { "m\(before)" }

    public init(text: String) throws {
        guard text.utf8.count <= 20, text.hasPrefix("m"), let before = Int(text.dropFirst()), before > 0 else {
            throw Problem.invalidField("cursor", "is not a cursor this list gave")
        }
        self.init(before: before)
    }
}
