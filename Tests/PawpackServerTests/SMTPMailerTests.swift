import Foundation
import Logging
import NIOCore
import NIOPosix
import PawpackTestSupport
import Testing

@testable import PawpackServer

@Suite struct SMTPMailerTests {
    @Test func parsesSMTPURLs() throws {
        let startTLS = try SMTPSettings(
            url: "smtp://mailer%40pawpack.app:p%40ss%3Aw%2Frd%25@smtp.example.com",
            from: "noreply@pawpack.app"
        )
        #expect(startTLS.security == SMTPSettings.Security.startTLS)
        #expect(startTLS.host == "smtp.example.com")
        #expect(startTLS.port == 587)
        #expect(startTLS.username == "mailer@pawpack.app")
        #expect(startTLS.password == "p@ss:w/rd%")
        #expect(startTLS.from == "noreply@pawpack.app")
        #expect(startTLS.caFile == nil)
        #expect(startTLS.heloName == "pawpack.local")
        #expect(!String(describing: startTLS).contains("p@ss"), "the description must never show the password")

        let implicitTLS = try SMTPSettings(url: "smtps://smtp.example.com", from: "noreply@pawpack.app")
        #expect(implicitTLS.security == SMTPSettings.Security.implicitTLS)
        #expect(implicitTLS.port == 465)
        #expect(implicitTLS.username == nil)
        #expect(implicitTLS.password == nil)

        let insecure = try SMTPSettings(url: "smtp+insecure://127.0.0.1", from: "noreply@pawpack.app")
        #expect(insecure.security == SMTPSettings.Security.none)
        #expect(insecure.host == "127.0.0.1")
        #expect(insecure.port == 25)

        let custom = try SMTPSettings(
            url: "SMTP://user:pw@[::1]:2525/",
            from: "noreply@pawpack.app",
            caFile: "/etc/pawpack/ca.pem",
            heloName: "api.pawpack.app"
        )
        #expect(custom.security == SMTPSettings.Security.startTLS)
        #expect(custom.host == "::1")
        #expect(custom.port == 2525)
        #expect(custom.username == "user")
        #expect(custom.password == "pw")
        #expect(custom.caFile == "/etc/pawpack/ca.pem")
        #expect(custom.heloName == "api.pawpack.app")

        #expect(throws: SMTPSettingsError.unsupportedScheme("http")) {
            try SMTPSettings(url: "http://smtp.example.com", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.missingHost) {
            try SMTPSettings(url: "smtp://", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.missingHost) {
            try SMTPSettings(url: "smtps://user:pw@:465", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.invalidPort("99999")) {
            try SMTPSettings(url: "smtp://smtp.example.com:99999", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.self) {
            try SMTPSettings(url: "smtp.example.com:587", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.self) {
            try SMTPSettings(url: "smtp://user@smtp.example.com", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.self) {
            try SMTPSettings(url: "smtp://smtp.example.com/inbox", from: "noreply@pawpack.app")
        }
        #expect(throws: SMTPSettingsError.self) {
            try SMTPSettings(url: "smtp://smtp.example.com", from: "noreply@pawpack.app\r\nBcc: victim@example.com")
        }
        #expect(SMTPSettingsError.unsupportedScheme("http").description.contains("smtps://"))
    }

    @Test func composesDotStuffedCRLFMessages() {
        let message = MailMessage(
            to: "owner@example.com",
            subject: "Welcome to Pawpack 🐾",
            text: "Hi!\n.dot line\r\nend",
            sentAt: Date(timeIntervalSince1970: 0)
        )
        let composed = SMTPMessageComposer.compose(
            message,
            from: "noreply@pawpack.test",
            messageID: "<id@pawpack.test>",
            allowEightBit: false
        )
        #expect(composed.transferEncoding == SMTPMessageComposer.TransferEncoding.sevenBit)
        #expect(composed.payload.hasPrefix("From: noreply@pawpack.test\r\nTo: owner@example.com\r\n"))
        #expect(composed.payload.contains("\r\nSubject: =?utf-8?B?V2VsY29tZSB0byBQYXdwYWNrIPCfkL4=?=\r\n"))
        #expect(composed.payload.contains("\r\nDate: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        #expect(composed.payload.contains("\r\nMessage-ID: <id@pawpack.test>\r\n"))
        #expect(composed.payload.hasSuffix("Content-Transfer-Encoding: 7bit\r\n\r\nHi!\r\n..dot line\r\nend\r\n.\r\n"))

        // Non-ASCII text without 8BITMIME: quoted-printable, with trailing whitespace protected.
        let international = MailMessage(to: "owner@example.com", subject: "Hi", text: "Grüße = 🐾 ", sentAt: Date())
        let encoded = SMTPMessageComposer.compose(
            international,
            from: "noreply@pawpack.test",
            messageID: "<id@pawpack.test>",
            allowEightBit: false
        )
        #expect(encoded.transferEncoding == SMTPMessageComposer.TransferEncoding.quotedPrintable)
        #expect(encoded.payload.hasSuffix("\r\n\r\nGr=C3=BC=C3=9Fe =3D =F0=9F=90=BE=20\r\n.\r\n"))

        // Header injection through the subject is flattened away.
        #expect(SMTPMessageComposer.encodedHeaderText("Hello\r\nBcc: victim@example.com") == "Hello  Bcc: victim@example.com")
    }

    @Test func rejectsLineBreaksInTheRecipientBeforeConnecting() async throws {
        // Port 9 (discard) on loopback: validation must fail before any connection attempt.
        let settings = try SMTPSettings(url: "smtp+insecure://127.0.0.1:9", from: "noreply@pawpack.test")
        let mailer = SMTPMailer(
            settings: settings,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "pawpack.tests.smtp")
        )
        let message = MailMessage(
            to: "owner@example.com\r\nBcc: victim@example.com",
            subject: "Hi",
            text: "Hi",
            sentAt: Date()
        )
        let error = try await #require(throws: SMTPError.self) {
            try await mailer.send(message)
        }
        guard case .invalidAddress(let field, _, _) = error else {
            Issue.record("expected an invalid address error, got \(error)")
            return
        }
        #expect(field == "to")
        #expect(error.description.contains("line break"))
    }

    @Test func parsesMultiLineReplies() throws {
        var parser = SMTPReplyParser()
        var bytes = ByteBuffer(
            string: "250-smtp.example.com greets you\r\n250-STARTTLS\r\n250-AUTH PLAIN LOGIN\r\n250 8BITMIME\r\n220 ready\r\n354"
        )
        parser.append(&bytes)

        let first = try parser.nextReply()
        let ehlo = try #require(first)
        #expect(ehlo.code == 250)
        #expect(ehlo.lines.count == 4)
        #expect(ehlo.ehloExtensions["AUTH"] == ["PLAIN", "LOGIN"])
        #expect(ehlo.ehloExtensions["STARTTLS"] == [String]())
        #expect(ehlo.ehloExtensions["8BITMIME"] == [String]())

        let second = try parser.nextReply()
        #expect(second == SMTPReply(code: 220, lines: ["ready"]))

        let incomplete = try parser.nextReply()
        #expect(incomplete == nil)
        var rest = ByteBuffer(string: " go ahead\n")
        parser.append(&rest)
        let third = try parser.nextReply()
        #expect(third == SMTPReply(code: 354, lines: ["go ahead"]))

        var garbage = ByteBuffer(string: "hello there\r\n")
        parser.append(&garbage)
        #expect(throws: SMTPError.self) {
            try parser.nextReply()
        }
    }

    @Test(
        .enabled(
            if: SMTPTestServer.isAvailable,
            "needs python3 with aiosmtpd (pip install aiosmtpd); PAWPACK_REQUIRE_SMTP_TEST=1 makes it mandatory"
        ),
        .timeLimit(.minutes(2))
    )
    func deliversMailOverStartTLSWithAuthToARealSMTPServer() async throws {
        let server = try SMTPTestServer.launch()
        defer { server.stop() }

        let verificationURL = "https://pawpack.test/verify?token=abc123"
        let message = MailMessage(
            to: "new.owner@example.com",
            subject: "Welcome to Pawpack 🐾",
            text: "Hi there!\n.This line starts with a dot\nConfirm your address: \(verificationURL)\nSee you soon 🐾\n",
            sentAt: Date()
        )
        let settings = try SMTPSettings(
            url: "smtp://pawpack:s3cret-pass@localhost:\(server.port)",
            from: "noreply@pawpack.test",
            caFile: server.certificatePath
        )
        let mailer = SMTPMailer(
            settings: settings,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "pawpack.tests.smtp"),
            timeout: .seconds(15)
        )

        try await mailer.send(message)

        let received = try server.receivedMessages()
        try #require(received.count == 1)
        let mail = received[0]
        #expect(mail.mailFrom == "noreply@pawpack.test")
        #expect(mail.rcptTos == ["new.owner@example.com"])
        // Raw header (RFC 2047 encoded-word) and as Python's MIME parser decodes it.
        #expect(mail.data.contains("Subject: =?utf-8?B?V2VsY29tZSB0byBQYXdwYWNrIPCfkL4=?="))
        #expect(mail.subject == "Welcome to Pawpack 🐾")
        #expect(mail.data.contains("MIME-Version: 1.0"))
        #expect(mail.data.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(mail.body.contains(verificationURL))
        // Dot-stuffed on the wire, un-stuffed by the server: exactly one dot again.
        #expect(mail.body.contains("\n.This line starts with a dot\n"))
        #expect(!mail.body.contains("..This"))
        #expect(mail.body.hasSuffix("See you soon 🐾\n"))

        // Wrong credentials: AUTH is rejected, nothing is delivered, the password is not echoed.
        let wrongSettings = try SMTPSettings(
            url: "smtp://pawpack:wrong-pass@localhost:\(server.port)",
            from: "noreply@pawpack.test",
            caFile: server.certificatePath
        )
        let wrongMailer = SMTPMailer(
            settings: wrongSettings,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: Logger(label: "pawpack.tests.smtp"),
            timeout: .seconds(15)
        )
        let error = try await #require(throws: SMTPError.self) {
            try await wrongMailer.send(message)
        }
        guard case .unexpectedReply(let command, let code, _) = error else {
            Issue.record("expected the server to reject AUTH, got \(error)")
            return
        }
        #expect(command == "AUTH PLAIN")
        #expect(code == 535)
        #expect(!error.description.contains("wrong-pass"))
        let afterRejection = try server.receivedMessages()
        #expect(afterRejection.count == 1)
    }
}

