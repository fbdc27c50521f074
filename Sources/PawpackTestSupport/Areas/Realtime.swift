extension APIPath {
    package static let realtime = "/v1/realtime"
}
