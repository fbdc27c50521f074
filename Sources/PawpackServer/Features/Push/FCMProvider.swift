import AsyncHTTPClient
import Foundation
import JWTKit
import NIOCore
import PawpackCore

/// Firebase Cloud Messaging, HTTP v1 API, as Google documents it ("Send messages", "Using
/// OAuth 2.0 for Server to Server Applications"): the service account signs an RS256 JWT,
/// which its `token_uri` exchanges for an OAuth 2.0 access token; that token is kept until
/// a minute before it expires and sent with each `messages:send`.
package final class FCMProvider: PushProvider {
    /// The fields of the service account's JSON key file that are used.
    package struct ServiceAccount: Sendable, Equatable, Decodable {
        package var projectID: String
        package var privateKeyID: String
        package var privateKey: String
        package var clientEmail: String
        package var tokenURI: String

        enum CodingKeys: String, CodingKey {
            case projectID = "project_id"
            case privateKeyID = "private_key_id"
            case privateKey = "private_key"
            case clientEmail = "client_email"
            case tokenURI = "token_uri"
        }

        package init(projectID: String, privateKeyID: String, privateKey: String, clientEmail: String, tokenURI: String) {
            self.projectID = projectID
            self.privateKeyID = privateKeyID
            self.privateKey = privateKey
            self.clientEmail = clientEmail
            self.tokenURI = tokenURI
        }
    }

    package struct Settings: Sendable, Equatable {
        package var serviceAccount: ServiceAccount
        /// The sender id (project number) apps register their devices with.
        package var senderID: String
        package var apiURL = "https://fcm.googleapis.com"

        package init(serviceAccount: ServiceAccount, senderID: String) {
            self.serviceAccount = serviceAccount
            self.senderID = senderID
        }
    }

    /// The assertion exchanged for an access token.
    struct AssertionClaims: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    package static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    private let settings: Settings
    private let client: HTTPClient
    private let clock: any AppClock
    private let keys: JWTKeyCollection
    private let accessToken = CredentialCache()

    package init(settings: Settings, client: HTTPClient, clock: any AppClock) async throws {
        self.settings = settings
        self.client = client
        self.clock = clock
        keys = JWTKeyCollection()
        await keys.add(
            rsa: try Insecure.RSA.PrivateKey(pem: settings.serviceAccount.privateKey), digestAlgorithm: .sha256,
            kid: JWKIdentifier(string: settings.serviceAccount.privateKeyID))
    }

    package func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome {
        let token: String
        do {
            token = try await accessToken.value(now: clock.now()) { now in try await self.exchange(at: now) }
        } catch let outcome as OutcomeError {
            return outcome.outcome
        } catch {
            return .retry(reason: "OAuth: \(error)", after: nil)
        }
        let account = settings.serviceAccount
        var request = HTTPClientRequest(url: "\(settings.apiURL)/v1/projects/\(account.projectID)/messages:send")
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.headers.add(name: "content-type", value: "application/json; charset=UTF-8")
        request.body = .bytes(ByteBuffer(data: Self.body(message, token: target.token, now: clock.now())))
        return await client.push(request) { response, body in
            let error = (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error
            let reason = error?.details?.compactMap(\.errorCode).first ?? error?.status ?? "HTTP \(response.status.code)"
            switch response.status.code {
            case 200:
                return .delivered
            case _ where ["UNREGISTERED", "SENDER_ID_MISMATCH"].contains(reason):
                return .invalidToken(reason: reason)
            case 401:
                // The access token was refused: a new one on the next try.
                await accessToken.forget()
                return .retry(reason: reason, after: nil)
            case 429, 500...599:
                return .later(reason, response)
            default:
                return .rejected(reason: reason)
            }
        }
    }

    /// Trades a freshly signed assertion for an access token, kept until a minute before it expires.
    private func exchange(at now: Date) async throws -> (value: String, expiresAt: Date) {
        let account = settings.serviceAccount
        let assertion = try await keys.sign(
            AssertionClaims(
                iss: .init(value: account.clientEmail), scope: Self.scope, aud: .init(value: account.tokenURI),
                iat: .init(value: now), exp: .init(value: now.addingTimeInterval(3_600))),
            kid: JWKIdentifier(string: account.privateKeyID))
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        var form = URLComponents()
        form.queryItems = [
            URLQueryItem(name: "grant_type", value: "urn:ietf:params:oauth:grant-type:jwt-bearer"),
            URLQueryItem(name: "assertion", value: assertion),
        ]
        // URLComponents leaves ":" as it is; a form body encodes it.
        let body = (form.percentEncodedQuery ?? "").replacingOccurrences(of: ":", with: "%3A")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await client.execute(request, timeout: HTTPClient.pushTimeout)
        let bytes = try await response.body.collect(upTo: 64 * 1_024)
        guard response.status == .ok, let granted = try? JSONDecoder().decode(AccessToken.self, from: Data(buffer: bytes)) else {
            let reason = "OAuth token refused: HTTP \(response.status.code)"
            // A key Google no longer accepts will not work later either; a server error might.
            throw OutcomeError(outcome: response.status.code >= 500 ? .retry(reason: reason, after: nil) : .rejected(reason: reason))
        }
        return (granted.accessToken, now.addingTimeInterval(max(0, TimeInterval(granted.expiresIn) - 60)))
    }

    /// The message as FCM's v1 API takes it: shown by the system (`notification`), with the
    /// page in `data`, one chat's messages collapsing on Android.
    static func body(_ message: PushMessage, token: String, now: Date) -> Data {
        struct Body: Encodable {
            struct Message: Encodable {
                struct Notification: Encodable {
                    var title: String
                    var body: String
                }
                struct Android: Encodable {
                    var collapseKey: String?
                    var priority = "HIGH"
                    var ttl: String
                    enum CodingKeys: String, CodingKey {
                        case collapseKey = "collapse_key"
                        case priority, ttl
                    }
                }
                var token: String
                var notification: Notification
                var data: [String: String]
                var android: Android
            }
            var message: Message
        }
        let seconds = max(0, Int(message.expiresAt.timeIntervalSince(now)))
        var data = ["kind": message.kind.rawValue, "path": message.path, "badge": String(message.badge)]
        if let notification = message.notification { data["notificationId"] = notification.uuidString.lowercased() }
        if let pet = message.pet { data["petId"] = pet.uuidString.lowercased() }
        // An Android app shows its "Mark as fed" action for this.
        if message.marksFed { data["action"] = "mark_fed" }
        let body = Body(
            message: .init(
                token: token, notification: .init(title: message.title, body: message.body),
                data: data,
                android: .init(collapseKey: message.collapseKey, ttl: "\(seconds)s")))
        return (try? JSONEncoder().encode(body)) ?? Data("{}".utf8)
    }

    private struct AccessToken: Decodable {
        var accessToken: String
        var expiresIn: Int
        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    private struct ErrorBody: Decodable {
        struct Status: Decodable {
            struct Detail: Decodable { var errorCode: String? }
            var status: String?
            var details: [Detail]?
        }
        var error: Status
    }

    private struct OutcomeError: Error { var outcome: PushOutcome }
}
