import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

// MARK: - Mailer

/// Delivers each message over its own SMTP connection (SwiftNIO + NIOSSL).
///
/// One connection per message keeps the client simple and stateless; Pawpack sends a handful
/// of transactional mails, so connection reuse would buy nothing worth its failure modes.
package final class SMTPMailer: Mailer {
    private let settings: SMTPSettings
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let timeout: TimeAmount

    /// - Parameters:
    ///   - timeout: Limit for connecting and for each server reply.
    package init(
        settings: SMTPSettings,
        eventLoopGroup: any EventLoopGroup,
        logger: Logger,
        timeout: TimeAmount = .seconds(30)
    ) {
        self.settings = settings
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.timeout = timeout
    }

    package func send(_ message: MailMessage) async throws {
        if let problem = SMTPAddressRules.problem(with: settings.from) {
            throw SMTPError.invalidAddress(field: "from", value: settings.from, reason: problem)
        }
        if let problem = SMTPAddressRules.problem(with: message.to) {
            throw SMTPError.invalidAddress(field: "to", value: message.to, reason: problem)
        }

        var logger = self.logger
        logger[metadataKey: "smtp.host"] = .string(settings.host)
        logger[metadataKey: "smtp.port"] = .stringConvertible(settings.port)

        let implicitTLS: NIOSSLContext? = try settings.security == .implicitTLS ? makeTLSContext() : nil
        let connection = try await SMTPConnection.connect(
            host: settings.host,
            port: settings.port,
            implicitTLS: implicitTLS,
            serverHostname: serverHostname,
            group: eventLoopGroup,
            timeout: timeout,
            logger: logger
        )
        // Closing an already closed channel is harmless, so this covers success and every error.
        defer { connection.close() }

        try await deliver(message, over: connection, logger: logger)
    }

    private func deliver(_ message: MailMessage, over connection: SMTPConnection, logger: Logger) async throws {
        let greeting = try await connection.readReply()
        try connection.expect(greeting, [220], command: "connection greeting")

        var capabilities = try await ehlo(connection)
        var encrypted = settings.security == .implicitTLS
        if settings.security == .startTLS {
            guard capabilities["STARTTLS"] != nil else {
                throw SMTPError.startTLSNotOffered(host: settings.host)
            }
            try await connection.command("STARTTLS", expecting: [220])
            try await connection.startTLS(context: makeTLSContext(), serverHostname: serverHostname)
            encrypted = true
            // RFC 3207: everything learned before the handshake is discarded; ask again.
            capabilities = try await ehlo(connection)
        }

        if let username = settings.username {
            guard encrypted || Self.isLoopback(settings.host) else {
                throw SMTPError.credentialsOverInsecureConnection(host: settings.host)
            }
            try await authenticate(
                connection,
                username: username,
                password: settings.password ?? "",
                mechanisms: capabilities["AUTH"] ?? []
            )
        }

        let composed = SMTPMessageComposer.compose(
            message,
            from: settings.from,
            messageID: SMTPMessageComposer.makeMessageID(from: settings.from, fallbackDomain: settings.heloName),
            allowEightBit: capabilities["8BITMIME"] != nil
        )
        var mailFrom = "MAIL FROM:<\(settings.from)>"
        if composed.transferEncoding == .eightBit {
            mailFrom += " BODY=8BITMIME"
        }
        try await connection.command(mailFrom, expecting: [250])
        try await connection.command("RCPT TO:<\(message.to)>", expecting: [250, 251])
        try await connection.command("DATA", expecting: [354])
        try await connection.sendMessageData(composed.payload)
        logger.debug("SMTP message accepted", metadata: ["to": .string(message.to)])

        // The message is accepted at this point; a server that hangs up without answering QUIT
        // must not turn a delivered mail into an error (and a retry that duplicates it).
        do {
            try await connection.command("QUIT", expecting: [221])
        } catch {
            logger.debug("SMTP QUIT did not complete cleanly; ignoring", metadata: ["error": "\(error)"])
        }
    }

    /// Sends EHLO and returns the advertised extensions (keyword -> parameters, upper-cased).
    private func ehlo(_ connection: SMTPConnection) async throws -> [String: [String]] {
        try await connection.command("EHLO \(settings.heloName)", expecting: [250]).ehloExtensions
    }

    private func authenticate(
        _ connection: SMTPConnection,
        username: String,
        password: String,
        mechanisms: [String]
    ) async throws {
        // The commands carry the credentials, so logs and errors only ever see `describedAs`.
        if mechanisms.contains("PLAIN") {
            let token = Self.base64("\0\(username)\0\(password)")
            try await connection.command("AUTH PLAIN \(token)", describedAs: "AUTH PLAIN", expecting: [235])
        } else if mechanisms.contains("LOGIN") {
            try await connection.command("AUTH LOGIN", expecting: [334])
            try await connection.command(Self.base64(username), describedAs: "AUTH LOGIN (user name)", expecting: [334])
            try await connection.command(Self.base64(password), describedAs: "AUTH LOGIN (password)", expecting: [235])
        } else {
            throw SMTPError.noSupportedAuthMechanism(offered: mechanisms)
        }
    }

    private func makeTLSContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.trustRoots = .default
        if let caFile = settings.caFile {
            configuration.additionalTrustRoots = [.file(caFile)]
        }
        return try NIOSSLContext(configuration: configuration)
    }

    /// SNI and certificate name to check; nil for IP literals, which NIOSSL then checks against
    /// the certificate's IP addresses instead.
    private var serverHostname: String? {
        (try? SocketAddress(ipAddress: settings.host, port: 0)) == nil ? settings.host : nil
    }

    private static func isLoopback(_ host: String) -> Bool {
        ["localhost", "127.0.0.1", "::1"].contains(host.lowercased())
    }

    private static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }
}

