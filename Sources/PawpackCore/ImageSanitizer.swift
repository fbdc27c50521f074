import Foundation

/// The photo formats Pawpack accepts. Anything else (GIF, BMP, SVG, PDF, ...) is refused.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, webp, heic

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        }
    }
}

public enum ImageSanitizerError: Error, Sendable, Equatable {
    /// The bytes are not a JPEG, PNG, WebP or HEIC image, whatever the upload claimed.
    case unsupportedType
    /// The bytes start like a supported image but their structure is broken or not understood.
    /// The message is for logs, not for clients.
    case malformed(String)
    /// The upload is larger than `ImageSanitizer.maximumBytes`.
    case tooLarge(limit: Int)
    /// The picture is wider or taller than `maximumSide`, or has more than `maximumPixels`: a
    /// small file can declare a picture that takes gigabytes to show.
    case tooManyPixels(width: Int, height: Int)
}

/// Checks an uploaded photo and removes the metadata that can say where and when it was taken
/// (EXIF with its GPS block, XMP, comments, text chunks) without decoding or re-encoding pixels.
///
/// Every format is handled by walking its container and copying the parts that draw the
/// picture; when the container cannot be understood the photo is refused with `.malformed`
/// rather than passed on with its location. All work is a single pass over the bytes.
public struct ImageSanitizer: Sendable {
    public var maximumBytes: Int
    /// The widest or tallest picture accepted, in pixels.
    public var maximumSide: Int
    /// The most pixels a picture may have (width × height).
    public var maximumPixels: Int

    public init(maximumBytes: Int = 10 * 1024 * 1024, maximumSide: Int = 12_000, maximumPixels: Int = 50_000_000) {
        self.maximumBytes = maximumBytes
        self.maximumSide = maximumSide
        self.maximumPixels = maximumPixels
    }

    /// The real type from the magic bytes, never from a file name or a client's Content-Type.
    public static func detectFormat(_ data: Data) -> ImageFormat? {
        // Enough for every signature below, including an ftyp box with a long list of brands.
        let head = [UInt8](data.prefix(256))
        if JPEGStripper.hasSignature(head, totalCount: data.count) { return .jpeg }
        if PNGStripper.hasSignature(head) { return .png }
        if WebPStripper.hasSignature(head) { return .webp }
        if HEIFStripper.hasSignature(head) { return .heic }
        return nil
    }

    /// Checks size and type, then returns the same image with its metadata removed.
    public func sanitize(_ data: Data) throws(ImageSanitizerError) -> (format: ImageFormat, data: Data) {
        let image = try sanitizeMeasured(data)
        return (image.format, image.data)
    }

    /// An image cleaned, with the size of its largest picture as its headers declare it.
    public struct CleanedImage: Sendable {
        public var format: ImageFormat
        public var data: Data
        public var width: Int
        public var height: Int
        /// The longer of its two sides, in pixels.
        public var longestSide: Int { max(width, height) }
    }

    /// `sanitize`, also telling the picture's size (the largest a file declares: a HEIC's
    /// thumbnails are smaller than its image).
    public func sanitizeMeasured(_ data: Data) throws(ImageSanitizerError) -> CleanedImage {
        guard data.count <= maximumBytes else {
            throw ImageSanitizerError.tooLarge(limit: maximumBytes)
        }
        guard let format = Self.detectFormat(data) else {
            throw ImageSanitizerError.unsupportedType
        }
        let stripped: (bytes: [UInt8], sizes: [PictureSize])
        switch format {
        case .jpeg: stripped = try JPEGStripper.strip(ByteReader(bytes: [UInt8](data), format: "JPEG"))
        case .png: stripped = try PNGStripper.strip(ByteReader(bytes: [UInt8](data), format: "PNG"))
        case .webp: stripped = try WebPStripper.strip(ByteReader(bytes: [UInt8](data), format: "WebP"))
        case .heic: stripped = try HEIFStripper.strip(ByteReader(bytes: [UInt8](data), format: "HEIC"))
        }
        try check(stripped.sizes, format: format)
        let largest = stripped.sizes.max { $0.width * $0.height < $1.width * $1.height }
        return CleanedImage(format: format, data: Data(stripped.bytes), width: largest?.width ?? 0, height: largest?.height ?? 0)
    }

    /// Every picture a file declares, read from its headers without decoding a pixel, must have
    /// a size: not 0 on a side, not over `maximumSide`, not over `maximumPixels`.
    private func check(_ sizes: [PictureSize], format: ImageFormat) throws(ImageSanitizerError) {
        guard !sizes.isEmpty else { throw .malformed("\(format.rawValue): no picture size") }
        for size in sizes {
            guard size.width > 0, size.height > 0 else {
                throw .malformed("\(format.rawValue): a picture of \(size.width)×\(size.height)")
            }
            guard size.width <= maximumSide, size.height <= maximumSide, size.width * size.height <= maximumPixels else {
                throw .tooManyPixels(width: size.width, height: size.height)
            }
        }
    }

