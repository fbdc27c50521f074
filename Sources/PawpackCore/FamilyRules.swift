import Foundation

/// Families: their names, invite codes and sizes.
public struct FamilyRules: Sendable, Equatable {
    /// How long an invite code stays good.
    public var inviteLifetime: TimeInterval = 7 * 24 * 60 * 60
    public var membersPerFamily = 20
    public var familiesPerMember = 5
    /// Requests waiting for a family's owner: more wait until some are answered.
    public var requestsPerFamily = 50
    /// Join attempts (right or wrong codes) one member, and one network address, may make in
    /// `joinAttemptWindow`: a million codes cannot be walked at this pace.
    public var joinAttemptsPerMember = 10
    public var joinAttemptsPerAddress = 30
    public var joinAttemptWindow: TimeInterval = 60 * 60
    public let nameRule = TextRule.name(max: 40)

    public init() {}

    /// A new six-digit code from a random number (the caller's generator: the server's is
    /// cryptographic).
    public static func inviteCode(from random: UInt64) -> String {
        let number = random % 1_000_000
        let digits = String(number)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// A code as a member typed it ("123 456", "123-456"): six digits, or nil.
    public func normalizedCode(_ raw: String) -> String? {
        let digits = raw.unicodeScalars.filter { $0 != " " && $0 != "-" }
        guard digits.count == 6, digits.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return String(String.UnicodeScalarView(digits))
    }

    public func isLive(expiresAt: Date?, now: Date) -> Bool {
        expiresAt.map { now < $0 } ?? false
    }
}
