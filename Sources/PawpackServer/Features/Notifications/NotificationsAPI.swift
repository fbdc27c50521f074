import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var notifications: NotificationService { services.notifications }

    func listNotifications(_ input: Operations.ListNotifications.Input) async throws -> Operations.ListNotifications.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 20
        guard (1...50).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 50") }
        let page = try await notifications.list(
            try auth.user.requireID(), limit: limit, cursor: input.query.cursor,
            on: auth.request.db)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map(Components.Schemas.Notification.init), nextCursor: page.next?.text,
                        unreadCount: page.unread))))
    }

    func markNotificationRead(_ input: Operations.MarkNotificationRead.Input) async throws -> Operations.MarkNotificationRead.Output {
        let auth = try await authenticated()
        try await notifications.markRead(
            try auth.user.requireID(), notification: try pathID(input.path.notificationId),
            on: auth.request.db)
        return .noContent(.init())
    }

    func markAllNotificationsRead(_ input: Operations.MarkAllNotificationsRead.Input) async throws
        -> Operations.MarkAllNotificationsRead.Output
    {
        let auth = try await authenticated()
        try await notifications.markAllRead(try auth.user.requireID(), on: auth.request.db)
        return .noContent(.init())
    }

    func getNotificationSettings(_ input: Operations.GetNotificationSettings.Input) async throws
        -> Operations.GetNotificationSettings.Output
    {
        let auth = try await authenticated()
        let muted = try await notifications.mutedKinds(of: try auth.user.requireID(), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.NotificationSettings(muted: muted))))
    }

    func updateNotificationSettings(_ input: Operations.UpdateNotificationSettings.Input) async throws
        -> Operations.UpdateNotificationSettings.Output
    {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        guard body.muted.count <= NotificationKind.allCases.count else {
            throw Problem.invalidField("muted", "must name at most \(NotificationKind.allCases.count) kinds")
        }
        let kinds = Set(body.muted.compactMap { NotificationKind(rawValue: $0.rawValue) })
        try await notifications.setMutedKinds(kinds, of: try auth.user.requireID(), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.NotificationSettings(muted: kinds))))
    }
}

// MARK: Mapping

extension Components.Schemas.Notification {
    init(_ notification: NotificationValue) {
        self.init(
            id: notification.id.description, kind: .init(rawValue: notification.kind.rawValue)!,
            title: notification.title, body: notification.body, chatId: notification.chat?.description,
            meetupId: notification.meetup?.description, petId: notification.pet?.description, count: notification.count,
            createdAt: notification.createdAt, updatedAt: notification.updatedAt, read: notification.readAt != nil)
    }
}

extension Components.Schemas.NotificationSettings {
    init(muted: Set<NotificationKind>) {
        self.init(muted: NotificationKind.allCases.filter(muted.contains).map { .init(rawValue: $0.rawValue)! })
    }
}

// MARK: Realtime events

extension RealtimeEventValue {
    /// A new notification, or one that counts one more message, with the unread count.
    static func notification(_ notification: NotificationValue, unreadCount: Int) -> Self {
        Self(kind: notificationKind) { _, _ in
            Components.Schemas.RealtimeNotification(notification: Components.Schemas.Notification(notification), unreadCount: unreadCount)
        }
    }
}
