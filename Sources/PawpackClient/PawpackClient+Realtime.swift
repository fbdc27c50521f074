import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import PawpackAPI
import PawpackCore
import WebSocketKit

/// What the realtime socket tells an app (`docs/REALTIME.md` documents each).
public enum RealtimeEvent: Sendable, Equatable {
    /// A message in one of your chats, yours (from another of your devices) or theirs.
    case message(ChatMessage)
    /// A chat read up to `position`, by the other member or by you on another device.
    case read(chat: Chat.ID, position: Int, byMe: Bool, at: Date)
    /// A request one of your dogs received.
    case matchRequest(MatchRequest)
    /// A match, from your side, and the chat it opened.
    case match(Match, chat: Chat.ID?)
    /// An unmatch or a block closed a chat.
    case chatClosed(Chat.ID)
    /// A meet-up proposed or changed.
    case meetup(Meetup)
    /// A feed logged or changed for a pet of your household (by you on another device too).
    case feed(Feed)
    /// A feed deleted from a pet's log.
    case feedDeleted(Feed.ID, pet: Pet.ID)
    /// Something else of a pet's care changed (its stock, foods, settings or weight): read
    /// its `CareSummary` again.
    case careChanged(pet: Pet.ID)
    /// A new notification, or one that counts one more message, and your unread count.
    case notification(InboxNotification, unreadCount: Int)
    /// The server no longer keeps everything you missed: read again what you show, then go on.
    case resync
    /// A kind this version of the SDK does not know.
    case other(type: String)
}

/// One event with its number and time. Keep the `id` of the last one handled and pass it to
/// ``PawpackClient/realtimeEvents(after:)`` on the next connection to get exactly what was missed.
public struct RealtimeEnvelope: Sendable, Equatable {
    /// Increasing per member; nil for `resync`.
    public var id: Int64?
    public var at: Date?
    public var event: RealtimeEvent
}

extension PawpackClient {
    /// The member's realtime events, in order: first what came after `lastID` (when given), then
    /// live ones, until the socket closes (then the stream finishes; open it again with the
    /// last id to carry on) or the task is cancelled (then the socket closes). When the session
    /// ends on the server (signed out here or elsewhere, the password changed), the stream
    /// throws ``PawpackError/notSignedIn`` and the session is forgotten: ask the member to log in. Each event is
    /// acknowledged as it arrives: a message shown in the app is then not also pushed.
    ///
    /// ```swift
    /// for try await envelope in pawpack.realtimeEvents(after: savedID) {
    ///     if case let .message(message) = envelope.event { show(message) }
    ///     savedID = envelope.id ?? savedID
    /// }
    /// ```
    public func realtimeEvents(after lastID: Int64? = nil) -> AsyncThrowingStream<RealtimeEnvelope, any Error> {
        AsyncThrowingStream { continuation in
            let opened = OpenedSocket()
            let task = Task {
                do {
                    let socket = try await self.openRealtimeSocket(after: lastID, into: opened) { text in
                        do {
                            let envelope = try RealtimeEnvelope(text: text)
                            continuation.yield(envelope)
                            // Delivered to the app: acknowledged, so that the phone is not
                            // buzzed with a push for it as well.
                            if let id = envelope.id { opened.current?.send("{\"type\":\"ack\",\"id\":\(id)}") }
                        } catch {
                            continuation.finish(throwing: error)
                        }
                    }
                    socket.onClose.whenComplete { _ in
                        // 4004: the session ended on the server (signed out, the password
                        // changed, the account deleted); reconnecting would be refused.
                        guard socket.closeCode == .unknown(Self.sessionEndedCloseCode) else { return continuation.finish() }
                        Task {
                            await self.forgetSession()
                            continuation.finish(throwing: PawpackError.notSignedIn)
                        }
                    }
                    // Ended while the socket was opening: nobody reads it any more.
                    if Task.isCancelled { socket.close(code: .goingAway, promise: nil) }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in
                task.cancel()
                opened.current?.close(code: .goingAway, promise: nil)
            }
        }
    }

    /// The close code of a socket whose session ended (`docs/REALTIME.md`).
    static let sessionEndedCloseCode: UInt16 = 4004

    /// Opens the socket with the session's access token, refreshing it once when the server
    /// turns it away.
    private func openRealtimeSocket(
        after lastID: Int64?, into opened: OpenedSocket,
        onText: @escaping @Sendable (String) -> Void
    ) async throws -> WebSocket {
        do {
            return try await connectRealtime(after: lastID, into: opened, onText: onText)
        } catch let error as WebSocketClient.Error {
            guard case .invalidResponseStatus(let head) = error, head.status == .unauthorized else {
                throw PawpackError.network(String(describing: error))
            }
            try await refresh()
            return try await connectRealtime(after: lastID, into: opened, onText: onText)
        }
    }

    private func connectRealtime(
        after lastID: Int64?, into opened: OpenedSocket,
        onText: @escaping @Sendable (String) -> Void
    ) async throws -> WebSocket {
        guard let token = await session?.accessToken else { throw PawpackError.notSignedIn }
        guard let components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false), let host = components.host else {
            throw PawpackError.malformed("the server URL has no host")
        }
        let secure = components.scheme == "https"
        let path = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        try await WebSocket.connect(
            scheme: secure ? "wss" : "ws", host: host, port: components.port ?? (secure ? 443 : 80),
            path: path + "/v1/realtime", query: lastID.map { "after=\($0)" },
            headers: HTTPHeaders([("Authorization", "Bearer \(token)")]),
            on: MultiThreadedEventLoopGroup.singleton
        ) { socket in
            // Set on the upgrade itself, so that not even the first event is missed.
            socket.onText { _, text in onText(text) }
            opened.set(socket)
        }.get()
        return try await opened.socket()
    }
}