// MARK: - Errors

/// A failed SMTP delivery.
package enum SMTPError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The server answered `command` with a reply code the client did not expect.
    case unexpectedReply(command: String, code: Int, message: String)
    /// Connecting, or waiting for a server reply, took longer than the mailer's timeout.
    case timeout
    /// The server closed the connection before the conversation was over.
    case connectionClosed
    /// The server sent something that is not an SMTP reply.
    case malformedReply(String)
    /// `smtp://` demands STARTTLS but the server does not offer it.
    case startTLSNotOffered(host: String)
    /// The server sent more data right after agreeing to STARTTLS (a plaintext injection attempt).
    case dataAfterStartTLS
    /// Credentials are configured but the connection is not encrypted and the host is not loopback.
    case credentialsOverInsecureConnection(host: String)
    /// The server offers neither AUTH PLAIN nor AUTH LOGIN.
    case noSupportedAuthMechanism(offered: [String])
    /// A sender or recipient address that cannot be put into an SMTP command or header.
    case invalidAddress(field: String, value: String, reason: String)
    /// The event loop group is not one `ClientBootstrap` can use (e.g. a NIOTransportServices group).
    case unsupportedEventLoopGroup

    package var description: String {
        switch self {
        case .unexpectedReply(let command, let code, let message):
            return "SMTP server answered \(command) with \(code): \(message)"
        case .timeout:
            return "SMTP server did not respond in time"
        case .connectionClosed:
            return "SMTP server closed the connection unexpectedly"
        case .malformedReply(let line):
            return "SMTP server sent a malformed reply: \(line.debugDescription)"
        case .startTLSNotOffered(let host):
            return "SMTP server \(host) does not offer STARTTLS, which smtp:// requires "
                + "(use smtps:// for implicit TLS, or smtp+insecure:// for a local relay)"
        case .dataAfterStartTLS:
            return "SMTP server sent unexpected data after agreeing to STARTTLS; refusing to continue"
        case .credentialsOverInsecureConnection(let host):
            return "refusing to send SMTP credentials to \(host) over an unencrypted connection"
        case .noSupportedAuthMechanism(let offered):
            let list = offered.isEmpty ? "none" : offered.joined(separator: ", ")
            return "SMTP server supports neither AUTH PLAIN nor AUTH LOGIN (offered: \(list))"
        case .invalidAddress(let field, let value, let reason):
            return "mail \(field) address \(value.debugDescription) \(reason)"
        case .unsupportedEventLoopGroup:
            return "SMTPMailer needs a NIOPosix event loop group (e.g. MultiThreadedEventLoopGroup)"
        }
    }

    package var errorDescription: String? { description }
}

// MARK: - Replies

/// One complete (possibly multi-line) SMTP reply.
struct SMTPReply: Sendable, Equatable {
    var code: Int
    /// The text of each line, without the code and separator.
    var lines: [String]

