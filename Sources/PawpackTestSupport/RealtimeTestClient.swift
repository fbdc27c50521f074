import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket
import Vapor
import WebSocketKit

/// A real WebSocket client on `/v1/realtime` (websocket-kit, as any app's socket would be):
/// it keeps every text the server sends, in order, for a test to read.
package final class RealtimeTestClient: Sendable {
    package let socket: WebSocket
    private let inbox: NIOLockedValueBox<[String]>

    private init(socket: WebSocket, inbox: NIOLockedValueBox<[String]>) {
        self.socket = socket
        self.inbox = inbox
    }

    /// Opens a socket as the member with this access token, resuming after `after` when given.
    package static func connect(
        _ server: TestServer, token: String?, after: Int64? = nil,
        headers extra: [(String, String)] = []
    ) async throws -> RealtimeTestClient {
        var headers = HTTPHeaders(extra)
        if let token { headers.add(name: .authorization, value: "Bearer \(token)") }
        let opened = NIOLockedValueBox<WebSocket?>(nil)
        let inbox = NIOLockedValueBox<[String]>([])
        try await WebSocket.connect(
            scheme: "ws", host: "127.0.0.1", port: server.port, path: APIPath.realtime,
            query: after.map { "after=\($0)" }, headers: headers,
            on: server.app.eventLoopGroup
        ) { socket in
            // Set on the upgrade itself, so that not even the first frame is missed.
            socket.onText { _, text in inbox.withLockedValue { $0.append(text) } }
            opened.withLockedValue { $0 = socket }
        }.get()
        // The upgrade's callback may run just after the connection reports success.
        for _ in 0..<200 where opened.withLockedValue({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
        guard let socket = opened.withLockedValue({ $0 }) else { throw TestFailure("no socket after the upgrade") }
        return RealtimeTestClient(socket: socket, inbox: inbox)
    }

    /// The next text received, waiting up to `seconds` for it.
    package func nextText(within seconds: Double = 5) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let text = inbox.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) { return text }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("nothing received within \(seconds) s")
    }

    /// The next event, read as JSON.
    package func next(within seconds: Double = 5) async throws -> [String: any Sendable] {
        let text = try await nextText(within: seconds)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: any Sendable] else {
            throw TestFailure("not a JSON object: \(text)")
        }
        return object
    }

    /// The next `count` events.
    package func next(_ count: Int, within seconds: Double = 5) async throws -> [[String: any Sendable]] {
        var events: [[String: any Sendable]] = []
        for _ in 0..<count { events.append(try await next(within: seconds)) }
        return events
    }

    /// Whether nothing more arrives for `seconds`.
    package func receivesNothing(for seconds: Double = 0.5) async throws -> Bool {
        try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
        return inbox.withLockedValue { $0.isEmpty }
    }

    package func send(_ text: String) async throws {
        try await socket.send(text)
    }

    /// Waits for the server to close the socket; its close code.
    package func closedByServer(within seconds: Double = 5) async throws -> WebSocketErrorCode? {
        let deadline = Date().addingTimeInterval(seconds)
        while !socket.isClosed, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        guard socket.isClosed else { throw TestFailure("the socket is still open after \(seconds) s") }
        return socket.closeCode
    }

    package func close() async {
        try? await socket.close()
    }
}

extension Dictionary where Key == String, Value == any Sendable {
    /// An event's `id`.
    package var eventID: Int64? { (self["id"] as? NSNumber)?.int64Value }
    package var eventType: String? { self["type"] as? String }
    package var eventData: [String: any Sendable]? { self["data"] as? [String: any Sendable] }
}
