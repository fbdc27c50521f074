import Foundation

// What reaches a phone or a browser while its owner is away: the devices a member registers,
// and when a push that failed is tried again. Pure rules: the server and its tests share them.

/// The service a device is reached through.
public enum PushPlatform: String, Sendable, Codable, CaseIterable {
    /// Apple Push Notification service: iPhone and iPad apps.
    case apns
    /// Firebase Cloud Messaging (HTTP v1): Android apps.
    case fcm
    /// The Push API (RFC 8030) with VAPID: the web app added to a home screen.
    case web
}

/// APNs keeps a development and a production service; an app's debug build gets its tokens
/// from the first.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case production, sandbox
}

/// A device as the rules accept it.
public struct DeviceRegistration: Sendable, Equatable {
    public var platform: PushPlatform
    /// The APNs device token (hex), the FCM registration token, or the Web Push endpoint URL.
    public var token: String
    /// The app's bundle id (APNs) or sender id (FCM); nil for the web app.
    public var appID: String?
    public var environment: APNsEnvironment?
    /// The browser's P-256 public key and auth secret (RFC 8291), base64url as the Push API gives them.
    public var webKeys: WebPushKeys?
}

public struct WebPushKeys: Sendable, Equatable, Codable {
    public var p256dh: String
    public var auth: String

    public init(p256dh: String, auth: String) {
        self.p256dh = p256dh
        self.auth = auth
    }
}

public struct PushRules: Sendable {
    /// Devices a member may have registered at once; the oldest goes when one more arrives.
    public static let devicesPerMember = 20
    /// APNs tokens are 32 bytes today (64 hex digits); Apple says not to rely on the length.
    public static let maximumAPNsTokenLength = 200
    /// FCM registration tokens are about 160 characters; generous room for change.
    public static let maximumFCMTokenLength = 4_096
    public static let maximumEndpointLength = 2_048
    public static let maximumAppIDLength = 155

    public init() {}

    /// The device to keep, or a problem naming each field that is wrong. `webPushHosts` are the
    /// push services a browser's endpoint may point at: the server posts to that address, so
    /// it must be a push service and never a machine of the operator's network.
    public func registration(
        platform rawPlatform: String, token rawToken: String, appID rawAppID: String?,
        environment rawEnvironment: String?, webKeys: WebPushKeys?,
        webPushHosts: Set<String>
    ) throws -> DeviceRegistration {
        guard let platform = PushPlatform(rawValue: rawPlatform) else {
            throw Problem.invalidField("platform", "must be one of \(PushPlatform.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var errors: [FieldError] = []
        let token = rawToken.trimmingCharacters(in: .whitespacesAndNewlines)
        let appID = rawAppID?.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment: APNsEnvironment?
        switch platform {
        case .apns:
            if token.isEmpty || token.count > Self.maximumAPNsTokenLength || token.count % 2 != 0
                || !token.allSatisfy(\.isHexDigit)
            {
                errors.append(FieldError(field: "token", message: "must be the device token in hexadecimal, as the app received it"))
            }
            if !Self.isAppID(appID) {
                errors.append(FieldError(field: "appId", message: "must be the app's bundle id, such as org.pawpack.app"))
            }
            if let rawEnvironment {
                environment = APNsEnvironment(rawValue: rawEnvironment)
                if environment == nil { errors.append(FieldError(field: "environment", message: "must be production or sandbox")) }
            } else {
                environment = .production
            }
        case .fcm:
            if token.isEmpty || token.count > Self.maximumFCMTokenLength
                || !token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 32 && $0.value < 127 })
            {
                errors.append(FieldError(field: "token", message: "must be the registration token the app received from FCM"))
            }
            if !Self.isAppID(appID) {
                errors.append(FieldError(field: "appId", message: "must be the app's FCM sender id"))
            }
        case .web:
            if !Self.isPushEndpoint(token, hosts: webPushHosts) {
                errors.append(FieldError(field: "endpoint", message: "must be the https address of a known push service"))
            }
            // Read only when short: the keys are 65 and 16 bytes.
            if webKeys.flatMap({ $0.p256dh.count <= 100 ? Data(base64URLEncoded: $0.p256dh) : nil })
                .map({ $0.count == 65 && $0.first == 4 }) != true
            {
                errors.append(FieldError(field: "keys.p256dh", message: "must be the subscription's P-256 key (65 bytes, base64url)"))
            }
            if webKeys.flatMap({ $0.auth.count <= 100 ? Data(base64URLEncoded: $0.auth) : nil })?.count != 16 {
                errors.append(FieldError(field: "keys.auth", message: "must be the subscription's auth secret (16 bytes, base64url)"))
            }
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        return DeviceRegistration(
            platform: platform, token: token, appID: platform == .web ? nil : appID,
            environment: environment, webKeys: platform == .web ? webKeys : nil)
    }

    static func isAppID(_ value: String?) -> Bool {
        guard let value, !value.isEmpty, value.count <= maximumAppIDLength else { return false }
        return value.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._:".unicodeScalars.contains($0)) }
    }

    /// An https URL on one of `hosts` (a host, or host:port), with no user info.
    public static func isPushEndpoint(_ text: String, hosts: Set<String>) -> Bool {
        guard text.count <= maximumEndpointLength, let url = URLComponents(string: text),
            url.scheme?.lowercased() == "https", url.user == nil, url.password == nil,
            let host = url.host?.lowercased(), !host.isEmpty
        else { return false }
        let named = url.port.map { "\(host):\($0)" } ?? host
        return hosts.contains(named) || hosts.contains { $0.hasPrefix("*.") && host.hasSuffix($0.dropFirst()) }
    }

    // MARK: Retries

    /// How long a push waits before its next try after `attempts` failed ones: 5 s, doubling,
    /// at most an hour, spread by ±20 % (`jitter` in 0...1) so that a service that was down is
    /// not hit by every waiting push at the same second.
    public static func retryDelay(afterAttempts attempts: Int, jitter: Double) -> TimeInterval {
        let base = min(5 * pow(2, Double(max(0, attempts - 1))), 3_600)
        return base * (0.8 + 0.4 * min(max(jitter, 0), 1))
    }

    /// A push not delivered by then is dropped: news of a day ago is no longer news.
    public static let deadline: TimeInterval = 24 * 3_600
    /// A message pushes only when no socket of its recipient acknowledged it within this time.
    public static let acknowledgementWindow: TimeInterval = 3
}