    var text: String { lines.joined(separator: " ") }

    /// The extensions of an EHLO reply: upper-cased keyword -> upper-cased parameters.
    /// The first line is the server's greeting, not an extension.
    var ehloExtensions: [String: [String]] {
        var extensions: [String: [String]] = [:]
        for line in lines.dropFirst() {
            var words = line.split(separator: " ").map { $0.uppercased() }
            guard !words.isEmpty else { continue }
            var keyword = words.removeFirst()
            // Some old servers also announce the pre-standard form "AUTH=LOGIN PLAIN".
            if keyword.hasPrefix("AUTH=") {
                words.insert(String(keyword.dropFirst(5)), at: 0)
                keyword = "AUTH"
            }
            extensions[keyword, default: []].append(contentsOf: words)
        }
        return extensions
    }
}

/// Turns the server's byte stream into replies: lines of "NNN-text" continue a reply,
/// "NNN text" (or a bare "NNN") ends it.
struct SMTPReplyParser {
    /// RFC 5321 allows 512 octets per reply line; be generous, but never buffer without bound.
    static let maximumLineLength = 8192
    static let maximumLinesPerReply = 512

    private var buffer = ByteBuffer()
    private var pendingCode: Int?
    private var pendingLines: [String] = []

    /// Whether bytes or an unfinished reply are waiting for more input.
    var hasBufferedInput: Bool { buffer.readableBytes > 0 || pendingCode != nil }

    mutating func append(_ bytes: inout ByteBuffer) {
        buffer.writeBuffer(&bytes)
    }

    /// The next complete reply, or nil when more input is needed.
    mutating func nextReply() throws -> SMTPReply? {
        while let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            var length = newline - buffer.readerIndex
            if length > 0, buffer.getInteger(at: newline - 1, as: UInt8.self) == UInt8(ascii: "\r") {
                length -= 1
            }
            let line = buffer.getString(at: buffer.readerIndex, length: length) ?? ""
            buffer.moveReaderIndex(to: newline + 1)
            if let reply = try consume(line) {
                return reply
            }
        }
        guard buffer.readableBytes <= Self.maximumLineLength else {
            throw SMTPError.malformedReply("reply line longer than \(Self.maximumLineLength) bytes")
        }
        buffer.discardReadBytes()
        return nil
    }

    private mutating func consume(_ line: String) throws -> SMTPReply? {
        let bytes = Array(line.utf8)
        let isDigit: (UInt8) -> Bool = { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard bytes.count >= 3, isDigit(bytes[0]), isDigit(bytes[1]), isDigit(bytes[2]) else {
            throw SMTPError.malformedReply(String(line.prefix(200)))
        }
        let digits = bytes[0..<3].map { Int($0 - UInt8(ascii: "0")) }
        let code = digits[0] * 100 + digits[1] * 10 + digits[2]

        let isLastLine: Bool
        if bytes.count == 3 || bytes[3] == UInt8(ascii: " ") {
            isLastLine = true
        } else if bytes[3] == UInt8(ascii: "-") {
            isLastLine = false
        } else {
            throw SMTPError.malformedReply(String(line.prefix(200)))
        }
        if let pendingCode, pendingCode != code {
            throw SMTPError.malformedReply("multi-line reply mixes codes \(pendingCode) and \(code)")
        }

        let text = bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : ""
        pendingCode = code
        pendingLines.append(text)
        guard isLastLine else {
            guard pendingLines.count <= Self.maximumLinesPerReply else {
                throw SMTPError.malformedReply("reply with more than \(Self.maximumLinesPerReply) lines")
            }
            return nil
        }
        let reply = SMTPReply(code: code, lines: pendingLines)
        pendingCode = nil
        pendingLines = []
        return reply
    }
}

// MARK: - Channel handler

