import Foundation

/// How many notifications one member can cause another, so that no action repeated (a like
/// undone and given again, a meet-up proposed and cancelled) can flood an inbox and a phone.
/// Every kind of notification, of every area, goes through `decide`.
public struct NotificationPolicy: Sendable, Equatable {
    /// An unread notification of the same kind from the same member, made within this window,
    /// is brought up to date instead of repeated: no new entry, no new push.
    public var coalesceWindow: TimeInterval = 10 * 60
    /// New notifications one member may cause another per minute (PAWPACK_NOTIFICATIONS_PER_SENDER_PER_MINUTE).
    public var perSenderPerMinute = 10
    /// New notifications a member may receive per minute in all (PAWPACK_NOTIFICATIONS_PER_MINUTE).
    public var perRecipientPerMinute = 30

    public init() {}

    public enum Decision: Sendable, Equatable {
        /// A new notification, with its realtime event and pushes.
        case notify
        /// The unread one of the same kind from the same member is updated; nothing else is sent.
        case coalesce
        /// Over a limit: nothing is written or sent (what caused it still happens).
        case drop
    }

    /// - Parameters:
    ///   - coalescible: an unread notification of the same kind from the same member exists,
    ///     made within `coalesceWindow`.
    ///   - fromSenderLastMinute: notifications this sender caused the recipient in the last minute.
    ///   - inAllLastMinute: notifications the recipient got in the last minute, from anyone.
    ///   - fromServer: the server's own (a reminder): bounded in all only.
    public func decide(coalescible: Bool, fromSenderLastMinute: Int, inAllLastMinute: Int, fromServer: Bool) -> Decision {
        if coalescible { return .coalesce }
        if !fromServer, fromSenderLastMinute >= perSenderPerMinute { return .drop }
        if inAllLastMinute >= perRecipientPerMinute { return .drop }
        return .notify
    }
}
