import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import NIOConcurrencyHelpers
import NIOCore
import PawpackCore

/// The Push API for the web app: the browser's push service is given an encrypted message
/// (RFC 8291, `aes128gcm` of RFC 8188) and a VAPID token proving which server sends it
/// (RFC 8292), at the endpoint of the browser's subscription (RFC 8030).
package final class WebPushProvider: PushProvider {
    package struct Settings: Sendable, Equatable {
        /// The VAPID key: a P-256 private key, its 32 bytes.
        package var vapidPrivateKey: Data
        /// Who the push services may contact about this server: `mailto:` or an https URL.
        package var subject: String
        /// The push services an endpoint may point at (host, or host:port; `*.` for any sub-domain).
        package var hosts: Set<String>

        package init(vapidPrivateKey: Data, subject: String, hosts: Set<String>) {
            self.vapidPrivateKey = vapidPrivateKey
            self.subject = subject
            self.hosts = hosts
        }

        /// The push services of today's browsers: Chrome and Edge (FCM), Firefox (Mozilla),
        /// Safari (Apple), Windows (WNS).
        package static let knownHosts: Set<String> = [
            "fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com", "*.notify.windows.com",
        ]
    }

    /// The VAPID claims (RFC 8292 §2): the push service's origin, at most a day ahead, and who we are.
    struct VAPIDClaims: JWTPayload {
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var sub: SubjectClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private let settings: Settings
    private let client: HTTPClient
    private let clock: any AppClock
    private let keys: JWTKeyCollection
    /// The public key the browser subscribes with (`applicationServerKey`), base64url.
    let publicKey: String
    /// One VAPID token per push service, reused for 12 hours.
    private let tokens = CredentialCaches()

    package init(settings: Settings, client: HTTPClient, clock: any AppClock) async throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: settings.vapidPrivateKey)
        self.settings = settings
        self.client = client
        self.clock = clock
        publicKey = key.publicKey.x963Representation.base64URLEncoded
        keys = JWTKeyCollection()
        await keys.add(ecdsa: try ES256PrivateKey(backing: key))
    }

    package func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome {
        // Checked again at sending: the hosts allowed may have changed since the browser subscribed.
        guard PushRules.isPushEndpoint(target.token, hosts: settings.hosts), let url = URLComponents(string: target.token),
            let scheme = url.scheme, let host = url.host
        else {
            return .invalidToken(reason: "the endpoint is not a known push service")
        }
        guard let keys = target.webKeys, let browserKey = Data(base64URLEncoded: keys.p256dh), let auth = Data(base64URLEncoded: keys.auth) else {
            return .invalidToken(reason: "the subscription has no keys")
        }
        let audience = "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
        let now = clock.now()
        let body: Data
        do {
            body = try WebPushEncryption.encrypt(Self.payload(message), browserKey: browserKey, authSecret: auth)
        } catch WebPushEncryption.Failure.tooLong {
            return .rejected(reason: "the message does not fit in one record")
        } catch {
            // Only the browser's key can fail the agreement: the subscription is unusable.
            return .invalidToken(reason: "the subscription's key cannot be used: \(error)")
        }
        let vapid: String
        do {
            vapid = try await tokens.cache(for: audience).value(now: now) { now in
                let expires = now.addingTimeInterval(12 * 3_600)
                let token = try await self.keys.sign(
                    VAPIDClaims(
                        aud: .init(value: audience), exp: .init(value: expires),
                        sub: .init(value: self.settings.subject)))
                return (token, expires.addingTimeInterval(-3_600))
            }
        } catch {
            return .rejected(reason: "the VAPID key cannot sign: \(error)")
        }
        var request = HTTPClientRequest(url: target.token)
        request.method = .POST
        request.headers.add(name: "authorization", value: "vapid t=\(vapid), k=\(publicKey)")
        request.headers.add(name: "content-encoding", value: "aes128gcm")
        request.headers.add(name: "content-type", value: "application/octet-stream")
        request.headers.add(name: "ttl", value: String(max(0, Int(message.expiresAt.timeIntervalSince(now)))))
        request.headers.add(name: "urgency", value: message.kind == .message ? "high" : "normal")
        // A newer push of the same topic replaces one the browser has not fetched yet (RFC 8030 §5.4).
        if let topic = message.collapseKey.map(Self.topic) { request.headers.add(name: "topic", value: topic) }
        request.body = .bytes(ByteBuffer(data: body))
        return await client.push(request) { response, _ in
            let reason = "HTTP \(response.status.code)"
            switch response.status.code {
            case 200...202:
                return .delivered
            case 404, 410:
                return .invalidToken(reason: reason)
            case 429, 500...599:
                return .later(reason, response)
            default:
                return .rejected(reason: reason)
            }
        }
    }

    /// What the service worker reads (`Resources/Web/sw.js`).
    static func payload(_ message: PushMessage) -> Data {
        var fields: [String: String] = [
            "title": message.title, "body": message.body, "path": message.path,
            "kind": message.kind.rawValue, "tag": message.collapseKey ?? message.id.uuidString,
        ]
        if let notification = message.notification { fields["notificationId"] = notification.uuidString.lowercased() }
        if let pet = message.pet { fields["petId"] = pet.uuidString.lowercased() }
        // The service worker shows "Mark as fed" for this.
        if message.marksFed { fields["action"] = "mark_fed" }
        return (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    /// A `Topic` is at most 32 characters of the base64url alphabet: a key's SHA-256, cut.
    static func topic(_ key: String) -> String {
        String(Data(SHA256.hash(data: Data(key.utf8))).base64URLEncoded.prefix(32))
    }
}

/// One credential cache per key (a push service's origin).
final class CredentialCaches: Sendable {
    private let caches = NIOLockedValueBox<[String: CredentialCache]>([:])

    func cache(for key: String) -> CredentialCache {
        caches.withLockedValue { caches in
            if let cache = caches[key] { return cache }
            let cache = CredentialCache()
            caches[key] = cache
            return cache
        }
    }
}

/// RFC 8291's message encryption: an ECDH agreement between a one-time key and the browser's
/// key, mixed with the browser's auth secret, keys AES-128-GCM over the message in one record.
enum WebPushEncryption {
    enum Failure: Error { case tooLong }

    /// The record size written in the header; the message fits in one record.
    static let recordSize: UInt32 = 4_096

    static func encrypt(
        _ plaintext: Data, browserKey: Data, authSecret: Data,
        serverKey: P256.KeyAgreement.PrivateKey = .init(),
        salt: Data = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    ) throws -> Data {
        // One record holds the message, its delimiter (1) and the tag (16).
        guard plaintext.count + 17 <= Int(recordSize) else { throw Failure.tooLong }
        let browser = try P256.KeyAgreement.PublicKey(x963Representation: browserKey)
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: browser)
        let serverPublic = serverKey.publicKey.x963Representation
        let keyInfo = Data("WebPush: info".utf8) + [0] + browserKey + serverPublic
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let contentKey = HKDF<SHA256>.expand(
            pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0],
            outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(
            pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0],
            outputByteCount: 12)
        // 0x02 closes the last (here the only) record (RFC 8188 §2).
        let sealed = try AES.GCM.seal(
            plaintext + [2], using: contentKey,
            nonce: try AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }))
        var header = salt
        withUnsafeBytes(of: recordSize.bigEndian) { header.append(contentsOf: $0) }
        header.append(UInt8(serverPublic.count))
        header.append(serverPublic)
        return header + sealed.ciphertext + sealed.tag
    }
}
