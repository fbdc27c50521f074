import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import OpenAPIRuntime
import OpenAPIVapor
import PawpackAPI
import Vapor

/// Builds the whole server on `app`: database, the areas' migrations, services, middleware,
/// the OpenAPI handlers and the areas' pages. `serve`, `bench` and every test call this same
/// function; a test may add an area of its own.
package func configure(
    _ app: Application, config: Config, dependencies: Dependencies,
    areas: Areas = .all
) async throws {
    var config = config
    if config.secret.isEmpty {
        config.secret = try developmentSecret(config)
    }
    app.http.server.configuration.hostname = config.hostname
    app.http.server.configuration.port = config.port
    // Web forms; the API's bodies are bounded by `BodyLimitMiddleware`, uploads by their own limit.
    app.routes.defaultMaxBodySize = ByteCount(value: config.maximumBodyBytes)
    app.logger.logLevel = Logger.Level(rawValue: config.logLevel) ?? .info

    // The process's pool of blocking threads, for the work that only takes CPU (cleaning
    // images): shared by every server in a process, as before.
    let sharedThreads = app.threadPool
    if case .sqliteFile = config.database { useThreadsOfItsOwn(app) }
    try configureDatabase(app, config: config)
    if case .sqliteFile = config.database, let sql = app.db as? any SQLDatabase {
        // WAL lets readers run while one writer commits: the default for a served file.
        try await sql.raw("PRAGMA journal_mode=WAL").run()
        try await tuneSQLiteConnections(app)
    }
    // In order: an area's migrations may refer to tables of the ones before it.
    for migration in areas.list.flatMap(\.migrations) {
        app.migrations.add(migration)
    }

    let pushProviders = try await PushProviders.make(
        config: config, client: dependencies.pushClient,
        clock: dependencies.clock, logger: app.logger)
    let services = PawpackServices(
        config: config, dependencies: dependencies, areas: areas.list,
        assets: try WebAssets(areas: areas.list),
        pushProviders: pushProviders, threadPool: sharedThreads, logger: app.logger)
    app.pawpack = services
    // Events are written as the API writes its answers.
    services.realtime.use { APIHandler(services: services).mapping }
    if case .postgres(let url) = config.database {
        let postgres = try SQLPostgresConfiguration(url: url)
        let realtime = services.realtime
        let fanOut = PostgresFanOut(
            configuration: postgres, hub: realtime.hub,
            closeEndedSessions: { user, db in
                await realtime.closeEndedSessions(of: user, on: db)
            },
            database: { [unowned app] in
                // None once the server has shut its databases (Fluent's `app.db` would trap).
                app.databases.database(logger: app.logger, on: app.eventLoopGroup.any())
            })
        services.realtime.fanOut.withLockedValue { $0 = fanOut }
    }
    app.lifecycle.use(PawpackServicesLifecycle(services: services))
    if let file = try await sqliteFilePath(app) {
        services.hotReads.useOwnConnections(toSQLiteFile: file)
        try services.writes.useOwnConnection(toSQLiteFile: file, logger: app.logger)
    }

    // Order matters: a read request first goes to the least busy event loop, so that all the
    // rest of its work runs there; the request context is bound next; errors become problems twice —
    // inside the web session layer, so an error page still gets its cookies (a stale session
    // cookie is cleared on the redirect to log in), and outside it, for its own failures.
    let problems = ProblemMiddleware(pageRenderer: WebPages.errorPage)
    app.middleware = Middlewares()
    app.middleware.use(EventLoopBalancer(loops: app.eventLoopGroup))
    app.middleware.use(RequestContextMiddleware(sendsHSTS: config.secureCookies))
    app.middleware.use(problems)
    app.middleware.use(WebSessionMiddleware())
    app.middleware.use(problems)

    let uploads = Set(areas.list.flatMap(\.uploadOperations))
    let bodyLimit = BodyLimitMiddleware { [config] operation in
        // A photo, the smaller copies an app made of it (a moment's display size and thumbnail,
        // at most 4 and 1 MiB) and the form around it; every other body is JSON.
        uploads.contains(operation) ? config.maximumUploadBytes + 5 * 1_048_576 + 256 * 1_024 : config.maximumBodyBytes
    }
    let contract = try OpenAPIDocument.yaml()
    let noNulls = NoNullMembersMiddleware(contract: String(decoding: contract, as: UTF8.self))
    try APIHandler(services: services).registerHandlers(
        on: VaporTransport(routesBuilder: app), configuration: .pawpack,
        middlewares: [ContentNegotiationMiddleware(), bodyLimit, noNulls])

    app.get("openapi.yaml") { _ in
        Response(status: .ok, headers: ["Content-Type": "application/yaml"], body: .init(data: contract))
    }
    try WebRoutes(services: services).register(on: app)
}

