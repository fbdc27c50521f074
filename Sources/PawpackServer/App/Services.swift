import AsyncHTTPClient
import Fluent
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PawpackCore
import Vapor

/// The side effects chosen at start-up. Production passes the live ones; tests pass a pinned
/// clock and an outbox.
package struct Dependencies: Sendable {
    package var clock: any AppClock
    package var mailer: any Mailer
    package var media: any MediaStore
    /// Draws a member's location grid (`LocationBlur`) when they first give a position.
    package var locationOffsets: @Sendable () -> LocationBlur.Offset
    /// What pushes go out through (`Config.push` names the services); tests pass one that
    /// trusts their local push services' certificate.
    package var pushClient: HTTPClient
    /// Where the deck reads its candidates: the index, or one of the plain designs
    /// `pawpack bench deck` and the tests compare it with.
    package var deckSource: DeckSource

    package init(
        clock: any AppClock, mailer: any Mailer, media: any MediaStore,
        locationOffsets: @escaping @Sendable () -> LocationBlur.Offset = { LocationBlur.Offset.random() },
        pushClient: HTTPClient = .shared, deckSource: DeckSource = .index
    ) {
        self.clock = clock
        self.mailer = mailer
        self.media = media
        self.locationOffsets = locationOffsets
        self.pushClient = pushClient
        self.deckSource = deckSource
    }

    /// The system clock and the mail transport the configuration names.
    package static func live(for config: Config, logger: Logger) -> Dependencies {
        let mailer: any Mailer
        switch config.mail {
        case .developmentOutbox:
            mailer = DevelopmentOutbox(logger: logger)
        case .smtp(let settings):
            mailer = SMTPMailer(settings: settings, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger)
        }
        let media: any MediaStore
        switch config.media {
        case .localFiles:
            media = LocalMediaStore(root: config.localMediaDirectory)
        case .s3(let settings):
            media = S3MediaStore(settings: settings)
        }
        // Development's clock can be moved forward (`/dev/clock`); production's is the system's.
        let clock: any AppClock = config.isDevelopment ? DevelopmentClock() : SystemClock()
        return Dependencies(clock: clock, mailer: mailer, media: media)
    }
}

/// The spine every area stands on (the clock and configuration, realtime events, the inbox,
/// pushes, scheduled jobs, the fast SQLite paths) and each area's services, built once in
/// `configure` and reached through `app.pawpack`: `services.pets` is declared in Pets' folder.
package final class PawpackServices: Sendable {
    package let config: Config
    package let dependencies: Dependencies
    /// The areas, in order (`Areas.all`, and a test's own).
    let areas: [Area]
    /// What the pages' frame takes from the areas: tabs, badges, flashes.
    let shell: WebShell
    /// The stylesheet, the page script and the service worker (`Resources/web`).
    let assets: WebAssets
    let notifications: NotificationService
    /// Pushes waiting to go, and the worker that sends them.
    let push: PushOutbox
    /// The areas' work due later, every `Config.jobInterval`.
    let jobs = ScheduledJobs()
    /// Durable events and the sockets of this process.
    let realtime: RealtimeEvents
    let hasher: PasswordHasher
    /// The reads nearly every request makes; on an SQLite file, through connections of their own.
    let hotReads = HotReads()
    /// The transactions that write most; on an SQLite file, through a connection of their own.
    let writes = SQLWrites()
    /// The SQLite file held in memory, once `keepDatabaseInMemory` started it.
    let databaseKeeper = NIOLockedValueBox<DatabaseKeeper?>(nil)
    /// The one way in for photos, whichever area takes them.
    let photos: PhotoIntake
    let logger: Logger
    /// Whether the deck index's rows are held in memory: where this process owns the database
    /// (SQLite) and reads from the index; PostgreSQL instances are many and stateless.
    let deckRowsInMemory: Bool
    /// What the areas keep derived from pets (`Area.followsPets`), once their services exist.
    private let petFollowerList = NIOLockedValueBox<[PetFollower]>([])
    /// Each area's services, by type (`area(_:)`).
    private let areaServices = NIOLockedValueBox<[ObjectIdentifier: any Sendable]>([:])

    /// Set as the server begins to stop: `/healthz` answers 503 from then on, so a load
    /// balancer sends the requests to another instance.
    private let stoppingFlag = NIOLockedValueBox(false)

    package var isStopping: Bool { stoppingFlag.withLockedValue { $0 } }

    package func beginStopping() {
        stoppingFlag.withLockedValue { $0 = true }
    }

    /// Stops what runs against the database by itself (forgetting old events, scheduled jobs,
    /// the PostgreSQL listener), waiting for work under way; at shutdown, and by tests before
    /// they drop their schema. Stopping twice changes nothing.
    package func stopBackgroundWork() async {
        await realtime.stopForgetting()
        await jobs.stop()
        await push.stop()
        await realtime.fanOut.withLockedValue { $0 }?.stop()
        await realtime.acknowledgements.stop()
    }

    /// Closes every realtime socket as going away: `serve` does it as it stops, before its
    /// HTTP server stops (which waits for open connections), and so do tests.
    package func closeSockets() async {
        await realtime.hub.closeAll()
    }

    init(
        config: Config, dependencies: Dependencies, areas: [Area], assets: WebAssets, pushProviders: PushProviders,
        threadPool: NIOThreadPool, logger: Logger
    ) {
        self.config = config
        self.dependencies = dependencies
        self.areas = areas
        self.shell = WebShell(areas: areas)
        self.assets = assets
        self.logger = logger
        self.photos = PhotoIntake(
            media: dependencies.media, maximumBytes: config.maximumUploadBytes, imageWork: threadPool,
            logger: logger)
        self.hasher = PasswordHasher(
            cost: config.bcryptCost, threads: config.hashingThreads,
            queueLimit: config.hashingQueueLimit)
        var rowsInMemory = dependencies.deckSource == .index
        if case .postgres = config.database { rowsInMemory = false }
        self.deckRowsInMemory = rowsInMemory
        let clock = dependencies.clock
        self.realtime = RealtimeEvents(
            hub: RealtimeHub(socketsPerMember: config.socketsPerMember), clock: clock,
            writes: writes,
            openSessions: { user, db in
                try await SessionService.openSessions(of: user, policy: config.sessions, now: clock.now(), on: db)
            })
        self.push = PushOutbox(
            providers: pushProviders, acknowledgements: realtime.acknowledgements,
            clock: dependencies.clock, logger: logger)
        // The inbox knows nothing of pushes: the spine hands each notification on to the outbox.
        self.notifications = NotificationService(
            realtime: realtime, clock: dependencies.clock, policy: config.notifications,
            carry: { [push] notifications, statements in try await push.enqueue(notifications, in: statements) })
        for area in areas {
            for service in area.services(self) {
                areaServices.withLockedValue { $0[ObjectIdentifier(type(of: service))] = service }
            }
        }
        jobs.use(areas.flatMap { $0.jobs(self) })
        let followers = areas.compactMap { $0.followsPets?(self) }
        petFollowerList.withLockedValue { $0 = followers }
    }

    /// Every area's `PetFollower`, for Pets to tell of changes.
    var petFollowers: PetFollowers {
        PetFollowers { [petFollowerList] in petFollowerList.withLockedValue { $0 } }
    }

    /// An area's service, built by its `Area.services`.
    func area<Service: Sendable>(_ type: Service.Type) -> Service {
        guard let service = areaServices.withLockedValue({ $0[ObjectIdentifier(type)] }) as? Service else {
            fatalError("no area built a \(type): list its area before the areas that use it")
        }
        return service
    }

    /// The development outbox, when mail goes there.
    package var outbox: DevelopmentOutbox? { dependencies.mailer as? DevelopmentOutbox }
}

