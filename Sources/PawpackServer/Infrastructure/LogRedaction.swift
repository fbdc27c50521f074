import Foundation
import Logging
import OpenAPIRuntime

/// Nothing secret reaches a log: every line the server writes, its own and its libraries'
/// (Vapor traces request heads and bodies, Fluent logs bound SQL values at debug), passes
/// through `RedactingLogHandler`, which blanks credentials in the message and the metadata.
/// Failures are logged by `LogRedaction.describe`, which names the operation and the cause but
/// never the request, its input or its output, where the OpenAPI runtime keeps headers,
/// passwords and new tokens.
package enum LogRedaction {
    static let placeholder = "[redacted]"

    /// Metadata keys whose values are never written: credentials, and the values bound to SQL
    /// statements (password hashes, token hashes, personal data).
    static func isSecret(key: String) -> Bool {
        let key = key.lowercased()
        return key == "binds" || key == "authorization" || key.contains("cookie")
            || ["password", "token", "secret", "session", "csrf"].contains { key.contains($0) }
    }

    private static let rules: [(NSRegularExpression, String)] = [
        // `Authorization: Bearer …`, `("authorization", "Basic …")`: the rest of the header.
        (#"(?i)(proxy-authorization|authorization)(["']?\s*[:=,]\s*["']?)[^;\r\n"\]]+"#, "$1$2\(placeholder)"),
        (#"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]+"#, "Bearer \(placeholder)"),
        // `password: "…"`, `"refreshToken":"…"`, `token=…`, a `pawpack_session=…` cookie.
        (
            #"(?i)\b([A-Za-z0-9_-]*(?:password|token|secret|session|csrf)[A-Za-z0-9_-]*)(["']?\s*[:=]\s*)("(?:[^"\\]|\\.)*"|[^\s;,&)\]}"]+)"#,
            "$1$2\(placeholder)"
        ),
        // Bytes shown in hex (a request body traced by Vapor) may be a password.
        (#"\b[0-9a-fA-F]{32,}\b"#, placeholder),
    ].map { pattern, template in
        // The patterns are constants, checked by the tests.
        (try! NSRegularExpression(pattern: pattern), template)
    }

    /// The text with every credential it shows replaced by `[redacted]`.
    package static func redact(_ text: String) -> String {
        var text = text
        for (rule, template) in rules {
            text = rule.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
        }
        return text
    }

    static func redact(_ value: Logger.MetadataValue) -> Logger.MetadataValue {
        switch value {
        case .string(let text): .string(redact(text))
        case .stringConvertible(let convertible): .string(redact(convertible.description))
        case .array(let values): .array(values.map(redact))
        case .dictionary(let entries): .dictionary(redact(entries))
        }
    }

    static func redact(_ metadata: Logger.Metadata) -> Logger.Metadata {
        var redacted = Logger.Metadata()
        for (key, value) in metadata {
            redacted[key] = isSecret(key: key) ? .string(placeholder) : redact(value)
        }
        return redacted
    }

    /// What a failure's log line says about its cause: for an OpenAPI operation its id and the
    /// underlying error, never the request, input or output the runtime's error carries.
    static func describe(_ error: any Error) -> String {
        if let serverError = error as? ServerError {
            return "\(serverError.operationID): \(describe(serverError.underlyingError))"
        }
        return redact(String(reflecting: error))
    }
}

/// A log handler that writes through another one with every secret redacted. Its metadata is
/// kept here as set and redacted when a line is written: every request sets its id on its
/// logger, most never log a line, and redacting at each setting was a twentieth of the server's
/// CPU under load.
package struct RedactingLogHandler: LogHandler {
    private var wrapped: any LogHandler
    private var stored: Logger.Metadata

    package init(_ wrapped: any LogHandler) {
        self.wrapped = wrapped
        stored = wrapped.metadata
        self.wrapped.metadata = [:]
    }

    package var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    package var metadata: Logger.Metadata {
        get { stored }
        set { stored = newValue }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stored[key] }
        set { stored[key] = newValue }
    }

    package func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        let all = stored.merging(metadata ?? [:]) { _, lineValue in lineValue }
        wrapped.log(
            level: level, message: "\(LogRedaction.redact(message.description))",
            metadata: all.isEmpty ? nil : LogRedaction.redact(all), source: source, file: file, function: function, line: line)
    }
}
