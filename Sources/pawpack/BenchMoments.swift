import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PawpackServer
import Vapor

/// `pawpack bench moments`: feeds read, votes cast and the leaderboard opened through the real
/// HTTP server, on a community of members with friends and a year of photos.
///
/// The demo community's members are seeded first (one dog each), then their friendships,
/// photos, votes and the running contest's entries (`seedMomentsBench`); a folder or database
/// that already holds them is used as it is. The load is one open loop (as `bench care`) of
/// three kinds interleaved evenly: feed pages (`GET /v1/feeds/friends` and the contest's
/// entries, `GET /v1/contests/{id}/entries`, in turn) at `--rate`, votes (`PUT
/// /v1/photos/{id}/vote`) at `--vote-rate`, the leaderboard at `--leaderboard-rate`, and
/// member searches (`GET /v1/members?query=`: a name many have, a start nobody has, in turn)
/// at `--search-rate`.
struct BenchMoments: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moments", abstract: "Moments: friends and contest feeds read, votes cast, the leaderboard opened.")

    @ArgumentParser.Option(help: "Members (each with a dog).") var members = 100_000
    @ArgumentParser.Option(help: "Photos, spread over the members and the last year.") var photos = 1_000_000
    @ArgumentParser.Option(help: "The fewest friends a member draws.") var friendsLow = 2
    @ArgumentParser.Option(help: "The most friends a member draws.") var friendsHigh = 20
    @ArgumentParser.Option(help: "Entries in the running contest.") var entries = 3_000
    @ArgumentParser.Option(help: "SQLite folder to keep the community in (default ./data/bench-moments-<members>).") var dataDir: String?
    @ArgumentParser.Option(help: "A PostgreSQL URL to run on instead of SQLite.") var databaseURL: String?
    @ArgumentParser.Option(help: "Open-loop feed pages a second (friends and contest feeds in turn).") var rate = 300
    @ArgumentParser.Option(help: "Open-loop votes a second.") var voteRate = 100
    @ArgumentParser.Option(help: "Open-loop leaderboards a second.") var leaderboardRate = 20
    @ArgumentParser.Option(help: "Open-loop member searches a second (not in the goal's mix).") var searchRate = 0
    @ArgumentParser.Option(help: "Open-loop seconds.") var duration = 30
    @ArgumentParser.Option(help: "Members whose requests are sent.") var actors = 2_000
    @ArgumentParser.Option(help: "The server's log level.") var logLevel = "warning"
    @ArgumentParser.Option(help: "A file to write each open-loop request's latency to, one line each.") var latencyLog: String?

    func validate() throws {
        guard rate >= 0, voteRate >= 0, leaderboardRate >= 0, searchRate >= 0, allRates > 0, duration > 0, actors > 0 else {
            throw ValidationError("the rates may not be negative nor all 0; --duration and --actors must be positive")
        }
        guard friendsLow >= 0, friendsHigh >= friendsLow, members > friendsHigh + actors / 10 else {
            throw ValidationError("--friends-low ≤ --friends-high, and enough --members for them")
        }
    }

    func run() async throws {
        let folder = dataDir ?? "./data/bench-moments-\(members)"
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
            let holding = ContinuousClock.now
            app.pawpack.keepDatabaseInMemory(on: app)
            if let bytes = await app.pawpack.databaseHeldInMemory() {
                print(String(format: "database file held in memory: %d MB in %.1f s", bytes / 1_048_576, (ContinuousClock.now - holding).seconds))
            }
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port else { throw ValidationError("server did not start") }
            let counts = try await app.pawpack.momentsBenchCounts(on: app.db)
            let world = try await app.pawpack.momentsBenchWorld(members: actors, votable: max(1, voteRate * duration), on: app.db)
            print(
                "bench moments: \(counts.members) members, \(counts.friendships) friendships, \(counts.photos) photos, "
                    + "\(counts.entries) contest entries, \(databaseURL == nil ? "SQLite (\(folder))" : "PostgreSQL"), "
                    + "\(world.members.count) members acting, \(ProcessInfo.processInfo.activeProcessorCount) cores")
            try await measure(base: "http://127.0.0.1:\(port)", world: world)
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
        let total = members
        let seeded = try await app.pawpack.seedDemo(dogs: members, seed: 1, on: app.db, onlyIfEmpty: true) { done in
            if done % 50_000 == 0 || done == total { print("seeded \(done) of \(total) dogs and owners") }
        }
        let made = try await app.pawpack.seedMomentsBench(
            photos: photos, friendsLow: friendsLow, friendsHigh: friendsHigh, entries: entries, on: app.db
        ) { step in
            print(String(format: "%@ (%.0f s)", step, (ContinuousClock.now - start).seconds))
        }
        if seeded || made { print(String(format: "community ready in %.0f s", (ContinuousClock.now - start).seconds)) }
    }

    private enum Kind: Hashable { case friendsFeed, contestFeed, vote, leaderboard, search }

    private var allRates: Int { rate + voteRate + leaderboardRate + searchRate }

    /// What the searches look for, in turn: starts of names the demo community's members share
    /// (a few thousand each) and starts nobody has.
    private static let searchStarts = ["ma", "zq", "felix", "xq"]

    private func measure(base: String, world: MomentsBenchWorld) async throws {
        let client = OpenLoop.makeClient()
        defer { _ = client.shutdown() }

        // Each kind once, checked, then the server warmed on a few members not measured first.
        let total = allRates * duration
        let warm = min(64, world.members.count)
        let (warming, warmKinds) = try requests(base: base, world: world, count: warm * 4, firstMember: world.members.count - warm)
        for (request, kind) in zip(warming, warmKinds) where kind != .vote {
            let response = try await client.execute(request: request).get()
            guard response.status == .ok else { throw ValidationError("\(kind) answered \(response.status.code)") }
        }
        print(
            "open loop for \(duration) s: \(rate) feed pages, \(voteRate) votes, \(leaderboardRate) leaderboards and \(searchRate) "
                + "searches a second: running")
        let (sent, kinds) = try requests(base: base, world: world, count: total, firstMember: 0)
        let outcome = try await OpenLoop.run(client, requests: sent, expected: kinds.map { _ in .ok }, rate: allRates)
        let names: [(Kind, String)] = [
            (.friendsFeed, "friends feed pages"), (.contestFeed, "contest feed pages"), (.vote, "votes"), (.leaderboard, "leaderboards"),
            (.search, "member searches"),
        ].filter { kind, _ in kind != .search || searchRate > 0 }
        try OpenLoop.report(outcome, kinds: names.map { kind, name in (name, kinds.indices.filter { kinds[$0] == kind }) }, latencyLog: latencyLog)
    }

    /// `count` requests, the kinds interleaved evenly by their rates (each request is of the
    /// kind furthest behind its share so far), each member in turn.
    private func requests(base: String, world: MomentsBenchWorld, count: Int, firstMember: Int) throws -> ([HTTPClient.Request], [Kind]) {
        let all = Double(allRates)
        let shares: [(Kind, Double)] = [
            (.vote, Double(voteRate) / all), (.leaderboard, Double(leaderboardRate) / all), (.search, Double(searchRate) / all),
            (.friendsFeed, Double(rate) / all),
        ]
        var made: [Kind: Int] = [:]
        var requests: [HTTPClient.Request] = []
        var kinds: [Kind] = []
        var feeds = 0
        var votes = 0
        var searches = 0
        for number in 0..<count {
            let member = world.members[(firstMember + number) % world.members.count]
            let headers: HTTPHeaders = ["Authorization": "Bearer \(member.accessToken)"]
            let behind = shares.max { a, b in
                Double(number + 1) * a.1 - Double(made[a.0, default: 0]) < Double(number + 1) * b.1 - Double(made[b.0, default: 0])
            }
            var kind = behind?.0 ?? .friendsFeed
            made[kind, default: 0] += 1
            switch kind {
            case .vote:
                let photo = world.votable[votes % world.votable.count]
                votes += 1
                requests.append(try HTTPClient.Request(url: "\(base)/v1/photos/\(photo)/vote", method: .PUT, headers: headers))
            case .leaderboard:
                requests.append(try HTTPClient.Request(url: "\(base)/v1/contests/\(world.contest)/leaderboard", method: .GET, headers: headers))
            case .search:
                let start = Self.searchStarts[searches % Self.searchStarts.count]
                searches += 1
                requests.append(try HTTPClient.Request(url: "\(base)/v1/members?query=\(start)", method: .GET, headers: headers))
            case .friendsFeed, .contestFeed:
                // The feed pages alternate between the friends feed and the contest's entries.
                kind = feeds % 2 == 0 ? .friendsFeed : .contestFeed
                feeds += 1
                let path = kind == .friendsFeed ? "/v1/feeds/friends" : "/v1/contests/\(world.contest)/entries"
                requests.append(try HTTPClient.Request(url: base + path, method: .GET, headers: headers))
            }
            kinds.append(kind)
        }
        return (requests, kinds)
    }
}