    /// A picture's size as its file's headers declare it.
    fileprivate struct PictureSize {
        let width: Int
        let height: Int
    }
}

// MARK: - Reading

extension ImageSanitizer {
    /// Bounds-checked reads over the upload. A read past the end throws `.malformed` instead of
    /// trapping, so no length field in a hostile file can crash the server.
    fileprivate struct ByteReader {
        let bytes: [UInt8]
        /// Names the format in error messages.
        let format: String

        var count: Int { bytes.count }

        func malformed(_ reason: String) -> ImageSanitizerError {
            .malformed("\(format): \(reason)")
        }

        /// Throws unless `length` bytes exist at `offset`.
        func require(_ offset: Int, _ length: Int) throws(ImageSanitizerError) {
            guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
                throw malformed("data ends early (\(length) bytes needed at offset \(offset))")
            }
        }

        func u8(_ offset: Int) throws(ImageSanitizerError) -> Int {
            try require(offset, 1)
            return Int(bytes[offset])
        }

        func u16BE(_ offset: Int) throws(ImageSanitizerError) -> Int {
            try require(offset, 2)
            return (Int(bytes[offset]) << 8) | Int(bytes[offset + 1])
        }

        func u32BE(_ offset: Int) throws(ImageSanitizerError) -> Int {
            let value = try uintBE(offset, size: 4)
            return try integer(value)
        }

        func u16LE(_ offset: Int) throws(ImageSanitizerError) -> Int {
            try require(offset, 2)
            return Int(bytes[offset]) | (Int(bytes[offset + 1]) << 8)
        }

        func u24LE(_ offset: Int) throws(ImageSanitizerError) -> Int {
            try require(offset, 3)
            return Int(bytes[offset]) | (Int(bytes[offset + 1]) << 8) | (Int(bytes[offset + 2]) << 16)
        }

        func u32LE(_ offset: Int) throws(ImageSanitizerError) -> Int {
            try require(offset, 4)
            var value: UInt64 = 0
            for index in stride(from: offset + 3, through: offset, by: -1) {
                value = (value << 8) | UInt64(bytes[index])
            }
            return try integer(value)
        }

        /// A big-endian unsigned integer of `size` bytes (0 to 8); a size of 0 reads nothing and is 0.
        func uintBE(_ offset: Int, size: Int) throws(ImageSanitizerError) -> UInt64 {
            guard size >= 0, size <= 8 else { throw malformed("integer of \(size) bytes") }
            try require(offset, size)
            var value: UInt64 = 0
            for index in offset..<(offset + size) {
                value = (value << 8) | UInt64(bytes[index])
            }
            return value
        }

        /// Four bytes as a big-endian number, to compare with `ByteReader.code("....")`.
        func fourCC(_ offset: Int) throws(ImageSanitizerError) -> UInt32 {
            let value = try uintBE(offset, size: 4)
            return UInt32(value)
        }

        func integer(_ value: UInt64) throws(ImageSanitizerError) -> Int {
            guard let result = Int(exactly: value) else { throw malformed("number \(value) out of range") }
            return result
        }

        /// Whether `expected` is at `offset`; false when the data is too short.
        func matches(_ offset: Int, _ expected: [UInt8]) -> Bool {
            ByteReader.isMatch(bytes, offset, expected)
        }

        static func isMatch(_ bytes: [UInt8], _ offset: Int, _ expected: [UInt8]) -> Bool {
            guard offset >= 0, offset <= bytes.count, expected.count <= bytes.count - offset else { return false }
            return bytes[offset..<(offset + expected.count)].elementsEqual(expected)
        }

        /// A four-character code such as "IHDR" as the number `fourCC(_:)` reads.
        static func code(_ text: String) -> UInt32 {
            var value: UInt32 = 0
            for byte in text.utf8 {
                value = (value << 8) | UInt32(byte)
            }
            return value
        }
    }
}

// MARK: - JPEG

