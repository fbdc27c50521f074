import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One TCP connection to a test server, spoken to byte by byte: for what an HTTP client library
/// hides, such as sending a second request on a connection the server has answered with an
/// error, and seeing whether an answer comes, the connection closes, or nothing happens.
/// Blocking calls run on a thread of their own.
package final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    private var pending = [UInt8]()

    /// What came back on the connection within the time allowed.
    package enum Outcome: Equatable {
        /// An HTTP response with this status and these headers (names in lowercase).
        case response(status: Int, headers: [String: String], body: [UInt8])
        /// The server closed the connection.
        case closed
        /// Nothing within the time allowed.
        case silence
    }

    package init(port: Int, timeoutSeconds: Int = 5) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw TestFailure("connect to port \(port): \(errno)")
        }
    }

    deinit { close(descriptor) }

    /// Sends bytes; false when the server stopped taking them (it closed, or answered early).
    @discardableResult
    package func write(_ bytes: [UInt8]) async -> Bool {
        await Self.onThread {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    /// Reads one HTTP response (its body by `Content-Length`), or says the connection closed
    /// or stayed silent.
    package func response() async -> Outcome {
        await Self.onThread { self.readResponse() }
    }

    /// What arrives next after anything read so far: the bytes, empty after the time allowed
    /// passed in silence, nil once the server closed the connection.
    package func bytes() async -> [UInt8]? {
        await Self.onThread {
            if !self.pending.isEmpty {
                defer { self.pending = [] }
                return self.pending
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(self.descriptor, &buffer, buffer.count, 0)
            if count == 0 { return nil }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? [] : nil }
            return Array(buffer[..<count])
        }
    }

    /// A WebSocket frame as a client sends it (masked), with FIN set or not.
    package static func clientFrame(opcode: UInt8, fin: Bool, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (UInt64($0) * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return frame
    }

    private func readResponse() -> Outcome {
        while true {
            if let end = pending.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                var headers: [String: String] = [:]
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headers[name] = headers[name].map { $0 + ", " + value } ?? value
                }
                let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while pending.count < end.upperBound + length {
                    guard readMore() else { return .closed }
                }
                let body = Array(pending[end.upperBound..<(end.upperBound + length)])
                pending.removeFirst(end.upperBound + length)
                return .response(status: status, headers: headers, body: body)
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return .closed }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? .silence : .closed }
            pending += buffer[..<count]
        }
    }

    private func readMore() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        pending += buffer[..<count]
        return true
    }

    /// A socket listening on a port the system chose, to learn a free one.
    package static func listeningSocket() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else { throw TestFailure("no free port: \(errno)") }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        return address
    }

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
