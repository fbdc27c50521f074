import ArgumentParser
import Foundation
import Logging
import NIOCore
import NIOPosix
import PawpackServer
import Vapor

@main
enum Entrypoint {
    static func main() async {
        // Swift concurrency runs on NIO's event loops instead of a pool of its own: an async
        // handler that awaits the database or a socket resumes on the thread that completed
        // it, instead of waking a second thread and switching to it (on two cores those
        // switches cost more than the deck itself). Must come first, before any other task.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await Pawpack.main()
    }
}

struct Pawpack: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pawpack",
        abstract: "The Pawpack pet-community server.",
        subcommands: [Serve.self, Migrate.self, SeedDemo.self, Contests.self, Bench.self],
        defaultSubcommand: Serve.self
    )
}

/// Reads the configuration or exits with the message naming the bad variable.
func loadConfig(overrides: [String: String] = [:]) throws -> Config {
    var variables = Config.environmentVariables()
    variables.merge(overrides) { _, new in new }
    do {
        return try Config.load(from: variables)
    } catch let error as ConfigError {
        throw ArgumentParser.ValidationError(error.description)
    }
}

/// Logs as text in development and as JSON lines in production, with secrets redacted; once per process.
func bootstrapLogging(_ config: Config) {
    let level = Logger.Level(rawValue: config.logLevel) ?? .info
    LoggingSystem.bootstrap { label in
        var handler: any LogHandler =
            config.logFormat == .json
            ? JSONLogHandler(label: label) : StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        // Every line, Pawpack's and its libraries', with credentials blanked.
        return RedactingLogHandler(handler)
    }
}

func makeApplication(_ config: Config, arguments: [String] = ["pawpack"]) async throws -> Application {
    let name = config.isProduction ? "production" : "development"
    return try await Application.make(Environment(name: name, arguments: arguments))
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (migrates the database first).")

    @ArgumentParser.Option(help: "Address to listen on (env PAWPACK_HOST; default 127.0.0.1).")
    var hostname: String?

    @ArgumentParser.Option(help: "Port to listen on (env PAWPACK_PORT; default 8080).")
    var port: Int?

    @ArgumentParser.Flag(help: "On an empty database, seed a small demo community first (log in as \(DemoCommunity.demoEmail)).")
    var demo = false

    func run() async throws {
        var overrides: [String: String] = [:]
        if let hostname { overrides["PAWPACK_HOST"] = hostname }
        if let port { overrides["PAWPACK_PORT"] = String(port) }
        let config = try loadConfig(overrides: overrides)
        bootstrapLogging(config)
        // Vapor's own serve command runs the server and shuts it down gracefully on SIGINT
        // and SIGTERM (in-flight requests finish, connections close, the pool drains).
        let app = try await makeApplication(config, arguments: ["pawpack", "serve"])
        do {
            try await configure(app, config: config, dependencies: .live(for: config, logger: app.logger))
            try await app.autoMigrate()
            if demo, try await app.pawpack.seedDemo(dogs: 300, seed: 1, on: app.db, onlyIfEmpty: true) {
                app.logger.notice("Demo community ready: log in as \(DemoCommunity.demoEmail) / \(DemoCommunity.demoPassword)")
            }
            // On SQLite the deck reads its index from memory: load it before the first deck.
            try await app.pawpack.warmDeck(on: app.db)
            // And the database file's pages, in the background: the first requests after a
            // start should not each wait for disk reads.
            app.pawpack.keepDatabaseInMemory(on: app)
            app.logger.info(
                "Pawpack is listening",
                metadata: [
                    "url": .string(config.publicBaseURL), "environment": .string(config.environment.rawValue),
                    "database": .string("\(config.database)".components(separatedBy: "@").last ?? ""),
                ])
            try await app.execute()
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        // Stopping is bounded whatever the push services, SMTP or the database do: the stop
        // cancels background rounds and closes sockets itself; this is the last resort.
        let logger = app.logger
        let bound = config.stopSeconds
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: TimeInterval(bound))
            logger.warning("stop took longer than PAWPACK_STOP_SECONDS; exiting now", metadata: ["seconds": "\(bound)"])
            Foundation.exit(0)
        }
        try await app.asyncShutdown()
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database schema up to date and exit.")

    func run() async throws {
        let config = try loadConfig()
        bootstrapLogging(config)
        try await withMigratedApplication(config) { app in app.logger.info("Database is up to date") }
    }
}

/// Configures the application, brings the schema up to date, runs `body` and shuts down: what
/// every command that does its work and exits (`migrate`, `contests rotate`) needs around it.
func withMigratedApplication(_ config: Config, _ body: (Application) async throws -> Void) async throws {
    let app = try await makeApplication(config)
    do {
        try await configure(app, config: config, dependencies: .live(for: config, logger: app.logger))
        try await app.autoMigrate()
        try await body(app)
    } catch {
        try? await app.asyncShutdown()
        throw error
    }
    try await app.asyncShutdown()
}

struct SeedDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo",
        abstract: "Add a deterministic demo community (one dog per owner, around five cities).")

    @ArgumentParser.Option(help: "How many dogs (and owners).") var dogs = 1000
    @ArgumentParser.Option(help: "The seed: the same seed gives the same community.") var seed: UInt64 = 1

    func run() async throws {
        let config = try loadConfig()
        bootstrapLogging(config)
        let app = try await makeApplication(config)
        do {
            try await configure(app, config: config, dependencies: .live(for: config, logger: app.logger))
            try await app.autoMigrate()
            let total = dogs
            let start = ContinuousClock.now
            _ = try await app.pawpack.seedDemo(dogs: dogs, seed: seed, on: app.db, onlyIfEmpty: false) { done in
                if done % 10_000 == 0 || done == total { print("seeded \(done) of \(total) dogs") }
            }
            print("done in \(ContinuousClock.now - start); log in as \(DemoCommunity.demoEmail) / \(DemoCommunity.demoPassword)")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}
