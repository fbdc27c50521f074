import AsyncHTTPClient
import Crypto
import Foundation
import JWTKit
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import PawpackCore
import PawpackServer
import SwiftASN1
import Vapor
import X509
import _CryptoExtras

/// A certificate for 127.0.0.1, made once per test run, that the local push services serve and
/// that the server's push client (`client`) trusts, as a real client trusts Apple's and Google's.
package enum LocalTLS {
    private static let made: (certificate: NIOSSLCertificate, key: NIOSSLPrivateKey) = {
        let key = P256.Signing.PrivateKey()
        let name = try! DistinguishedName { CommonName("Pawpack test push service") }
        let now = Date()
        let certificate = try! Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3_600), notValidAfter: now.addingTimeInterval(7 * 86_400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try! Certificate.Extensions {
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")])
            },
            issuerPrivateKey: .init(key))
        let pem = try! certificate.serializeAsPEM().pemString
        return (
            try! NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem),
            try! NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem)
        )
    }()

    /// The push client every test server is given.
    package static let client: HTTPClient = {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([made.certificate])
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }()

    static var serverConfiguration: TLSConfiguration {
        .makeServerConfiguration(certificateChain: [.certificate(made.certificate)], privateKey: .privateKey(made.key))
    }
}

/// A local HTTPS server (HTTP/2 and HTTP/1.1) on 127.0.0.1 for one test, with the routes a
/// push service's stand-in registers.
package final class LocalHTTPSService: Sendable {
    let app: Application
    package let baseURL: String

    private init(app: Application, baseURL: String) {
        self.app = app
        self.baseURL = baseURL
    }

    static func start(_ routes: (Application) -> Void) async throws -> LocalHTTPSService {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .critical
        app.http.server.configuration.tlsConfiguration = LocalTLS.serverConfiguration
        app.http.server.configuration.supportVersions = [.one, .two]
        routes(app)
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        guard let port = app.http.server.shared.localAddress?.port else { throw Abort(.internalServerError) }
        return LocalHTTPSService(app: app, baseURL: "https://127.0.0.1:\(port)")
    }

    /// host:port, as `PAWPACK_WEB_PUSH_HOSTS` names a push service.
    package var host: String { String(baseURL.dropFirst("https://".count)) }

    func stop() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// Starts a service with `routes`, makes its stand-in (`make`), runs `body` with it and
    /// always stops the service. The routes reach the stand-in through `current`.
    static func serving<Stand: Sendable, T>(
        routes: (Application, _ current: @escaping @Sendable () throws -> Stand) -> Void,
        make: (LocalHTTPSService) throws -> Stand, _ body: (Stand) async throws -> T
    ) async throws -> T {
        let box = NIOLockedValueBox<Stand?>(nil)
        let service = try await start { app in
            routes(app) {
                guard let stand = box.withLockedValue({ $0 }) else { throw Abort(.serviceUnavailable) }
                return stand
            }
        }
        do {
            let stand = try make(service)
            box.withLockedValue { $0 = stand }
            let result = try await body(stand)
            await service.stop()
            return result
        } catch {
            await service.stop()
            throw error
        }
    }
}

/// What a stand-in answers, in order, for one token; then 200 (or 201) for ever.
package struct ScriptedReplies: Sendable {
    private let replies = NIOLockedValueBox<[String: [(status: Int, body: String, headers: [(String, String)])]]>([:])

    package func script(_ token: String, _ list: [(status: Int, body: String, headers: [(String, String)])]) {
        replies.withLockedValue { $0[token, default: []] += list }
    }

    /// Scripted answers not given yet: a request that came would have taken one.
    package func remaining(for token: String) -> Int {
        replies.withLockedValue { $0[token]?.count ?? 0 }
    }

    func next(for token: String) -> (status: Int, body: String, headers: [(String, String)])? {
        replies.withLockedValue { replies in
            guard var list = replies[token], !list.isEmpty else { return nil }
            let first = list.removeFirst()
            replies[token] = list
            return first
        }
    }
}

/// A JWT's header, read without checking anything.
package func jwtHeader(_ jwt: String) -> [String: any Sendable] {
    guard let first = jwt.split(separator: ".").first, let data = Data(base64URLEncoded: String(first)) else { return [:] }
    return ((try? JSONSerialization.jsonObject(with: data)) as? [String: any Sendable]) ?? [:]
}

func problemResponse(_ status: Int, _ body: String, headers: [(String, String)] = []) -> Response {
    var fields = HTTPHeaders([("content-type", "application/json")])
    for (name, value) in headers { fields.add(name: name, value: value) }
    return Response(status: .init(statusCode: status), headers: fields, body: .init(string: body))
}

