import Foundation
import NIOConcurrencyHelpers

/// The current time, behind a protocol so tests pin it and move it forward by hand.
public protocol AppClock: Sendable {
    func now() -> Date
}

public struct SystemClock: AppClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to: lockouts, expiries and idle timeouts become
/// testable without sleeping.
public final class PinnedClock: AppClock {
    private let current: NIOLockedValueBox<Date>

    public init(_ start: Date) { current = NIOLockedValueBox(start) }

    public func now() -> Date { current.withLockedValue { $0 } }

    public func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
