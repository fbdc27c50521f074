import Fluent
import PawpackCore

extension Area {
    /// Durable events and the sockets that carry them (`RealtimeEvents`, built with the spine).
    static let realtime = Area(
        name: "Realtime",
        migrations: RealtimeMigrations.all,
        pages: { app, services in RealtimeRoutes(services: services).register(on: app) }
    )
}