extension Application {
    private struct PawpackServicesKey: StorageKey {
        typealias Value = PawpackServices
    }

    package var pawpack: PawpackServices {
        get {
            guard let services = storage[PawpackServicesKey.self] else {
                fatalError("configure(_:config:dependencies:) has not run")
            }
            return services
        }
        set { storage[PawpackServicesKey.self] = newValue }
    }
}

extension Request {
    var pawpack: PawpackServices { application.pawpack }
}

extension PawpackServices {
    /// Loads the deck index's rows into memory now, when this server keeps them there (SQLite),
    /// so that the first deck after a start does not wait for it. Returns the rows held.
    @discardableResult
    package func warmDeck(on db: any Database) async throws -> Int {
        try await deck.deckIndex.warm(on: db)
        return deck.deckIndex.resident?.count ?? 0
    }

    /// Starts holding a served SQLite file's pages in memory (`ResidentFile`), so that no
    /// request waits for a page read from disk: after a start every page is cold. Returns at
    /// once; the pages are read in on the thread pool. Nothing on PostgreSQL or with a budget
    /// of 0 (PAWPACK_SQLITE_RESIDENT_MB).
    package func keepDatabaseInMemory(on app: Application) {
        guard case .sqliteFile(let path) = config.database, config.sqliteResidentBytes > 0 else { return }
        let keeper = DatabaseKeeper(
            file: ResidentFile(path: path, budget: config.sqliteResidentBytes),
            threadPool: app.threadPool, eventLoop: app.eventLoopGroup.next(), logger: app.logger)
        databaseKeeper.withLockedValue { previous in
            previous?.stop()
            previous = keeper
        }
    }

    /// What the own SQLite connections did so far, in a line for the benches: reads answered,
    /// handed to Fluent because the file was busy, and prepared again; transactions written,
    /// their commits and those handed to Fluent; checkpoints. Nil without them.
    package var sqliteActivity: String? {
        let reads = hotReads.counts
        let writes = self.writes.counts
        let checkpoints = self.writes.checkpoints
        guard reads.own + reads.busy + writes.own + writes.busy > 0 else { return nil }
        return "own SQLite connections: \(reads.own) reads (\(reads.busy) busy, \(reads.reprepared) prepared again), "
            + "\(writes.own) transactions in \(writes.commits) commits (\(writes.busy) busy, "
            + "the slowest \(String(format: "%.1f", writes.slowestCommitMilliseconds)) ms, \(writes.commitsOver10ms) over 10 ms), "
            + "\(checkpoints.asked) checkpoints (\(checkpoints.restarts) emptied the WAL, \(checkpoints.inPlace) in place)"
    }

    /// Waits for `keepDatabaseInMemory`'s first pass: the bytes of the file held, or nil when
    /// nothing is (not started, PostgreSQL, over the budget, or it failed).
    package func databaseHeldInMemory() async -> Int? {
        guard let keeper = databaseKeeper.withLockedValue({ $0 }) else { return nil }
        guard case .held(_, let fileBytes) = await keeper.firstPass.value else { return nil }
        return fileBytes
    }
}
