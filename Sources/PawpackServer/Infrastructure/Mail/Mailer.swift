import Foundation
import Logging
import NIOConcurrencyHelpers

/// One plain-text email. Pawpack only sends short transactional mail (verification, reset,
/// notices), so plain text keeps every client and spam filter happy.
public struct MailMessage: Sendable, Equatable, Codable {
    public var to: String
    public var subject: String
    public var text: String
    public var sentAt: Date

    public init(to: String, subject: String, text: String, sentAt: Date) {
        self.to = to
        self.subject = subject
        self.text = text
        self.sentAt = sentAt
    }
}

/// Sends mail. The live implementation speaks SMTP; development keeps an outbox.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}

/// Development and test mailer: logs each message and keeps it so `/dev/mail` (development
/// only) and the tests can read links out of it instead of needing a mail server.
public final class DevelopmentOutbox: Mailer {
    private let messages = NIOLockedValueBox<[MailMessage]>([])
    private let logger: Logger

    public init(logger: Logger = Logger(label: "pawpack.mail")) {
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        messages.withLockedValue { $0.append(message) }
        logger.info("mail queued in development outbox", metadata: [
            "to": .string(message.to), "subject": .string(message.subject),
        ])
    }

    /// Every message sent so far, oldest first.
    public var all: [MailMessage] { messages.withLockedValue { $0 } }

    /// Messages sent to one address, oldest first.
    public func messages(to address: String) -> [MailMessage] {
        all.filter { $0.to.lowercased() == address.lowercased() }
    }
}
