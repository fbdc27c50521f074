import Foundation
import Logging

/// One JSON object per line, for log collectors in production. Vapor puts `request-id` in the
/// request logger's metadata, so every line written for a request carries it.
package struct JSONLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String

    package init(label: String) { self.label = label }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(explicit ?? [:], uniquingKeysWith: { $1 }) {
            fields[key] = "\(value)"
        }
        fields["ts"] = Date().formatted(.iso8601)
        fields["level"] = level.rawValue
        fields["label"] = label
        fields["msg"] = message.description
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]),
            var text = String(data: data, encoding: .utf8)
        else { return }
        text.append("\n")
        FileHandle.standardError.write(Data(text.utf8))
    }
}
