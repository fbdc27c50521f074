import Foundation
import NIOPosix
import PawpackTestSupport
import Testing

@testable import PawpackServer

#if canImport(Glibc)
    import Glibc
#endif

/// Heartbeats on `/v1/realtime`: the server pings every `PAWPACK_REALTIME_PING_SECONDS`, the
/// first ping at a random moment within the first interval; a socket that does not answer by
/// the next ping is closed, one that answers stays open.
@Suite struct RealtimeHeartbeatTests {
    @Test func aSocketThatDoesNotAnswerPingsIsClosedAndOneThatAnswersStays() async throws {
        try await TestServer.run(adjust: { $0.realtimePingSeconds = 1 }) { server in
            let (ada, bob) = try await server.adaAndBob()
            // websocket-kit answers every ping, as apps' sockets do.
            let answering = try await RealtimeTestClient.connect(server, token: bob.token)
            let port = server.port
            let token = ada.token
            let frames = try await NIOThreadPool.singleton.runIfActive {
                try SilentSocket.framesUntilClosed(port: port, token: token, within: 6)
            }
            let pings = frames.filter { $0.opcode == 0x9 }
            #expect(!pings.isEmpty, "pinged within its first two intervals")
            #expect(frames.last?.opcode == 0x8 || frames.last?.opcode == nil, "then closed: \(frames)")
            #expect(try #require(frames.last?.at) < 4.5, "by the ping after the one it did not answer")
            #expect(!answering.socket.isClosed, "the socket that answers is still open")
            await answering.close()
        }
    }
}

/// A WebSocket client over a plain TCP socket that reads what the server sends and never
/// answers: websocket-kit's client answers pings by itself.
private enum SilentSocket {
    /// Frames received (opcode, seconds after the upgrade), ending with the close frame or the
    /// end of the stream (opcode nil).
    static func framesUntilClosed(port: Int, token: String, within seconds: Double) throws -> [(opcode: UInt8?, at: Double)] {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestFailure("could not connect") }
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let upgrade =
            "GET /v1/realtime HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        _ = upgrade.withCString { send(descriptor, $0, strlen($0), 0) }

        var bytes: [UInt8] = []
        var upgraded: Date?
        var frames: [(opcode: UInt8?, at: Double)] = []
        let deadline = Date().addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while Date() < deadline {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 {
                frames.append((nil, Date().timeIntervalSince(upgraded ?? Date())))
                return frames
            }
            if count < 0 { continue } // the read timed out; wait on
            bytes += buffer[0..<count]
            if upgraded == nil {
                guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { continue }
                guard String(decoding: bytes[..<end.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 101") else {
                    throw TestFailure("not upgraded: \(String(decoding: bytes, as: UTF8.self))")
                }
                bytes.removeSubrange(..<end.upperBound)
                upgraded = Date()
            }
            // Server frames are not masked: opcode, length (7 bits, or 16 after 126), payload.
            while bytes.count >= 2 {
                var length = Int(bytes[1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard bytes.count >= 4 else { break }
                    length = Int(bytes[2]) << 8 | Int(bytes[3])
                    header = 4
                }
                guard bytes.count >= header + length else { break }
                let opcode = bytes[0] & 0x0F
                frames.append((opcode, Date().timeIntervalSince(upgraded ?? Date())))
                bytes.removeSubrange(..<(header + length))
                if opcode == 0x8 { return frames }
            }
        }
        return frames
    }
}