private func configureDatabase(_ app: Application, config: Config) throws {
    switch config.database {
    case .sqliteFile(let path):
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        // The database, and the journal files SQLite gives its permissions, for the server's
        // user only: created empty here so SQLite never makes it readable by others.
        if !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        app.databases.use(.sqlite(.file(path), maxConnectionsPerEventLoop: 1), as: .sqlite)
    case .postgres(let url):
        app.databases.use(
            .postgres(
                configuration: try SQLPostgresConfiguration(url: url), maxConnectionsPerEventLoop: config.databaseConnectionsPerEventLoop),
            as: .psql)
    }
}

/// Gives a server on an SQLite file a pool of blocking threads of its own, with two more
/// threads than it has SQLite connections (one per event loop), instead of the process's shared
/// pool with one per core. Each statement of a Fluent SQLite connection runs on this pool, and
/// waits there for as long as another connection holds the file: with the shared pool, the
/// connections waiting (of this server or of another in the same process, as in the tests)
/// could take every thread, and the one holding the file then never got one to run its next
/// statement or its commit. Here at most all but one of this server's connections wait, so the
/// holder always finds a thread; files read from disk use the rest. Images are cleaned on the
/// shared pool, as before: a pool per server would let many servers' CPU work crowd out their
/// event loops.
private func useThreadsOfItsOwn(_ app: Application) {
    let connections = Array(app.eventLoopGroup.makeIterator()).count
    app.threadPool = NIOThreadPool(numberOfThreads: connections + 2)
}

/// Reads of a served SQLite file go through memory-mapped pages instead of a `pread` system
/// call per page missing from the connection's cache, and that cache holds 64 MiB instead of
/// 2 (a deck's cards, their owners, photos and vaccinations are a few hundred pages).
/// These settings belong to a connection: with one connection per event loop, asking each
/// loop's pool reaches every connection. A connection the pool reopens later runs with the
/// defaults, which is slower, not wrong.
///
/// A connection that finds the file held by another waits asleep (SQLite's own busy handler:
/// 1, 2, 5, 10 … 100 ms between tries, for up to 30 s) instead of in SQLiteNIO's, which tries
/// again at once for as long as it takes: a core per waiting connection, taken from the one
/// holding the file (with many test servers in one process, the whole suite ran twice as slow).
private func tuneSQLiteConnections(_ app: Application) async throws {
    for eventLoop in app.eventLoopGroup.makeIterator() {
        guard let sql = app.databases.database(logger: app.logger, on: eventLoop) as? any SQLDatabase else { continue }
        try await sql.raw("PRAGMA busy_timeout = 30000").run()
        try await sql.raw("PRAGMA mmap_size = 2147418112").run()
        try await sql.raw("PRAGMA cache_size = -65536").run()
    }
}

/// The file behind an SQLite database, as SQLite itself names it; nil on PostgreSQL.
private func sqliteFilePath(_ app: Application) async throws -> String? {
    guard app.db is any SQLiteDatabase else { return nil }
    let databases = try await app.db.sql.raw("PRAGMA database_list").all()
    for database in databases where try database.decode(column: "name", as: String.self) == "main" {
        let file = try database.decode(column: "file", as: String.self)
        return file.isEmpty ? nil : file
    }
    return nil
}

/// Stops the hashing pool and closes the hot reads' connections with the application.
private struct PawpackServicesLifecycle: LifecycleHandler {
    let services: PawpackServices

    func didBootAsync(_ application: Application) async throws {
        services.realtime.startForgetting(retention: services.config.eventRetention, on: application.db, logger: application.logger)
        services.realtime.fanOut.withLockedValue { $0 }?.start(on: application.eventLoopGroup.next(), logger: application.logger)
        services.jobs.start(every: services.config.jobInterval, on: application.db, logger: application.logger)
        services.push.start(every: services.config.push.interval, on: application.db)
    }

    func shutdownAsync(_ application: Application) async {
        services.beginStopping()
        await services.stopBackgroundWork()
        await services.closeSockets()
        try? await services.hasher.shutdown()
        services.hotReads.close()
        await services.writes.close()
        services.databaseKeeper.withLockedValue { $0?.stop() }
    }
}

/// Production must set PAWPACK_SECRET (Config refuses to start without it). In development a
/// random secret is kept in the data folder so emailed links survive a restart; tests get a
/// fresh one each run.
private func developmentSecret(_ config: Config) throws -> String {
    let random = OpaqueToken.generate(prefix: "")
    guard config.isDevelopment else { return random }
    let path = (config.dataDirectory as NSString).appendingPathComponent(".secret")
    if let saved = try? String(contentsOfFile: path, encoding: .utf8), saved.utf8.count >= 32 {
        return saved
    }
    try FileManager.default.createDirectory(
        atPath: config.dataDirectory, withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
    // Unwritable, the secret lasts this run only: links emailed before a restart stop working.
    _ = FileManager.default.createFile(atPath: path, contents: Data(random.utf8), attributes: [.posixPermissions: 0o600])
    return random
}
