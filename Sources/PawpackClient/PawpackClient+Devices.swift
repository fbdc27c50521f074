import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// The phone's push token: registered after sign-in (and whenever the system gives a new
// one), unregistered at sign-out. A message shown in the app through `realtimeEvents` is
// acknowledged there and not pushed as well.

/// A phone you receive pushes on.
public struct PushDevice: Sendable, Equatable, Identifiable {
    public typealias ID = Devices.Device.ID

    public var id: ID
    public var platform: PushPlatform
    /// The bundle id (APNs) or sender id (FCM) it was registered with.
    public var appID: String
    public var environment: APNsEnvironment?
    public var createdAt: Date

    init(_ dto: Components.Schemas.Device) throws {
        id = try serverID(dto.id)
        platform = try same(dto.platform, as: PushPlatform.self)
        appID = dto.appId
        environment = try dto.environment.map { try same($0, as: APNsEnvironment.self) }
        createdAt = dto.createdAt
    }
}

extension PawpackClient {
    /// Registers this iPhone's APNs device token (as `didRegisterForRemoteNotificationsWithDeviceToken`
    /// gives it) for the app `bundleID`; a debug build's token is from the `sandbox`. The same
    /// token again returns the same device.
    public func registerAPNsDevice(token: Data, bundleID: String, environment: APNsEnvironment = .production) async throws -> PushDevice {
        try await registerDevice(
            .init(
                platform: .apns, token: token.map { String(format: "%02x", $0) }.joined(),
                appId: bundleID, environment: .init(rawValue: environment.rawValue)))
    }

    /// Registers an Android app's FCM registration token, with the project's sender id.
    public func registerFCMDevice(token: String, senderID: String) async throws -> PushDevice {
        try await registerDevice(.init(platform: .fcm, token: token, appId: senderID))
    }

    private func registerDevice(_ body: Components.Schemas.DeviceRegistration) async throws -> PushDevice {
        try await signedIn {
            switch try await client.registerDevice(body: .json(body)) {
            case .created(let created): return try PushDevice(try created.body.json)
            case .ok(let ok): return try PushDevice(try ok.body.json)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Your devices, oldest first.
    public func devices() async throws -> [PushDevice] {
        try await signedIn {
            try await client.listDevices().ok.body.json.items.map(PushDevice.init)
        }
    }

    /// Stops pushes to a device (call it before `logOut`).
    public func unregisterDevice(_ id: PushDevice.ID) async throws {
        try await signedIn {
            _ = try await client.unregisterDevice(path: .init(deviceId: id.description)).noContent
        }
    }
}
