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

/// A clock that only moves when told to: lockouts, expiries and idle timeouts become
/// testable without sleeping.
package final class PinnedClock: AppClock {
    private let current: NIOLockedValueBox<Date>

    package init(_ start: Date) { current = NIOLockedValueBox(start) }

    package func now() -> Date { current.withLockedValue { $0 } }

    package func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
