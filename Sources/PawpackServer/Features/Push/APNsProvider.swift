import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import NIOHTTP1
import PawpackCore

/// Apple Push Notification service with token-based authentication, as Apple documents it
/// ("Sending notification requests to APNs", "Establishing a token-based connection to APNs"):
/// an HTTP/2 POST to `/3/device/<token>` carrying a provider token, an ES256 JWT of the team
/// signed with the key from the developer account. The token is made once and used for every
/// push until it is 50 minutes old: APNs refuses one older than an hour, and one made anew too
/// often (`TooManyProviderTokenUpdates`).
package final class APNsProvider: PushProvider {
    package struct Settings: Sendable, Equatable {
        /// The key's id (10 characters), from the developer account.
        package var keyID: String
        package var teamID: String
        /// The `.p8` key, PEM.
        package var privateKeyPEM: String
        /// The apps whose devices may register; each push's `apns-topic` is its device's.
        package var bundleIDs: Set<String>
        package var productionURL = "https://api.push.apple.com"
        package var sandboxURL = "https://api.sandbox.push.apple.com"

        package init(keyID: String, teamID: String, privateKeyPEM: String, bundleIDs: Set<String>) {
            self.keyID = keyID
            self.teamID = teamID
            self.privateKeyPEM = privateKeyPEM
            self.bundleIDs = bundleIDs
        }
    }

    /// The provider token's claims: the team, and when it was made.
    struct ProviderClaims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private let settings: Settings
    private let client: HTTPClient
    private let clock: any AppClock
    private let keys: JWTKeyCollection
    private let providerToken = CredentialCache()
    static let tokenLifetime: TimeInterval = 50 * 60

    package init(settings: Settings, client: HTTPClient, clock: any AppClock) async throws {
        self.settings = settings
        self.client = client
        self.clock = clock
        keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(pem: settings.privateKeyPEM), kid: JWKIdentifier(string: settings.keyID))
    }

    package func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome {
        guard let topic = target.appID else { return .rejected(reason: "no bundle id") }
        let base = target.environment == .sandbox ? settings.sandboxURL : settings.productionURL
        let jwt: String
        do {
            jwt = try await providerToken.value(now: clock.now()) { now in
                let token = try await self.keys.sign(
                    ProviderClaims(iss: .init(value: self.settings.teamID), iat: .init(value: now)),
                    kid: JWKIdentifier(string: self.settings.keyID))
                return (token, now.addingTimeInterval(Self.tokenLifetime))
            }
        } catch {
            return .rejected(reason: "the APNs key cannot sign: \(error)")
        }
        var request = HTTPClientRequest(url: "\(base)/3/device/\(target.token)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(jwt)")
        request.headers.add(name: "apns-topic", value: topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.headers.add(name: "apns-priority", value: "10")
        request.headers.add(name: "apns-expiration", value: String(Int(message.expiresAt.timeIntervalSince1970)))
        request.headers.add(name: "apns-id", value: message.id.uuidString.lowercased())
        if let collapse = message.collapseKey { request.headers.add(name: "apns-collapse-id", value: String(collapse.prefix(64))) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: Self.payload(message)))
        return await client.push(request) { response, body in
            let reason = (try? JSONDecoder().decode(ErrorBody.self, from: body))?.reason ?? "HTTP \(response.status.code)"
            switch response.status.code {
            case 200:
                return .delivered
            case 410:
                return .invalidToken(reason: reason)
            case 400 where ["BadDeviceToken", "DeviceTokenNotForTopic"].contains(reason):
                return .invalidToken(reason: reason)
            case 403 where ["ExpiredProviderToken", "InvalidProviderToken"].contains(reason):
                // Made anew on the next try.
                await providerToken.forget()
                return .retry(reason: reason, after: nil)
            case 429, 500...599:
                return .later(reason, response)
            default:
                return .rejected(reason: reason)
            }
        }
    }

    /// The category an iOS app registers with a "Mark as fed" action (`UNNotificationCategory`).
    static let feedingCategory = "FEEDING_REMINDER"

    /// The JSON APNs delivers to the app: `aps` for the system, the rest for the app.
    static func payload(_ message: PushMessage) -> Data {
        struct Payload: Encodable {
            struct APS: Encodable {
                struct Alert: Encodable {
                    var title: String
                    var body: String
                }
                var alert: Alert
                var badge: Int
                var sound = "default"
                var threadID: String?
                /// The app's notification category with its actions: "Mark as fed".
                var category: String?
                enum CodingKeys: String, CodingKey {
                    case alert, badge, sound, category
                    case threadID = "thread-id"
                }
            }
            var aps: APS
            var kind: String
            var path: String
            var notificationId: String?
            var petId: String?
        }
        let payload = Payload(
            aps: .init(
                alert: .init(title: message.title, body: message.body), badge: message.badge,
                threadID: message.collapseKey, category: message.marksFed ? Self.feedingCategory : nil),
            kind: message.kind.rawValue, path: message.path, notificationId: message.notification?.uuidString.lowercased(),
            petId: message.pet?.uuidString.lowercased())
        return (try? JSONEncoder().encode(payload)) ?? Data("{}".utf8)
    }

    private struct ErrorBody: Decodable { var reason: String }
}

/// A credential made once and reused until it expires, or forgotten after the service refused
/// it. Pushes that start together wait for the same one rather than each making their own.
actor CredentialCache {
    private var current: (task: Task<(value: String, expiresAt: Date), any Error>, madeAt: Date)?

    /// `make` gives the credential and when to stop using it.
    func value(now: Date, make: @escaping @Sendable (Date) async throws -> (value: String, expiresAt: Date)) async throws -> String {
        while let seen = current, now >= seen.madeAt {
            if let made = try? await seen.task.value, now < made.expiresAt { return made.value }
            // Expired or failed. Callers that waited on it together make one new one: the first
            // replaces it, the others find the replacement.
            guard current?.task == seen.task else { continue }
            break
        }
        let task = Task { try await make(now) }
        current = (task, now)
        return try await task.value.value
    }

    func forget() {
        current = nil
    }
}
