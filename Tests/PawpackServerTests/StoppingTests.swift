import Foundation
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

#if canImport(Glibc)
    import Glibc
#endif

/// Stopping is bounded whatever the outside services do, and tells load balancers at once.
@Suite struct StoppingTests {
    @Test func aStopIsQuickWhileThePushServiceNeverAnswersAndThePushWaitsForTheNextStart() async throws {
        let clock = PinnedClock(TestServer.startDate)
        try await LocalAPNs.run(clock: clock) { apns in
            // a push service that takes connections and never says a word
            let blackhole = try RawConnection.listeningSocket()
            defer { close(blackhole.descriptor) }
            #expect(listen(blackhole.descriptor, 16) == 0)
            var settings = apns.settings
            settings.productionURL = "https://127.0.0.1:\(blackhole.port)"
            try await TestServer.run(adjust: { $0.push.apns = settings }) { server in
                let (ada, bob) = try await server.adaAndBob()
                let device = try await server.send(
                    .POST, APIPath.devices,
                    object: [
                        "platform": "apns", "token": PushTests.apnsToken, "appId": "org.pawpack.app",
                    ], token: ada.token)
                #expect(device.status == 201)
                _ = try await server.like(bob, ada)
                // the worker's round (every second) is now waiting on the service
                try await Task.sleep(for: .milliseconds(1_500))
                #expect(try await server.request(.GET, "/healthz").status == 200)

                let triedBefore = try await PushOutboxRecord.query(on: server.app.db).first()?.attempts
                server.app.pawpack.beginStopping()
                let stopping = try await server.request(.GET, "/healthz")
                #expect(stopping.status == 503 && stopping.code == "unavailable", "a load balancer stops sending")
                let started = ContinuousClock.now
                await server.app.pawpack.stopBackgroundWork()
                let took = ContinuousClock.now - started
                #expect(took < .seconds(3), "the round was cancelled, not waited for: \(took)")
                // the push was not sent and not counted as tried: the next start sends it
                let waiting = try await PushOutboxRecord.query(on: server.app.db).all()
                #expect(waiting.count == 1 && waiting.first?.attempts == triedBefore)
            }
        }
    }
}
