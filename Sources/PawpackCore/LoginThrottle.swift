import Foundation

/// Failed sign-ins of one account, as stored beside it.
public struct LoginThrottleState: Sendable, Equatable {
    public var failures: Int
    public var windowStart: Date?
    public var lockedUntil: Date?

    public init(failures: Int = 0, windowStart: Date? = nil, lockedUntil: Date? = nil) {
        self.failures = failures
        self.windowStart = windowStart
        self.lockedUntil = lockedUntil
    }
}

/// Account lockout: `maxFailures` failed sign-ins within `window` lock the account for
/// `lockDuration`. A lock is per account, so it stops guessing from many addresses too.
public struct LockoutPolicy: Sendable, Equatable {
    public var maxFailures = 5
    public var window: TimeInterval = 5 * 60
    public var lockDuration: TimeInterval = 5 * 60

    public init() {}

    /// Whole seconds until the lock lifts, or nil when sign-in may be tried.
    public func lockedFor(_ state: LoginThrottleState, now: Date) -> Int? {
        guard let until = state.lockedUntil, until > now else { return nil }
        return Int(until.timeIntervalSince(now).rounded(.up))
    }

    /// The state after one more failed attempt.
    public func recordingFailure(_ state: LoginThrottleState, now: Date) -> LoginThrottleState {
        var next = state
        if let until = state.lockedUntil, until <= now {
            next = LoginThrottleState() // an expired lock starts a clean slate
        }
        if let start = next.windowStart, now.timeIntervalSince(start) < window {
            next.failures += 1
        } else {
            next.failures = 1
            next.windowStart = now
        }
        if next.failures >= maxFailures {
            next.lockedUntil = now.addingTimeInterval(lockDuration)
            next.failures = 0
            next.windowStart = nil
        }
        return next
    }

    /// A successful sign-in forgets earlier failures.
    public func recordingSuccess(_ state: LoginThrottleState) -> LoginThrottleState {
        LoginThrottleState()
    }
}

/// Counts events per key in a fixed window; used for the per-address limit on failed
/// sign-ins. Pure: the server keeps the value in an actor.
public struct WindowCounter: Sendable, Equatable {
    public var limit: Int
    public var window: TimeInterval
    private var buckets: [String: (start: Date, count: Int)] = [:]

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `key` may try again, or nil when it is under the limit.
    public func blockedFor(_ key: String, now: Date) -> Int? {
        guard let bucket = buckets[key], now.timeIntervalSince(bucket.start) < window,
            bucket.count >= limit
        else { return nil }
        return max(1, Int((window - now.timeIntervalSince(bucket.start)).rounded(.up)))
    }

    public mutating func record(_ key: String, now: Date) {
        if let bucket = buckets[key], now.timeIntervalSince(bucket.start) < window {
            buckets[key] = (bucket.start, bucket.count + 1)
        } else {
            buckets[key] = (now, 1)
        }
        if buckets.count > 10_000 { prune(now: now) }
    }

    /// Drops finished windows so memory stays bounded under a spray of addresses.
    public mutating func prune(now: Date) {
        buckets = buckets.filter { now.timeIntervalSince($0.value.start) < window }
    }

    public static func == (lhs: WindowCounter, rhs: WindowCounter) -> Bool {
        lhs.limit == rhs.limit && lhs.window == rhs.window
            && lhs.buckets.mapValues { $0.count } == rhs.buckets.mapValues { $0.count }
    }
}
