import Foundation

extension Data {
    /// Base64 with `-` and `_` for `+` and `/` and no padding (RFC 4648 §5), byte by byte
    /// rather than through `replacingOccurrences`: every deck page's cursor is written this way,
    /// as are Web Push keys and JWTs.
    public var base64URLEncoded: String {
        let base64 = base64EncodedData()
        var url: [UInt8] = []
        url.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Reads what `base64URLEncoded` wrote (padding may be left out); nil for anything else.
    public init?(base64URLEncoded text: String) {
        var base64: [UInt8] = text.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        }
        while base64.count % 4 != 0 { base64.append(UInt8(ascii: "=")) }
        self.init(base64Encoded: Data(base64))
    }
}
