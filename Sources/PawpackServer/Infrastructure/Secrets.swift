import Crypto
import Foundation

/// Random opaque tokens and their stored form. Tokens are 256 random bits from the system's
/// CSPRNG; only their SHA-256 is stored, so a leaked database holds no usable session.
enum OpaqueToken {
    static func generate(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + Data(bytes).base64URLEncoded
    }

    /// SHA-256 in lowercase hex: what the database keeps instead of the token. Written digit by
    /// digit: every API request hashes its token, and `String(format:)` per byte cost more
    /// than the hash.
    static func hash(_ token: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}

/// Signed, expiring links for email verification and password reset. The signature proves
/// the server made the link; the database row it names makes it single-use.
struct LinkSigner: Sendable {
    private let key: SymmetricKey

    init(secret: String) {
        key = SymmetricKey(data: SHA256.hash(data: Data(("pawpack-links:" + secret).utf8)))
    }

    struct Payload: Equatable {
        var purpose: String
        var id: UUID
        var expiresAt: Date
    }

    func sign(_ payload: Payload) -> String {
        let body = "\(payload.purpose).\(payload.id.uuidString.lowercased()).\(Int(payload.expiresAt.timeIntervalSince1970))"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: key)
        return Data(body.utf8).base64URLEncoded + "." + Data(mac).base64URLEncoded
    }

    /// The payload when the signature is right; expiry is checked by the caller with its clock.
    func open(_ token: String) -> Payload? {
        let parts = token.split(separator: ".")
        guard parts.count == 2, let body = Data(base64URLEncoded: String(parts[0])),
            let mac = Data(base64URLEncoded: String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: body, using: key),
            let text = String(data: body, encoding: .utf8)
        else { return nil }
        let fields = text.split(separator: ".")
        guard fields.count == 3, let id = UUID(uuidString: String(fields[1])),
            let seconds = Int(fields[2])
        else { return nil }
        return Payload(
            purpose: String(fields[0]), id: id,
            expiresAt: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}

/// Compares secrets in time independent of where they differ.
func constantTimeEquals(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var difference: UInt8 = 0
    for i in x.indices { difference |= x[i] ^ y[i] }
    return difference == 0
}