extension ImageSanitizer {
    /// JPEG (ITU T.81): a sequence of marker segments up to the first scan. Metadata lives only
    /// in APPn and COM segments, so those are filtered; tables, frame and scan headers are copied.
    fileprivate enum JPEGStripper {
        static let jfif = Array("JFIF\0".utf8)
        static let iccProfile = Array("ICC_PROFILE\0".utf8)
        static let adobe = Array("Adobe".utf8)

        static func hasSignature(_ head: [UInt8], totalCount: Int) -> Bool {
            guard head.count >= 4, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF else { return false }
            // SOI alone is not enough: the next marker must be one an encoder writes there, and
            // its length must fit in the upload. This refuses "FF D8 FF" followed by garbage.
            var index = 2
            while index < head.count, head[index] == 0xFF { index += 1 }
            guard index + 2 < head.count else { return false }
            let marker = head[index]
            switch marker {
            case 0xC4, 0xDB, 0xDD, 0xFE, 0xE0...0xEF: break // DHT, DQT, DRI, COM, APPn
            default: guard isFrameHeader(marker) else { return false }
            }
            let length = (Int(head[index + 1]) << 8) | Int(head[index + 2])
            return length >= 2 && index + 1 + length <= totalCount
        }

        /// SOF0–SOF15 without DHT (C4), JPG (C8) and DAC (CC), plus JPEG-LS SOF55 (F7).
        static func isFrameHeader(_ marker: UInt8) -> Bool {
            switch marker {
            case 0xC4, 0xC8, 0xCC: false
            case 0xC0...0xCF, 0xF7: true
            default: false
            }
        }

        /// Whether a segment with a length field survives. APP1 is EXIF or XMP; the other APPn are
        /// MPF, FlashPix, Photoshop/IPTC and vendor notes; COM is free text. Only the three that
        /// change how the picture looks are kept.
        static func keeps(_ marker: UInt8, payload: ArraySlice<UInt8>) -> Bool {
            switch marker {
            case 0xE0: payload.starts(with: jfif)
            case 0xE2: payload.starts(with: iccProfile) // colour profile, possibly in several parts
            case 0xEE: payload.starts(with: adobe) // says whether the data is YCbCr, RGB or CMYK
            case 0xE1...0xEF, 0xFE: false
            default: true // DQT, DHT, SOFn, DRI, DAC, DNL, ...
            }
        }

        static func strip(_ input: ByteReader) throws(ImageSanitizerError) -> (bytes: [UInt8], sizes: [PictureSize]) {
            let bytes = input.bytes
            guard input.matches(0, [0xFF, 0xD8]) else { throw input.malformed("no SOI marker") }
            var output: [UInt8] = [0xFF, 0xD8]
            var sizes: [PictureSize] = []
            output.reserveCapacity(bytes.count)
            var position = 2
            var sawFrame = false
            var sawScan = false
            while true {
                guard position < bytes.count else { throw input.malformed("no EOI marker") }
                guard bytes[position] == 0xFF else {
                    throw input.malformed("expected a marker at offset \(position)")
                }
                // Any number of 0xFF fill bytes may precede a marker code (T.81 B.1.1.2); they are
                // not copied.
                while position < bytes.count, bytes[position] == 0xFF { position += 1 }
                guard position < bytes.count else { throw input.malformed("no EOI marker") }
                let marker = bytes[position]
                position += 1
                switch marker {
                case 0xD9:
                    guard sawScan else { throw input.malformed("EOI before any scan") }
                    output.append(contentsOf: [0xFF, 0xD9])
                    // Whatever follows EOI is not part of this picture: MPF secondary images (which
                    // carry their own EXIF), vendor trailers, appended files. It is left behind.
                    return (output, sizes)
                case 0x01, 0xD0...0xD7:
                    // TEM and RST0–7 stand alone, without a length.
                    output.append(contentsOf: [0xFF, marker])
                case 0x00, 0x02...0xBF, 0xD8:
                    throw input.malformed("invalid marker 0x\(String(marker, radix: 16)) at offset \(position - 1)")
                default:
                    // `position` is at the length field, which counts itself but not the marker.
                    let length = try input.u16BE(position)
                    guard length >= 2 else { throw input.malformed("segment length \(length) at offset \(position)") }
                    try input.require(position, length)
                    let end = position + length
                    if isFrameHeader(marker) {
                        // Precision, then the number of lines and the samples per line (T.81 B.2.2).
                        guard length >= 8 else { throw input.malformed("frame header of \(length) bytes") }
                        sizes.append(PictureSize(width: try input.u16BE(position + 5), height: try input.u16BE(position + 3)))
                        sawFrame = true
                    }
                    if marker == 0xDA {
                        guard sawFrame else { throw input.malformed("scan before frame header") }
                        // Ls = 6 + 2 × Ns, with 1 to 4 components (T.81 B.2.3).
                        guard length >= 6 else { throw input.malformed("bad scan header at offset \(position)") }
                        let components = Int(bytes[position + 2])
                        guard (1...4).contains(components), length == 6 + 2 * components else {
                            throw input.malformed("bad scan header at offset \(position)")
                        }
                        // The header and its entropy-coded data are copied unchanged.
                        let scanEnd = try entropyCodedDataEnd(input, from: end)
                        output.append(contentsOf: [0xFF, 0xDA])
                        output.append(contentsOf: bytes[position..<scanEnd])
                        sawScan = true
                        position = scanEnd
                    } else {
                        if keeps(marker, payload: bytes[(position + 2)..<end]) {
                            output.append(contentsOf: [0xFF, marker])
                            output.append(contentsOf: bytes[position..<end])
                        }
                        position = end
                    }
                }
            }
        }

        /// The offset of the 0xFF that starts the first marker after entropy-coded data. Inside a
        /// scan 0xFF is followed by 0x00 (a stuffed data byte) or RST0–7, which belong to the scan.
        static func entropyCodedDataEnd(_ input: ByteReader, from start: Int) throws(ImageSanitizerError) -> Int {
            let bytes = input.bytes
            var index = start
            while index < bytes.count {
                guard bytes[index] == 0xFF else {
                    index += 1
                    continue
                }
                var next = index + 1
                while next < bytes.count, bytes[next] == 0xFF { next += 1 }
                guard next < bytes.count else { break }
                let code = bytes[next]
                if code == 0x00 || (0xD0...0xD7).contains(code) {
                    index = next + 1
                } else {
                    return index
                }
            }
            throw input.malformed("scan data ends without EOI")
        }
    }
}

