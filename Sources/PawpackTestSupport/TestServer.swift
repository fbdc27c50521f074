import AsyncHTTPClient
import Fluent
import Foundation
import NIOCore
import PawpackAPI
import PawpackCore
import PawpackServer
import SQLKit
import Vapor

/// A real Pawpack server for one test: the production `configure`, a pinned clock, the
/// development outbox, and an HTTP port on 127.0.0.1. The database is a fresh SQLite file (a
/// copy of one migrated once per run), or a fresh database of the PostgreSQL server named by
/// `PAWPACK_TEST_POSTGRES_URL`.
package struct TestServer: Sendable {
    package let app: Application
    package let baseURL: String
    package let clock: PinnedClock
    package let outbox: DevelopmentOutbox
    package let config: Config
    /// Where this server's photos are stored (removed when the test ends).
    package let mediaFolder: String
    /// Its name: of its PostgreSQL database, its SQLite file and its media folder.
    package let schema: String

    /// The port the server listens on, on 127.0.0.1.
    package var port: Int { Int(baseURL.split(separator: ":").last ?? "") ?? 0 }

    /// 2026-03-01 12:00 UTC: a fixed "now" so ages and expiries are the same on every run.
    package static let startDate = Date(timeIntervalSince1970: 1_772_366_400)

    package static var postgresURL: String? {
        ProcessInfo.processInfo.environment["PAWPACK_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs `body` against a fresh server and always shuts it down, also when the test throws.
    /// Every member's location grid shifted by half a cell, so distances between test places
    /// are the same from run to run.
    package static let centredGrid = LocationBlur.Offset(north: 0.5, east: 0.5)

    /// `sharing` another test server runs a second instance on its database, which the first
    /// one drops at its end. `configure` builds the app: the
    /// production one unless a test adds an area of its own.
    package static func run<T: Sendable>(
        sharing first: TestServer? = nil,
        adjust: (inout Config) -> Void = { _ in },
        configure: (Application, Config, Dependencies) async throws -> Void = { try await PawpackServer.configure($0, config: $1, dependencies: $2) },
        locationOffsets: @escaping @Sendable () -> LocationBlur.Offset = { TestServer.centredGrid },
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        var config = Config()
        config.environment = .testing
        config.hostname = "127.0.0.1"
        config.port = 0
        config.secret = "test-secret-test-secret-test-secret-0123456789"
        config.bcryptCost = 4 // the rules are the same at any cost; cost 12 is for production
        config.publicBaseURL = "http://pawpack.test"
        config.logLevel = "warning"
        // Tests sign many members up from one address; the limit has a test of its own.
        config.mailRequestsPerClientPerHour = 10_000
        let schema = first?.schema ?? String("t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16))
        let ownsSchema = first == nil
        if let first {
            config.database = first.config.database
        } else if let url = postgresURL {
            // A database of its own, made from one migrated once for the run (`MigratedTemplate`).
            config.database = .postgres(url: try await MigratedTemplate.shared.postgresDatabase(named: String(schema), from: url))
            // Two, the fewest that keep a request from waiting behind a scheduled round: the
            // suite runs hundreds of servers against one PostgreSQL.
            config.databaseConnectionsPerEventLoop = 2
        } else {
            // A copy of a file migrated once for the whole run (`MigratedTemplate`), removed at the end.
            config.database = .sqliteFile(MigratedTemplate.sqliteCopyPath(for: schema))
        }
        adjust(&config)
        if ownsSchema, case .sqliteFile(let path) = config.database, path == MigratedTemplate.sqliteCopyPath(for: schema) {
            try await MigratedTemplate.shared.copySQLite(to: path, config: config)
        }
        defer { if ownsSchema { MigratedTemplate.removeSQLiteCopy(for: schema) } }

        let clock = PinnedClock(startDate)
        var mailLogger = Logger(label: "pawpack.mail")
        mailLogger.logLevel = .warning
        let outbox = DevelopmentOutbox(logger: mailLogger)
        let mediaFolder = FileManager.default.temporaryDirectory
            .appendingPathComponent("pawpack-media-\(schema)" + (ownsSchema ? "" : "-\(UUID().uuidString.prefix(8))")).path
        defer { try? FileManager.default.removeItem(atPath: mediaFolder) }
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        var started = false
        do {
            try await configure(
                app, config,
                Dependencies(
                    clock: clock, mailer: outbox, media: LocalMediaStore(root: mediaFolder), locationOffsets: locationOffsets,
                    pushClient: LocalTLS.client))
            try await app.autoMigrate()
            try await app.asyncBoot()
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            started = true
            guard let port = app.http.server.shared.localAddress?.port else {
                throw Abort(.internalServerError, reason: "test server has no port")
            }
            let server = TestServer(
                app: app, baseURL: "http://127.0.0.1:\(port)", clock: clock,
                outbox: outbox, config: config, mediaFolder: mediaFolder, schema: schema)
            let result = try await body(server)
            await server.stop(schema: ownsSchema ? schema : nil)
            return result
        } catch {
            // Stopped as after a test that passed: background work (the scheduled jobs, pushes)
            // left running opens database connections while the pools shut, and SQLiteKit drops
            // a connection it could not set up then without closing it, which traps in a debug
            // build and ends the whole run.
            if started {
                await app.pawpack.closeSockets()
                await app.server.shutdown()
                await app.pawpack.stopBackgroundWork()
                await waitForDatabaseLeases(app)
            }
            try? await app.asyncShutdown()
            if ownsSchema { await dropDatabase(config: config, name: schema) }
            throw error
        }
    }

    private func stop(schema: String?) async {
        // As `serve` stops: sockets a test left open close first (the server waits for its
        // connections to end, up to its shutdown timeout).
        await app.pawpack.closeSockets()
        await app.server.shutdown()
        // Nothing may still be reading the database when it goes.
        await app.pawpack.stopBackgroundWork()
        await Self.waitForDatabaseLeases(app)
        try? await app.asyncShutdown()
        if let schema { await Self.dropDatabase(config: config, name: schema) }
    }

    /// Waits until nothing holds a connection of the app's SQLite pools. A connection still
    /// leased as the pools close is closed when it comes back, which may be after the app's
    /// thread pool has stopped: the close then fails, and SQLiteNIO traps on a connection it
    /// drops unclosed in a debug build, ending the whole run. Each event loop's pool has one
    /// connection (`configure`), so holding it for a moment means every lease before has ended.
    private static func waitForDatabaseLeases(_ app: Application) async {
        guard app.databases.configuration(for: .sqlite) != nil else { return }
        for loop in app.eventLoopGroup.makeIterator() {
            guard let db = app.databases.database(.sqlite, logger: app.logger, on: loop) else { continue }
            try? await db.withConnection { _ in }
        }
    }

    /// Drops the test's PostgreSQL database once its app is shut.
    private static func dropDatabase(config: Config, name: String) async {
        guard case .postgres = config.database else { return }
        await MigratedTemplate.shared.dropPostgresDatabase(named: name)
    }

    // MARK: HTTP

    package struct Reply: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: Data

        /// The body as a JSON object (empty when it is not one).
        package var json: [String: any Sendable] {
            ((try? JSONSerialization.jsonObject(with: body)) as? [String: any Sendable]) ?? [:]
        }

        package var text: String { String(decoding: body, as: UTF8.self) }

        /// The problem `code` of an error reply.
        package var code: String? { json["code"] as? String }

        /// The body read as `T`, a type of the contract (`Components.Schemas`) most often, its
        /// dates as the contract writes them.
        package func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .custom { decoder in
                try RFC3339DateTranscoder().decode(try decoder.singleValueContainer().decode(String.self))
            }
            return try decoder.decode(type, from: body)
        }
    }

    /// Sends one request. `json` is encoded as a JSON object; `raw` is sent as it is.
    package func request(
        _ method: HTTPMethod, _ path: String, json: [String: String]? = nil, raw: String? = nil,
        contentType: String? = nil, token: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: json)))
        } else if let raw {
            request.headers.add(name: "Content-Type", value: contentType ?? "application/json")
            request.body = .bytes(ByteBuffer(string: raw))
        }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await TestBrowser.client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 8 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }

    /// One part of a multipart/form-data body.
    package struct FormPart: Sendable {
        package var name: String
        package var filename: String?
        package var contentType: String?
        package var data: Data

        package init(name: String, filename: String? = nil, contentType: String? = nil, data: Data) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.data = data
        }
    }

    /// Sends a multipart/form-data POST, as a phone uploading a photo would.
    package func upload(_ path: String, parts: [FormPart], token: String?) async throws -> Reply {
        let boundary = "pawpack-test-\(UUID().uuidString)"
        var body = Data()
        for part in parts {
            var header = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { header += "; filename=\"\(filename)\"" }
            header += "\r\n"
            if let type = part.contentType { header += "Content-Type: \(type)\r\n" }
            header += "\r\n"
            body.append(Data(header.utf8))
            body.append(part.data)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "multipart/form-data; boundary=\(boundary)")
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await TestBrowser.client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 32 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }

    /// Sends JSON that is not a flat string map (numbers, arrays, nested objects).
    package func send(_ method: HTTPMethod, _ path: String, object: [String: any Sendable], token: String?) async throws -> Reply {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try await request(method, path, raw: String(decoding: data, as: UTF8.self), token: token)
    }

    /// Every file under the media folder, relative to it.
    package func storedMediaFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: mediaFolder) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: (mediaFolder as NSString).appendingPathComponent($0),
                isDirectory: &isDirectory)
            return exists && !isDirectory.boolValue
        }
    }

    /// Waits until `count` instances listen for each other's announcements on this PostgreSQL
    /// database (their `LISTEN` connections are open), instead of guessing how long that takes;
    /// fails after 5 s.
    package func instancesListening(_ count: Int) async throws {
        guard let sql = app.db as? any SQLDatabase else { throw TestFailure("the database does not speak SQL") }
        for _ in 0..<100 {
            let row = try await sql.raw(
                """
                SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'
                """
            ).first()
            if try row?.decode(column: "n", as: Int.self) ?? 0 >= count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("fewer than \(count) instances listen")
    }

    /// Waits until the member's sockets have acknowledged event `seq` and the server wrote it
    /// (acknowledgements are written a batch at a time, a few times a second); false after 5 s.
    package func acknowledged(_ user: User.ID, reaching seq: Int64) async throws -> Bool {
        guard let sql = app.db as? any SQLDatabase else { throw TestFailure("the database does not speak SQL") }
        for _ in 0..<100 {
            let row = try await sql.raw("SELECT acked_seq FROM realtime_counters WHERE user_id = \(bind: user)").first()
            if try row?.decode(column: "acked_seq", as: Int64.self) ?? 0 >= seq { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    /// Rows per table, for proving what a deletion removed.
    package func rowCounts() async throws -> [String: Int] {
        guard let sql = app.db as? any SQLDatabase else { throw TestFailure("the database does not speak SQL") }
        let tables: [String]
        if case .postgres = config.database {
            tables = try await sql.raw("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()")
                .all().map { try $0.decode(column: "name", as: String.self) }
        } else {
            tables = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                .all().map { try $0.decode(column: "name", as: String.self) }
        }
        var counts: [String: Int] = [:]
        for table in tables {
            let row = try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first()
            counts[table] = try row?.decode(column: "n", as: Int.self) ?? 0
        }
        return counts
    }
}
