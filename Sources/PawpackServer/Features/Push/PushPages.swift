import Foundation
import PawpackCore
import Plot
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

extension PushPages {
    /// The inbox's card that turns notifications on for this browser (`Area.inboxPanel`); the
    /// script shows it only where the browser can receive pushes, and sends the subscription
    /// here. Nothing without a Web Push key.
    static func inboxCard(_ req: Request, vapidKey: String?) -> Node<HTML.BodyContext>? {
        guard let key = vapidKey else { return nil }
        return .section(
            .class("card"), .id("push-card"), .attribute(named: "hidden"), .data(named: "vapid-key", value: key),
            .data(named: "subscribe", value: WebPath.pushSubscription), .data(named: "unsubscribe", value: WebPath.pushUnsubscription),
            .data(named: "csrf", value: req.csrfToken),
            .h2(.text("On this device")),
            .p(
                .class("muted"), .id("push-status"), .attribute(named: "role", value: "status"),
                .text("Get a notification here when something happens, even with Pawpack closed.")),
            .button(.type(.button), .class("button secondary"), .id("push-toggle"), Icon.bell.node(), .text("Turn on notifications")))
    }
}
