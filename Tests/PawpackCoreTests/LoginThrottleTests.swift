import Foundation
import PawpackCore
import Testing

@Suite struct LoginThrottleTests {
    let policy = LockoutPolicy()
    let start = Date(timeIntervalSince1970: 1_772_366_400)

    func failures(_ count: Int, every seconds: TimeInterval) -> (LoginThrottleState, Date) {
        var state = LoginThrottleState()
        var now = start
        for index in 0..<count {
            now = start.addingTimeInterval(Double(index) * seconds)
            state = policy.recordingFailure(state, now: now)
        }
        return (state, now)
    }

    @Test func fiveFailuresWithinFiveMinutesLockForFiveMinutes() {
        let (state, last) = failures(5, every: 60) // the fifth at 4 minutes
        #expect(policy.lockedFor(state, now: last) == 300)
        #expect(policy.lockedFor(state, now: last.addingTimeInterval(299)) == 1)
        #expect(policy.lockedFor(state, now: last.addingTimeInterval(300)) == nil)
    }

    @Test func fourFailuresDoNotLock() {
        let (state, last) = failures(4, every: 10)
        #expect(policy.lockedFor(state, now: last) == nil)
    }

    @Test func failuresSpreadBeyondTheWindowDoNotLock() {
        let (state, last) = failures(5, every: 76) // the fifth at 5 min 4 s: the first has expired
        #expect(policy.lockedFor(state, now: last) == nil)
    }

    @Test func aSuccessForgetsEarlierFailures() {
        let (state, last) = failures(4, every: 10)
        let reset = policy.recordingSuccess(state)
        #expect(policy.lockedFor(policy.recordingFailure(reset, now: last), now: last) == nil)
    }

    @Test func afterALockEndsCountingStartsAgain() {
        let (locked, last) = failures(5, every: 1)
        let after = last.addingTimeInterval(301)
        let once = policy.recordingFailure(locked, now: after)
        #expect(policy.lockedFor(once, now: after) == nil)
        #expect(once.failures == 1)
    }

    @Test func theAddressCounterBlocksAtItsLimitAndForgetsAfterTheWindow() {
        var counter = WindowCounter(limit: 3, window: 300)
        for second in 0..<3 { counter.record("10.0.0.1", now: start.addingTimeInterval(Double(second))) }
        #expect(counter.blockedFor("10.0.0.1", now: start.addingTimeInterval(3)) == 297)
        #expect(counter.blockedFor("10.0.0.2", now: start.addingTimeInterval(3)) == nil)
        #expect(counter.blockedFor("10.0.0.1", now: start.addingTimeInterval(300)) == nil)
    }
}
