import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Vapor

/// Requests sent at a fixed rate whatever the answers (an open loop, as users arrive), each a
/// timer on the client's event loops, its latency counted from when it was due: what `bench
/// care` and `bench moments` measure with. A request answered with another status than
/// expected counts as failed, with why.
enum OpenLoop {
    struct Outcome {
        let run: OpenLoopRun
        let machine: MachineTimes?
        let failures: [String]
    }

    /// The open loop's client, on an event loop of its own. On the server's loops (the
    /// process's singleton group) a request due while its loop ran a page was sent only once
    /// the page was done, and its answer read only after the next, which no client elsewhere
    /// would wait for, and all of it counted as the server's latency. Its own thread shares the
    /// two cores with the server's by the kernel's turns instead (docs/PERFORMANCE.md,
    /// "Moments", step 9).
    static func makeClient() -> HTTPClient {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(60), read: .seconds(120)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
        return HTTPClient(eventLoopGroupProvider: .shared(clientLoops), configuration: configuration)
    }

    private static let clientLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    static func run(_ client: HTTPClient, requests: [HTTPClient.Request], expected: [HTTPResponseStatus], rate: Int) async throws -> Outcome {
        let total = requests.count
        let interval = Int64((1e9 / Double(rate)).rounded())
        let latencies = NIOLockedValueBox([Double?](repeating: nil, count: total))
        // Why requests failed: the status and the start of the answer, or the error.
        let failures = NIOLockedValueBox([String]())
        let begin = NIODeadline.now() + .milliseconds(200)
        let (seconds, machine) = try await MachineTimes.during(sampleOn: client.eventLoopGroup.next()) {
            var answers: [EventLoopFuture<Void>] = []
            answers.reserveCapacity(total)
            for (number, request) in requests.enumerated() {
                let due = begin + .nanoseconds(Int64(number) * interval)
                let loop = client.eventLoopGroup.next()
                let answered = loop.flatScheduleTask(deadline: due) {
                    client.execute(request: request, eventLoop: .delegate(on: loop), deadline: .now() + .seconds(120)).map { response in
                        guard response.status == expected[number] else {
                            let text = response.body.map { String(buffer: $0).prefix(160) } ?? ""
                            failures.withLockedValue { $0.append("\(response.status.code) \(text)") }
                            return
                        }
                        let milliseconds = Double((NIODeadline.now() - due).nanoseconds) / 1e6
                        latencies.withLockedValue { $0[number] = milliseconds }
                    }
                }
                answers.append(
                    answered.futureResult.recover { error in failures.withLockedValue { $0.append(String(describing: error)) } })
            }
            try await EventLoopFuture.andAllComplete(answers, on: client.eventLoopGroup.next()).get()
            return Double((NIODeadline.now() - begin).nanoseconds) / 1e9
        }
        let run = OpenLoopRun(
            latencies: latencies.withLockedValue { $0 }, seconds: seconds, begin: begin.uptimeNanoseconds, interval: UInt64(interval))
        return Outcome(run: run, machine: machine, failures: failures.withLockedValue { $0 })
    }

    /// Prints each kind's figures (the requests numbered `numbers`), then the machine's and why
    /// requests failed.
    static func report(_ outcome: Outcome, kinds: [(name: String, numbers: [Int])], latencyLog: String?) throws {
        let run = outcome.run
        for (name, numbers) in kinds where !numbers.isEmpty {
            let answered = numbers.compactMap { run.latencies[$0] }
            print(
                String(
                    format: "%@: %d sent, %.0f/s answered, %d failed, %@", name, numbers.count, Double(answered.count) / run.seconds,
                    numbers.count - answered.count, LatencySummary(answered).description))
            if let machine = outcome.machine {
                let undisturbed = machine.undisturbed(numbers.map { run.latencies[$0] }) { run.due(numbers[$0]) }
                print("  the requests during which no CPU time was stolen: \(LatencySummary(undisturbed))")
            }
        }
        if let latencyLog { try run.writeLog(to: latencyLog) }
        if let machine = outcome.machine { print("machine during the open loop: \(machine)") }
        for (failure, count) in Dictionary(outcome.failures.map { ($0, 1) }, uniquingKeysWith: +).sorted(by: { $0.value > $1.value }).prefix(5) {
            print("failed \(count)×: \(failure)")
        }
    }
}
