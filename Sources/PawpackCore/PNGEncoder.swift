import Foundation

/// Writes RGB pictures Pawpack draws itself (the demo dogs' portraits, the app icons) as PNG.
/// None of the available packages encodes images, and Foundation on Linux has no deflate, so
/// this is a small encoder of its own: rows unfiltered, compressed with fixed-Huffman deflate
/// whose only matches repeat the pixel to the left or the row above. Flat drawings shrink about
/// twentyfold with it (a 360×450 portrait is some 15–20 KB instead of 486 KB stored); photographs
/// are not its business.
public enum PNGEncoder {
    /// `pixels` holds `width × height` RGB triples, row by row.
    public static func encode(width: Int, height: Int, rgb pixels: [UInt8]) -> Data {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3)
        let stride = width * 3
        var raw = [UInt8]()
        raw.reserveCapacity((stride + 1) * height)
        for row in 0..<height {
            raw.append(0) // filter: none
            raw.append(contentsOf: pixels[(row * stride)..<((row + 1) * stride)])
        }
        var png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = [UInt8]()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0] // 8 bits, truecolour, deflate, no filter method, no interlace
        png.appendChunk("IHDR", header)
        png.appendChunk("IDAT", zlib(raw, distances: [3, stride + 1]))
        png.appendChunk("IEND", [])
        return png
    }

    /// A zlib stream of `data`: one fixed-Huffman block whose matches look back only the
    /// given distances (greedy, longest first).
    static func zlib(_ data: [UInt8], distances: [Int]) -> [UInt8] {
        var bits = BitWriter()
        bits.write(1, count: 1) // final block
        bits.write(1, count: 2) // fixed Huffman
        var index = 0
        while index < data.count {
            var best = 0
            var bestDistance = 0
            for distance in distances where distance <= index {
                var length = 0
                while length < 258, index + length < data.count, data[index + length] == data[index + length - distance] {
                    length += 1
                }
                if length > best { (best, bestDistance) = (length, distance) }
            }
            if best >= 3 {
                bits.writeLength(best)
                bits.writeDistance(bestDistance)
                index += best
            } else {
                bits.writeLiteral(Int(data[index]))
                index += 1
            }
        }
        bits.writeLiteral(256) // end of block
        var stream: [UInt8] = [0x78, 0x01]
        stream += bits.bytes()
        stream.appendBigEndian(adler32(data))
        return stream
    }

    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for chunk in stride(from: 0, to: data.count, by: 5552) {
            for byte in data[chunk..<min(chunk + 5552, data.count)] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

/// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
private struct BitWriter {
    private var buffer: [UInt8] = []
    private var current: UInt32 = 0
    private var used = 0

    mutating func write(_ value: Int, count: Int) {
        for bit in 0..<count {
            current |= UInt32((value >> bit) & 1) << used
            used += 1
            if used == 8 {
                buffer.append(UInt8(current))
                current = 0
                used = 0
            }
        }
    }

    mutating func writeCode(_ code: Int, count: Int) {
        for bit in stride(from: count - 1, through: 0, by: -1) { write((code >> bit) & 1, count: 1) }
    }

    /// A literal byte or the end of the block (256), and the length symbols 257…285.
    mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(0x30 + symbol, count: 8)
        case 144...255: writeCode(0x190 + symbol - 144, count: 9)
        case 256...279: writeCode(symbol - 256, count: 7)
        default: writeCode(0xC0 + symbol - 280, count: 8)
        }
    }

    private static let lengthBases = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    mutating func writeLength(_ length: Int) {
        let index = Self.lengthBases.lastIndex { $0 <= length }!
        writeLiteral(257 + index)
        write(length - Self.lengthBases[index], count: Self.lengthExtra[index])
    }

    mutating func writeDistance(_ distance: Int) {
        let index = Self.distanceBases.lastIndex { $0 <= distance }!
        writeCode(index, count: 5)
        write(distance - Self.distanceBases[index], count: Self.distanceExtra[index])
    }

    func bytes() -> [UInt8] { used > 0 ? buffer + [UInt8(current)] : buffer }
}

extension Array where Element == UInt8 {
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }
}

extension Data {
    fileprivate mutating func appendChunk(_ type: String, _ body: [UInt8]) {
        var length = [UInt8]()
        length.appendBigEndian(UInt32(body.count))
        append(contentsOf: length)
        let typed = Array(type.utf8) + body
        append(contentsOf: typed)
        var crc = [UInt8]()
        crc.appendBigEndian(PNGEncoder.crc32(typed))
        append(contentsOf: crc)
    }
}
