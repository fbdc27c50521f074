import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PawpackServer
import Vapor

/// `pawpack bench care`: feeds logged and family dashboards opened through the real HTTP
/// server, on a community of families with a year of feeds.
///
/// The demo community's dogs are seeded first, then the bench's families over them with their
/// foods and feeds (`seedCareBench`); a folder or database that already holds them is used as
/// it is, so a second run starts measuring at once. The load is an open loop, as in `bench
/// deck`: `--rate` requests a second for `--duration` seconds, each a timer on the client's
/// event loops, its latency counted from when it was due. Every other request (by
/// `--feed-share`) logs a feed of one of the member's family's pets (`POST
/// /v1/pets/{petId}/feeds`, the usual portion of the usual food, as "Mark as fed" does) and the
/// others open the member's Care dashboard (`GET /v1/care`: ten pets with today's feeds, the 14
/// days' calories, foods and stock, and the next feed).
struct BenchCare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "care", abstract: "Care: feeds logged and family dashboards opened.")

    @ArgumentParser.Option(help: "Pets (and owners) in families.") var pets = 100_000
    @ArgumentParser.Option(help: "Families: the large ones of ten pets, the rest of one or two.") var families = 40_000
    @ArgumentParser.Option(help: "Families of ten pets.") var largeFamilies = 4_000
    @ArgumentParser.Option(help: "SQLite folder to keep the community in (default ./data/bench-care-<pets>).") var dataDir: String?
    @ArgumentParser.Option(help: "A PostgreSQL URL to run on instead of SQLite.") var databaseURL: String?
    @ArgumentParser.Option(help: "Open-loop requests per second, both kinds together.") var rate = 300
    @ArgumentParser.Option(help: "Open-loop seconds.") var duration = 30
    @ArgumentParser.Option(help: "Members of families of ten whose requests are sent, one per family.") var members = 2_000
    @ArgumentParser.Option(help: "The share of requests that log a feed; the rest open a dashboard.") var feedShare = 0.5
    @ArgumentParser.Option(help: "The server's log level.") var logLevel = "warning"
    @ArgumentParser.Option(help: "A file to write each open-loop request's latency to, one line each, to lay the slowest out in time.")
    var latencyLog: String?

    func validate() throws {
        guard (0...1).contains(feedShare) else { throw ValidationError("--feed-share is from 0 to 1") }
        guard rate > 0, duration > 0, members > 0 else { throw ValidationError("--rate, --duration and --members must be positive") }
    }

    func run() async throws {
        let folder = dataDir ?? "./data/bench-care-\(pets)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let config = try loadConfig(overrides: [
            "PAWPACK_ENV": "development", "PAWPACK_DATA_DIR": folder, "DATABASE_URL": databaseURL ?? "",
            "SMTP_URL": "", "LOG_LEVEL": logLevel,
        ])
        let app = try await makeApplication(config)
        app.logger.logLevel = Logger.Level(rawValue: logLevel) ?? .warning
        do {
            try await configure(
                app, config: config,
                dependencies: Dependencies(
                    clock: SystemClock(), mailer: DevelopmentOutbox(logger: app.logger),
                    media: LocalMediaStore(root: config.localMediaDirectory)))
            try await app.autoMigrate()
            try await seed(app)
            // As `pawpack serve` does: measured, the server is one that has been running.
            let holding = ContinuousClock.now
            app.pawpack.keepDatabaseInMemory(on: app)
            if let bytes = await app.pawpack.databaseHeldInMemory() {
                print(String(format: "database file held in memory: %d MB in %.1f s", bytes / 1_048_576, (ContinuousClock.now - holding).seconds))
            }
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port else { throw ValidationError("server did not start") }
            let counts = try await app.pawpack.careBenchCounts(on: app.db)
            let chosen = try await app.pawpack.careBenchMembers(count: members, on: app.db)
            guard !chosen.isEmpty else { throw ValidationError("no family of ten pets to act in") }
            print(
                "bench care: \(counts.pets) pets, \(counts.families) families, \(counts.feeds) feeds, "
                    + "\(databaseURL == nil ? "SQLite (\(folder))" : "PostgreSQL"), \(chosen.count) members of families of ten, "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
            try await measure(base: "http://127.0.0.1:\(port)", members: chosen)
            if let activity = app.pawpack.sqliteActivity { print("\(activity), since the server started") }
        } catch {
            await app.server.shutdown()
            try? await app.asyncShutdown()
            throw error
        }
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    private func seed(_ app: Application) async throws {
        let start = ContinuousClock.now
        let total = pets
        let seeded = try await app.pawpack.seedDemo(dogs: pets, seed: 1, on: app.db, onlyIfEmpty: true) { done in
            if done % 50_000 == 0 || done == total { print("seeded \(done) of \(total) dogs and owners") }
        }
        let families = try await app.pawpack.seedCareBench(
            pets: pets, families: self.families, largeFamilies: largeFamilies, on: app.db
        ) { step in
            print(String(format: "%@ (%.0f s)", step, (ContinuousClock.now - start).seconds))
        }
        if seeded || families { print(String(format: "community ready in %.0f s", (ContinuousClock.now - start).seconds)) }
    }

    // MARK: Measuring

    private enum Kind: Int { case feed, dashboard }

    private func measure(base: String, members: [CareBenchMember]) async throws {
        let client = OpenLoop.makeClient()
        defer { _ = client.shutdown() }

        // A dashboard shows the family's ten pets: checked, not assumed. Then warm the server
        // (its connections and pages) on a few members not measured first.
        let first = try await dashboard(client, base, members[0])
        let shown = (try? JSONSerialization.jsonObject(with: Data(buffer: first)) as? [String: Any])?["items"] as? [Any]
        guard shown?.count == members[0].pets.count else {
            throw ValidationError("the dashboard shows \(shown?.count ?? 0) pets, not the family's \(members[0].pets.count)")
        }
        for start in stride(from: 0, to: min(64, members.count), by: 8) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for member in members[start..<min(start + 8, members.count)].reversed() {
                    group.addTask { _ = try await dashboard(client, base, member) }
                }
                try await group.waitForAll()
            }
        }

        print("open loop at \(rate) req/s for \(duration) s, \(Int(feedShare * 100)) % feeds: running")
        let (requests, kinds) = try openLoopRequests(base: base, members: members)
        let outcome = try await OpenLoop.run(
            client, requests: requests, expected: kinds.map { $0 == .feed ? HTTPResponseStatus.created : .ok }, rate: rate)
        try OpenLoop.report(
            outcome,
            kinds: [Kind.feed, .dashboard].map { kind in
                (kind == .feed ? "feeds logged" : "dashboards opened", kinds.indices.filter { kinds[$0] == kind })
            }, latencyLog: latencyLog)
    }

    /// The requests, made before the clock starts; the k-th logs a feed when the feeds' share of
    /// the first k + 1 grows past that of the first k, so the two kinds interleave evenly.
    private func openLoopRequests(base: String, members: [CareBenchMember]) throws -> ([HTTPClient.Request], [Kind]) {
        let total = rate * duration
        var kinds: [Kind] = []
        var requests: [HTTPClient.Request] = []
        for number in 0..<total {
            let isFeed = Int(Double(number + 1) * feedShare) > Int(Double(number) * feedShare)
            let member = members[number % members.count]
            if isFeed {
                // Each member's family pets in turn.
                let pet = member.pets[(number / members.count) % member.pets.count]
                requests.append(
                    try HTTPClient.Request(
                        url: "\(base)/v1/pets/\(pet)/feeds", method: .POST,
                        headers: ["Authorization": "Bearer \(member.accessToken)", "Content-Type": "application/json"],
                        // "Log anyway": a member of the family may have fed the same pet a
                        // moment ago, and the bench's member has seen that and logs all the same.
                        body: .string(#"{"id":"\#(UUID().uuidString)","logAnyway":true}"#)))
            } else {
                requests.append(
                    try HTTPClient.Request(url: "\(base)/v1/care", method: .GET, headers: ["Authorization": "Bearer \(member.accessToken)"]))
            }
            kinds.append(isFeed ? .feed : .dashboard)
        }
        return (requests, kinds)
    }

    private func dashboard(_ client: HTTPClient, _ base: String, _ member: CareBenchMember) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: "\(base)/v1/care")
        request.headers.add(name: "Authorization", value: "Bearer \(member.accessToken)")
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 8 << 20)
        guard response.status == .ok else { throw ValidationError("GET /v1/care answered \(response.status.code): \(String(buffer: body))") }
        return body
    }
}