/// One message as recorded by Tests/Support/smtp_test_server.py.
struct ReceivedMail: Decodable {
    var mailFrom: String
    var rcptTos: [String]
    /// The message exactly as received (after the server removed dot-stuffing).
    var data: String
    /// Subject and body as decoded by Python's email package.
    var subject: String
    var body: String

    enum CodingKeys: String, CodingKey {
        case mailFrom = "mail_from"
        case rcptTos = "rcpt_tos"
        case data
        case subject
        case body
    }
}

/// Runs Tests/Support/smtp_test_server.py (aiosmtpd with STARTTLS and AUTH) for one test.
final class SMTPTestServer {
    /// Whether python3 with aiosmtpd is installed. `PAWPACK_REQUIRE_SMTP_TEST=1` (set in CI) forces
    /// true, so a missing server fails the test instead of silently skipping it.
    static let isAvailable: Bool = {
        if ProcessInfo.processInfo.environment["PAWPACK_REQUIRE_SMTP_TEST"] == "1" {
            return true
        }
        return LocalTools.succeeds(["python3", "-c", "import aiosmtpd"])
    }()

    let port: Int
    let certificatePath: String
    private let process: Process
    private let input: Pipe
    private let messagesFile: URL

    private init(port: Int, certificatePath: String, process: Process, input: Pipe, messagesFile: URL) {
        self.port = port
        self.certificatePath = certificatePath
        self.process = process
        self.input = input
        self.messagesFile = messagesFile
    }

