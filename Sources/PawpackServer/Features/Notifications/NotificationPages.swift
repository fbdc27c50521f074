import Foundation
import PawpackCore
import Plot
import Vapor

/// The inbox behind the bell: newest first, the ones new since the last visit marked, each
/// opening its page. Opening the inbox reads them all, as the bell's count promises. Below:
/// what the member hears about (each kind may be muted) and what other areas add
/// (`Area.inboxPanel`: Push's card that turns notifications on for this device).
struct NotificationPages {
    let notifications: NotificationService
    let services: PawpackServices

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.notifications.pathComponents, use: inbox)
        routes.post(WebPath.openNotification(Param.notification).pathComponents, use: open)
        routes.post(WebPath.notificationSettings.pathComponents, use: saveSettings)
    }

    @Sendable func inbox(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let page = try await notifications.list(me, limit: 50, cursor: req.query[String.self, at: "cursor"], on: req.db)
        // The page shows what was new; having seen it, nothing is unread any more.
        if page.unread > 0 {
            try await notifications.markAllRead(me, on: req.db)
            req.unreadNotifications = 0
        }
        let muted = try await notifications.mutedKinds(of: me, on: req.db)
        let kinds = services.areas.flatMap(\.notificationKinds)
        // What other areas add below the inbox (Push: the card that turns pushes on here).
        var panels: [Node<HTML.BodyContext>] = []
        for area in services.areas {
            if let panel = area.inboxPanel, let node = try await panel(req, services) { panels.append(node) }
        }
        // What areas add to entries (Care: "Mark as fed").
        var extras: [Notifications.Notification.ID: [Node<HTML.BodyContext>]] = [:]
        for item in page.items {
            for area in services.areas {
                if let extra = area.inboxItem, let node = try await extra(req, item, services) { extras[item.id, default: []].append(node) }
            }
        }
        return WebPages.page(
            req, title: "Notifications",
            main: .group(
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
                                    TimeViews.time(item.updatedAt, style: .full),
                                    .if(item.readAt == nil, .span(.class("visually-hidden"), .text(" (new)"))))),
                            .group(extras[item.id] ?? []))
                    }),
                .unwrap(page.next) { next in
                    .p(
                        .a(
                            .class("button quiet"), .id("inbox-more"), .href(WebPath.notifications + "?cursor=" + next.text),
                            .text("Older notifications")))
                },
                .form(
                    .class("card"), .id("notification-settings"), .action(WebPath.notificationSettings), .method(.post),
                    WebPages.csrfField(req),
                    FormControls.chips(
                        "Tell me about", name: "hear", options: kinds.map { ($0.rawValue, $0.title) },
                        selected: Set(kinds.filter { !muted.contains($0) }.map(\.rawValue)),
                        hint: "What you turn off is neither in this inbox nor pushed to your devices."),
                    WebPages.submit("Save", id: "notification-settings-submit")),
                .group(panels)
            ))
    }

    struct SettingsForm: Content {
        var hear: [String]?
    }

    /// Mutes every kind the form leaves unticked.
    @Sendable func saveSettings(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let hear = Set(try req.content.decode(SettingsForm.self).hear ?? [])
        let muted = Set(services.areas.flatMap(\.notificationKinds).filter { !hear.contains($0.rawValue) })
        try await notifications.setMutedKinds(muted, of: try user.requireID(), on: req.db)
        return WebPages.redirect(WebPath.notifications, flash: .notificationSettings)
    }

    /// Reads the notification and goes where it leads.
    @Sendable func open(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.notification)
        let item = try await notifications.markRead(try user.requireID(), notification: id, on: req.db)
        return WebPages.redirect(item.opens)
    }

}
