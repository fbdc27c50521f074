import AsyncHTTPClient
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PawpackCore

/// One push, as every service is given it: the words of its notification and where it leads.
package struct PushMessage: Sendable, Equatable {
    /// The outbox row: APNs's `apns-id`, and the same on every try of this push.
    package var id: UUID
    package var kind: NotificationKind
    package var title: String
    package var body: String
    /// The web app's page to open (`/chats/…`); apps map it to their own screen.
    package var path: String
    /// Pushes with the same key replace each other on the device: one chat's messages.
    package var collapseKey: String?
    /// The member's unread notifications, for the app icon's badge.
    package var badge: Int
    /// Past this, the service need not deliver it any more.
    package var expiresAt: Date
    /// The notification it carries, and the pet it is about (Care).
    package var notification: UUID? = nil
    package var pet: UUID? = nil

    /// "Mark as fed" on a feeding reminder: the app sends the pet's usual feed with the
    /// notification's id as the feed's, so a second tap logs nothing more.
    package var marksFed: Bool { kind == .feeding && pet != nil && notification != nil }
}

/// Where one push goes.
package struct PushTarget: Sendable, Equatable {
    package var device: Devices.Device.ID
    package var platform: PushPlatform
    package var token: String
    package var appID: String?
    package var environment: APNsEnvironment
    package var webKeys: WebPushKeys?
}

/// What a service answered.
package enum PushOutcome: Sendable, Equatable {
    case delivered
    /// 429, 5xx or a network error: try again later, not before `after` seconds when the
    /// service said so (`Retry-After`).
    case retry(reason: String, after: TimeInterval?)
    /// The token reaches no one any more (an app deleted, a subscription ended): forget the device.
    case invalidToken(reason: String)
    /// This push can never be delivered as it is: drop it and say why in the log.
    case rejected(reason: String)
}

/// A push service. Each implementation speaks its service's documented protocol; the outbox
/// (`PushService`) decides when to try and what to do with the outcome.
package protocol PushProvider: Sendable {
    func send(_ message: PushMessage, to target: PushTarget) async -> PushOutcome
}

/// The services this server is set up for, by platform. In development every push is also
/// logged and listed on `/dev/push`, and a platform with no service set up ends there.
package struct PushProviders: Sendable {
    package var apns: (any PushProvider)?
    package var fcm: (any PushProvider)?
    package var web: (any PushProvider)?
    package var developmentLog: DevelopmentPushLog?
    /// Apps whose devices may register: APNs bundle ids and FCM sender ids. Empty with no
    /// service set up for that platform; nil accepts any (development, where pushes only go to the log).
    package var apnsBundleIDs: Set<String>?
    package var fcmSenderIDs: Set<String>?
    /// Push services a browser's subscription may point at.
    package var webPushHosts: Set<String>
    /// The VAPID public key (uncompressed P-256, base64url) the web app subscribes with.
    package var vapidPublicKey: String?

    package init(
        apns: (any PushProvider)? = nil, fcm: (any PushProvider)? = nil, web: (any PushProvider)? = nil,
        developmentLog: DevelopmentPushLog? = nil, apnsBundleIDs: Set<String>? = nil,
        fcmSenderIDs: Set<String>? = nil, webPushHosts: Set<String> = [], vapidPublicKey: String? = nil
    ) {
        self.apns = apns
        self.fcm = fcm
        self.web = web
        self.developmentLog = developmentLog
        self.apnsBundleIDs = apnsBundleIDs
        self.fcmSenderIDs = fcmSenderIDs
        self.webPushHosts = webPushHosts
        self.vapidPublicKey = vapidPublicKey
    }

    func provider(for platform: PushPlatform) -> (any PushProvider)? {
        switch platform {
        case .apns: apns
        case .fcm: fcm
        case .web: web
        }
    }

    /// Whether a device of this platform and app can be reached from here.
    func accepts(_ registration: DeviceRegistration) -> Bool {
        switch registration.platform {
        case .apns:
            guard apns != nil || developmentLog != nil else { return false }
            return apnsBundleIDs.map { $0.contains(registration.appID ?? "") } ?? true
        case .fcm:
            guard fcm != nil || developmentLog != nil else { return false }
            return fcmSenderIDs.map { $0.contains(registration.appID ?? "") } ?? true
        case .web:
            return web != nil && vapidPublicKey != nil
        }
    }
}

