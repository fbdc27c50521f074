import Foundation

/// Where and how `SMTPMailer` delivers mail, usually parsed from the `SMTP_URL` setting.
package struct SMTPSettings: Sendable, Equatable {
    /// How the connection is protected.
    package enum Security: String, Sendable, Equatable {
        /// Plain connection upgraded with STARTTLS, which must be offered (`smtp://`, port 587).
        case startTLS
        /// TLS from the first byte (`smtps://`, port 465).
        case implicitTLS
        /// No TLS at all; only for relays on the same host or a trusted private network
        /// (`smtp+insecure://`, port 25).
        case none
    }

    package var host: String
    package var port: Int
    package var username: String?
    package var password: String?
    package var security: Security
    /// Envelope sender and `From:` header address, e.g. `noreply@pawpack.app`.
    package var from: String
    /// Extra trust root (PEM file) besides the system ones, e.g. for a self-signed test server.
    package var caFile: String?
    /// The name this client announces in EHLO.
    package var heloName: String

    package init(
        host: String,
        port: Int,
        username: String? = nil,
        password: String? = nil,
        security: Security,
        from: String,
        caFile: String? = nil,
        heloName: String = "pawpack.local"
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.security = security
        self.from = from
        self.caFile = caFile
        self.heloName = heloName
    }

    /// Parses `SMTP_URL`:
    /// - `smtp://user:pass@host:587`: STARTTLS required, default port 587;
    /// - `smtps://user:pass@host:465`: implicit TLS, default port 465;
    /// - `smtp+insecure://host:25`: no TLS (local relays only), default port 25.
    ///
    /// Credentials are optional and percent-decoded (write `%40` for `@`, `%25` for `%`, ...).
    /// IPv6 hosts go in brackets: `smtp://[2001:db8::1]:587`.
    /// - Throws: `SMTPSettingsError` naming what is wrong; the message never contains the password.
    package init(url: String, from: String, caFile: String? = nil, heloName: String = "pawpack.local") throws {
        let trimmed = url.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let schemeEnd = trimmed.range(of: "://") else {
            throw SMTPSettingsError.malformedURL(
                "expected something like smtp://user:password@smtp.example.com:587 (no \"://\" found)"
            )
        }

        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        let security: Security
        let defaultPort: Int
        switch scheme {
        case "smtp":
            security = .startTLS
            defaultPort = 587
        case "smtps":
            security = .implicitTLS
            defaultPort = 465
        case "smtp+insecure":
            security = Security.none
            defaultPort = 25
        default:
            throw SMTPSettingsError.unsupportedScheme(scheme)
        }

        // The credentials end at the *last* "@": the host can never contain one, while an
        // unencoded password might.
        let remainder = trimmed[schemeEnd.upperBound...]
        var userInfo: Substring?
        var hostAndPort = remainder
        if let at = remainder.lastIndex(of: "@") {
            userInfo = remainder[..<at]
            hostAndPort = remainder[remainder.index(after: at)...]
        }

        // An SMTP URL has nothing after host and port; a lone trailing "/" is tolerated.
        if let pathStart = hostAndPort.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            let tail = hostAndPort[pathStart...]
            guard tail == "/" else {
                throw SMTPSettingsError.malformedURL("unexpected path, query or fragment \"\(tail)\" after the host")
            }
            hostAndPort = hostAndPort[..<pathStart]
        }

        let split = try Self.splitHostAndPort(hostAndPort)
        let host = split.host
        let portText = split.port
        guard !host.isEmpty else { throw SMTPSettingsError.missingHost }
        let allowedHostCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_:%"))
        guard host.unicodeScalars.allSatisfy({ $0.isASCII && allowedHostCharacters.contains($0) }) else {
            throw SMTPSettingsError.malformedURL("host \"\(host)\" contains characters a host name cannot have")
        }

        let port: Int
        if let portText {
            guard !portText.isEmpty, portText.allSatisfy({ ("0"..."9").contains($0) }),
                let number = Int(portText), (1...65535).contains(number)
            else {
                throw SMTPSettingsError.invalidPort(String(portText))
            }
            port = number
        } else {
            port = defaultPort
        }

        var username: String?
        var password: String?
        if let userInfo {
            let credentials = try Self.credentials(from: userInfo)
            username = credentials.username
            password = credentials.password
        }

        if let problem = SMTPAddressRules.problem(with: from) {
            throw SMTPSettingsError.invalidSender(from, reason: problem)
        }
        guard !heloName.isEmpty,
            heloName.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw SMTPSettingsError.invalidHeloName(heloName)
        }

        self.init(
            host: host,
            port: port,
            username: username,
            password: password,
            security: security,
            from: from,
            caFile: caFile,
            heloName: heloName
        )
    }

    /// Splits `host[:port]` or `[ipv6][:port]`; the port text is nil when there is none.
    private static func splitHostAndPort(_ text: Substring) throws -> (host: String, port: Substring?) {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw SMTPSettingsError.malformedURL("IPv6 host \"\(text)\" is missing its closing \"]\"")
            }
            let host = String(text[text.index(after: text.startIndex)..<close])
            let afterBracket = text[text.index(after: close)...]
            if afterBracket.isEmpty { return (host, nil) }
            guard afterBracket.hasPrefix(":") else {
                throw SMTPSettingsError.malformedURL("unexpected \"\(afterBracket)\" after the IPv6 host")
            }
            return (host, afterBracket.dropFirst())
        }
        guard let colon = text.firstIndex(of: ":") else { return (String(text), nil) }
        let portText = text[text.index(after: colon)...]
        guard !portText.contains(":") else {
            throw SMTPSettingsError.malformedURL("an IPv6 host must be written in brackets, e.g. smtp://[::1]:587")
        }
        return (String(text[..<colon]), portText)
    }

    /// Percent-decodes `user:password`. Error messages describe the problem, never the value.
    private static func credentials(from userInfo: Substring) throws -> (username: String, password: String) {
        guard let colon = userInfo.firstIndex(of: ":") else {
            throw SMTPSettingsError.invalidCredentials("a user name was given without a password (use user:password@host)")
        }
        guard let username = String(userInfo[..<colon]).removingPercentEncoding else {
            throw SMTPSettingsError.invalidCredentials("the user name is not valid percent-encoding (write % as %25)")
        }
        guard let password = String(userInfo[userInfo.index(after: colon)...]).removingPercentEncoding else {
            throw SMTPSettingsError.invalidCredentials("the password is not valid percent-encoding (write % as %25)")
        }
        guard !username.isEmpty else {
            throw SMTPSettingsError.invalidCredentials("the user name is empty")
        }
        guard !password.isEmpty else {
            throw SMTPSettingsError.invalidCredentials("the password is empty")
        }
        // AUTH PLAIN separates the fields with NUL bytes, so they cannot appear inside them.
        guard !username.unicodeScalars.contains("\0"), !password.unicodeScalars.contains("\0") else {
            throw SMTPSettingsError.invalidCredentials("the user name or password contains a NUL character")
        }
        return (username, password)
    }
}

