import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static let notifications = "/v1/notifications"
    package static let notificationSettings = "/v1/notifications/settings"
    package static let readAllNotifications = "/v1/notifications/read-all"
    package static func readNotification(_ notification: some CustomStringConvertible) -> String {
        "\(notifications)/\(notification)/read"
    }
}

extension TestServer {
    /// The member's unread notifications, as the bell counts them.
    package func unreadCount(of owner: Owner) async throws -> Int {
        let inbox = try await request(.GET, "/v1/notifications", token: owner.token)
        guard inbox.status == 200, let count = inbox.json["unreadCount"] as? Int else {
            throw TestFailure("notifications: \(inbox.status) \(inbox.text)")
        }
        return count
    }
}