/// Parses replies and hands them, in order, to whoever asked for the next one.
///
/// Not Sendable: every method runs on the channel's event loop. `SMTPConnection` reaches it
/// only through `NIOLoopBound` inside `eventLoop.submit`/`flatSubmit`.
final class SMTPClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private struct Waiter {
        let promise: EventLoopPromise<SMTPReply>
        let timeout: Scheduled<Void>
    }

    private let eventLoop: any EventLoop
    private let replyTimeout: TimeAmount
    private var parser = SMTPReplyParser()
    /// Replies that arrived before anyone asked (e.g. the greeting).
    private var unclaimedReplies: [SMTPReply] = []
    private var waiters: [Waiter] = []
    /// The first error; once set, the connection is finished and every later request fails with it.
    private var failure: (any Error)?
    private var context: ChannelHandlerContext?

    init(eventLoop: any EventLoop, replyTimeout: TimeAmount) {
        self.eventLoop = eventLoop
        self.replyTimeout = replyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        failAll(with: SMTPError.connectionClosed)
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        parser.append(&bytes)
        do {
            while let reply = try parser.nextReply() {
                if waiters.isEmpty {
                    unclaimedReplies.append(reply)
                } else {
                    let waiter = waiters.removeFirst()
                    waiter.timeout.cancel()
                    waiter.promise.succeed(reply)
                }
            }
        } catch {
            failAll(with: error)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        failAll(with: SMTPError.connectionClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // TLS handshake and I/O errors land here; they end the conversation.
        failAll(with: error)
        context.close(promise: nil)
    }

    /// The next reply from the server. Must be called on the event loop.
    func nextReply() -> EventLoopFuture<SMTPReply> {
        eventLoop.preconditionInEventLoop()
        if !unclaimedReplies.isEmpty {
            return eventLoop.makeSucceededFuture(unclaimedReplies.removeFirst())
        }
        if let failure {
            return eventLoop.makeFailedFuture(failure)
        }
        let promise = eventLoop.makePromise(of: SMTPReply.self)
        let timeout = eventLoop.assumeIsolated().scheduleTask(in: replyTimeout) {
            self.replyTimedOut()
        }
        waiters.append(Waiter(promise: promise, timeout: timeout))
        return promise.futureResult
    }

    /// Throws if anything arrived after the reply to STARTTLS. Such bytes were sent in
    /// plaintext and would otherwise be read as if they came over TLS (CVE-2011-0411).
    /// Must be called on the event loop.
    func ensureNothingBuffered() throws {
        eventLoop.preconditionInEventLoop()
        if !unclaimedReplies.isEmpty || parser.hasBufferedInput {
            throw SMTPError.dataAfterStartTLS
        }
    }

    private func replyTimedOut() {
        failAll(with: SMTPError.timeout)
        context?.close(promise: nil)
    }

    private func failAll(with error: any Error) {
        if failure == nil {
            failure = error
        }
        let reason = failure ?? error
        let pending = waiters
        waiters.removeAll()
        for waiter in pending {
            waiter.timeout.cancel()
            waiter.promise.fail(reason)
        }
    }
}

// MARK: - Connection

/// The async face of one SMTP connection. Sendable: it holds only the channel, a loop-bound
/// reference to the handler, and a logger.
struct SMTPConnection: Sendable {
    let channel: any Channel
    let handler: NIOLoopBound<SMTPClientHandler>
    let logger: Logger

    static func connect(
        host: String,
        port: Int,
        implicitTLS: NIOSSLContext?,
        serverHostname: String?,
        group: any EventLoopGroup,
        timeout: TimeAmount,
        logger: Logger
    ) async throws -> SMTPConnection {
        guard let bootstrap = ClientBootstrap(validatingGroup: group) else {
            throw SMTPError.unsupportedEventLoopGroup
        }
        logger.debug("SMTP connecting")
        do {
            // The initializer hands back the handler it installed, so the connection can reach it
            // without looking it up later (by then a failed TLS handshake may have torn the
            // pipeline down, and its error would be lost).
            return
                try await bootstrap
                .connectTimeout(timeout)
                .connect(
                    host: host, port: port,
                    channelInitializer: { channel in
                        channel.eventLoop.makeCompletedFuture { () throws -> SMTPConnection in
                            if let implicitTLS {
                                let tlsHandler = try NIOSSLClientHandler(context: implicitTLS, serverHostname: serverHostname)
                                try channel.pipeline.syncOperations.addHandler(tlsHandler)
                            }
                            let replyHandler = SMTPClientHandler(eventLoop: channel.eventLoop, replyTimeout: timeout)
                            try channel.pipeline.syncOperations.addHandler(replyHandler)
                            return SMTPConnection(
                                channel: channel,
                                handler: NIOLoopBound(replyHandler, eventLoop: channel.eventLoop),
                                logger: logger
                            )
                        }
                    })
        } catch let error as ChannelError {
            if case .connectTimeout = error {
                throw SMTPError.timeout
            }
            throw error
        }
    }

    /// Waits for the next reply without sending anything (the greeting).
    func readReply() async throws -> SMTPReply {
        let handler = self.handler
        let reply = try await channel.eventLoop.flatSubmit {
            handler.value.nextReply()
        }.get()
        logReply(reply)
        return reply
    }

    /// Sends one command line and checks the reply code.
    /// - Parameter describedAs: What logs and errors show instead of `line` (for credentials).
    @discardableResult
    func command(_ line: String, describedAs: String? = nil, expecting codes: Set<Int>) async throws -> SMTPReply {
        let description = describedAs ?? line
        logger.debug("SMTP >> \(description)")
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 2)
        buffer.writeString(line)
        buffer.writeString("\r\n")
        let reply = try await write(buffer)
        return try expect(reply, codes, command: description)
    }

    /// Sends the DATA payload (already dot-stuffed and terminated by "\r\n.\r\n") and expects 250.
    func sendMessageData(_ payload: String) async throws {
        logger.debug("SMTP >> <message, \(payload.utf8.count) bytes>")
        let buffer = channel.allocator.buffer(string: payload)
        let reply = try await write(buffer)
        try expect(reply, [250], command: "message data")
    }

    /// Adds TLS in front of the pipeline after the server agreed to STARTTLS. Writes made
    /// afterwards are held by NIOSSL until the handshake is done; a failed handshake fails
    /// the next reply with the TLS error.
    func startTLS(context: NIOSSLContext, serverHostname: String?) async throws {
        let handler = self.handler
        let channel = self.channel
        try await channel.eventLoop.submit {
            try handler.value.ensureNothingBuffered()
            let tlsHandler = try NIOSSLClientHandler(context: context, serverHostname: serverHostname)
            try channel.pipeline.syncOperations.addHandler(tlsHandler, position: .first)
        }.get()
        logger.debug("SMTP TLS started")
    }

    @discardableResult
    func expect(_ reply: SMTPReply, _ codes: Set<Int>, command: String) throws -> SMTPReply {
        guard codes.contains(reply.code) else {
            throw SMTPError.unexpectedReply(command: command, code: reply.code, message: reply.text)
        }
        return reply
    }

    func close() {
        channel.close(promise: nil)
    }

    /// Registers for the reply before writing, so a fast server cannot answer "too early".
    private func write(_ buffer: ByteBuffer) async throws -> SMTPReply {
        let handler = self.handler
        let channel = self.channel
        let reply = try await channel.eventLoop.flatSubmit {
            let pendingReply = handler.value.nextReply()
            // A failed write closes the channel, which fails the reply; no need to watch it here.
            channel.writeAndFlush(buffer, promise: nil)
            return pendingReply
        }.get()
        logReply(reply)
        return reply
    }

    private func logReply(_ reply: SMTPReply) {
        logger.debug("SMTP << \(reply.code) \(reply.text)")
    }
}

