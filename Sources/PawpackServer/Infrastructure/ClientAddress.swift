import Foundation
import Vapor

#if canImport(Glibc)
    import Glibc
#endif

/// Addresses and networks (`192.0.2.10`, `10.0.0.0/8`, `::1`, `fd00::/8`) written in
/// `PAWPACK_TRUSTED_PROXIES`: the reverse proxies whose `X-Forwarded-For` and `Forwarded`
/// headers say who the client is. From anyone else those headers are ignored, since a client
/// could write any address there and escape the per-address limits.
package struct TrustedProxies: Sendable, Equatable {
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let bits = min(8, remaining)
                let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
                if mine & mask != theirs & mask { return false }
                remaining -= bits
            }
            return true
        }
    }

    private(set) var networks: [Network] = []

    package init() {}

    /// Reads a comma-separated list; nil when an entry is not an address or network.
    package init?(_ list: String) {
        for entry in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1).map(String.init)
            guard let bytes = Self.bytes(of: parts[0]) else { return nil }
            let prefix = parts.count == 2 ? Int(parts[1]) : bytes.count * 8
            guard let prefix, (0...bytes.count * 8).contains(prefix) else { return nil }
            networks.append(Network(bytes: bytes, prefixLength: prefix))
        }
    }

    package var isEmpty: Bool { networks.isEmpty }

    func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// The bytes of an IPv4 or IPv6 address (an IPv4-mapped IPv6 address as IPv4), or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var text = text.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("["), let end = text.firstIndex(of: "]") { text = String(text[text.index(after: text.startIndex)..<end]) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }

    /// The client behind `peer`: `peer` itself unless it is a trusted proxy; then the nearest
    /// address in the forwarding headers that is not one (RFC 7239's `Forwarded` when
    /// given, else `X-Forwarded-For`), read from the right, where the trusted proxies wrote.
    func client(peer: String, headers: HTTPHeaders) -> String {
        guard contains(peer) else { return peer }
        var chain: [String] = []
        if let forwarded = headers[canonicalForm: "Forwarded"].nonEmpty {
            for element in forwarded {
                for pair in element.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2, parts[0].lowercased() == "for" else { continue }
                    var value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                    // `for="[2001:db8::1]:4711"` or `for=192.0.2.60:4711`: drop the port.
                    if value.hasPrefix("["), let end = value.firstIndex(of: "]") {
                        value = String(value[value.index(after: value.startIndex)..<end])
                    } else if value.filter({ $0 == ":" }).count == 1 {
                        value = String(value.prefix { $0 != ":" })
                    }
                    chain.append(value)
                }
            }
        } else {
            chain = headers[canonicalForm: "X-Forwarded-For"].map(String.init).map { $0.trimmingCharacters(in: .whitespaces) }
        }
        for address in chain.reversed() {
            guard Self.bytes(of: address) != nil else { return peer } // unreadable: trust nothing further
            if !contains(address) { return address }
        }
        return chain.first ?? peer
    }
}

extension Array {
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