extension SMTPSettings: CustomStringConvertible {
    /// Safe to log: the password is never included.
    package var description: String {
        let scheme: String
        switch security {
        case .startTLS: scheme = "smtp"
        case .implicitTLS: scheme = "smtps"
        case .none: scheme = "smtp+insecure"
        }
        let user = username.map { "\($0):<redacted>@" } ?? ""
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(scheme)://\(user)\(host):\(port) from \(from)"
    }
}

/// A problem with `SMTP_URL` or the sender address.
package enum SMTPSettingsError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    case malformedURL(String)
    case unsupportedScheme(String)
    case missingHost
    case invalidPort(String)
    case invalidCredentials(String)
    case invalidSender(String, reason: String)
    case invalidHeloName(String)

    package var description: String {
        switch self {
        case .malformedURL(let reason):
            return "SMTP_URL is malformed: \(reason)"
        case .unsupportedScheme(let scheme):
            return "SMTP_URL has unsupported scheme \"\(scheme)\"; use smtp:// (STARTTLS, port 587), "
                + "smtps:// (implicit TLS, port 465) or smtp+insecure:// (no TLS, local relays only, port 25)"
        case .missingHost:
            return "SMTP_URL has no host; expected something like smtp://user:password@smtp.example.com:587"
        case .invalidPort(let port):
            return "SMTP_URL has invalid port \"\(port)\"; it must be a number from 1 to 65535"
        case .invalidCredentials(let reason):
            return "SMTP_URL credentials are invalid: \(reason)"
        case .invalidSender(let address, let reason):
            return "mail sender address \(address.debugDescription) \(reason)"
        case .invalidHeloName(let name):
            return "EHLO name \(name.debugDescription) must be a non-empty host name without spaces or control characters"
        }
    }

    package var errorDescription: String? { description }
}

/// Rules shared by the settings (sender) and the mailer (recipient) for addresses that end up in
/// `MAIL FROM:<…>`, `RCPT TO:<…>` and the `From:`/`To:` headers.
enum SMTPAddressRules {
    /// Why `address` cannot be used, or nil when it can.
    static func problem(with address: String) -> String? {
        let scalars = address.unicodeScalars
        if address.isEmpty {
            return "is empty"
        }
        // CR/LF would let the value end the SMTP command or header line and inject new ones.
        if scalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            return "contains a line break"
        }
        if scalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "contains control characters"
        }
        if scalars.contains(where: { $0 == "<" || $0 == ">" || $0 == " " }) {
            return "must be a bare address like name@example.com (no spaces or angle brackets)"
        }
        if !scalars.contains("@") {
            return "has no @"
        }
        return nil
    }
}
