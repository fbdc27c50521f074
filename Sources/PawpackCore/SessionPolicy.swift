import Foundation

/// How long proofs of sign-in last. App tokens: a short-lived access token and a refresh
/// token that rotates on use and dies after `refreshIdleTimeout` without use. Web sessions
/// end after `webIdleTimeout` without a request (Pawfolio's one hour).
public struct SessionPolicy: Sendable, Equatable {
    public var accessTokenLifetime: TimeInterval = 60 * 60
    public var refreshIdleTimeout: TimeInterval = 30 * 24 * 60 * 60
    public var webIdleTimeout: TimeInterval = 60 * 60
    /// Web sessions record activity at most this often, so browsing is not a write per page.
    public var webTouchInterval: TimeInterval = 60
    public var emailVerificationLifetime: TimeInterval = 48 * 60 * 60
    public var passwordResetLifetime: TimeInterval = 60 * 60
    public var verificationResendCooldown: TimeInterval = 60

    public init() {}

    public func isWebSessionIdle(lastSeen: Date, now: Date) -> Bool {
        now.timeIntervalSince(lastSeen) >= webIdleTimeout
    }

    public func shouldTouchWebSession(lastSeen: Date, now: Date) -> Bool {
        now.timeIntervalSince(lastSeen) >= webTouchInterval
    }

    public func mayResendVerification(lastSent: Date?, now: Date) -> Bool {
        guard let lastSent else { return true }
        return now.timeIntervalSince(lastSent) >= verificationResendCooldown
    }
}