    /// Starts the server and waits for its "READY <port> <cert>" line.
    static func launch() throws -> SMTPTestServer {
        // #filePath is <root>/Tests/PawpackServerTests/SMTPMailerTests.swift.
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = packageRoot.appendingPathComponent("Tests/Support/smtp_test_server.py")
        let messagesFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("pawpack-smtp-\(UUID().uuidString).jsonl")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, messagesFile.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()

        // Blocks until the line arrives or the script exits (it gives up on its own if aiosmtpd
        // cannot start, so this cannot hang forever).
        let reader = output.fileHandleForReading
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        let line = String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "READY", let port = Int(parts[1]) else {
            try? input.fileHandleForWriting.close()
            if process.isRunning {
                process.terminate()
            }
            process.waitUntilExit()
            throw SMTPTestServerError(
                description: "smtp_test_server.py did not start (exit status \(process.terminationStatus), "
                    + "output \(line.debugDescription)); is aiosmtpd installed? pip install aiosmtpd"
            )
        }
        return SMTPTestServer(
            port: port,
            certificatePath: parts[2],
            process: process,
            input: input,
            messagesFile: messagesFile
        )
    }

    /// Every message the server accepted so far, oldest first.
    func receivedMessages() throws -> [ReceivedMail] {
        guard FileManager.default.fileExists(atPath: messagesFile.path) else { return [] }
        let text = try String(contentsOf: messagesFile, encoding: .utf8)
        let decoder = JSONDecoder()
        return try text.split(separator: "\n").map { line in
            try decoder.decode(ReceivedMail.self, from: Data(line.utf8))
        }
    }

    /// Closing stdin asks the script to stop; SIGTERM makes sure of it.
    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: messagesFile)
    }
}

struct SMTPTestServerError: Error, CustomStringConvertible {
    var description: String
}
