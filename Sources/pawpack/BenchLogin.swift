import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import PawpackServer
import Vapor

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure Pawpack through its real HTTP server.",
        subcommands: [BenchLogin.self, BenchDeck.self, BenchChat.self, BenchCare.self, BenchMoments.self]
    )
}

/// `pawpack bench login`: sign-in throughput under bcrypt through the real server, on a
/// temporary SQLite database. Sign-in is bound by bcrypt by design, so the figure to watch
/// is throughput against the cost of one hash times the number of cores.
struct BenchLogin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "login", abstract: "Login throughput and latency.")

    @ArgumentParser.Option(help: "Total logins to send.") var requests = 64
    @ArgumentParser.Option(help: "Logins in flight at once.") var concurrency = 8
    @ArgumentParser.Option(help: "bcrypt cost.") var cost = 12

    func run() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pawpack-bench-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let config = try loadConfig(overrides: [
            "PAWPACK_ENV": "development", "PAWPACK_DATA_DIR": dataDirectory, "PAWPACK_BCRYPT_COST": String(cost),
            "PAWPACK_LOGIN_FAILURES_PER_ADDRESS": "1000000", "DATABASE_URL": "", "SMTP_URL": "",
            "PAWPACK_HASH_QUEUE": String(max(64, concurrency * 2)), "LOG_LEVEL": "warning",
        ])
        let app = try await makeApplication(config)
        app.logger.logLevel = .warning
        let outbox = DevelopmentOutbox(logger: app.logger)
        do {
            try await configure(
                app, config: config,
                dependencies: Dependencies(
                    clock: SystemClock(), mailer: outbox, media: LocalMediaStore(root: config.localMediaDirectory)))
            try await app.autoMigrate()
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            guard let port = app.http.server.shared.localAddress?.port else { throw ArgumentParser.ValidationError("server did not start") }
            try await measure(baseURL: "http://127.0.0.1:\(port)", outbox: outbox)
        } catch {
            await app.server.shutdown()
            try? await app.asyncShutdown()
            throw error
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    private func measure(baseURL: String, outbox: DevelopmentOutbox) async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { _ = client.shutdown() }
        let email = "bench@example.com"
        let password = "correct horse battery"
        _ = try await post(
            client, "\(baseURL)/v1/auth/signup",
            [
                "email": email, "password": password, "username": "bench", "displayName": "Bench",
                "dateOfBirth": "1990-01-01",
            ], expect: 201)
        guard
            let link = outbox.messages(to: email).last?.text.split(separator: "\n")
                .first(where: { $0.contains("token=") }), let token = link.components(separatedBy: "token=").last
        else {
            throw ArgumentParser.ValidationError("no verification mail")
        }
        _ = try await post(client, "\(baseURL)/v1/auth/verify-email", ["token": token], expect: 200)

        // One bcrypt hash at this cost on this machine, for the expected ceiling.
        let hashStart = ContinuousClock.now
        _ = try Bcrypt.hash(password, cost: cost)
        let hashSeconds = (ContinuousClock.now - hashStart).seconds
        let cores = ProcessInfo.processInfo.activeProcessorCount

        print("bench login: \(requests) logins, \(concurrency) in flight, bcrypt cost \(cost), \(cores) cores")
        let start = ContinuousClock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            let perWorker = requests / concurrency
            let extra = requests % concurrency
            for worker in 0..<concurrency {
                let count = perWorker + (worker < extra ? 1 : 0)
                group.addTask {
                    var samples: [Double] = []
                    for _ in 0..<count {
                        let begin = ContinuousClock.now
                        _ = try await post(
                            client, "\(baseURL)/v1/auth/login",
                            ["email": email, "password": password], expect: 200)
                        samples.append((ContinuousClock.now - begin).seconds * 1000)
                    }
                    return samples
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }.sorted()
        let elapsed = (ContinuousClock.now - start).seconds
        func percentile(_ p: Double) -> Double {
            latencies[min(latencies.count - 1, Int((Double(latencies.count) * p).rounded(.up)) - 1)]
        }
        let throughput = Double(latencies.count) / elapsed
        let ceiling = Double(cores) / hashSeconds
        print(String(format: "one bcrypt hash: %.0f ms → ceiling ≈ %.1f logins/s on %d cores", hashSeconds * 1000, ceiling, cores))
        print(String(format: "throughput: %.1f logins/s (%.0f%% of the bcrypt ceiling)", throughput, throughput / ceiling * 100))
        print(
            String(
                format: "latency ms: p50 %.0f  p90 %.0f  p99 %.0f  max %.0f",
                percentile(0.5), percentile(0.9), percentile(0.99), latencies.last ?? 0))
    }

    private func post(_ client: HTTPClient, _ url: String, _ body: [String: String], expect: Int) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(body)))
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard Int(response.status.code) == expect else {
            throw ArgumentParser.ValidationError("\(url) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return bytes
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
