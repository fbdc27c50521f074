import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    func listDevices(_ input: Operations.ListDevices.Input) async throws -> Operations.ListDevices.Output {
        let auth = try await authenticated()
        let devices = try await services.devices.devices(of: try auth.user.requireID(), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: devices.map(Components.Schemas.Device.init)))))
    }

    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let (device, created) = try await services.devices.register(
            (
                platform: body.platform.rawValue, token: body.token, appID: body.appId, environment: body.environment?.rawValue,
                webKeys: nil
            ),
            for: try auth.user.requireID(), on: auth.request.db)
        return created ? .created(.init(body: .json(Components.Schemas.Device(device)))) : .ok(.init(body: .json(Components.Schemas.Device(device))))
    }

    func unregisterDevice(_ input: Operations.UnregisterDevice.Input) async throws -> Operations.UnregisterDevice.Output {
        let auth = try await authenticated()
        try await services.devices.unregister(try pathID(input.path.deviceId), of: try auth.user.requireID(), on: auth.request.db)
        return .noContent(.init())
    }

}

// MARK: Mapping

extension Components.Schemas.Device {
    init(_ device: DeviceValue) {
        self.init(
            id: device.id.description, platform: .init(rawValue: device.platform.rawValue)!, appId: device.appID ?? "",
            environment: device.environment.flatMap { .init(rawValue: $0.rawValue) }, createdAt: device.createdAt)
    }
}