// MARK: - Message

/// Renders a `MailMessage` as the DATA payload of an SMTP transaction.
enum SMTPMessageComposer {
    enum TransferEncoding: String, Sendable {
        case sevenBit = "7bit"
        case eightBit = "8bit"
        case quotedPrintable = "quoted-printable"
    }

    struct Composed: Sendable, Equatable {
        /// Headers, blank line and body, CRLF line endings, dot-stuffed, ending in "\r\n.\r\n".
        var payload: String
        var transferEncoding: TransferEncoding
    }

    /// SMTP's hard limit is 998 octets per line; leave room for dot-stuffing.
    static let maximumRawLineLength = 990

    /// - Parameter allowEightBit: Whether the server announced 8BITMIME.
    static func compose(_ message: MailMessage, from: String, messageID: String, allowEightBit: Bool) -> Composed {
        let bodyLines = lines(of: message.text)
        let encoding = transferEncoding(for: bodyLines, allowEightBit: allowEightBit)
        let encodedBody = encoding == .quotedPrintable ? quotedPrintable(bodyLines) : bodyLines
        let headers = [
            "From: \(from)",
            "To: \(message.to)",
            "Subject: \(encodedHeaderText(message.subject))",
            "Date: \(rfc5322Date(message.sentAt))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: \(encoding.rawValue)",
        ]
        var payload = ""
        for line in headers + [""] + encodedBody {
            // RFC 5321 4.5.2: a line starting with "." gets another one, which the server removes.
            if line.hasPrefix(".") {
                payload += "."
            }
            payload += line
            payload += "\r\n"
        }
        payload += ".\r\n"
        return Composed(payload: payload, transferEncoding: encoding)
    }

