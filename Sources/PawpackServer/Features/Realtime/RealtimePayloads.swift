import Foundation
import PawpackAPI
import PawpackCore

/// Each event's `data` is one of the contract's types, written as the API writes it.
extension APIHandler: RealtimePayloadWriter {
    func payload(of event: RealtimeEventValue, for recipient: User.ID) throws -> String {
        switch event {
        case .message(let message):
            return try Self.json(Components.Schemas.ChatMessage(message, viewer: recipient, mapping))
        case .read(let chat, let reader, let position, let at):
            return try Self.json(
                Components.Schemas.RealtimeReadReceipt(
                    chatId: chat.description, position: position,
                    byMe: reader == recipient, at: at))
        case .matchRequest(let request):
            return try Self.json(Components.Schemas.MatchRequest(request, mapping))
        case .match(let match, let chat):
            return try Self.json(Components.Schemas.RealtimeMatch(match: Components.Schemas.Match(match, mapping), chatId: chat?.description))
        case .chatClosed(let chat):
            return try Self.json(Components.Schemas.RealtimeChatClosed(chatId: chat.description))
        case .meetup(let meetup):
            return try Self.json(Components.Schemas.Meetup(meetup, viewer: recipient, mapping))
        case .notification(let notification, let unread):
            return try Self.json(
                Components.Schemas.RealtimeNotification(
                    notification: Components.Schemas.Notification(notification),
                    unreadCount: unread))
        }
    }

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
