import Foundation
import PawpackCore

/// At most `limit` events per key in a fixed window, counted in this process: per member for
/// deck reads and location changes, per address for failed sign-ins. With several instances
/// each counts its own requests (`docs/SECURITY.md`).
actor RateLimiter {
    private var counter: WindowCounter

    init(limit: Int, window: TimeInterval) { counter = WindowCounter(limit: limit, window: window) }

    /// Seconds until `key` may act again, or nil when it is under the limit.
    func blockedFor(_ key: String, now: Date) -> Int? { counter.blockedFor(key, now: now) }

    func record(_ key: String, now: Date) { counter.record(key, now: now) }

    /// Counts one event for `key` and returns nil, or, over the limit, counts nothing and
    /// returns the seconds to wait.
    func admit(_ key: String, now: Date) -> Int? {
        if let wait = counter.blockedFor(key, now: now) { return wait }
        counter.record(key, now: now)
        return nil
    }

    /// Counts one event for `key`, or throws 429 with the wait when it is over the limit.
    func take(_ key: String, now: Date, what: String) throws {
        if let wait = admit(key, now: now) { throw Problem.tooManyRequests(retryAfter: wait, what: what) }
    }
}