// MARK: - PNG

extension ImageSanitizer {
    /// PNG: a signature and chunks of (length, type, data, CRC). Metadata chunks are dropped
    /// whole, so the CRCs of the chunks that stay remain valid.
    fileprivate enum PNGStripper {
        static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        static let ihdr = ByteReader.code("IHDR")
        static let idat = ByteReader.code("IDAT")
        static let iend = ByteReader.code("IEND")
        /// eXIf holds EXIF (and so GPS); exIf and zxIf are the names ImageMagick used for it before
        /// PNG 1.5. The text chunks hold XMP and free-form notes; tIME is the last edit's time.
        static let dropped: Set<UInt32> = [
            ByteReader.code("eXIf"), ByteReader.code("exIf"), ByteReader.code("zxIf"), ByteReader.code("tEXt"),
            ByteReader.code("zTXt"), ByteReader.code("iTXt"), ByteReader.code("tIME"),
        ]

        static func hasSignature(_ head: [UInt8]) -> Bool {
            ByteReader.isMatch(head, 0, signature) && ByteReader.isMatch(head, 12, Array("IHDR".utf8))
        }

        static func strip(_ input: ByteReader) throws(ImageSanitizerError) -> (bytes: [UInt8], sizes: [PictureSize]) {
            let bytes = input.bytes
            guard input.matches(0, signature) else { throw input.malformed("bad signature") }
            var output = signature
            var sizes: [PictureSize] = []
            output.reserveCapacity(bytes.count)
            var position = signature.count
            var sawImageData = false
            while true {
                guard position < bytes.count else { throw input.malformed("no IEND chunk") }
                let length = try input.u32BE(position)
                guard length <= 0x7FFF_FFFF else { throw input.malformed("chunk length \(length) at offset \(position)") }
                let type = try input.fourCC(position + 4)
                guard isChunkType(type) else { throw input.malformed("bad chunk type at offset \(position + 4)") }
                try input.require(position, 12 + length)
                let end = position + 12 + length
                // Every chunk's checksum, of its type and data: a file whose bytes do not add up is
                // damaged or made by hand, and is not passed on to other members.
                guard CRC32.checksum(bytes[(position + 4)..<(end - 4)]) == UInt32(try input.u32BE(end - 4)) else {
                    throw input.malformed("bad checksum of the chunk at offset \(position)")
                }
                if position == signature.count {
                    guard type == ihdr, length == 13 else { throw input.malformed("IHDR is not the first chunk") }
                    sizes.append(PictureSize(width: try input.u32BE(position + 8), height: try input.u32BE(position + 12)))
                } else if type == ihdr {
                    throw input.malformed("second IHDR chunk")
                }
                if type == idat { sawImageData = true }
                if !dropped.contains(type) {
                    output.append(contentsOf: bytes[position..<end])
                }
                position = end
                if type == iend {
                    guard sawImageData else { throw input.malformed("no IDAT chunk") }
                    // Bytes after IEND are not part of the image (often an appended file); dropped.
                    return (output, sizes)
                }
            }
        }

        /// Chunk types are four ASCII letters.
        static func isChunkType(_ type: UInt32) -> Bool {
            for shift in stride(from: 24, through: 0, by: -8) {
                let byte = UInt8(truncatingIfNeeded: type >> UInt32(shift))
                guard (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) else { return false }
            }
            return true
        }
    }
}

// MARK: - WebP

