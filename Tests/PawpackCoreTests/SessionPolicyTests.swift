import Foundation
import PawpackCore
import Testing

@Suite struct SessionPolicyTests {
    let policy = SessionPolicy()
    let now = Date(timeIntervalSince1970: 1_772_366_400)

    @Test func webSessionsEndAfterAnIdleHour() {
        #expect(!policy.isWebSessionIdle(lastSeen: now.addingTimeInterval(-3599), now: now))
        #expect(policy.isWebSessionIdle(lastSeen: now.addingTimeInterval(-3600), now: now))
    }

    @Test func verificationMayBeResentOnceAMinute() {
        #expect(policy.mayResendVerification(lastSent: nil, now: now))
        #expect(!policy.mayResendVerification(lastSent: now.addingTimeInterval(-59), now: now))
        #expect(policy.mayResendVerification(lastSent: now.addingTimeInterval(-60), now: now))
    }

    @Test func appSessionsLastThirtyDaysWithoutUseByDefault() {
        #expect(policy.refreshIdleTimeout == 30 * 86_400)
        #expect(policy.accessTokenLifetime == 3_600)
    }
}