    static func makeMessageID(from sender: String, fallbackDomain: String) -> String {
        var domain = fallbackDomain
        if let at = sender.lastIndex(of: "@"), sender.index(after: at) < sender.endIndex {
            domain = String(sender[sender.index(after: at)...])
        }
        return "<\(UUID().uuidString.lowercased())@\(domain)>"
    }

    /// Splits text on CRLF, CR or LF. A final line break does not start another (empty) line.
    static func lines(of text: String) -> [String] {
        var lines: [String] = []
        var current = ""
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" {
                lines.append(current)
                current = ""
                previousWasCR = true
                continue
            }
            if scalar == "\n" {
                if !previousWasCR {
                    lines.append(current)
                    current = ""
                }
                previousWasCR = false
                continue
            }
            previousWasCR = false
            current.unicodeScalars.append(scalar)
        }
        if !current.isEmpty || lines.isEmpty {
            lines.append(current)
        }
        return lines
    }

    static func transferEncoding(for lines: [String], allowEightBit: Bool) -> TransferEncoding {
        let fitsLineLimit = lines.allSatisfy { $0.utf8.count <= maximumRawLineLength }
        let hasNUL = lines.contains { $0.utf8.contains(0) }
        guard fitsLineLimit, !hasNUL else { return .quotedPrintable }
        if lines.allSatisfy({ $0.utf8.allSatisfy { $0 < 0x80 } }) {
            return .sevenBit
        }
        return allowEightBit ? .eightBit : .quotedPrintable
    }

    /// RFC 2045 quoted-printable, one input line at a time (line breaks stay hard CRLF breaks);
    /// soft breaks keep every output line within 76 characters.
    static func quotedPrintable(_ lines: [String]) -> [String] {
        var output: [String] = []
        for line in lines {
            let bytes = Array(line.utf8)
            var current = ""
            for (index, byte) in bytes.enumerated() {
                let isLastByte = index == bytes.count - 1
                let isPrintable = byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")
                // Trailing whitespace would be stripped in transit, so it is encoded.
                let isInnerWhitespace = (byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")) && !isLastByte
                let token = isPrintable || isInnerWhitespace ? String(Character(Unicode.Scalar(byte))) : hexEscape(byte)
                if current.utf8.count + token.utf8.count > 75 {
                    output.append(current + "=")
                    current = ""
                }
                current += token
            }
            output.append(current)
        }
        return output
    }

    /// A header value on one logical line: line breaks become spaces (no header injection), and
    /// anything beyond printable ASCII becomes RFC 2047 base64 encoded-words in UTF-8, folded so
    /// no line gets long.
    static func encodedHeaderText(_ text: String) -> String {
        var flattened = ""
        for scalar in text.unicodeScalars {
            let isBreak = scalar == "\r" || scalar == "\n" || scalar == "\t"
            flattened.unicodeScalars.append(isBreak ? " " : scalar)
        }
        let hasNonPrintable = flattened.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E })
        // "=?" would make a reader try to decode plain text as an encoded-word.
        let needsEncoding = hasNonPrintable || flattened.contains("=?") || flattened.utf8.count > 900
        guard needsEncoding else { return flattened }

        // An encoded-word is at most 75 characters: "=?utf-8?B?" + base64 + "?=" leaves 63 for
        // base64, i.e. 45 bytes. Chunks end on scalar boundaries so no UTF-8 sequence is split.
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in flattened.unicodeScalars {
            let bytes = Array(String(Character(scalar)).utf8)
            if chunk.count + bytes.count > 45 {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty {
            words.append(encodedWord(chunk))
        }
        return words.joined(separator: "\r\n ")
    }

    /// `Date:` header value, e.g. "Tue, 03 Jun 2025 14:05:09 +0000".
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?utf-8?B?\(Data(bytes).base64EncodedString())?="
    }

    private static func hexEscape(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0F)])"
    }
}
