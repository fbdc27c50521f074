import Foundation
import PawpackCore
import Plot
import Vapor

/// The inbox behind the bell: newest first, unread ones marked, each opening its page (and
/// read by that); "mark all read"; and what other areas add below it (`Area.inboxPanel`: Push's
/// card that turns notifications on for this device).
struct NotificationPages {
    let notifications: NotificationService
    let services: PawpackServices

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
        // What other areas add below the inbox (Push: the card that turns pushes on here).
        var panels: [Node<HTML.BodyContext>] = []
        for area in services.areas {
            if let panel = area.inboxPanel, let node = try await panel(req, services) { panels.append(node) }
        }
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
                    .p(
                        .a(
                            .class("button quiet"), .id("inbox-more"), .href(WebPath.notifications + "?cursor=" + next.text),
                            .text("Older notifications")))
                },
                .group(panels)
            ))
    }

    /// Reads the notification and goes where it leads.
    @Sendable func open(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.notification)
        let item = try await notifications.markRead(try user.requireID(), notification: id, on: req.db)
        return WebPages.redirect(item.opens)
    }

    @Sendable func readAll(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await notifications.markAllRead(try user.requireID(), on: req.db)
        return WebPages.redirect(WebPath.notifications, flash: .allRead)
    }
}