/// The socket the upgrade's callback hands over, which may come just after the connection
/// reports success.
private final class OpenedSocket: @unchecked Sendable {
    private let lock = NSLock()
    private var value: WebSocket?

    func set(_ socket: WebSocket) { lock.withLock { value = socket } }

    var current: WebSocket? { lock.withLock { value } }

    func socket() async throws -> WebSocket {
        for _ in 0..<400 {
            if let socket = current { return socket }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw PawpackError.malformed("the realtime upgrade handed over no socket")
    }
}

/// An event's `data` member, of the contract's type for its kind.
private struct EventData<Body: Decodable>: Decodable {
    var data: Body
}

extension RealtimeEnvelope {
    /// Reads `{"id":12,"type":"message","at":"…","data":{…}}`, `data` in the contract's types.
    init(text: String) throws {
        struct Wire: Decodable {
            var id: Int64?
            var type: String
            var at: Date?
        }
        let bytes = Data(text.utf8)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let wire = try decoder.decode(Wire.self, from: bytes)
        func data<T: Decodable>(_: T.Type) throws -> T {
            try decoder.decode(EventData<T>.self, from: bytes).data
        }
        let event: RealtimeEvent
        switch wire.type {
        case "message": event = .message(try ChatMessage(try data(Components.Schemas.ChatMessage.self)))
        case "read":
            let receipt = try data(Components.Schemas.RealtimeReadReceipt.self)
            event = .read(chat: try serverID(receipt.chatId), position: receipt.position, byMe: receipt.byMe, at: receipt.at)
        case "match_request": event = .matchRequest(try MatchRequest(try data(Components.Schemas.MatchRequest.self)))
        case "match":
            let match = try data(Components.Schemas.RealtimeMatch.self)
            event = .match(try Match(match.match), chat: try match.chatId.map(serverID))
        case "chat_closed": event = .chatClosed(try serverID(try data(Components.Schemas.RealtimeChatClosed.self).chatId))
        case "meetup": event = .meetup(try Meetup(try data(Components.Schemas.Meetup.self)))
        case "feed": event = .feed(try Feed(try data(Components.Schemas.Feed.self)))
        case "feed_deleted":
            let deleted = try data(Components.Schemas.RealtimeFeedDeleted.self)
            event = .feedDeleted(try serverID(deleted.feedId), pet: try serverID(deleted.petId))
        case "care_changed": event = .careChanged(pet: try serverID(try data(Components.Schemas.RealtimeCareChanged.self).petId))
        case "notification":
            let told = try data(Components.Schemas.RealtimeNotification.self)
            event = .notification(try InboxNotification(told.notification), unreadCount: told.unreadCount)
        case "resync": event = .resync
        default: event = .other(type: wire.type)
        }
        self.init(id: wire.id, at: wire.at, event: event)
    }
}
