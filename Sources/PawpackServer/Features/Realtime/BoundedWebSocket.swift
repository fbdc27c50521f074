import NIOCore
import NIOHTTP1
import NIOWebSocket
import Vapor
import WebSocketKit

/// A WebSocket upgrade whose messages are bounded as a whole, not only frame by frame.
///
/// Vapor's own upgrade bounds each frame, and websocket-kit gathers the frames of a fragmented
/// message without a limit: a text frame without FIN followed by continuation frames grew the
/// server by gigabytes. Here a `MessageBound` sits between the frame decoder and websocket-kit's
/// aggregator and closes the socket (1009, message too big) at the first frame past the bound,
/// in bytes or in fragments; control frames are bounded by the decoder (125 bytes, RFC 6455).
/// Every close the server starts ends the connection within a second (`MessageBound`).
struct BoundedWebSocketUpgrader: Upgrader {
    /// The largest frame, and the largest message however it is fragmented, in bytes.
    let maxMessageBytes: Int
    /// The most frames one message may come in.
    let maxFragments: Int
    let onUpgrade: @Sendable (WebSocket) -> Void

    func applyUpgrade(req: Request, res: Response) -> any HTTPServerProtocolUpgrader {
        let (bytes, fragments) = (maxMessageBytes, maxFragments)
        return NIOWebSocketServerUpgrader(
            maxFrameSize: bytes, automaticErrorHandling: false,
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture([:]) },
            upgradePipelineHandler: { channel, _ in
                channel.pipeline.addHandler(MessageBound(maxBytes: bytes, maxFragments: fragments)).flatMap {
                    WebSocket.server(on: channel, onUpgrade: onUpgrade)
                }
            })
    }
}

extension Request {
    /// Answers the handshake with a socket whose messages are bounded (`BoundedWebSocketUpgrader`).
    func boundedWebSocket(
        maxMessageBytes: Int, maxFragments: Int = 64,
        onUpgrade: @escaping @Sendable (Request, WebSocket) async -> Void
    ) -> Response {
        let response = Response(status: .switchingProtocols)
        response.upgrader = BoundedWebSocketUpgrader(maxMessageBytes: maxMessageBytes, maxFragments: maxFragments) { socket in
            Task { await onUpgrade(self, socket) }
        }
        return response
    }
}

/// Counts the bytes and frames of the message under way; past either bound it reports the
/// message as too big (websocket-kit answers with a 1009 close) and reads nothing more.
///
/// It also bounds every close the server starts (too big, protocol error, signed out, too
/// slow): websocket-kit sends its close frame and then waits for the peer's answer without
/// end, so a peer that never answers would hold its connection for good. One second after the
/// server's close frame, the connection is dropped.
final class MessageBound: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    static let closeGrace = TimeAmount.seconds(1)

    private let maxBytes: Int
    private let maxFragments: Int
    private var bytes = 0
    private var fragments = 0
    private var refused = false
    private var closing = false

    init(maxBytes: Int, maxFragments: Int) {
        self.maxBytes = maxBytes
        self.maxFragments = maxFragments
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            (bytes, fragments) = (frame.length, 1)
        case .continuation:
            (bytes, fragments) = (bytes + frame.length, fragments + 1)
        default:
            // Control frames: bounded by the decoder, and they never interrupt the count.
            context.fireChannelRead(data)
            return
        }
        guard bytes <= maxBytes, fragments <= maxFragments else {
            refused = true
            // What the peer sends from now on stays in its own buffers, not in ours.
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            context.fireErrorCaught(NIOWebSocketError.invalidFrameLength)
            return
        }
        if frame.fin { (bytes, fragments) = (0, 0) }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if !closing, unwrapOutboundIn(data).opcode == .connectionClose {
            closing = true
            let channel = context.channel
            channel.eventLoop.scheduleTask(in: Self.closeGrace) { channel.close(promise: nil) }
        }
        context.write(data, promise: promise)
    }
}