// MARK: APNs

/// Apple's push service as its documentation describes it ("Sending notification requests to
/// APNs", "Handling notification responses from APNs"): HTTP/2 only; `POST /3/device/<token>`;
/// an ES256 provider token of the team with the key's id, refused once an hour old; the
/// `apns-topic` of an app of the team; `apns-push-type`; a JSON payload of at most 4 KB with an
/// `aps` dictionary. Errors come as documented: a status and `{"reason": …}`.
package final class LocalAPNs: Sendable {
    package struct Received: Sendable {
        package var token: String
        package var headers: [String: String]
        package var payload: [String: any Sendable]
        package var providerToken: String
    }

    package let keyID = "ABC123DEFG"
    package let teamID = "DEF123GHIJ"
    package let bundleID = "org.pawpack.app"
    private let key = P256.Signing.PrivateKey()
    private let clock: PinnedClock
    private let received = NIOLockedValueBox<[Received]>([])
    package let replies = ScriptedReplies()
    private let service: LocalHTTPSService

    private init(clock: PinnedClock, service: LocalHTTPSService) {
        self.clock = clock
        self.service = service
    }

    /// Starts one for `body` and stops it after.
    package static func run<T>(clock: PinnedClock, _ body: (LocalAPNs) async throws -> T) async throws -> T {
        try await LocalHTTPSService.serving(
            routes: { app, current in
                app.on(.POST, "3", "device", ":token", body: .collect(maxSize: 8_192)) { req async throws -> Response in
                    try await current().answer(req)
                }
            }, make: { LocalAPNs(clock: clock, service: $0) }, body)
    }

    /// The server's settings for this service.
    package var settings: APNsProvider.Settings {
        var settings = APNsProvider.Settings(
            keyID: keyID, teamID: teamID, privateKeyPEM: key.pemRepresentation,
            bundleIDs: [bundleID])
        settings.productionURL = service.baseURL
        settings.sandboxURL = service.baseURL
        return settings
    }

    package var all: [Received] { received.withLockedValue { $0 } }

    private func answer(_ req: Request) async throws -> Response {
        guard req.version.major == 2 else { return problemResponse(400, #"{"reason":"BadRequest"}"#) }
        let token = req.parameters.get("token") ?? ""
        guard token.count == 64, token.allSatisfy(\.isHexDigit) else { return problemResponse(400, #"{"reason":"BadDeviceToken"}"#) }
        guard let authorization = req.headers.first(name: "authorization"), authorization.hasPrefix("bearer ") else {
            return problemResponse(403, #"{"reason":"MissingProviderToken"}"#)
        }
        let jwt = String(authorization.dropFirst("bearer ".count))
        guard let claims = await verify(jwt) else { return problemResponse(403, #"{"reason":"InvalidProviderToken"}"#) }
        let age = clock.now().timeIntervalSince(claims.iat.value)
        guard age < 3_600, age > -60 else { return problemResponse(403, #"{"reason":"ExpiredProviderToken"}"#) }
        guard let topic = req.headers.first(name: "apns-topic") else { return problemResponse(400, #"{"reason":"MissingTopic"}"#) }
        guard topic == bundleID else { return problemResponse(400, #"{"reason":"BadTopic"}"#) }
        guard ["alert", "background"].contains(req.headers.first(name: "apns-push-type") ?? "") else {
            return problemResponse(400, #"{"reason":"InvalidPushType"}"#)
        }
        if let priority = req.headers.first(name: "apns-priority"), !["5", "10"].contains(priority) {
            return problemResponse(400, #"{"reason":"BadPriority"}"#)
        }
        if let expiration = req.headers.first(name: "apns-expiration"), Int(expiration) == nil {
            return problemResponse(400, #"{"reason":"BadExpirationDate"}"#)
        }
        if let id = req.headers.first(name: "apns-id"), UUID(uuidString: id) == nil {
            return problemResponse(400, #"{"reason":"BadMessageId"}"#)
        }
        if let collapse = req.headers.first(name: "apns-collapse-id"), collapse.utf8.count > 64 {
            return problemResponse(400, #"{"reason":"BadCollapseId"}"#)
        }
        guard let body = req.body.data, body.readableBytes <= 4_096 else { return problemResponse(413, #"{"reason":"PayloadTooLarge"}"#) }
        guard let payload = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: any Sendable],
            payload["aps"] is [String: any Sendable]
        else { return problemResponse(400, #"{"reason":"PayloadEmpty"}"#) }
        if let scripted = replies.next(for: token) {
            return problemResponse(scripted.status, scripted.body, headers: scripted.headers)
        }
        var headers: [String: String] = [:]
        for (name, value) in req.headers { headers[name.lowercased()] = value }
        received.withLockedValue { $0.append(Received(token: token, headers: headers, payload: payload, providerToken: jwt)) }
        return Response(status: .ok, headers: ["apns-id": req.headers.first(name: "apns-id") ?? UUID().uuidString])
    }

    struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    /// The provider token's signature, algorithm, key id and team.
    private func verify(_ jwt: String) async -> Claims? {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try! ES256PublicKey(backing: key.publicKey), kid: JWKIdentifier(string: keyID))
        let header = jwtHeader(jwt)
        guard header["alg"] as? String == "ES256", header["kid"] as? String == keyID,
            let claims = try? await keys.verify(jwt, as: Claims.self), claims.iss.value == teamID
        else { return nil }
        return claims
    }
}

// MARK: FCM

/// Firebase Cloud Messaging's HTTP v1 API and Google's OAuth 2.0 token endpoint, as documented
/// ("Using OAuth 2.0 for Server to Server Applications", "REST Resource: projects.messages"):
/// the token endpoint takes a form with the JWT-bearer grant and an RS256 assertion of the
/// service account (its key id, `iss`, the messaging `scope`, `aud` the token URI, at most an
/// hour long) and answers an access token with `expires_in`; `messages:send` takes that token
/// and `{"message": {"token", "notification", "data"}}` whose data values are strings, and
/// answers errors as `{"error": {"code", "status", "details": [{"errorCode"}]}}`.
package final class LocalFCM: Sendable {
    package struct Received: Sendable {
        package var message: [String: any Sendable]
        package var accessToken: String
    }

    package let projectID = "pawpack-test"
    package let senderID = "123456789012"
    package let clientEmail = "push@pawpack-test.iam.gserviceaccount.com"
    package let privateKeyID = "0123456789abcdef0123456789abcdef01234567"
    private let key: _RSA.Signing.PrivateKey
    private let clock: PinnedClock
    private let issued = NIOLockedValueBox<[String: Date]>([:])
    private let received = NIOLockedValueBox<[Received]>([])
    /// How many access tokens were asked for.
    private let exchanges = NIOLockedValueBox(0)
    package let replies = ScriptedReplies()
    private let service: LocalHTTPSService

    private init(key: _RSA.Signing.PrivateKey, clock: PinnedClock, service: LocalHTTPSService) {
        self.key = key
        self.clock = clock
        self.service = service
    }

    package static func run<T>(clock: PinnedClock, _ body: (LocalFCM) async throws -> T) async throws -> T {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return try await LocalHTTPSService.serving(
            routes: { app, current in
                app.on(.POST, "token", body: .collect(maxSize: 16_384)) { req async throws -> Response in
                    try await current().exchange(req)
                }
                app.on(.POST, "v1", "projects", ":project", "messages:send", body: .collect(maxSize: 16_384)) { req async throws -> Response in
                    try current().send(req)
                }
            }, make: { LocalFCM(key: key, clock: clock, service: $0) }, body)
    }

    package var settings: FCMProvider.Settings {
        var settings = FCMProvider.Settings(
            serviceAccount: .init(
                projectID: projectID, privateKeyID: privateKeyID, privateKey: key.pemRepresentation,
                clientEmail: clientEmail, tokenURI: service.baseURL + "/token"),
            senderID: senderID)
        settings.apiURL = service.baseURL
        return settings
    }

    package var all: [Received] { received.withLockedValue { $0 } }
    package var tokensIssued: Int { exchanges.withLockedValue { $0 } }

    struct Assertion: JWTPayload {
        var iss: IssuerClaim
        var scope: String
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func oauthError(_ status: Int, _ error: String, _ description: String) -> Response {
        problemResponse(status, #"{"error":"\#(error)","error_description":"\#(description)"}"#)
    }

    private func exchange(_ req: Request) async -> Response {
        guard req.headers.first(name: "content-type")?.hasPrefix("application/x-www-form-urlencoded") == true,
            let body = req.body.data
        else { return oauthError(400, "invalid_request", "form expected") }
        var form: [String: String] = [:]
        for pair in String(buffer: body).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { form[parts[0]] = parts[1] }
        }
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return oauthError(400, "unsupported_grant_type", "Invalid grant_type")
        }
        guard let assertion = form["assertion"] else { return oauthError(400, "invalid_request", "no assertion") }
        let header = jwtHeader(assertion)
        let keys = JWTKeyCollection()
        await keys.add(rsa: try! Insecure.RSA.PublicKey(pem: key.publicKey.pemRepresentation), digestAlgorithm: .sha256)
        guard header["alg"] as? String == "RS256", header["kid"] as? String == privateKeyID,
            let claims = try? await keys.verify(assertion, as: Assertion.self)
        else {
            return oauthError(400, "invalid_grant", "Invalid JWT Signature.")
        }
        let now = clock.now()
        guard claims.iss.value == clientEmail, claims.scope == FCMProvider.scope,
            claims.aud.value == [service.baseURL + "/token"],
            claims.exp.value.timeIntervalSince(claims.iat.value) <= 3_600,
            abs(claims.iat.value.timeIntervalSince(now)) < 300, claims.exp.value > now
        else {
            return oauthError(400, "invalid_grant", "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.")
        }
        let token = "ya29." + UUID().uuidString
        issued.withLockedValue { $0[token] = now.addingTimeInterval(3_599) }
        exchanges.withLockedValue { $0 += 1 }
        return problemResponse(200, #"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    private func fcmError(_ code: Int, _ status: String, _ errorCode: String?, headers: [(String, String)] = []) -> Response {
        let details = errorCode.map { #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#($0)"}]"# } ?? ""
        return problemResponse(
            code, #"{"error":{"code":\#(code),"message":"\#(status)","status":"\#(status)"\#(details)}}"#,
            headers: headers)
    }

    private func send(_ req: Request) -> Response {
        let now = clock.now()
        guard let authorization = req.headers.first(name: "authorization"), authorization.hasPrefix("Bearer "),
            let expires = issued.withLockedValue({ $0[String(authorization.dropFirst(7))] }), expires > now
        else {
            return fcmError(401, "UNAUTHENTICATED", "THIRD_PARTY_AUTH_ERROR")
        }
        guard req.parameters.get("project") == projectID else { return fcmError(403, "PERMISSION_DENIED", "SENDER_ID_MISMATCH") }
        guard req.headers.first(name: "content-type")?.hasPrefix("application/json") == true, let body = req.body.data,
            let json = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: any Sendable],
            let message = json["message"] as? [String: any Sendable], let token = message["token"] as? String
        else {
            return fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
        }
        if let data = message["data"] as? [String: any Sendable], !data.values.allSatisfy({ $0 is String }) {
            return fcmError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT")
        }
        if let scripted = replies.next(for: token) {
            return problemResponse(scripted.status, scripted.body, headers: scripted.headers)
        }
        received.withLockedValue { $0.append(Received(message: message, accessToken: String(authorization.dropFirst(7)))) }
        return problemResponse(200, #"{"name":"projects/\#(projectID)/messages/\#(UUID().uuidString)"}"#)
    }

    /// The body FCM answers for a token that no longer reaches an app.
    package static let unregistered = (
        status: 404,
        body:
            #"{"error":{"code":404,"message":"Requested entity was not found.","status":"NOT_FOUND","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#,
        headers: [(String, String)]()
    )
    package static let unavailable = (
        status: 503, body: #"{"error":{"code":503,"message":"The service is currently unavailable.","status":"UNAVAILABLE"}}"#,
        headers: [(String, String)]()
    )
}

// MARK: Web Push

/// A browser's push service (RFC 8030) with its subscription's keys, which decrypts what it
/// receives as the browser would (RFC 8291, aes128gcm of RFC 8188) and checks the VAPID
/// authorisation (RFC 8292): `vapid t=<ES256 JWT>, k=<the key it verifies with>`, `aud` its
/// own origin, `exp` within a day, `sub` a contact. It answers 201 Created, or as scripted
/// (410 Gone for a subscription that ended).
package final class LocalWebPush: Sendable {
    package struct Received: Sendable {
        package var payload: [String: any Sendable]
        package var headers: [String: String]
        package var vapidKey: String
    }

    private let browserKey = P256.KeyAgreement.PrivateKey()
    private let authSecret = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    private let clock: PinnedClock
    private let received = NIOLockedValueBox<[Received]>([])
    package let replies = ScriptedReplies()
    private let service: LocalHTTPSService

    private init(clock: PinnedClock, service: LocalHTTPSService) {
        self.clock = clock
        self.service = service
    }

    package static func run<T>(clock: PinnedClock, _ body: (LocalWebPush) async throws -> T) async throws -> T {
        try await LocalHTTPSService.serving(
            routes: { app, current in
                app.on(.POST, "push", ":subscription", body: .collect(maxSize: 8_192)) { req async throws -> Response in
                    try await current().receive(req)
                }
            }, make: { LocalWebPush(clock: clock, service: $0) }, body)
    }

    /// host:port, for `Config.push.webPushHosts`.
    package var host: String { service.host }
    package var all: [Received] { received.withLockedValue { $0 } }

    /// A subscription as the browser's `PushSubscription.toJSON()` gives it.
    package func subscription(_ name: String = "browser") -> (endpoint: String, p256dh: String, auth: String) {
        (
            service.baseURL + "/push/" + name, browserKey.publicKey.x963Representation.base64URLEncoded,
            authSecret.base64URLEncoded
        )
    }

    struct VAPID: JWTPayload {
        var aud: AudienceClaim
        var exp: ExpirationClaim
        var sub: SubjectClaim
        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private func receive(_ req: Request) async -> Response {
        let now = clock.now()
        let subscription = req.parameters.get("subscription") ?? ""
        guard let ttl = req.headers.first(name: "ttl"), Int(ttl) != nil else { return Response(status: .badRequest) }
        guard req.headers.first(name: "content-encoding") == "aes128gcm" else { return Response(status: .unsupportedMediaType) }
        guard let authorization = req.headers.first(name: "authorization"), authorization.hasPrefix("vapid ") else {
            return Response(status: .unauthorized)
        }
        var fields: [String: String] = [:]
        for part in authorization.dropFirst(6).split(separator: ",") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let jwt = fields["t"], let k = fields["k"], let keyBytes = Data(base64URLEncoded: k),
            let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes)
        else { return Response(status: .unauthorized) }
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: try! ES256PublicKey(backing: publicKey))
        guard jwtHeader(jwt)["alg"] as? String == "ES256", let claims = try? await keys.verify(jwt, as: VAPID.self),
            claims.aud.value == [service.baseURL], claims.exp.value > now,
            claims.exp.value.timeIntervalSince(now) <= 86_400,
            claims.sub.value.hasPrefix("mailto:") || claims.sub.value.hasPrefix("https:")
        else {
            return Response(status: .forbidden)
        }
        guard let body = req.body.data, let plaintext = decrypt(Data(buffer: body)),
            let payload = (try? JSONSerialization.jsonObject(with: plaintext)) as? [String: any Sendable]
        else {
            return Response(status: .badRequest)
        }
        if let scripted = replies.next(for: subscription) {
            return problemResponse(scripted.status, scripted.body, headers: scripted.headers)
        }
        var headers: [String: String] = [:]
        for (name, value) in req.headers { headers[name.lowercased()] = value }
        received.withLockedValue { $0.append(Received(payload: payload, headers: headers, vapidKey: k)) }
        return Response(status: .created, headers: ["location": service.baseURL + "/message/" + UUID().uuidString])
    }

    /// The receiving side of RFC 8291: the header's salt and sender key, the same derivation
    /// with the browser's private key, then the one record opened and its delimiter removed.
    private func decrypt(_ body: Data) -> Data? {
        guard body.count > 21 else { return nil }
        let bytes = [UInt8](body)
        let salt = Data(bytes[0..<16])
        let keyLength = Int(bytes[20])
        guard body.count > 21 + keyLength + 16 else { return nil }
        let senderKey = Data(bytes[21..<(21 + keyLength)])
        let record = Data(bytes[(21 + keyLength)...])
        guard let sender = try? P256.KeyAgreement.PublicKey(x963Representation: senderKey),
            let shared = try? browserKey.sharedSecretFromKeyAgreement(with: sender)
        else { return nil }
        let keyInfo = Data("WebPush: info".utf8) + [0] + browserKey.publicKey.x963Representation + senderKey
        let ikm = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: authSecret, sharedInfo: keyInfo, outputByteCount: 32)
        let prk = HKDF<SHA256>.extract(inputKeyMaterial: ikm, salt: salt)
        let contentKey = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: aes128gcm".utf8) + [0], outputByteCount: 16)
        let nonce = HKDF<SHA256>.expand(pseudoRandomKey: prk, info: Data("Content-Encoding: nonce".utf8) + [0], outputByteCount: 12)
        guard
            let box = try? AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce.withUnsafeBytes { Data($0) }),
                ciphertext: record.dropLast(16), tag: record.suffix(16)),
            var plain = try? AES.GCM.open(box, using: contentKey)
        else { return nil }
        while plain.last == 0 { plain.removeLast() }
        guard plain.last == 2 else { return nil }
        return plain.dropLast()
    }
}
