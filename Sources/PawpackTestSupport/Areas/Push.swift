extension APIPath {
    package static let devices = "/v1/devices"
    package static func device(_ device: some CustomStringConvertible) -> String { "\(devices)/\(device)" }
}
