import Fluent
import Foundation
import PawpackCore

/// A registered device, as its member sees it (never its token: the app has it).
struct DeviceValue: Sendable, Equatable {
    var id: Devices.Device.ID
    var platform: PushPlatform
    var appID: String?
    var environment: APNsEnvironment?
    var createdAt: Date

    init(_ record: DeviceRecord) throws {
        id = try record.requireID()
        platform = PushPlatform(rawValue: record.platform) ?? .apns
        appID = record.appID
        environment = record.environment.flatMap(APNsEnvironment.init)
        createdAt = record.createdAt
    }
}

/// The phones and browsers a member is reached on while away.
final class DeviceService: Sendable {
    let providers: PushProviders
    let clock: any AppClock

    init(providers: PushProviders, clock: any AppClock) {
        self.providers = providers
        self.clock = clock
    }

    /// Registers the device for `user`, or confirms it (`created` false). A token registered
    /// by another member moves here and takes nothing of theirs along: their pushes still
    /// waiting for it are dropped. The oldest device goes when a member has too many.
    func register(
        _ raw: (platform: String, token: String, appID: String?, environment: String?, webKeys: WebPushKeys?),
        for user: User.ID, on db: any Database
    ) async throws -> (device: DeviceValue, created: Bool) {
        let registration = try PushRules().registration(
            platform: raw.platform, token: raw.token, appID: raw.appID,
            environment: raw.environment, webKeys: raw.webKeys,
            webPushHosts: providers.webPushHosts)
        guard providers.accepts(registration) else {
            let field = registration.platform == .web ? "platform" : "appId"
            throw Problem.invalidField(
                field,
                registration.platform == .web
                    ? "this server does not send Web Push"
                    : "this server does not send pushes to this app (\(registration.platform.rawValue))")
        }
        // The same device registered twice at once: the second finds the first's row.
        return try await answeringRacesAsSequential {
            try await db.transaction { tx in
                if let existing = try await DeviceRecord.query(on: tx).filter(\.$platform == registration.platform.rawValue)
                    .filter(\.$token == registration.token).first()
                {
                    if existing.$user.id == user {
                        existing.appID = registration.appID
                        existing.environment = registration.environment?.rawValue
                        existing.webP256DH = registration.webKeys?.p256dh
                        existing.webAuth = registration.webKeys?.auth
                        try await existing.save(on: tx)
                        return (try DeviceValue(existing), false)
                    }
                    try await Self.delete([try existing.requireID()], on: tx)
                }
                let mine = try await DeviceRecord.query(on: tx).filter(\.$user.$id == user).sort(\.$createdAt).all()
                if mine.count >= PushRules.devicesPerMember {
                    try await Self.delete(try mine.prefix(mine.count - PushRules.devicesPerMember + 1).map { try $0.requireID() }, on: tx)
                }
                let record = DeviceRecord()
                record.id = .init()
                record.$user.id = user
                record.platform = registration.platform.rawValue
                record.token = registration.token
                record.appID = registration.appID
                record.environment = registration.environment?.rawValue
                record.webP256DH = registration.webKeys?.p256dh
                record.webAuth = registration.webKeys?.auth
                record.createdAt = self.clock.now()
                try await record.create(on: tx)
                return (try DeviceValue(record), true)
            }
        }
    }

    func devices(of user: User.ID, on db: any Database) async throws -> [DeviceValue] {
        try await DeviceRecord.query(on: db).filter(\.$user.$id == user).sort(\.$createdAt).all().map(DeviceValue.init)
    }

    /// Forgets one of the member's devices; anyone else's is a 404, as one that does not exist.
    func unregister(_ id: Devices.Device.ID, of user: User.ID, on db: any Database) async throws {
        guard try await DeviceRecord.query(on: db).filter(\.$id == id).filter(\.$user.$id == user).first() != nil else {
            throw Problem.notFound
        }
        try await db.transaction { tx in try await Self.delete([id], on: tx) }
    }

    /// Forgets a browser's subscription by its endpoint (the web app turning notifications off).
    func unregisterWeb(endpoint: String, of user: User.ID, on db: any Database) async throws {
        let ids = try await DeviceRecord.query(on: db).filter(\.$user.$id == user)
            .filter(\.$platform == PushPlatform.web.rawValue).filter(\.$token == endpoint).all().map { try $0.requireID() }
        try await db.transaction { tx in try await Self.delete(ids, on: tx) }
    }

    /// Devices and the pushes still waiting for them.
    static func delete(_ ids: [Devices.Device.ID], on db: any Database) async throws {
        guard !ids.isEmpty else { return }
        try await PushOutboxRecord.query(on: db).filter(\.$device.$id ~~ ids).delete()
        try await DeviceRecord.query(on: db).filter(\.$id ~~ ids).delete()
    }

}
