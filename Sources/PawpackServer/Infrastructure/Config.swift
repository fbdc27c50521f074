import Crypto
import Foundation
import JWTKit
import PawpackCore

/// Everything the server reads from its environment, read once at start-up. A bad value
/// stops start-up with a message naming the variable, instead of surfacing later.
package struct Config: Sendable {
    package enum Environment: String, Sendable { case development, production, testing }

    package enum Database: Sendable, Equatable {
        case sqliteFile(String)
        /// PostgreSQL (tests give each server a database of its own: `MigratedTemplate`).
        case postgres(url: String)
    }

    package enum Mail: Sendable, Equatable {
        case developmentOutbox
        case smtp(SMTPSettings)
    }

    package enum LogFormat: String, Sendable { case text, json }

    package var environment: Environment = .development
    package var hostname = "127.0.0.1"
    package var port = 8080
    package var dataDirectory = "./data"
    package var database: Database = .sqliteFile("./data/pawpack.sqlite")
    /// PostgreSQL connections per event loop (per core). More than Fluent's one: a scheduled
    /// round holds its connection, and its advisory lock, while it waits on an outside service
    /// such as APNs, and requests on that loop must not queue behind it.
    package var databaseConnectionsPerEventLoop = 4
    package var publicBaseURL = "http://127.0.0.1:8080"
    /// Signs email links; at least 32 bytes.
    package var secret: String = ""
    package var mail: Mail = .developmentOutbox
    package var mailFrom = "noreply@pawpack.local"
    package var bcryptCost = 12
    package var hashingThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)
    package var hashingQueueLimit = 64
    package var sessions = SessionPolicy()
    /// How many notifications one member can cause another, and a member can receive.
    package var notifications = NotificationPolicy()
    package var lockout = LockoutPolicy()
    /// Failed sign-ins per client address, across accounts: high, as many people may share an
    /// address; guessing one account is stopped per (address, account) by `lockout`.
    package var failedLoginsPerAddress = 100
    package var failedLoginsPerAddressWindow: TimeInterval = 5 * 60
    /// The reverse proxies whose forwarding headers name the client.
    package var trustedProxies = TrustedProxies()
    /// Requests that make Pawpack send mail (sign-up, resend, reset, change of email), per
    /// client address or member per hour.
    package var mailRequestsPerClientPerHour = 20
    /// Mails to one address per hour, whoever asks.
    package var mailsPerRecipientPerHour = 5
    /// Changes of where a member is matched from, per member per hour (`LocationBlur`).
    package var locationChangesPerHour = 6
    /// Deck pages read per member per minute.
    package var deckReadsPerMinute = 60
    /// Chat messages sent per member per minute.
    package var messagesPerMinute = 60
    /// Realtime sockets open at once per member (PAWPACK_SOCKETS_PER_MEMBER).
    package var socketsPerMember = 10
    /// Events sent to a socket and not yet written out before it counts as too slow.
    package var socketSendQueueLimit = 256
    /// Seconds between the server's pings on a socket; one unanswered by the next closes it.
    package var realtimePingSeconds = 30
    /// The longest a stop may take (PAWPACK_STOP_SECONDS): past it `serve` exits, and work not
    /// finished waits in its outbox for the next start.
    package var stopSeconds = 10
    /// How long events are kept for apps that reconnect (PAWPACK_EVENT_RETENTION_DAYS).
    package var eventRetention: TimeInterval = 7 * 86_400
    /// How often scheduled work runs: meet-ups that expire, reminders an hour before.
    package var jobInterval: Duration = .seconds(60)
    package var logFormat: LogFormat = .text
    package var logLevel = "info"
    package var accountRules = AccountRules()
    /// The largest photo accepted (PAWPACK_MAX_UPLOAD_MB, default 10).
    package var maximumUploadBytes = 10 * 1_048_576
    /// The largest JSON or form body any other request may send (PAWPACK_MAX_BODY_KB, default 1024).
    package var maximumBodyBytes = 1_048_576
    /// Where media goes: files under the data folder, or S3-compatible storage.
    package var media: Media = .localFiles(nil)
    /// The largest SQLite file `pawpack serve` holds in memory (`ResidentFile`), in bytes
    /// (PAWPACK_SQLITE_RESIDENT_MB, default half the machine's memory; 0 holds none).
    package var sqliteResidentBytes = Int(min(ProcessInfo.processInfo.physicalMemory / 2, UInt64(Int.max)))
    /// The push services this server sends through (`docs/PUSH.md`).
    package var push = PushSettings()

    package struct PushSettings: Sendable, Equatable {
        /// APNs (APNS_KEY_ID, APNS_TEAM_ID, APNS_PRIVATE_KEY_FILE, APNS_BUNDLE_IDS).
        package var apns: APNsProvider.Settings?
        /// FCM (FCM_SERVICE_ACCOUNT_FILE, FCM_SENDER_ID).
        package var fcm: FCMProvider.Settings?
        /// The VAPID key, 32 bytes (PAWPACK_VAPID_PRIVATE_KEY); nil derives it from the secret.
        package var vapidPrivateKey: Data?
        /// Who push services may contact (PAWPACK_VAPID_SUBJECT); nil is `mailto:` MAIL_FROM.
        package var vapidSubject: String?
        /// Push services a browser's subscription may point at (PAWPACK_WEB_PUSH_HOSTS).
        package var webPushHosts = WebPushProvider.Settings.knownHosts
        /// How often due pushes are looked for.
        package var interval: Duration = .seconds(1)

        package init() {}
    }

    package enum Media: Sendable, Equatable {
        /// Files under this folder; nil means `DATA_DIR/media`.
        case localFiles(String?)
        case s3(S3Settings)
    }

    /// The folder local media lives in.
    package var localMediaDirectory: String {
        if case .localFiles(let folder?) = media { return folder }
        return (dataDirectory as NSString).appendingPathComponent("media")
    }

    package init() {}

    package var isDevelopment: Bool { environment == .development }
    package var isProduction: Bool { environment == .production }
    /// Cookies carry `Secure` whenever the public address is HTTPS.
    package var secureCookies: Bool { publicBaseURL.lowercased().hasPrefix("https://") }

    /// Reads the configuration. `variables` is the process environment merged over `.env`.
    package static func load(from variables: [String: String]) throws -> Config {
        var config = Config()
        let reader = Reader(variables: variables)

        if let env = reader.string("PAWPACK_ENV") {
            guard let parsed = Environment(rawValue: env.lowercased()), parsed != .testing else {
                throw ConfigError(variable: "PAWPACK_ENV", message: "must be development or production, not \"\(env)\"")
            }
            config.environment = parsed
        }
        config.hostname = reader.string("PAWPACK_HOST") ?? config.hostname
        config.port = try reader.int("PAWPACK_PORT", in: 0...65535) ?? config.port
        config.dataDirectory = reader.string("PAWPACK_DATA_DIR") ?? config.dataDirectory
        config.database = .sqliteFile((config.dataDirectory as NSString).appendingPathComponent("pawpack.sqlite"))
        if let url = reader.string("DATABASE_URL") {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw ConfigError(variable: "DATABASE_URL", message: "must be a postgres:// URL")
            }
            config.database = .postgres(url: url)
        }
        config.databaseConnectionsPerEventLoop =
            try reader.int("PAWPACK_DATABASE_CONNECTIONS", in: 2...64) ?? config.databaseConnectionsPerEventLoop
        config.publicBaseURL = reader.string("PAWPACK_PUBLIC_URL") ?? "http://\(config.hostname):\(config.port)"
        while config.publicBaseURL.hasSuffix("/") { config.publicBaseURL.removeLast() }
        guard URL(string: config.publicBaseURL)?.host != nil,
            config.publicBaseURL.hasPrefix("http://") || config.publicBaseURL.hasPrefix("https://")
        else {
            throw ConfigError(variable: "PAWPACK_PUBLIC_URL", message: "must be an http(s) URL such as https://pawpack.example.org")
        }
        config.mailFrom = reader.string("MAIL_FROM") ?? config.mailFrom
        if let smtpURL = reader.string("SMTP_URL") {
            do {
                config.mail = .smtp(
                    try SMTPSettings(
                        url: smtpURL, from: config.mailFrom,
                        caFile: reader.string("SMTP_CA_FILE")))
            } catch {
                throw ConfigError(variable: "SMTP_URL", message: "\(error)")
            }
        }
        config.bcryptCost = try reader.int("PAWPACK_BCRYPT_COST", in: 4...16) ?? config.bcryptCost
        config.hashingThreads = try reader.int("PAWPACK_HASH_THREADS", in: 1...64) ?? config.hashingThreads
        config.hashingQueueLimit = try reader.int("PAWPACK_HASH_QUEUE", in: 1...100_000) ?? config.hashingQueueLimit
        if let days = try reader.int("PAWPACK_APP_SESSION_DAYS", in: 1...365) {
            config.sessions.refreshIdleTimeout = TimeInterval(days) * 86_400
        }
        if let minutes = try reader.int("PAWPACK_WEB_IDLE_MINUTES", in: 1...43_200) {
            config.sessions.webIdleTimeout = TimeInterval(minutes) * 60
        }
        config.failedLoginsPerAddress =
            try reader.int("PAWPACK_LOGIN_FAILURES_PER_ADDRESS", in: 1...1_000_000)
            ?? config.failedLoginsPerAddress
        if let list = reader.string("PAWPACK_TRUSTED_PROXIES") {
            guard let proxies = TrustedProxies(list) else {
                throw ConfigError(
                    variable: "PAWPACK_TRUSTED_PROXIES",
                    message: "must list addresses or networks, such as 10.0.0.2, 172.16.0.0/12, ::1")
            }
            config.trustedProxies = proxies
        }
        config.mailRequestsPerClientPerHour =
            try reader.int("PAWPACK_MAIL_REQUESTS_PER_HOUR", in: 1...1_000_000)
            ?? config.mailRequestsPerClientPerHour
        config.mailsPerRecipientPerHour =
            try reader.int("PAWPACK_MAILS_PER_RECIPIENT_PER_HOUR", in: 1...1_000_000)
            ?? config.mailsPerRecipientPerHour
        config.locationChangesPerHour =
            try reader.int("PAWPACK_LOCATION_CHANGES_PER_HOUR", in: 1...1_000_000)
            ?? config.locationChangesPerHour
        config.deckReadsPerMinute =
            try reader.int("PAWPACK_DECK_READS_PER_MINUTE", in: 1...1_000_000)
            ?? config.deckReadsPerMinute
        config.messagesPerMinute =
            try reader.int("PAWPACK_MESSAGES_PER_MINUTE", in: 1...1_000_000)
            ?? config.messagesPerMinute
        config.socketsPerMember = try reader.int("PAWPACK_SOCKETS_PER_MEMBER", in: 1...1_000) ?? config.socketsPerMember
        config.socketSendQueueLimit = try reader.int("PAWPACK_SOCKET_QUEUE_LIMIT", in: 1...1_000_000) ?? config.socketSendQueueLimit
        config.realtimePingSeconds = try reader.int("PAWPACK_REALTIME_PING_SECONDS", in: 1...3_600) ?? config.realtimePingSeconds
        config.stopSeconds = try reader.int("PAWPACK_STOP_SECONDS", in: 1...600) ?? config.stopSeconds
        config.notifications.perSenderPerMinute =
            try reader.int("PAWPACK_NOTIFICATIONS_PER_SENDER_PER_MINUTE", in: 1...10_000)
            ?? config.notifications.perSenderPerMinute
        config.notifications.perRecipientPerMinute =
            try reader.int("PAWPACK_NOTIFICATIONS_PER_MINUTE", in: 1...10_000)
            ?? config.notifications.perRecipientPerMinute
        if let minutes = try reader.int("PAWPACK_NOTIFICATION_COALESCE_MINUTES", in: 0...1_440) {
            config.notifications.coalesceWindow = TimeInterval(minutes) * 60
        }
        if let days = try reader.int("PAWPACK_EVENT_RETENTION_DAYS", in: 1...365) { config.eventRetention = Double(days) * 86_400 }
        if let megabytes = try reader.int("PAWPACK_MAX_UPLOAD_MB", in: 1...100) {
            config.maximumUploadBytes = megabytes * 1_048_576
        }
        if let kilobytes = try reader.int("PAWPACK_MAX_BODY_KB", in: 16...65_536) {
            config.maximumBodyBytes = kilobytes * 1_024
        }
        if let bucket = reader.string("S3_BUCKET") {
            var settings: [String: String] = [:]
            for name in ["S3_ENDPOINT", "S3_REGION", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] {
                guard let value = reader.string(name) else {
                    throw ConfigError(variable: name, message: "is required when S3_BUCKET is set")
                }
                settings[name] = value
            }
            guard let endpoint = settings["S3_ENDPOINT"], URL(string: endpoint)?.host != nil else {
                throw ConfigError(variable: "S3_ENDPOINT", message: "must be a URL such as https://s3.eu-west-1.amazonaws.com")
            }
            config.media = .s3(
                S3Settings(
                    endpoint: endpoint, region: settings["S3_REGION"]!, bucket: bucket,
                    accessKeyID: settings["S3_ACCESS_KEY_ID"]!,
                    secretAccessKey: settings["S3_SECRET_ACCESS_KEY"]!,
                    pathStyle: reader.string("S3_PATH_STYLE").map { $0 != "false" } ?? true))
        } else if let folder = reader.string("PAWPACK_MEDIA_DIR") {
            config.media = .localFiles(folder)
        }
        config.push = try pushSettings(reader)
        if let megabytes = try reader.int("PAWPACK_SQLITE_RESIDENT_MB", in: 0...(1 << 30)) {
            config.sqliteResidentBytes = megabytes * 1_048_576
        }
        if let format = reader.string("PAWPACK_LOG_FORMAT") {
            guard let parsed = LogFormat(rawValue: format.lowercased()) else {
                throw ConfigError(variable: "PAWPACK_LOG_FORMAT", message: "must be text or json")
            }
            config.logFormat = parsed
        } else {
            config.logFormat = config.isProduction ? .json : .text
        }
        if let level = reader.string("LOG_LEVEL") {
            let levels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]
            guard levels.contains(level.lowercased()) else {
                throw ConfigError(variable: "LOG_LEVEL", message: "must be one of \(levels.joined(separator: ", "))")
            }
            config.logLevel = level.lowercased()
        }

        if let secret = reader.string("PAWPACK_SECRET") {
            guard secret.utf8.count >= 32 else {
                throw ConfigError(variable: "PAWPACK_SECRET", message: "must be at least 32 characters")
            }
            guard Self.estimatedBits(of: secret) >= 128 else {
                throw ConfigError(
                    variable: "PAWPACK_SECRET",
                    message: "looks guessable (too few different characters); use random output such as `openssl rand -base64 32`")
            }
            config.secret = secret
        }

        if config.isProduction {
            // Production must be able to reach its users and must not sign links with a
            // throw-away key; development gets safe local stand-ins instead.
            guard variables["PAWPACK_PUBLIC_URL"]?.isEmpty == false else {
                throw ConfigError(variable: "PAWPACK_PUBLIC_URL", message: "is required in production (links in emails point there)")
            }
            guard case .smtp = config.mail else {
                throw ConfigError(variable: "SMTP_URL", message: "is required in production (verification and reset mail must reach people)")
            }
            guard !config.secret.isEmpty else {
                throw ConfigError(variable: "PAWPACK_SECRET", message: "is required in production (at least 32 random characters)")
            }
            guard config.publicBaseURL.lowercased().hasPrefix("https://") || reader.string("PAWPACK_ALLOW_HTTP") == "1" else {
                throw ConfigError(
                    variable: "PAWPACK_PUBLIC_URL",
                    message: "must start with https:// in production (sessions and links travel over it); PAWPACK_ALLOW_HTTP=1 allows http://")
            }
            guard config.bcryptCost >= 10 else {
                throw ConfigError(variable: "PAWPACK_BCRYPT_COST", message: "must be at least 10 in production")
            }
        }
        return config
    }

    /// APNs when its four variables are set, FCM when its two are, and Web Push's key and hosts;
    /// each key is read and checked now, so a wrong one stops start-up rather than every push.
    private static func pushSettings(_ reader: Reader) throws -> PushSettings {
        var push = PushSettings()
        let apnsNames = ["APNS_KEY_ID", "APNS_TEAM_ID", "APNS_PRIVATE_KEY_FILE", "APNS_BUNDLE_IDS"]
        if apnsNames.contains(where: { reader.string($0) != nil }) {
            for name in apnsNames where reader.string(name) == nil {
                throw ConfigError(variable: name, message: "is required when any of \(apnsNames.joined(separator: ", ")) is set")
            }
            let file = reader.string("APNS_PRIVATE_KEY_FILE")!
            guard let pem = try? String(contentsOfFile: file, encoding: .utf8), (try? ES256PrivateKey(pem: pem)) != nil else {
                throw ConfigError(variable: "APNS_PRIVATE_KEY_FILE", message: "must name the .p8 key file from the Apple developer account")
            }
            let bundles = Set(reader.string("APNS_BUNDLE_IDS")!.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            push.apns = APNsProvider.Settings(
                keyID: reader.string("APNS_KEY_ID")!, teamID: reader.string("APNS_TEAM_ID")!,
                privateKeyPEM: pem, bundleIDs: bundles)
        }
        if reader.string("FCM_SERVICE_ACCOUNT_FILE") != nil || reader.string("FCM_SENDER_ID") != nil {
            guard let file = reader.string("FCM_SERVICE_ACCOUNT_FILE"),
                let data = FileManager.default.contents(atPath: file),
                let account = try? JSONDecoder().decode(FCMProvider.ServiceAccount.self, from: data),
                (try? Insecure.RSA.PrivateKey(pem: account.privateKey)) != nil
            else {
                throw ConfigError(
                    variable: "FCM_SERVICE_ACCOUNT_FILE",
                    message: "must name the service account's JSON key file from the Firebase console")
            }
            guard let sender = reader.string("FCM_SENDER_ID") else {
                throw ConfigError(variable: "FCM_SENDER_ID", message: "is required with FCM_SERVICE_ACCOUNT_FILE (the project number)")
            }
            push.fcm = FCMProvider.Settings(serviceAccount: account, senderID: sender)
        }
        if let text = reader.string("PAWPACK_VAPID_PRIVATE_KEY") {
            guard let key = Data(base64URLEncoded: text), (try? P256.Signing.PrivateKey(rawRepresentation: key)) != nil else {
                throw ConfigError(variable: "PAWPACK_VAPID_PRIVATE_KEY", message: "must be a P-256 private key: 32 bytes, base64url")
            }
            push.vapidPrivateKey = key
        }
        push.vapidSubject = reader.string("PAWPACK_VAPID_SUBJECT")
        if let hosts = reader.string("PAWPACK_WEB_PUSH_HOSTS") {
            push.webPushHosts = Set(hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
        }
        return push
    }

    /// The process environment over a `.env` file in the working directory (development only):
    /// real environment variables always win.
    package static func environmentVariables(dotEnvPath: String = ".env") -> [String: String] {
        var variables = ProcessInfo.processInfo.environment
        let isProduction = variables["PAWPACK_ENV"]?.lowercased() == "production"
        guard !isProduction, let text = try? String(contentsOfFile: dotEnvPath, encoding: .utf8) else {
            return variables
        }
        for (key, value) in parseDotEnv(text) where variables[key] == nil {
            variables[key] = value
        }
        return variables
    }

    /// `KEY=value` lines; `#` comments; optional single or double quotes around the value.
    package static func parseDotEnv(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for rawLine in text.split(whereSeparator: \.isNewline) {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line.removeFirst("export ".count) }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            result[key] = value
        }
        return result
    }

    /// A rough measure of how hard a secret is to guess: its length times the entropy of its
    /// characters' frequencies. A 32-character base64 or 64-character hex secret from a random
    /// source scores well over 128; repeated or dictionary-like text scores far under.
    static func estimatedBits(of secret: String) -> Double {
        let characters = Array(secret.unicodeScalars)
        var counts: [Unicode.Scalar: Int] = [:]
        for character in characters { counts[character, default: 0] += 1 }
        let total = Double(characters.count)
        let perCharacter = counts.values.reduce(0.0) { sum, count in
            let share = Double(count) / total
            return sum - share * log2(share)
        }
        return perCharacter * total
    }

    private struct Reader {
        let variables: [String: String]

        func string(_ name: String) -> String? {
            guard let value = variables[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }

        func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = string(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw ConfigError(variable: name, message: "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
            }
            return value
        }
    }
}

package struct ConfigError: Error, CustomStringConvertible, Equatable {
    package var variable: String
    package var message: String

    package var description: String { "Configuration error: \(variable) \(message)" }
}
