import Foundation
import PawpackCore
import Vapor

/// A browser's Web Push subscription, sent by the inbox page's script (`notifications.js`)
/// with the page's CSRF token: this browser becomes one of the member's devices, or stops.
struct PushPages {
    let devices: DeviceService

    func register(on routes: any RoutesBuilder) {
        routes.post(WebPath.pushSubscription.pathComponents, use: subscribe)
        routes.post(WebPath.pushUnsubscription.pathComponents, use: unsubscribe)
    }

    struct SubscriptionForm: Content {
        var endpoint: String?
        var p256dh: String?
        var auth: String?
    }

    /// The browser's `PushSubscription`, sent by the script with the page's CSRF token.
    @Sendable func subscribe(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(SubscriptionForm.self)
        let keys = WebPushKeys(p256dh: form.p256dh ?? "", auth: form.auth ?? "")
        let (_, created) = try await devices.register(
            (
                platform: PushPlatform.web.rawValue, token: form.endpoint ?? "", appID: nil,
                environment: nil, webKeys: keys
            ), for: try user.requireID(), on: req.db)
        return Response(status: created ? .created : .ok)
    }

    @Sendable func unsubscribe(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(SubscriptionForm.self)
        try await devices.unregisterWeb(endpoint: form.endpoint ?? "", of: try user.requireID(), on: req.db)
        return Response(status: .noContent)
    }
}
