import Foundation

/// Pictures made for tests, byte by byte.
package enum TestImages {
    /// A PNG whose header says `width` × `height`, with the image data of a 1×1 greyscale one:
    /// a few dozen bytes, whatever size it claims.
    package static func png(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", bigEndian(width) + bigEndian(height) + [8, 0, 0, 0, 0])
        bytes += chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        bigEndian(data.count) + Array(type.utf8) + data + bigEndian(Int(crc32(Array(type.utf8) + data)))
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