extension ImageSanitizer {
    /// WebP: a RIFF container of chunks (FourCC, little-endian size, data, a pad byte when the
    /// size is odd). EXIF and XMP are separate chunks announced by flags in VP8X.
    fileprivate enum WebPStripper {
        static let vp8 = ByteReader.code("VP8 ")
        static let vp8l = ByteReader.code("VP8L")
        static let vp8x = ByteReader.code("VP8X")
        static let exif = ByteReader.code("EXIF")
        static let xmp = ByteReader.code("XMP ")
        /// VP8X flag bits: EXIF is 0x08, XMP is 0x04 (ICC 0x20, alpha 0x10, animation 0x02 stay).
        static let metadataFlags: UInt8 = 0x08 | 0x04

        static func hasSignature(_ head: [UInt8]) -> Bool {
            guard ByteReader.isMatch(head, 0, Array("RIFF".utf8)), ByteReader.isMatch(head, 8, Array("WEBP".utf8)),
                head.count >= 16
            else { return false }
            let first = ByteReader(bytes: head, format: "WebP")
            guard let type = try? first.fourCC(12) else { return false }
            return type == vp8 || type == vp8l || type == vp8x
        }

        static func strip(_ input: ByteReader) throws(ImageSanitizerError) -> (bytes: [UInt8], sizes: [PictureSize]) {
            let bytes = input.bytes
            var sizes: [PictureSize] = []
            guard input.matches(0, Array("RIFF".utf8)), input.matches(8, Array("WEBP".utf8)) else {
                throw input.malformed("not a RIFF WEBP file")
            }
            let riffSize = try input.u32LE(4)
            guard riffSize >= 4, riffSize <= bytes.count - 8 else {
                throw input.malformed("RIFF size \(riffSize) does not fit the file")
            }
            // Bytes after the RIFF container are not part of the image and are dropped.
            let riffEnd = 8 + riffSize
            var output = Array(bytes[0..<12])
            output.reserveCapacity(riffEnd)
            var position = 12
            while position < riffEnd {
                guard riffEnd - position >= 8 else { throw input.malformed("truncated chunk header at offset \(position)") }
                let type = try input.fourCC(position)
                let size = try input.u32LE(position + 4)
                let padded = size + (size & 1)
                guard padded <= riffEnd - position - 8 else {
                    throw input.malformed("chunk at offset \(position) runs past the RIFF end")
                }
                let end = position + 8 + padded
                if position == 12, type != vp8, type != vp8l, type != vp8x {
                    throw input.malformed("first chunk is not VP8, VP8L or VP8X")
                }
                if type == exif || type == xmp {
                    // Dropped with its pad byte.
                } else if type == vp8x {
                    guard size >= 10 else { throw input.malformed("VP8X chunk of \(size) bytes") }
                    // The canvas: width and height minus one, 24 bits each, after the flags.
                    sizes.append(PictureSize(width: try input.u24LE(position + 12) + 1, height: try input.u24LE(position + 15) + 1))
                    let chunkStart = output.count
                    output.append(contentsOf: bytes[position..<end])
                    output[chunkStart + 8] &= ~metadataFlags // the first payload byte holds the flags
                } else {
                    if type == vp8 || type == vp8l { sizes.append(try pictureSize(of: type, at: position + 8, size: size, input)) }
                    output.append(contentsOf: bytes[position..<end])
                }
                position = end
            }
            guard output.count > 12 else { throw input.malformed("no chunks") }
            let newSize = UInt32(output.count - 8)
            output[4] = UInt8(truncatingIfNeeded: newSize)
            output[5] = UInt8(truncatingIfNeeded: newSize >> 8)
            output[6] = UInt8(truncatingIfNeeded: newSize >> 16)
            output[7] = UInt8(truncatingIfNeeded: newSize >> 24)
            return (output, sizes)
        }

        /// A VP8 key frame's size (14 bits each after the start code 9D 01 2A), or a VP8L
        /// bitstream's (its signature 0x2F, then width and height minus one, 14 bits each).
        static func pictureSize(of type: UInt32, at payload: Int, size: Int, _ input: ByteReader) throws(ImageSanitizerError) -> PictureSize {
            if type == vp8 {
                guard size >= 10, input.matches(payload + 3, [0x9D, 0x01, 0x2A]) else {
                    throw input.malformed("VP8 frame without a key frame header")
                }
                return PictureSize(width: try input.u16LE(payload + 6) & 0x3FFF, height: try input.u16LE(payload + 8) & 0x3FFF)
            }
            guard size >= 5, try input.u8(payload) == 0x2F else { throw input.malformed("VP8L bitstream without its signature") }
            let bits = try input.u32LE(payload + 1)
            return PictureSize(width: (bits & 0x3FFF) + 1, height: ((bits >> 14) & 0x3FFF) + 1)
        }
    }
}

// MARK: - HEIC

extension ImageSanitizer {
    /// HEIC (HEIF, ISO/IEC 23008-12, in ISO-BMFF boxes). EXIF and XMP are items of the `meta`
    /// box whose bytes live elsewhere (usually `mdat`), found through `iinf` (what each item is)
    /// and `iloc` (where its bytes are). Removing items would move every offset after them, so
    /// their bytes are overwritten with zeros in place and the file keeps its exact length.
    fileprivate enum HEIFStripper {
        struct Box {
            let type: UInt32
            let payloadStart: Int
            let end: Int
        }

        enum MetadataKind {
            case exif, xmp

            /// Written over the start of the zeroed item: an empty but valid block, so that readers
            /// which always parse the metadata (Pillow's `getexif` and `getxmp`, for example) find
            /// nothing instead of failing on zeros.
            var placeholder: [UInt8] {
                switch self {
                case .exif: HEIFStripper.emptyExif
                case .xmp: HEIFStripper.emptyXMP
                }
            }
        }

        /// The 4-byte offset to the TIFF header (6, past "Exif\0\0"), "Exif\0\0", a big-endian TIFF
        /// header pointing at IFD0 at offset 8, and an IFD0 with no entries and no next IFD.
        static let emptyExif: [UInt8] = [
            0x00, 0x00, 0x00, 0x06, 0x45, 0x78, 0x69, 0x66, 0x00, 0x00,
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ]
        /// An XMP document with no properties; XML readers stop at the NUL bytes after it.
        static let emptyXMP = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8)

