import Fluent
import Foundation
import Logging
import PawpackServer
import PostgresNIO
import SQLKit
import Vapor

/// The database every test server starts from, migrated once per test run instead of once per
/// server (every migration of every area took about 0.2 s of each server's start on SQLite and
/// 0.5 s on PostgreSQL): an SQLite file each server copies, or a PostgreSQL database each server's
/// database is created from (`CREATE DATABASE … TEMPLATE`). A server whose areas add migrations
/// (a test's own area) runs just those on its copy.
package actor MigratedTemplate {
    package static let shared = MigratedTemplate()

    private var sqlite: Task<String, any Error>?
    private var postgres: Task<(template: String, admin: PostgresClient), any Error>?
    private var adminRun: Task<Void, Never>?
    private let logger = Logger(label: "pawpack.test-databases")

    /// A new database named `name`, a copy of the migrated template, on the server of `url`;
    /// its URL.
    func postgresDatabase(named name: String, from url: String) async throws -> String {
        let (template, admin) = try await postgresTemplate(url: url)
        _ = try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.quoted(name)) TEMPLATE \(Self.quoted(template))"), logger: logger)
        return Self.url(url, database: name)
    }

    func dropPostgresDatabase(named name: String) async {
        guard let postgres, let (_, admin) = try? await postgres.value else { return }
        _ = try? await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(Self.quoted(name)) WITH (FORCE)"), logger: logger)
    }

    private func postgresTemplate(url: String) async throws -> (template: String, admin: PostgresClient) {
        if let postgres { return try await postgres.value }
        let task = Task { () async throws -> (template: String, admin: PostgresClient) in
            let admin = PostgresClient(configuration: try Self.clientConfiguration(url))
            self.keepRunning(admin)
            let template = "pawpack_template_\(ProcessInfo.processInfo.processIdentifier)_\(UUID().uuidString.prefix(8).lowercased())"
            _ = try await admin.query(
                PostgresQuery(unsafeSQL: "CREATE DATABASE \(Self.quoted(template))"), logger: Logger(label: "pawpack.test-databases"))
            var config = Config()
            config.environment = .testing
            config.secret = "test-secret-test-secret-test-secret-0123456789"
            config.logLevel = "warning"
            config.database = .postgres(url: Self.url(url, database: template))
            let app = try await Application.make(.testing)
            app.logger.logLevel = .warning
            do {
                try await Self.configureForMigrating(app, config: config)
                try await app.autoMigrate()
            } catch {
                try? await app.asyncShutdown()
                throw error
            }
            // A template may have no other session while databases are made from it.
            try await app.asyncShutdown()
            return (template, admin)
        }
        postgres = task
        return try await task.value
    }

    private func keepRunning(_ admin: PostgresClient) {
        adminRun = Task { await admin.run() }
    }

    /// The test server's address as a client of its own: the user's database of `url`.
    private static func clientConfiguration(_ url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user else {
            throw Abort(.internalServerError, reason: "PAWPACK_TEST_POSTGRES_URL is not a postgres://user@host:port/database URL")
        }
        return .init(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: components.path.isEmpty ? nil : String(components.path.dropFirst()), tls: .disable)
    }

    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `url` naming another database on the same server.
    private static func url(_ url: String, database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    private static func configureForMigrating(_ app: Application, config: Config) async throws {
        try await PawpackServer.configure(
            app, config: config,
            dependencies: Dependencies(
                clock: SystemClock(), mailer: DevelopmentOutbox(logger: app.logger),
                media: LocalMediaStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-template-media").path)))
    }

    /// Where a server's copy lives.
    static func sqliteCopyPath(for name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-test-\(name).sqlite").path
    }

    static func removeSQLiteCopy(for name: String) {
        let path = sqliteCopyPath(for: name)
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Copies the migrated file to `path`, migrating it first if this run has not yet.
    func copySQLite(to path: String, config: Config) async throws {
        let template: String
        if let sqlite {
            template = try await sqlite.value
        } else {
            let path = FileManager.default.temporaryDirectory
                .appendingPathComponent("pawpack-template-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString.prefix(8)).sqlite").path
            var config = config
            config.database = .sqliteFile(path)
            let task = Task { try await Self.migrate(config: config, path: path) }
            sqlite = task
            template = try await task.value
        }
        try FileManager.default.copyItem(atPath: template, toPath: path)
    }

    /// The production `configure` and every migration on a new file, closed so that a plain copy
    /// holds everything.
    private static func migrate(config: Config, path: String) async throws -> String {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        do {
            try await configureForMigrating(app, config: config)
            try await app.autoMigrate()
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        // The last connection to close folds the write-ahead log into the file and removes it.
        try await app.asyncShutdown()
        guard (try? FileManager.default.attributesOfItem(atPath: path + "-wal")) == nil else {
            throw Abort(.internalServerError, reason: "the migrated template kept its write-ahead log")
        }
        // The template outlives the servers; the operating system's temporary folder keeps it tidy.
        return path
    }
}
