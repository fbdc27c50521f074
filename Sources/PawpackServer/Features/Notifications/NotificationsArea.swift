import Fluent
import PawpackAPI
import PawpackCore
import SQLKit

extension Area {
    /// The inbox every area writes to (`NotificationService`, built with the spine), and mutes.
    static let notifications = Area(
        name: "Notifications",
        migrations: NotificationMigrations.all,
        pages: { app, services in
            NotificationPages(notifications: services.notifications, services: services).register(on: app)
        },
        script: "notifications",
        badges: [
            .init(id: WebPages.Badge.unreadNotifications, one: " unread", many: " unread", live: true) { me in
                """
                SELECT COUNT(*) FROM "notifications" WHERE "user_id" = \(bind: me) AND "read_at" IS NULL
                """
            }
        ],
        flashes: [.notificationSettings],
        export: { document, scope in
            document.notificationSettings = Components.Schemas.NotificationSettings(
                muted: try await scope.services.notifications.mutedKinds(of: scope.me, on: scope.db))
        }
    )
}

extension WebPages.Badge {
    static let unreadNotifications = "bell-count"
}

extension Flash {
    static let notificationSettings = Flash("notification-settings", "Saved: you hear about what is ticked.")
}
