import Foundation
import NIOConcurrencyHelpers

/// The current time, behind a protocol so tests pin it and move it forward by hand.
package protocol AppClock: Sendable {
    func now() -> Date
}

package struct SystemClock: AppClock {
    package init() {}
    package func now() -> Date { Date() }
}

/// A clock that can be moved forward by hand: `/dev/clock` shows one in development, so the
/// browser tests see a meet-up start without waiting for it.
package protocol MovableClock: AppClock {
    func advance(by seconds: TimeInterval)
}

/// The system's time plus however far it was moved forward: `serve` in development.
package final class DevelopmentClock: MovableClock {
    private let offset = NIOLockedValueBox<TimeInterval>(0)

    package init() {}

    package func now() -> Date { Date().addingTimeInterval(offset.withLockedValue { $0 }) }

    package func advance(by seconds: TimeInterval) {
        offset.withLockedValue { $0 += max(0, seconds) }
    }
}

/// A clock that only moves when told to: lockouts, expiries and idle timeouts become
/// testable without sleeping.
package final class PinnedClock: MovableClock {
    private let current: NIOLockedValueBox<Date>

    package init(_ start: Date) { current = NIOLockedValueBox(start) }

    package func now() -> Date { current.withLockedValue { $0 } }

    package func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
