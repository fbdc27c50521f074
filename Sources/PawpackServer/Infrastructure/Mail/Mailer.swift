import Foundation
import Logging
import NIOConcurrencyHelpers

/// One plain-text email. Pawpack only sends short transactional mail (verification, reset,
/// notices), so plain text keeps every client and spam filter happy.
package struct MailMessage: Sendable, Equatable, Codable {
    package var to: String
    package var subject: String
    package var text: String
    package var sentAt: Date

    package init(to: String, subject: String, text: String, sentAt: Date) {
        self.to = to
        self.subject = subject
        self.text = text
        self.sentAt = sentAt
    }
}

/// Sends mail. The live implementation speaks SMTP; development keeps an outbox.
package protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}

/// Development and test mailer: logs each message and keeps it so `/dev/mail` (development
/// only) and the tests can read links out of it instead of needing a mail server.
package final class DevelopmentOutbox: Mailer {
    private let messages = NIOLockedValueBox<[MailMessage]>([])
    private let logger: Logger

    package init(logger: Logger = Logger(label: "pawpack.mail")) {
        self.logger = logger
    }

    package func send(_ message: MailMessage) async throws {
        messages.withLockedValue { $0.append(message) }
        logger.info(
            "mail queued in development outbox",
            metadata: [
                "to": .string(message.to), "subject": .string(message.subject),
            ])
    }

    /// Every message sent so far, oldest first.
    package var all: [MailMessage] { messages.withLockedValue { $0 } }

    /// Messages sent to one address, oldest first.
    package func messages(to address: String) -> [MailMessage] {
        all.filter { $0.to.lowercased() == address.lowercased() }
    }
}