/// Development: every push is logged (without its token) and kept, newest last, for
/// `/dev/push` and for tests, as mail goes to the development outbox.
package final class DevelopmentPushLog: Sendable {
    package struct Entry: Sendable, Equatable {
        package var message: PushMessage
        package var platform: PushPlatform
        package var device: Devices.Device.ID
        package var user: User.ID
        package var sentAt: Date
    }

    private let entries = NIOLockedValueBox<[Entry]>([])
    private let logger: Logger
    /// The most kept: the oldest go first.
    private let capacity = 500

    package init(logger: Logger = Logger(label: "pawpack.push")) {
        self.logger = logger
    }

    func record(_ message: PushMessage, to target: PushTarget, of user: User.ID, at now: Date) {
        entries.withLockedValue { entries in
            entries.append(Entry(message: message, platform: target.platform, device: target.device, user: user, sentAt: now))
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
        logger.info(
            "push",
            metadata: [
                "platform": "\(target.platform.rawValue)", "kind": "\(message.kind.rawValue)",
                "title": "\(message.title)", "path": "\(message.path)",
            ])
    }

    package var all: [Entry] { entries.withLockedValue { $0 } }
}

extension PushProviders {
    /// The services `config` sets up, over `client`. Web Push always works: its key is
    /// derived from the server's secret unless one is set. Outside production every push is
    /// also logged for `/dev/push`, and apps of any id may register.
    static func make(config: Config, client: HTTPClient, clock: any AppClock, logger: Logger) async throws -> PushProviders {
        let push = config.push
        var providers = PushProviders(webPushHosts: push.webPushHosts)
        if let apns = push.apns {
            providers.apns = try await APNsProvider(settings: apns, client: client, clock: clock)
        }
        if let fcm = push.fcm {
            providers.fcm = try await FCMProvider(settings: fcm, client: client, clock: clock)
        }
        let web = WebPushProvider.Settings(
            vapidPrivateKey: push.vapidPrivateKey ?? Self.vapidKey(derivedFrom: config.secret),
            subject: push.vapidSubject ?? "mailto:\(config.mailFrom)", hosts: push.webPushHosts)
        let webPush = try await WebPushProvider(settings: web, client: client, clock: clock)
        providers.web = webPush
        providers.vapidPublicKey = webPush.publicKey
        if config.isProduction {
            providers.apnsBundleIDs = push.apns?.bundleIDs ?? []
            providers.fcmSenderIDs = push.fcm.map { [$0.senderID] } ?? []
        } else {
            providers.developmentLog = DevelopmentPushLog(logger: logger)
            providers.apnsBundleIDs = push.apns?.bundleIDs
            providers.fcmSenderIDs = push.fcm.map { [$0.senderID] }
        }
        return providers
    }

    /// A P-256 key from the secret (HKDF-SHA256), the same on every restart and instance, so
    /// browsers' subscriptions keep working; the rare 32 bytes that are no valid key move on.
    static func vapidKey(derivedFrom secret: String) -> Data {
        for counter in 0..<UInt8.max {
            let bytes = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)),
                info: Data("pawpack vapid \(counter)".utf8), outputByteCount: 32
            )
            .withUnsafeBytes { Data($0) }
            if (try? P256.Signing.PrivateKey(rawRepresentation: bytes)) != nil { return bytes }
        }
        return Data(repeating: 1, count: 32)
    }
}

extension HTTPClient {
    /// Sends one request to a push service; `outcome` reads its answer (status, headers, and up
    /// to 64 KB of body). A network error, or a body never finished, is tried again later.
    /// Connecting and answering together get `pushTimeout`: a service that cannot be reached
    /// holds a round (and a stop, which cancels the round) no longer than that.
    func push(
        _ request: HTTPClientRequest,
        outcome: (HTTPClientResponse, Data) async -> PushOutcome
    ) async -> PushOutcome {
        do {
            let response = try await execute(request, timeout: Self.pushTimeout)
            let body = try await response.body.collect(upTo: 64 * 1_024)
            return await outcome(response, Data(buffer: body))
        } catch {
            return .retry(reason: "network: \(error)", after: nil)
        }
    }
}

extension HTTPClient {
    static let pushTimeout = TimeAmount.seconds(10)
}

extension PushOutcome {
    /// 429 or 5xx: tried again, not before the `Retry-After` the service sent.
    static func later(_ reason: String, _ response: HTTPClientResponse) -> PushOutcome {
        .retry(reason: reason, after: response.headers.first(name: "retry-after").flatMap(TimeInterval.init))
    }
}