        static let ftyp = ByteReader.code("ftyp")
        static let meta = ByteReader.code("meta")
        static let mdat = ByteReader.code("mdat")
        static let moov = ByteReader.code("moov")
        static let iinf = ByteReader.code("iinf")
        static let infe = ByteReader.code("infe")
        static let iloc = ByteReader.code("iloc")
        static let iprp = ByteReader.code("iprp")
        static let ipco = ByteReader.code("ipco")
        static let ispe = ByteReader.code("ispe")
        static let idat = ByteReader.code("idat")
        static let uuid = ByteReader.code("uuid")
        static let exif = ByteReader.code("Exif")
        static let mime = ByteReader.code("mime")
        /// Brands that say the pictures are HEVC-coded.
        static let hevcBrands: Set<UInt32> = [
            ByteReader.code("heic"), ByteReader.code("heix"), ByteReader.code("heim"),
            ByteReader.code("heis"), ByteReader.code("hevc"), ByteReader.code("hevx"),
        ]
        /// AVIF uses the same container and the generic `mif1` brand; it is not HEIC.
        static let avifBrands: Set<UInt32> = [ByteReader.code("avif"), ByteReader.code("avis")]
        static let mif1 = ByteReader.code("mif1")

        static func hasSignature(_ head: [UInt8]) -> Bool {
            let reader = ByteReader(bytes: head, format: "HEIC")
            guard let size = try? reader.u32BE(0), let type = try? reader.fourCC(4), type == ftyp,
                size >= 16, (size - 16) % 4 == 0, let major = try? reader.fourCC(8)
            else { return false }
            var brands = [major]
            var offset = 16
            while offset + 4 <= min(size, head.count) {
                if let brand = try? reader.fourCC(offset) { brands.append(brand) }
                offset += 4
            }
            if brands.contains(where: { hevcBrands.contains($0) }) { return true }
            return major == mif1 && !brands.contains(where: { avifBrands.contains($0) })
        }

        static func strip(_ input: ByteReader) throws(ImageSanitizerError) -> (bytes: [UInt8], sizes: [PictureSize]) {
            let top = try boxes(input, from: 0, to: input.count)
            guard let first = top.first, first.type == ftyp else { throw input.malformed("ftyp is not the first box") }
            // Image sequences keep pictures and metadata in tracks as well, which this does not read.
            guard !top.contains(where: { $0.type == moov }) else {
                throw input.malformed("image sequences (moov) are not supported")
            }
            let metaBox = try single(meta, in: top, input)
            // `meta` is a full box: version and flags come before its children.
            let children = try boxes(input, from: metaBox.payloadStart + 4, to: metaBox.end)
            let iinfBox = try single(iinf, in: children, input)
            let ilocBox = try single(iloc, in: children, input)
            let idatBoxes = children.filter { $0.type == idat }
            guard idatBoxes.count <= 1 else { throw input.malformed("more than one idat box") }

            let items = try metadataItems(input, iinf: iinfBox)
            var output = input.bytes
            if !items.isEmpty {
                let media = top.filter { $0.type == mdat }
                try zeroPayloads(of: items, input, iloc: ilocBox, idat: idatBoxes.first, media: media, output: &output)
            }
            return (output, try pictureSizes(input, meta: children))
        }

        /// The sizes of the pictures: every `ispe` property (a full box holding width and height,
        /// 32 bits each) in `iprp/ipco`. Every image item has one; a grid's is its whole size.
        static func pictureSizes(_ input: ByteReader, meta children: [Box]) throws(ImageSanitizerError) -> [PictureSize] {
            let properties = try single(iprp, in: children, input)
            let container = try single(ipco, in: try boxes(input, from: properties.payloadStart, to: properties.end), input)
            var sizes: [PictureSize] = []
            for box in try boxes(input, from: container.payloadStart, to: container.end) where box.type == ispe {
                guard box.end - box.payloadStart >= 12 else { throw input.malformed("ispe box too short") }
                sizes.append(PictureSize(width: try input.u32BE(box.payloadStart + 4), height: try input.u32BE(box.payloadStart + 8)))
            }
            return sizes
        }

