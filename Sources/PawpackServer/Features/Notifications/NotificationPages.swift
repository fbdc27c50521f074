import Foundation
import PawpackCore
import Plot
import Vapor

/// The inbox behind the bell: newest first, unread ones marked, each opening its page (and
/// read by that); "mark all read"; and, where the browser can, notifications on this device
/// through Web Push (the subscription is sent by the script).
struct NotificationPages {
    let notifications: NotificationService
    /// The server's Web Push key, for the card that turns pushes on (`PushPages` takes the
    /// subscription).
    let vapidPublicKey: String?

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.notifications.pathComponents, use: inbox)
        routes.post(WebPath.openNotification(Param.notification).pathComponents, use: open)
        routes.post(WebPath.readAllNotifications.pathComponents, use: readAll)
    }

    @Sendable func inbox(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let page = try await notifications.list(
            try user.requireID(), limit: 50, cursor: req.query[String.self, at: "cursor"],
            on: req.db)
        let vapidKey = vapidPublicKey
        return WebPages.page(
            req, title: "Notifications",
            main: .group(
                .if(
                    page.unread > 0,
                    .form(
                        .action(WebPath.readAllNotifications), .method(.post), WebPages.csrfField(req),
                        .button(.type(.submit), .class("link"), .id("read-all"), .text("Mark all as read")))),
                .if(
                    page.items.isEmpty,
                    .div(
                        .class("empty"), .id("inbox-empty"), Icon.bell.node(),
                        .p(.text("Nothing yet. Requests, matches, messages and meet-ups show up here.")))),
                .ul(
                    .class("inbox"), .id("inbox"),
                    .forEach(page.items) { item in
                        .li(
                            .class(item.readAt == nil ? "inbox-item unread" : "inbox-item"), .id("notification-\(item.id)"),
                            .form(
                                .action(WebPath.openNotification(item.id)), .method(.post), WebPages.csrfField(req),
                                .button(
                                    .type(.submit),
                                    .strong(.text(item.title)),
                                    .span(.class("inbox-body"), .text(item.count > 1 ? "\(item.body) (\(item.count) messages)" : item.body)),
                                    TimeViews.time(item.updatedAt, style: .short),
                                    .if(item.readAt == nil, .span(.class("visually-hidden"), .text(" (unread)"))))))
                    }),
                .unwrap(page.next) { next in
                    .p(.a(.id("inbox-more"), .href(WebPath.notifications + "?cursor=" + next.text), .text("Older notifications")))
                },
                // Shown by the script only where the browser can receive pushes.
                .unwrap(vapidKey) { key in
                    .section(
                        .class("card"), .id("push-card"), .attribute(named: "hidden"), .data(named: "vapid-key", value: key),
                        .data(named: "subscribe", value: WebPath.pushSubscription), .data(named: "unsubscribe", value: WebPath.pushUnsubscription),
                        .data(named: "csrf", value: req.csrfToken),
                        .h2(.text("On this device")),
                        .p(
                            .class("muted"), .id("push-status"), .attribute(named: "role", value: "status"),
                            .text("Get a notification here when something happens, even with Pawpack closed.")),
                        .button(.type(.button), .class("button secondary"), .id("push-toggle"), Icon.bell.node(), .text("Turn on notifications")))
                }
            ))
    }

    /// Reads the notification and goes where it leads.
    @Sendable func open(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.notification)
        let item = try await notifications.markRead(try user.requireID(), notification: id, on: req.db)
        return WebPages.redirect(PushOutbox.path(of: item))
    }

    @Sendable func readAll(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await notifications.markAllRead(try user.requireID(), on: req.db)
        return WebPages.redirect(WebPath.notifications, flash: .allRead)
    }
}
