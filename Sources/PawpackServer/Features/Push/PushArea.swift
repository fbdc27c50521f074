import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Devices and the pushes sent to them (the outbox and its worker are built with the spine).
    static let push = Area(
        name: "Push",
        services: { services in [DeviceService(providers: services.push.providers, clock: services.dependencies.clock)] },
        migrations: PushMigrations.all,
        pages: { app, services in PushPages(devices: services.devices).register(on: app) },
        export: { document, scope in
            document.devices = try await scope.services.devices.devices(of: scope.me, on: scope.db).map(Components.Schemas.Device.init)
        },
        inboxPanel: { req, services in PushPages.inboxCard(req, vapidKey: services.push.providers.vapidPublicKey) }
    )
}

extension PawpackServices {
    var devices: DeviceService { area(DeviceService.self) }
}