        /// Whether `range` lies inside the payload of one of `boxes`, which are in file order.
        static func isInside(_ range: Range<Int>, payloadOf boxes: [Box]) -> Bool {
            // Binary search for the last box that starts at or before the range.
            var low = 0
            var high = boxes.count
            while low < high {
                let middle = (low + high) / 2
                if boxes[middle].payloadStart <= range.lowerBound {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            guard low > 0 else { return false }
            return range.upperBound <= boxes[low - 1].end
        }

        static func single(_ type: UInt32, in boxes: [Box], _ input: ByteReader) throws(ImageSanitizerError) -> Box {
            let matching = boxes.filter { $0.type == type }
            guard matching.count == 1 else {
                var name = ""
                for shift in stride(from: 24, through: 0, by: -8) {
                    name.append(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: type >> UInt32(shift)))))
                }
                throw input.malformed("expected one \(name) box, found \(matching.count)")
            }
            return matching[0]
        }

        /// The boxes between `start` and `end`, each checked to lie inside that range.
        static func boxes(_ input: ByteReader, from start: Int, to end: Int) throws(ImageSanitizerError) -> [Box] {
            var result: [Box] = []
            var position = start
            while position < end {
                guard end - position >= 8 else { throw input.malformed("truncated box header at offset \(position)") }
                let size32 = try input.u32BE(position)
                let type = try input.fourCC(position + 4)
                var header = 8
                let size: Int
                switch size32 {
                case 0:
                    size = end - position // the box runs to the end of its container
                case 1:
                    guard end - position >= 16 else { throw input.malformed("truncated box header at offset \(position)") }
                    let large = try input.uintBE(position + 8, size: 8)
                    size = try input.integer(large)
                    header = 16
                default:
                    size = size32
                }
                if type == uuid { header += 16 }
                guard size >= header, size <= end - position else {
                    throw input.malformed("box at offset \(position) does not fit its container")
                }
                result.append(Box(type: type, payloadStart: position + header, end: position + size))
                position += size
            }
            return result
        }

        /// The items that are EXIF (type `Exif`) or XMP (`mime` items with an XML content type;
        /// XMP is labelled `application/rdf+xml`, and no picture is ever an XML item), by item ID.
        static func metadataItems(_ input: ByteReader, iinf box: Box) throws(ImageSanitizerError) -> [Int: MetadataKind] {
            let version = try input.u8(box.payloadStart)
            let entriesStart = box.payloadStart + 4 + (version == 0 ? 2 : 4)
            guard entriesStart <= box.end else { throw input.malformed("truncated iinf box") }
            let entries = try boxes(input, from: entriesStart, to: box.end)
            var items: [Int: MetadataKind] = [:]
            for entry in entries where entry.type == infe {
                if let item = try metadataItem(input, infe: entry) {
                    items[item.id] = item.kind
                }
            }
            return items
        }

        static func metadataItem(_ input: ByteReader, infe box: Box) throws(ImageSanitizerError) -> (id: Int, kind: MetadataKind)? {
            let version = try input.u8(box.payloadStart)
            var position = box.payloadStart + 4
            let itemID: Int
            switch version {
            case 0, 1:
                // item_ID, item_protection_index, item_name, content_type: items are typed by MIME only.
                itemID = try input.u16BE(position)
                position += 4
                let afterName = try skipString(input, from: position, end: box.end)
                let contentType = try string(input, from: afterName, end: box.end)
                guard isXML(contentType) else { return nil }
                return (id: itemID, kind: MetadataKind.xmp)
            case 2, 3:
                if version == 2 {
                    itemID = try input.u16BE(position)
                    position += 2
                } else {
                    itemID = try input.u32BE(position)
                    position += 4
                }
                position += 2 // item_protection_index
                guard box.end - position >= 4 else { throw input.malformed("truncated infe box") }
                let itemType = try input.fourCC(position)
                position += 4
                if itemType == exif { return (id: itemID, kind: MetadataKind.exif) }
                if itemType == mime {
                    let afterName = try skipString(input, from: position, end: box.end)
                    let contentType = try string(input, from: afterName, end: box.end)
                    guard isXML(contentType) else { return nil }
                    return (id: itemID, kind: MetadataKind.xmp)
                }
                return nil
            default:
                throw input.malformed("infe version \(version)")
            }
        }

        /// The offset after a NUL-terminated string; a last string may lack its NUL.
        static func skipString(_ input: ByteReader, from start: Int, end: Int) throws(ImageSanitizerError) -> Int {
            guard start <= end else { throw input.malformed("truncated infe box") }
            var index = start
            while index < end, input.bytes[index] != 0 { index += 1 }
            return min(index + 1, end)
        }

        static func string(_ input: ByteReader, from start: Int, end: Int) throws(ImageSanitizerError) -> [UInt8] {
            guard start <= end else { throw input.malformed("truncated infe box") }
            var index = start
            while index < end, input.bytes[index] != 0 { index += 1 }
            return Array(input.bytes[start..<index])
        }

        static func isXML(_ contentType: [UInt8]) -> Bool {
            let lowered = contentType.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }
            let xml = Array("xml".utf8)
            guard lowered.count >= xml.count else { return false }
            for start in 0...(lowered.count - xml.count) where lowered[start..<(start + xml.count)].elementsEqual(xml) {
                return true
            }
            return false
        }

        /// Walks `iloc` (versions 0–2) and overwrites every extent of the given items with zeros,
        /// then puts the kind's empty placeholder at the start of the item when it fits. `media` are
        /// the top-level `mdat` boxes, in file order.
        static func zeroPayloads(
            of items: [Int: MetadataKind], _ input: ByteReader, iloc box: Box, idat: Box?,
            media: [Box], output: inout [UInt8]
        ) throws(ImageSanitizerError) {
            var position = box.payloadStart
            let version = try input.u8(position)
            guard version <= 2 else { throw input.malformed("iloc version \(version)") }
            position += 4
            let sizes = try input.u8(position)
            let moreSizes = try input.u8(position + 1)
            position += 2
            let offsetSize = sizes >> 4
            let lengthSize = sizes & 0x0F
            let baseOffsetSize = moreSizes >> 4
            let indexSize = version == 0 ? 0 : moreSizes & 0x0F
            for size in [offsetSize, lengthSize, baseOffsetSize, indexSize] where size != 0 && size != 4 && size != 8 {
                throw input.malformed("iloc field size \(size)")
            }
            let itemCount: Int
            if version < 2 {
                itemCount = try input.u16BE(position)
                position += 2
            } else {
                itemCount = try input.u32BE(position)
                position += 4
            }
            // Extents of one item never overlap in a real file; the running total keeps a hostile
            // one that repeats a huge extent from costing more than one pass over the file.
            var zeroed = 0
            for _ in 0..<itemCount {
                let itemID: Int
                if version < 2 {
                    itemID = try input.u16BE(position)
                    position += 2
                } else {
                    itemID = try input.u32BE(position)
                    position += 4
                }
                var constructionMethod = 0
                if version >= 1 {
                    constructionMethod = try input.u16BE(position) & 0x0F
                    position += 2
                }
                let dataReferenceIndex = try input.u16BE(position)
                position += 2
                let baseOffset = try input.uintBE(position, size: baseOffsetSize)
                position += baseOffsetSize
                let extentCount = try input.u16BE(position)
                position += 2
                let kind = items[itemID]
                for extentIndex in 0..<extentCount {
                    position += indexSize
                    let extentOffset = try input.uintBE(position, size: offsetSize)
                    position += offsetSize
                    let extentLength = try input.uintBE(position, size: lengthSize)
                    position += lengthSize
                    guard let kind else { continue }
                    // The region the offsets are relative to: the file, or the payload of idat.
                    let regionStart: Int
                    let regionEnd: Int
                    switch constructionMethod {
                    case 0:
                        guard dataReferenceIndex == 0 else {
                            throw input.malformed("metadata item \(itemID) is stored in another file")
                        }
                        regionStart = 0
                        regionEnd = input.count
                    case 1:
                        guard let idat else { throw input.malformed("metadata item \(itemID) refers to a missing idat") }
                        regionStart = idat.payloadStart
                        regionEnd = idat.end
                    default:
                        throw input.malformed("metadata item \(itemID) has construction method \(constructionMethod)")
                    }
                    // A length of 0 means "all of the region", which is never what EXIF or XMP is.
                    guard extentLength > 0 else { throw input.malformed("metadata item \(itemID) has an open extent") }
                    let (start, overflow) = baseOffset.addingReportingOverflow(extentOffset)
                    let available = UInt64(regionEnd - regionStart)
                    guard !overflow, start <= available, extentLength <= available - start else {
                        throw input.malformed("metadata item \(itemID) lies outside the file")
                    }
                    let from = regionStart + Int(start)
                    let length = Int(extentLength)
                    // File offsets must point into media data: zeros written over box headers would
                    // leave a file that no longer parses.
                    if constructionMethod == 0, !isInside(from..<(from + length), payloadOf: media) {
                        throw input.malformed("metadata item \(itemID) is not inside an mdat box")
                    }
                    zeroed += length
                    guard zeroed <= input.count else { throw input.malformed("metadata extents overlap") }
                    for index in from..<(from + length) {
                        output[index] = 0
                    }
                    let placeholder = kind.placeholder
                    if extentIndex == 0, length >= placeholder.count {
                        output.replaceSubrange(from..<(from + placeholder.count), with: placeholder)
                    }
                }
                guard position <= box.end else { throw input.malformed("iloc box is truncated") }
            }
        }
    }
}

// MARK: - CRC-32

/// The CRC-32 of PNG (ISO 3309, ITU-T V.42; polynomial 0xEDB88320), by table.
private enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
