import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import PawpackServer
import Vapor

/// `pawpack bench deck`: the Playdates deck through the real HTTP server on a seeded
/// community, with the candidate index and, in the same run and on the same database, the
/// naive way (every dog in range loaded and scored).
///
/// The community is seeded once and kept: an SQLite folder (or a PostgreSQL database) that
/// already holds members is used as it is, so a second run starts measuring at once.
///
/// 1. Same pages: for the first `--naive-requests` seekers, both servers answer byte for byte
///    the same page (checked, not assumed).
/// 2. Naive against index, one request at a time over those seekers: p50, p99 and the ratio.
/// 3. Open loop: `--rate` requests per second for `--duration` seconds, spread over
///    `--seekers` dogs. Latency counts from when a request was due, not when it was sent, so a
///    server falling behind shows in the figures instead of slowing the load down. Requests are
///    sent by timers on the client's event loops (`openLoop`): the load costs the machine little
///    beyond the HTTP client itself.
/// 4. Closed loop: `--concurrency` requests in flight for the highest throughput.
struct BenchDeck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "deck", abstract: "Deck latency and throughput, index against naive.")

    @ArgumentParser.Option(help: "Dogs in the community (seeded when the database is empty).") var dogs = 1_000_000
    @ArgumentParser.Option(help: "Seed of the community.") var seed: UInt64 = 1
    @ArgumentParser.Option(help: "SQLite folder to keep the community in (default ./data/bench-deck-<dogs>-<seed>).")
    var dataDir: String?
    @ArgumentParser.Option(help: "A PostgreSQL URL to run on instead of SQLite.") var databaseURL: String?
    @ArgumentParser.Option(help: "Open-loop requests per second.") var rate = 300
    @ArgumentParser.Option(help: "Open-loop seconds.") var duration = 20
    @ArgumentParser.Option(help: "Different dogs whose decks are asked for.") var seekers = 500
    @ArgumentParser.Option(help: "Requests on the naive path (and pages compared); 0 measures the index alone.")
    var naiveRequests = 20
    @ArgumentParser.Option(help: "Requests in flight in the closed loop.") var concurrency = 4
    @ArgumentParser.Option(help: "Cards per page.") var limit = 20
    @ArgumentParser.Option(help: "The servers' log level; debug logs each deck's rows read and steps.")
    var logLevel = "warning"
    @ArgumentParser.Option(
        help:
            "A file to write each open-loop request to: when it was due (seconds after the first, and CLOCK_MONOTONIC nanoseconds) and its latency in ms."
    )
    var latencyLog: String?

    func run() async throws {
        let folder = dataDir ?? "./data/bench-deck-\(dogs)-\(seed)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = try loadConfig(overrides: [
            "PAWPACK_ENV": "development", "PAWPACK_DATA_DIR": folder, "DATABASE_URL": databaseURL ?? "",
            "SMTP_URL": "", "LOG_LEVEL": logLevel,
            // The load asks each seeker's deck many times a minute; the per-member limit is
            // for people, and measuring it is not the point here.
            "PAWPACK_DECK_READS_PER_MINUTE": "1000000",
        ])

        let indexed = try await start(config, deckSource: .index, migrate: true)
        var apps = [indexed.app]
        do {
            try await seedIfEmpty(indexed.app)
            let loading = ContinuousClock.now
            let inMemory = try await indexed.app.pawpack.warmDeck(on: indexed.app.db)
            if inMemory > 0 {
                print(String(format: "index rows loaded into memory: %d in %.1f s", inMemory, (ContinuousClock.now - loading).seconds))
            }
            // As `pawpack serve` does: measured, the server is one that has been running.
            let holding = ContinuousClock.now
            indexed.app.pawpack.keepDatabaseInMemory(on: indexed.app)
            if let bytes = await indexed.app.pawpack.databaseHeldInMemory() {
                print(String(format: "database file held in memory: %d MB in %.1f s", bytes / 1_048_576, (ContinuousClock.now - holding).seconds))
            }
            let naive = naiveRequests > 0 ? try await start(config, deckSource: .naive, migrate: false) : nil
            if let naive { apps.append(naive.app) }
            let picked = try await indexed.app.pawpack.deckBenchSeekers(count: seekers, on: indexed.app.db)
            guard picked.count >= 1 else { throw ArgumentParser.ValidationError("no dog with a location to ask for") }
            let database = databaseURL == nil ? "SQLite (\(folder))" : "PostgreSQL"
            let indexedDogs = try await indexed.app.pawpack.deckIndexCount(on: indexed.app.db)
            print(
                "bench deck: \(indexedDogs) dogs in the index, \(database), \(picked.count) seekers, limit \(limit), \(ProcessInfo.processInfo.activeProcessorCount) cores"
            )
            try await measure(indexURL: indexed.url, naiveURL: naive?.url, seekers: picked)
        } catch {
            for app in apps { await stop(app) }
            throw error
        }
        for app in apps { await stop(app) }
    }

    // MARK: Servers

    private func start(_ config: Config, deckSource: DeckSource, migrate: Bool) async throws -> (app: Application, url: String) {
        let app = try await makeApplication(config)
        app.logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
        do {
            try await configure(
                app, config: config,
                dependencies: Dependencies(
                    clock: SystemClock(), mailer: DevelopmentOutbox(logger: app.logger),
                    media: LocalMediaStore(root: config.localMediaDirectory), deckSource: deckSource))
            if migrate { try await app.autoMigrate() }
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port else { throw ArgumentParser.ValidationError("server did not start") }
            return (app, "http://127.0.0.1:\(port)")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    private func stop(_ app: Application) async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    private func seedIfEmpty(_ app: Application) async throws {
        let total = dogs
        let start = ContinuousClock.now
        let seeded = try await app.pawpack.seedDemo(dogs: dogs, seed: seed, on: app.db, onlyIfEmpty: true) { done in
            if done % 50_000 == 0 || done == total {
                let seconds = (ContinuousClock.now - start).seconds
                print(String(format: "seeded %d of %d dogs (%.0f dogs/s)", done, total, Double(done) / max(seconds, 0.001)))
            }
        }
        if seeded { print(String(format: "seeded in %.0f s", (ContinuousClock.now - start).seconds)) }
    }

    // MARK: Measuring

    private func measure(indexURL: String, naiveURL: String?, seekers: [DeckBenchSeeker]) async throws {
        // Generous timeouts and connections: an overloaded server must show as latency in the
        // figures, not end the run.
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(300), read: .seconds(600)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = client.shutdown() }

        // Warm both servers (connection pools, page cache) on pages not measured below; the
        // naive one on two only, as each of its pages takes seconds at a million dogs.
        try await warm(client, indexURL, seekers)
        if let naiveURL {
            for seeker in seekers.suffix(2) { _ = try await deck(client, naiveURL, seeker) }
            try await compare(client, indexURL: indexURL, naiveURL: naiveURL, seekers: Array(seekers.prefix(naiveRequests)))
            // The naive pages took minutes: the client has closed the connections it warmed.
            try await warm(client, indexURL, seekers)
        }
        try await load(client, indexURL: indexURL, seekers: seekers)
    }

    /// Eight requests at a time, so that the open loop finds connections open (as a server under
    /// steady load would) rather than measuring the first connects of its first requests.
    private func warm(_ client: HTTPClient, _ indexURL: String, _ seekers: [DeckBenchSeeker]) async throws {
        let warming = Array(seekers.suffix(24))
        for start in stride(from: 0, to: warming.count, by: 8) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for seeker in warming[start..<min(start + 8, warming.count)] {
                    group.addTask { _ = try await deck(client, indexURL, seeker) }
                }
                try await group.waitForAll()
            }
        }
    }

    /// 1 and 2: the same pages, one request at a time, naive against index.
    private func compare(_ client: HTTPClient, indexURL: String, naiveURL: String, seekers compared: [DeckBenchSeeker]) async throws {
        var naiveTimes: [Double] = []
        var indexTimes: [Double] = []
        var cards = 0
        for seeker in compared {
            let (naivePage, naiveMs) = try await timed { try await deck(client, naiveURL, seeker) }
            let (indexPage, indexMs) = try await timed { try await deck(client, indexURL, seeker) }
            guard naivePage == indexPage else {
                let folder = FileManager.default.temporaryDirectory
                try? Data(buffer: naivePage).write(to: folder.appendingPathComponent("deck-naive.json"))
                try? Data(buffer: indexPage).write(to: folder.appendingPathComponent("deck-index.json"))
                print("the two pages are in \(folder.path)/deck-naive.json and deck-index.json")
                throw ArgumentParser.ValidationError("pages differ for pet \(seeker.petID): the index is wrong")
            }
            cards +=
                (try? JSONSerialization.jsonObject(with: Data(buffer: indexPage)) as? [String: Any])
                .flatMap { $0["items"] as? [Any] }?.count ?? 0
            naiveTimes.append(naiveMs)
            indexTimes.append(indexMs)
        }
        let naive = LatencySummary(naiveTimes)
        let sequential = LatencySummary(indexTimes)
        print("same pages on both paths: \(compared.count) of \(compared.count) decks, \(cards) cards")
        print("naive, one at a time: \(naive)")
        print("index, one at a time: \(sequential)")
        print(
            String(
                format: "index is %.0f× faster at p50 and %.0f× at p99",
                naive.p50 / max(sequential.p50, 0.001), naive.p99 / max(sequential.p99, 0.001)))
    }

    /// 3 and 4: the index under load.
    private func load(_ client: HTTPClient, indexURL: String, seekers: [DeckBenchSeeker]) async throws {
        // 3: open loop at the target rate.
        print("index, open loop at \(rate) req/s for \(duration) s: running")
        let (open, machine) = try await MachineTimes.during(sampleOn: client.eventLoopGroup.next()) {
            try await openLoop(client, indexURL: indexURL, seekers: seekers)
        }
        let answered = open.latencies.compactMap { $0 }
        print(
            String(
                format: "index, open loop at %d req/s for %d s: %.0f req/s answered, %d failed, %@", rate, duration,
                Double(answered.count) / open.seconds, open.latencies.count - answered.count, LatencySummary(answered).description))
        if let machine {
            print("machine during the open loop: \(machine)")
            let undisturbed = machine.undisturbed(open.latencies, due: open.due)
            print("index, open loop, the requests during which no CPU time was stolen: \(LatencySummary(undisturbed))")
        }

        // 4: closed loop for the ceiling.
        let clock = ContinuousClock()
        let closedTotal = max(concurrency, rate * 5)
        let closedBegin = clock.now
        let closed = try await withThrowingTaskGroup(of: [Double].self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    var samples: [Double] = []
                    var number = worker
                    while number < closedTotal {
                        let (_, ms) = try await timed { try await deck(client, indexURL, seekers[number % seekers.count]) }
                        samples.append(ms)
                        number += concurrency
                    }
                    return samples
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        let closedElapsed = (clock.now - closedBegin).seconds
        print(
            String(
                format: "index, closed loop with %d in flight: %.0f req/s, %@", concurrency,
                Double(closed.count) / closedElapsed, LatencySummary(closed).description))
    }

    /// Every request of the open loop is a timer on one of the client's event loops, which sends
    /// it when due through the client's future-based API, and its latency runs from that due
    /// time to the whole answer. Pacing with `Task.sleep` and a child task per request cost 2–7 %
    /// of the machine's CPU (a dispatch timer thread waking a worker thread per request), taken
    /// from the server being measured. Answers other than 200 and failures count as failed (nil).
    private func openLoop(_ client: HTTPClient, indexURL: String, seekers: [DeckBenchSeeker]) async throws -> OpenLoopRun {
        let total = rate * duration
        let intervalNanoseconds = Int64((1e9 / Double(rate)).rounded())
        let latencies = NIOLockedValueBox([Double?](repeating: nil, count: total))
        let requests = try seekers.map { seeker in
            try HTTPClient.Request(
                url: deckURL(indexURL, seeker), method: .GET,
                headers: ["Authorization": "Bearer \(seeker.accessToken)"])
        }
        // The first request is due a moment from now, once every timer is set: setting 6,000
        // of them takes a few milliseconds, which counted as latency of the first requests.
        let begin = NIODeadline.now() + .milliseconds(200)
        var answers: [EventLoopFuture<Void>] = []
        answers.reserveCapacity(total)
        for number in 0..<total {
            let due = begin + .nanoseconds(Int64(number) * intervalNanoseconds)
            let request = requests[number % requests.count]
            // Each timer on the next loop in turn, and its request sent from that loop: all of
            // them on one loop made that thread the client's alone to run, and queues formed.
            let loop = client.eventLoopGroup.next()
            let answered = loop.flatScheduleTask(deadline: due) {
                client.execute(request: request, eventLoop: .delegate(on: loop), deadline: .now() + .seconds(600)).map { response in
                    guard response.status == .ok else { return }
                    let milliseconds = Double((NIODeadline.now() - due).nanoseconds) / 1e6
                    latencies.withLockedValue { $0[number] = milliseconds }
                }
            }
            answers.append(answered.futureResult.recover { _ in })
        }
        try await EventLoopFuture.andAllComplete(answers, on: client.eventLoopGroup.next()).get()
        let seconds = Double((NIODeadline.now() - begin).nanoseconds) / 1e9
        let run = OpenLoopRun(
            latencies: latencies.withLockedValue { $0 }, seconds: seconds,
            begin: begin.uptimeNanoseconds, interval: UInt64(intervalNanoseconds))
        if let latencyLog { try run.writeLog(to: latencyLog) }
        return run
    }

    private func deckURL(_ base: String, _ seeker: DeckBenchSeeker) -> String {
        "\(base)/v1/pets/\(seeker.petID)/deck?limit=\(limit)"
    }

    private func deck(_ client: HTTPClient, _ base: String, _ seeker: DeckBenchSeeker) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: deckURL(base, seeker))
        request.headers.add(name: "Authorization", value: "Bearer \(seeker.accessToken)")
        let response = try await client.execute(request, timeout: .seconds(600))
        let body = try await response.body.collect(upTo: 8 << 20)
        guard response.status == .ok else {
            throw ArgumentParser.ValidationError("deck answered \(response.status.code): \(String(buffer: body))")
        }
        return body
    }
}

/// The open loop's latencies in the order the requests were due, nil where one failed
/// (`bench deck`; `bench chat` writes its log with it).
struct OpenLoopRun: Sendable {
    let latencies: [Double?]
    let seconds: Double
    /// When the first request was due and the time between two (CLOCK_MONOTONIC ns).
    let begin: UInt64
    let interval: UInt64

    func due(_ number: Int) -> UInt64 { begin + UInt64(number) * interval }

    /// One line per request, to lay the slowest out in time against what else the machine did.
    func writeLog(to path: String) throws {
        var lines = "# due_s due_monotonic_ns latency_ms (- for a failed request)\n"
        for (number, latency) in latencies.enumerated() {
            lines += String(
                format: "%.4f %llu %@\n", Double(due(number) - begin) / 1e9, due(number),
                latency.map { String(format: "%.2f", $0) } ?? "-")
        }
        try lines.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

private func timed<T>(_ work: () async throws -> T) async throws -> (T, Double) {
    let start = ContinuousClock.now
    let value = try await work()
    return (value, (ContinuousClock.now - start).seconds * 1000)
}

/// Latency percentiles in milliseconds (nearest rank).
struct LatencySummary: CustomStringConvertible {
    let sorted: [Double]

    init(_ samples: [Double]) { sorted = samples.sorted() }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }

    var p50: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }

    var description: String {
        String(
            format: "%d requests, ms p50 %.1f  p90 %.1f  p99 %.1f  max %.1f", sorted.count, p50, percentile(0.9), p99,
            sorted.last ?? 0)
    }
}
