import Foundation
import Testing

@testable import PawpackCore

// The real photos in Fixtures/ are made by Fixtures/make_fixtures.py (Pillow, piexif,
// pillow-heif); its header says what each one holds. They all carry the same GPS position,
// 51°30'26.34"N 0°7'39.99"W, whose seconds are the big-endian EXIF rationals below.

/// 2634/100, the latitude seconds.
private let latitudeSeconds: [UInt8] = [0x00, 0x00, 0x0A, 0x4A, 0x00, 0x00, 0x00, 0x64]
/// 3999/100, the longitude seconds.
private let longitudeSeconds: [UInt8] = [0x00, 0x00, 0x0F, 0x9F, 0x00, 0x00, 0x00, 0x64]

/// Byte strings that must never survive sanitizing: the EXIF header, the GPS rationals, the
/// XMP namespace and the position as the XMP packet writes it.
private let locationTraces: [[UInt8]] = [
    latitudeSeconds, longitudeSeconds, Array("GPS".utf8), Array("http://ns.adobe.com/xap/1.0/".utf8),
    Array("51,30.439N".utf8),
]
private let exifHeader = Array("Exif\0\0".utf8)

/// What the sanitizer writes at the start of a blanked HEIC Exif item: TIFF header offset 6,
/// "Exif\0\0", a big-endian TIFF header and an empty IFD0.
private let emptyExif: [UInt8] = [
    0x00, 0x00, 0x00, 0x06, 0x45, 0x78, 0x69, 0x66, 0x00, 0x00,
    0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
]
/// What it writes at the start of a blanked HEIC XMP item.
private let emptyXMP = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8)

// MARK: - Helpers

/// A file from Fixtures/, which the test target copies as a resource directory.
private func imageFixture(_ fileName: String) throws -> Data {
    let dot = try #require(fileName.lastIndex(of: "."))
    let name = String(fileName[..<dot])
    let fileExtension = String(fileName[fileName.index(after: dot)...])
    let url = try #require(Bundle.module.url(forResource: name, withExtension: fileExtension, subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

private func sanitizeError(_ data: Data, limit: Int = 10 * 1024 * 1024) -> ImageSanitizerError? {
    do {
        _ = try ImageSanitizer(maximumBytes: limit).sanitize(data)
        return nil
    } catch {
        return error
    }
}

private func isMalformed(_ error: ImageSanitizerError?) -> Bool {
    if case .malformed(_)? = error { return true }
    return false
}

private func indexOfBytes(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return start
    }
    return nil
}

private func includes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    indexOfBytes(needle, in: haystack) != nil
}

private func bigEndianBytes(_ value: Int, _ size: Int) -> [UInt8] {
    var bytes: [UInt8] = []
    for index in stride(from: size - 1, through: 0, by: -1) {
        bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index)))
    }
    return bytes
}

/// The parts one after the other (cheaper for the type checker than chains of `+`).
private func concat(_ parts: [UInt8]...) -> [UInt8] {
    var bytes: [UInt8] = []
    for part in parts { bytes += part }
    return bytes
}

private func readBigEndian(_ bytes: [UInt8], at offset: Int, size: Int) -> Int {
    var value = 0
    for index in offset..<(offset + size) { value = value << 8 | Int(bytes[index]) }
    return value
}

private func readLittleEndian32(_ bytes: [UInt8], at offset: Int) -> Int {
    var value = 0
    for index in stride(from: offset + 3, through: offset, by: -1) { value = value << 8 | Int(bytes[index]) }
    return value
}

private func littleEndian32(_ value: Int) -> [UInt8] {
    [
        UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
        UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24),
    ]
}

/// One JPEG marker segment with a length field.
private struct Segment: Equatable {
    let marker: UInt8
    let payload: [UInt8]
}

private func jpegSegment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0xFF, marker]
    bytes += bigEndianBytes(payload.count + 2, 2)
    bytes += payload
    return bytes
}

/// The segments before the first scan of a well-formed JPEG, and the offset of its SOS marker.
private func jpegHeader(_ bytes: [UInt8]) -> (segments: [Segment], scanStart: Int) {
    var segments: [Segment] = []
    var position = 2
    while position + 3 < bytes.count {
        while bytes[position + 1] == 0xFF { position += 1 } // fill bytes
        let marker = bytes[position + 1]
        if marker == 0xDA { return (segments, position) }
        let length = readBigEndian(bytes, at: position + 2, size: 2)
        segments.append(Segment(marker: marker, payload: Array(bytes[(position + 4)..<(position + 2 + length)])))
        position += 2 + length
    }
    return (segments, bytes.count)
}

/// One PNG chunk or RIFF chunk: its type and its bytes (for PNG the whole chunk with length and
/// CRC, for RIFF the payload).
private struct Chunk: Equatable {
    let type: String
    let bytes: [UInt8]
}

private func pngChunks(_ bytes: [UInt8]) -> [Chunk] {
    var chunks: [Chunk] = []
    var position = 8
    while position + 12 <= bytes.count {
        let length = readBigEndian(bytes, at: position, size: 4)
        let type = String(decoding: bytes[(position + 4)..<(position + 8)], as: UTF8.self)
        chunks.append(Chunk(type: type, bytes: Array(bytes[position..<(position + 12 + length)])))
        position += 12 + length
    }
    return chunks
}

private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 {
            crc = (crc & 1) == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
    }
    return ~crc
}

private func pngChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    var bytes = bigEndianBytes(payload.count, 4)
    bytes += Array(type.utf8)
    bytes += payload
    bytes += bigEndianBytes(Int(crc32(concat(Array(type.utf8), payload))), 4)
    return bytes
}

private let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

/// IHDR for a 1×1 8-bit greyscale image, and its one row compressed (filter 0, value 0).
private let tinyIHDR = pngChunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
private let tinyIDAT = pngChunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01])
private let tinyIEND = pngChunk("IEND", [])

private func riffChunks(_ bytes: [UInt8]) -> [Chunk] {
    var chunks: [Chunk] = []
    var position = 12
    while position + 8 <= bytes.count {
        let type = String(decoding: bytes[position..<(position + 4)], as: UTF8.self)
        let size = readLittleEndian32(bytes, at: position + 4)
        chunks.append(Chunk(type: type, bytes: Array(bytes[(position + 8)..<(position + 8 + size)])))
        position += 8 + size + (size & 1)
    }
    return chunks
}

private func riffChunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    var bytes = Array(type.utf8)
    bytes += littleEndian32(payload.count)
    bytes += payload
    if payload.count % 2 == 1 { bytes.append(0) }
    return bytes
}

private func webpFile(_ chunks: [[UInt8]]) -> [UInt8] {
    var body: [UInt8] = []
    for chunk in chunks { body += chunk }
    var bytes = Array("RIFF".utf8)
    bytes += littleEndian32(4 + body.count)
    bytes += Array("WEBP".utf8)
    bytes += body
    return bytes
}

// MARK: - Synthetic HEIC

/// How a synthetic HEIC file describes where its items are, plus defects for refusal tests.
struct HEICRecipe: Sendable, CustomStringConvertible {
    var label: String
    var version: UInt8 = 0
    var offsetSize = 4
    var lengthSize = 4
    var baseOffsetSize = 0
    var indexSize = 0
    /// The Exif item is stored in `idat` (construction method 1) instead of `mdat`.
    var exifInIdat = false
    /// The Exif item is stored as two extents.
    var splitExif = false
    var exifConstructionMethod: Int?
    var exifDataReference = 0
    /// Added to the Exif extent's offset in `iloc` without moving the bytes.
    var exifShift = 0
    var appendMoov = false
    /// The picture's size in its `ispe` property.
    var width = 64
    var height = 48

    var description: String { label }

    static let readable: [HEICRecipe] = [
        HEICRecipe(label: "iloc v0, 4-byte offsets and lengths"),
        HEICRecipe(label: "iloc v0, 8-byte fields with a 4-byte base offset", offsetSize: 8, lengthSize: 8, baseOffsetSize: 4),
        HEICRecipe(label: "iloc v1, 8-byte base offset and extent indexes", version: 1, baseOffsetSize: 8, indexSize: 4),
        HEICRecipe(label: "iloc v1, base offset only", version: 1, offsetSize: 0, baseOffsetSize: 4),
        HEICRecipe(label: "iloc v1, Exif in two extents", version: 1, offsetSize: 8, baseOffsetSize: 8, splitExif: true),
        HEICRecipe(label: "iloc v1, Exif in idat", version: 1, exifInIdat: true),
        HEICRecipe(label: "iloc v2, 32-bit item IDs and 8-byte indexes", version: 2, offsetSize: 8, indexSize: 8),
        HEICRecipe(label: "iloc v2, Exif in idat with a base offset", version: 2, baseOffsetSize: 4, exifInIdat: true),
    ]

    static let unreadable: [HEICRecipe] = [
        HEICRecipe(label: "Exif built from other items (construction method 2)", version: 1, exifConstructionMethod: 2),
        HEICRecipe(label: "Exif in another file", exifDataReference: 1),
        HEICRecipe(label: "Exif extent past the end of the file", exifShift: 100_000),
        HEICRecipe(label: "Exif extent over the meta box", exifShift: -250),
        HEICRecipe(label: "2-byte iloc lengths", lengthSize: 2),
        HEICRecipe(label: "iloc lengths left out (open extents)", lengthSize: 0),
        HEICRecipe(label: "iloc version 3", version: 3),
        HEICRecipe(label: "idat method without an idat box", version: 1, exifConstructionMethod: 1),
        HEICRecipe(label: "an image sequence (moov)", appendMoov: true),
    ]
}

private struct SyntheticHEIC {
    var bytes: [UInt8]
    /// Where the Exif item's bytes are in the file, extent by extent.
    var exifExtents: [Range<Int>]
    var xmpRange: Range<Int>
}

/// Stands in for the HEVC-coded picture.
private let syntheticPicture = [UInt8](repeating: 0xAB, count: 40)

/// An Exif item: TIFF header offset, "Exif\0\0", a TIFF header, IFD0 with a GPS IFD pointer,
/// and the GPS seconds.
private let syntheticExif: [UInt8] = {
    var bytes: [UInt8] = [0, 0, 0, 6]
    bytes += Array("Exif\0\0".utf8)
    bytes += [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
    bytes += [0x00, 0x01, 0x88, 0x25, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x1A]
    bytes += [0, 0, 0, 0]
    bytes += latitudeSeconds
    bytes += longitudeSeconds
    return bytes
}()

private let syntheticXMP = Array(
    #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="51,30.439N"/></rdf:RDF></x:xmpmeta>"#
        .utf8)

private func isoBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    var bytes = bigEndianBytes(8 + payload.count, 4)
    bytes += Array(type.utf8)
    bytes += payload
    return bytes
}

private func isoFullBox(_ type: String, version: UInt8, _ payload: [UInt8]) -> [UInt8] {
    var body: [UInt8] = [version, 0, 0, 0]
    body += payload
    return isoBox(type, body)
}

private func itemInfo(id: Int, type: String, contentType: String? = nil) -> [UInt8] {
    var body = bigEndianBytes(id, 2)
    body += [0, 0] // item_protection_index
    body += Array(type.utf8)
    body.append(0) // empty item_name
    if let contentType {
        body += Array(contentType.utf8)
        body.append(0)
    }
    return isoFullBox("infe", version: 2, body)
}

private struct ItemLocation {
    var id: Int
    var constructionMethod = 0
    var dataReference = 0
    /// Offsets in the file, or in the idat payload for construction method 1.
    var extents: [Range<Int>]
}

private func itemLocations(_ recipe: HEICRecipe, _ items: [ItemLocation]) -> [UInt8] {
    let idSize = recipe.version < 2 ? 2 : 4
    var body: [UInt8] = [UInt8(recipe.offsetSize << 4 | recipe.lengthSize), UInt8(recipe.baseOffsetSize << 4 | recipe.indexSize)]
    body += bigEndianBytes(items.count, idSize)
    for item in items {
        body += bigEndianBytes(item.id, idSize)
        if recipe.version >= 1 { body += bigEndianBytes(item.constructionMethod, 2) }
        body += bigEndianBytes(item.dataReference, 2)
        let start = item.extents[0].lowerBound
        // With a base offset, split each position between base and extent offset.
        let base = recipe.baseOffsetSize == 0 ? 0 : (recipe.offsetSize == 0 ? start : start / 2)
        body += bigEndianBytes(base, recipe.baseOffsetSize)
        body += bigEndianBytes(item.extents.count, 2)
        for (index, extent) in item.extents.enumerated() {
            if recipe.version >= 1 { body += bigEndianBytes(index + 1, recipe.indexSize) }
            body += bigEndianBytes(extent.lowerBound - base, recipe.offsetSize)
            body += bigEndianBytes(extent.count, recipe.lengthSize)
        }
    }
    return isoFullBox("iloc", version: recipe.version, body)
}

/// ftyp, meta (hdlr, pitm, iinf with a picture, an Exif and an XMP item, iloc, maybe idat), mdat.
private func makeHEIC(_ recipe: HEICRecipe) -> SyntheticHEIC {
    var ftypPayload = Array("heic".utf8)
    ftypPayload += [0, 0, 0, 0]
    ftypPayload += Array("mif1heic".utf8)
    let ftyp = isoBox("ftyp", ftypPayload)

    var handler = bigEndianBytes(0, 4)
    handler += Array("pict".utf8)
    handler += bigEndianBytes(0, 12)
    handler.append(0)
    let hdlr = isoFullBox("hdlr", version: 0, handler)
    let pitm = isoFullBox("pitm", version: 0, bigEndianBytes(1, 2))
    var entries = bigEndianBytes(3, 2)
    entries += itemInfo(id: 1, type: "hvc1")
    entries += itemInfo(id: 2, type: "Exif")
    entries += itemInfo(id: 3, type: "mime", contentType: "application/rdf+xml")
    let iinf = isoFullBox("iinf", version: 0, entries)

    var media = syntheticPicture
    let exifInMedia = media.count
    if !recipe.exifInIdat { media += syntheticExif }
    let xmpInMedia = media.count
    media += syntheticXMP

    func extents(startingAt start: Int) -> [Range<Int>] {
        let end = start + syntheticExif.count
        return recipe.splitExif ? [start..<(start + 30), (start + 30)..<end] : [start..<end]
    }

    // The size of meta does not depend on the offsets it holds, so build it once to learn where
    // mdat starts, then again with the real offsets.
    func meta(mediaStart: Int) -> [UInt8] {
        let exifStart = (recipe.exifInIdat ? 0 : mediaStart + exifInMedia) + recipe.exifShift
        let items = [
            ItemLocation(id: 1, extents: [mediaStart..<(mediaStart + syntheticPicture.count)]),
            ItemLocation(
                id: 2, constructionMethod: recipe.exifConstructionMethod ?? (recipe.exifInIdat ? 1 : 0),
                dataReference: recipe.exifDataReference, extents: extents(startingAt: exifStart)),
            ItemLocation(id: 3, extents: [(mediaStart + xmpInMedia)..<(mediaStart + xmpInMedia + syntheticXMP.count)]),
        ]
        var children = hdlr
        children += pitm
        children += iinf
        children += isoBox(
            "iprp",
            isoBox(
                "ipco",
                isoFullBox(
                    "ispe", version: 0,
                    bigEndianBytes(recipe.width, 4) + bigEndianBytes(recipe.height, 4))))
        children += itemLocations(recipe, items)
        if recipe.exifInIdat { children += isoBox("idat", syntheticExif) }
        return isoFullBox("meta", version: 0, children)
    }

    let metaSize = meta(mediaStart: 0).count
    let mediaStart = ftyp.count + metaSize + 8
    var bytes = ftyp
    bytes += meta(mediaStart: mediaStart)
    bytes += isoBox("mdat", media)
    if recipe.appendMoov { bytes += isoBox("moov", []) }

    // idat is the last child of meta, and its payload is the Exif item.
    let exifInFile = recipe.exifInIdat ? ftyp.count + metaSize - syntheticExif.count : mediaStart + exifInMedia
    return SyntheticHEIC(
        bytes: bytes, exifExtents: extents(startingAt: exifInFile),
        xmpRange: (mediaStart + xmpInMedia)..<(mediaStart + xmpInMedia + syntheticXMP.count))
}

// MARK: - Tests

@Suite struct ImageSanitizerTests {
    let sanitizer = ImageSanitizer()

    // MARK: JPEG

    @Test func everyFormatTellsItsPictureSizeFromItsHeaders() throws {
        // The fixtures are 64 × 48 pixels (the HEIC's coded picture, as its `ispe` says, is
        // 64 × 64); a moment's copies are checked by their longest side.
        for (name, height) in [("gps.jpg", 48), ("gps.png", 48), ("gps.webp", 48), ("gps.heic", 64)] {
            let image = try sanitizer.sanitizeMeasured(try imageFixture(name))
            #expect(image.width == 64 && image.height == height && image.longestSide == 64, "\(name): \(image.width)×\(image.height)")
            #expect(try sanitizer.sanitize(try imageFixture(name)).data == image.data)
        }
    }

    @Test func aJpegWithGPSComesOutWithoutExifXmpOrComment() throws {
        let input = [UInt8](try imageFixture("gps.jpg"))
        #expect(includes(input, latitudeSeconds) && includes(input, exifHeader)) // the fixture does leak

        let (format, data) = try sanitizer.sanitize(Data(input))
        let output = [UInt8](data)
        #expect(format == .jpeg)
        for trace in locationTraces + [exifHeader] {
            #expect(!includes(output, trace), "\(String(decoding: trace, as: UTF8.self)) survived")
        }
        #expect(!includes(output, Array("Taken at".utf8))) // the COM text
        #expect(!includes(output, Array("Photoshop 3.0".utf8))) // APP13 with IPTC
        let markers = jpegHeader(output).segments.map { $0.marker }
        #expect(!markers.contains(0xE1))
        #expect(!markers.contains(0xED))
        #expect(!markers.contains(0xFE))
    }

    @Test func aJpegKeepsJfifColourTablesAndIdenticalScanData() throws {
        let input = [UInt8](try imageFixture("gps.jpg"))
        let output = [UInt8](try sanitizer.sanitize(Data(input)).data)
        let before = jpegHeader(input)
        let after = jpegHeader(output)

        #expect(Array(output.prefix(2)) == [0xFF, 0xD8])
        // Every segment but APP1, APP13 and COM is kept, byte for byte and in order.
        let expected = before.segments.filter { ![0xE1, 0xED, 0xFE].contains($0.marker) }
        #expect(after.segments == expected)
        #expect(after.segments.first?.marker == 0xE0)
        #expect(after.segments.first?.payload.starts(with: Array("JFIF\0".utf8)) == true)
        #expect(after.segments.contains { $0.marker == 0xE2 && $0.payload.starts(with: Array("ICC_PROFILE\0".utf8)) })
        #expect(after.segments.contains { $0.marker == 0xEE && $0.payload.starts(with: Array("Adobe".utf8)) })
        #expect(after.segments.filter { $0.marker == 0xDB }.count == 2) // quantisation tables
        #expect(after.segments.filter { $0.marker == 0xC4 }.count == 4) // Huffman tables
        #expect(after.segments.contains { $0.marker == 0xC0 })
        // From SOS to EOI nothing changes.
        #expect(Array(output[after.scanStart...]) == Array(input[before.scanStart...]))
        #expect(Array(output.suffix(2)) == [0xFF, 0xD9])
    }

    @Test func aCleanJpegPassesThroughUnchanged() throws {
        let input = try imageFixture("plain.jpg")
        let (format, output) = try sanitizer.sanitize(input)
        #expect(format == .jpeg)
        #expect(output == input)
    }

    @Test func jpegFillBytesRestartMarkersAndTrailersAreHandled() throws {
        let jfif = jpegSegment(0xE0, concat(Array("JFIF\0".utf8), [1, 1, 0, 0, 1, 0, 1, 0, 0]))
        let icc = jpegSegment(0xE2, concat(Array("ICC_PROFILE\0".utf8), [1, 1, 9, 9, 9, 9]))
        let table = jpegSegment(0xDB, concat([0x00], [UInt8](repeating: 1, count: 64)))
        let frame = jpegSegment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0])
        let huffman = jpegSegment(0xC4, [0x00, 0, 1, 2])
        let restartInterval = jpegSegment(0xDD, [0, 4])
        let scanHeader = jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0])
        // Stuffed 0xFF00 and restart markers, with and without a fill byte, belong to the scan.
        let entropyCoded: [UInt8] = [0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD0, 0x78, 0xFF, 0xFF, 0xD1, 0x9A]

        let input = concat(
            [0xFF, 0xD8], jfif,
            [0xFF, 0xFF], jpegSegment(0xE1, concat(Array("Exif\0\0".utf8), latitudeSeconds)), // after fill bytes
            jpegSegment(0xE2, concat(Array("MPF\0".utf8), [0, 0, 0, 0])), // multi-picture index
            icc,
            jpegSegment(0xE0, concat(Array("JFXX\0".utf8), [0x10])), // APP0 but not JFIF
            table,
            jpegSegment(0xFE, Array("GPS 51.5N".utf8)),
            frame, huffman,
            [0xFF, 0xFF, 0xFF], restartInterval,
            scanHeader, entropyCoded,
            [0xFF, 0xFF, 0xD9], // EOI after a fill byte
            Array("appended GPS trailer".utf8)
        )

        let expected = concat(
            [0xFF, 0xD8], jfif, icc, table, frame, huffman, restartInterval, scanHeader, entropyCoded,
            [0xFF, 0xD9])
        let output = try sanitizer.sanitize(Data(input))
        #expect(output.format == .jpeg)
        #expect([UInt8](output.data) == expected)
    }

    static let brokenJPEGs: [(String, [UInt8])] = {
        let start = concat([0xFF, 0xD8], jpegSegment(0xE0, concat(Array("JFIF\0".utf8), [1, 1, 0, 0, 1, 0, 1, 0, 0])))
        let frame = jpegSegment(0xC0, [8, 0, 16, 0, 16, 1, 1, 0x11, 0])
        let scan = jpegSegment(0xDA, [1, 1, 0x00, 0, 63, 0])
        let end: [UInt8] = [1, 0xFF, 0xD9]
        return [
            ("segment length past the end", concat(start, [0xFF, 0xE1, 0x7F, 0xFF, 0x45, 0x78])),
            ("segment length below 2", concat(start, [0xFF, 0xE1, 0x00, 0x01], frame, scan, end)),
            ("garbage between segments", concat(start, [0x00, 0x42], frame, scan, end)),
            ("reserved marker", concat(start, [0xFF, 0x02], frame, scan, end)),
            ("second SOI", concat(start, [0xFF, 0xD8], frame, scan, end)),
            ("scan before frame header", concat(start, scan, end)),
            ("scan header with 9 components", concat(start, frame, jpegSegment(0xDA, [9, 1, 0, 0, 63, 0]), end)),
            ("EOI before any scan", concat(start, frame, [0xFF, 0xD9])),
            ("scan without EOI", concat(start, frame, scan, [1, 2, 3, 0xFF, 0x00])),
            ("ends after a marker prefix", concat(start, [0xFF, 0xFF])),
        ]
    }()

    @Test func brokenJpegStructureIsMalformedNeverACrash() {
        for (name, bytes) in Self.brokenJPEGs {
            #expect(ImageSanitizer.detectFormat(Data(bytes)) == .jpeg, "\(name)")
            #expect(isMalformed(sanitizeError(Data(bytes))), "\(name)")
        }
    }

    // MARK: PNG

    @Test func aPngWithGPSLosesExifTextAndTimeChunks() throws {
        let input = [UInt8](try imageFixture("gps.png"))
        let inputTypes = pngChunks(input).map { $0.type }
        for type in ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"] {
            #expect(inputTypes.contains(type), "the fixture has \(type)")
        }

        let (format, data) = try sanitizer.sanitize(Data(input))
        let output = [UInt8](data)
        #expect(format == .png)
        for trace in locationTraces {
            #expect(!includes(output, trace), "\(String(decoding: trace, as: UTF8.self)) survived")
        }
        #expect(!includes(output, Array("Walkies".utf8)))
        let outputTypes = pngChunks(output).map { $0.type }
        #expect(outputTypes == ["IHDR", "iCCP", "pHYs", "IDAT", "IEND"])
    }

    @Test func aPngKeepsItsImageChunksByteForByte() throws {
        let input = [UInt8](try imageFixture("gps.png"))
        let output = [UInt8](try sanitizer.sanitize(Data(input)).data)
        #expect(Array(output.prefix(8)) == pngSignature)
        let dropped: Set<String> = ["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]
        #expect(pngChunks(output) == pngChunks(input).filter { !dropped.contains($0.type) })
        // The chunks were copied whole, so the output is exactly signature + those chunks.
        let chunkBytes = pngChunks(output).reduce(0) { $0 + $1.bytes.count }
        #expect(output.count == 8 + chunkBytes)
    }

    @Test func bytesAfterPngIendAreDropped() throws {
        let image = concat(pngSignature, tinyIHDR, tinyIDAT, tinyIEND)
        let output = try sanitizer.sanitize(Data(concat(image, Array("GPS appended".utf8))))
        #expect([UInt8](output.data) == image)
    }

    static let brokenPNGs: [(String, [UInt8])] = [
        ("no IEND", concat(pngSignature, tinyIHDR, tinyIDAT)),
        ("IHDR of 12 bytes", concat(pngSignature, pngChunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0]), tinyIDAT, tinyIEND)),
        ("second IHDR", concat(pngSignature, tinyIHDR, tinyIHDR, tinyIDAT, tinyIEND)),
        ("no IDAT", concat(pngSignature, tinyIHDR, tinyIEND)),
        ("chunk longer than the file", concat(pngSignature, tinyIHDR, [0, 0, 0x10, 0], Array("IDAT".utf8), [1, 2, 3])),
        ("chunk length over 2^31", concat(pngSignature, tinyIHDR, [0x80, 0, 0, 0], Array("IDAT".utf8), tinyIEND)),
        ("chunk type that is not letters", concat(pngSignature, tinyIHDR, pngChunk("ID4T", [1]), tinyIDAT, tinyIEND)),
    ]

    @Test func brokenPngStructureIsMalformedNeverACrash() {
        for (name, bytes) in Self.brokenPNGs {
            #expect(ImageSanitizer.detectFormat(Data(bytes)) == .png, "\(name)")
            #expect(isMalformed(sanitizeError(Data(bytes))), "\(name)")
        }
    }

    // MARK: WebP

    @Test func aWebpWithGPSLosesExifAndXmpChunksAndTheirFlags() throws {
        let input = [UInt8](try imageFixture("gps.webp"))
        let before = riffChunks(input)
        #expect(before.map { $0.type } == ["VP8X", "ICCP", "VP8 ", "EXIF", "XMP "])
        #expect(before[0].bytes[0] & 0x0C == 0x0C) // EXIF and XMP flags set

        let (format, data) = try sanitizer.sanitize(Data(input))
        let output = [UInt8](data)
        #expect(format == .webp)
        for trace in locationTraces {
            #expect(!includes(output, trace), "\(String(decoding: trace, as: UTF8.self)) survived")
        }
        let after = riffChunks(output)
        #expect(after.map { $0.type } == ["VP8X", "ICCP", "VP8 "])
        #expect(after[0].bytes[0] == before[0].bytes[0] & ~0x0C) // ICC flag kept, metadata flags cleared
        #expect(Array(after[0].bytes.dropFirst()) == Array(before[0].bytes.dropFirst())) // canvas size
        #expect(after[1] == before[1])
        #expect(after[2] == before[2]) // the VP8 bitstream
        #expect(readLittleEndian32(output, at: 4) == output.count - 8)
    }

    @Test func webpChunkPaddingIsRespected() throws {
        let canvas: [UInt8] = [0, 0, 0, 63, 0, 0, 47, 0, 0]
        let profile = riffChunk("ICCP", [1, 2, 3])
        let bitstream = riffChunk("VP8L", [0x2F, 4, 5, 6, 7])
        let input = concat(
            webpFile([
                riffChunk("VP8X", concat([0x2C], canvas)), profile, bitstream,
                riffChunk("EXIF", concat(Array("MM\0*".utf8), latitudeSeconds, [9])), // 13 bytes and a pad byte
                riffChunk("XMP ", concat(Array("<x:xmpmeta GPS/>".utf8), [0x20])), // 17 bytes and a pad byte
            ]),
            Array("trailing".utf8) // after the RIFF container
        )
        let expected = webpFile([riffChunk("VP8X", concat([0x20], canvas)), profile, bitstream])
        let output = try sanitizer.sanitize(Data(input))
        #expect(output.format == .webp)
        #expect([UInt8](output.data) == expected)
    }

    static let brokenWebPs: [(String, [UInt8])] = {
        let bitstream = riffChunk("VP8L", [0x2F, 4, 5, 6, 7])
        let valid = webpFile([bitstream])
        var tooLong = valid
        tooLong[4] = 0xFF // RIFF size larger than the file
        return [
            ("RIFF size larger than the file", tooLong),
            ("chunk running past the RIFF end", webpFile([concat(Array("VP8L".utf8), littleEndian32(500), [0x2F, 1, 2])])),
            ("VP8X of 4 bytes", webpFile([riffChunk("VP8X", [0x2C, 0, 0, 0]), bitstream])),
            ("half a chunk header inside the RIFF", webpFile([bitstream, [0x41, 0x42]])),
        ]
    }()

    @Test func brokenWebpStructureIsMalformedNeverACrash() {
        for (name, bytes) in Self.brokenWebPs {
            #expect(ImageSanitizer.detectFormat(Data(bytes)) == .webp, "\(name)")
            #expect(isMalformed(sanitizeError(Data(bytes))), "\(name)")
        }
    }

    // MARK: HEIC

    @Test func aHeicWithGPSKeepsItsLengthAndLosesItsExifAndXmpPayloads() throws {
        let input = [UInt8](try imageFixture("gps.heic"))
        let (format, data) = try sanitizer.sanitize(Data(input))
        let output = [UInt8](data)
        #expect(format == .heic)
        #expect(output.count == input.count)
        for trace in locationTraces {
            #expect(includes(input, trace))
            #expect(!includes(output, trace), "\(String(decoding: trace, as: UTF8.self)) survived")
        }

        // libheif stores the Exif item (its 4-byte TIFF header offset, then "Exif\0\0MM...") and
        // right after it the XMP packet, at the end of mdat.
        let exifStart = try #require(indexOfBytes(Array("Exif\0\0MM".utf8), in: input)) - 4
        let xmpStart = try #require(indexOfBytes(Array("<?xpacket begin".utf8), in: input))
        let packetEnd = Array(#"<?xpacket end="w"?>"#.utf8)
        let xmpEnd = try #require(indexOfBytes(packetEnd, in: input)) + packetEnd.count
        #expect(exifStart < xmpStart)
        #expect(Array(output[exifStart..<(exifStart + emptyExif.count)]) == emptyExif)
        #expect(output[(exifStart + emptyExif.count)..<xmpStart].allSatisfy { $0 == 0 })
        #expect(Array(output[xmpStart..<(xmpStart + emptyXMP.count)]) == emptyXMP)
        #expect(output[(xmpStart + emptyXMP.count)..<xmpEnd].allSatisfy { $0 == 0 })
        // Every other byte (boxes, offsets, the HEVC data) is untouched.
        #expect(Array(output[..<exifStart]) == Array(input[..<exifStart]))
        #expect(Array(output[xmpEnd...]) == Array(input[xmpEnd...]))
    }

    @Test(arguments: HEICRecipe.readable)
    func heicMetadataIsBlankedInPlaceForEachIlocLayout(recipe: HEICRecipe) throws {
        let file = makeHEIC(recipe)
        #expect(includes(file.bytes, latitudeSeconds))

        let (format, data) = try sanitizer.sanitize(Data(file.bytes))
        #expect(format == .heic)
        var expected = file.bytes
        for (index, extent) in file.exifExtents.enumerated() {
            for position in extent { expected[position] = 0 }
            if index == 0 {
                expected.replaceSubrange(extent.lowerBound..<(extent.lowerBound + emptyExif.count), with: emptyExif)
            }
        }
        for position in file.xmpRange { expected[position] = 0 }
        expected.replaceSubrange(file.xmpRange.lowerBound..<(file.xmpRange.lowerBound + emptyXMP.count), with: emptyXMP)
        #expect([UInt8](data) == expected)
        #expect(try sanitizer.sanitize(data).data == data)
    }

    @Test(arguments: HEICRecipe.unreadable)
    func heicWhoseMetadataCannotBeLocatedIsMalformed(recipe: HEICRecipe) {
        let file = makeHEIC(recipe)
        #expect(ImageSanitizer.detectFormat(Data(file.bytes)) == .heic)
        #expect(isMalformed(sanitizeError(Data(file.bytes))))
    }

    @Test func heicItemsThatAreNotExifOrXmpAreLeftAlone() throws {
        // The fixture with its Exif and XMP items retyped to a type nobody reads: nothing to blank.
        var bytes = [UInt8](try imageFixture("gps.heic"))
        for type in ["Exif", "mime"] {
            let at = try #require(indexOfBytes(Array(type.utf8), in: bytes))
            bytes.replaceSubrange(at..<(at + 4), with: Array("zzzz".utf8))
        }
        let output = try sanitizer.sanitize(Data(bytes))
        #expect([UInt8](output.data) == bytes)
    }

    // MARK: Type detection

    @Test func eachFixtureIsRecognisedFromItsBytes() throws {
        let expected: [(String, ImageFormat)] = [
            ("gps.jpg", .jpeg), ("plain.jpg", .jpeg), ("gps.png", .png), ("gps.webp", .webp), ("gps.heic", .heic),
        ]
        for (name, format) in expected {
            #expect(ImageSanitizer.detectFormat(try imageFixture(name)) == format, "\(name)")
        }
    }

    @Test func formatsNameTheirMimeTypeAndExtension() {
        #expect(ImageFormat.allCases.map { $0.mimeType } == ["image/jpeg", "image/png", "image/webp", "image/heic"])
        #expect(ImageFormat.allCases.map { $0.fileExtension } == ["jpg", "png", "webp", "heic"])
    }

    @Test func aGifRenamedToJpgIsRefused() throws {
        let gif = try imageFixture("not-an-image.gif")
        let renamed = FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-\(UUID().uuidString).jpg")
        try gif.write(to: renamed)
        defer { try? FileManager.default.removeItem(at: renamed) }

        let upload = try Data(contentsOf: renamed)
        #expect(ImageSanitizer.detectFormat(upload) == nil)
        #expect(sanitizeError(upload) == .unsupportedType)
    }

    static let notImages: [(String, [UInt8])] = [
        ("empty", []),
        ("GIF", concat(Array("GIF89a".utf8), [1, 0, 1, 0, 0, 0, 0, 0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3B])),
        ("BMP", concat(Array("BM".utf8), [UInt8](repeating: 0, count: 60))),
        ("SVG", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>"#.utf8)),
        ("SVG with an XML declaration", Array(#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)),
        ("PDF", Array("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF".utf8)),
        ("HTML", Array("<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>".utf8)),
        ("ELF executable", concat([0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0], [UInt8](repeating: 0, count: 56))),
        ("Windows executable", concat(Array("MZ".utf8), [0x90, 0, 3, 0, 0, 0, 4, 0], [UInt8](repeating: 0, count: 52))),
        ("Mach-O executable", concat([0xCF, 0xFA, 0xED, 0xFE, 7, 0, 0, 1], [UInt8](repeating: 0, count: 24))),
        ("shell script", Array("#!/bin/sh\nrm -rf /\n".utf8)),
        ("ZIP", concat([0x50, 0x4B, 0x03, 0x04], [UInt8](repeating: 0, count: 26))),
        ("JPEG SOI followed by garbage", concat([0xFF, 0xD8, 0xFF], Array("garbage, not a marker segment".utf8))),
        ("JPEG SOI alone", [0xFF, 0xD8]),
        ("JPEG first segment longer than the file", [0xFF, 0xD8, 0xFF, 0xE0, 0x40, 0x00, 0x4A, 0x46]),
        ("PNG signature without IHDR", concat(pngSignature, pngChunk("tEXt", Array("a\0b".utf8)))),
        ("RIFF WAVE audio", concat(Array("RIFF".utf8), littleEndian32(36), Array("WAVEfmt ".utf8), [UInt8](repeating: 0, count: 28))),
        ("AVIF", isoBox("ftyp", concat(Array("avif".utf8), [0, 0, 0, 0], Array("avifmif1miaf".utf8)))),
        ("MP4 video", isoBox("ftyp", concat(Array("isom".utf8), [0, 0, 2, 0], Array("isomiso2mp41".utf8)))),
    ]

    @Test func filesThatAreNotPhotosAreRefusedWhateverTheyClaim() {
        for (name, bytes) in Self.notImages {
            #expect(ImageSanitizer.detectFormat(Data(bytes)) == nil, "\(name)")
            #expect(sanitizeError(Data(bytes)) == .unsupportedType, "\(name)")
        }
    }

    @Test func anSvgIsRefused() {
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
        #expect(sanitizeError(svg) == .unsupportedType)
    }

    // MARK: Size

    @Test func anImageOverTheSizeLimitIsRefusedWithTooLarge() throws {
        let input = try imageFixture("gps.jpg")
        #expect(sanitizeError(input, limit: input.count - 1) == .tooLarge(limit: input.count - 1))
        #expect(sanitizeError(input, limit: input.count) == nil)
        // Size is checked before anything is read.
        #expect(sanitizeError(try imageFixture("not-an-image.gif"), limit: 10) == .tooLarge(limit: 10))
        #expect(ImageSanitizer().maximumBytes == 10 * 1024 * 1024)
    }

    // MARK: Pixels

    /// A 1×1 lossless WebP whose VP8X canvas says `width` × `height`.
    func webp(canvas width: Int, _ height: Int) -> [UInt8] {
        let canvas = concat([0, 0, 0, 0], Array(littleEndian32(width - 1).prefix(3)), Array(littleEndian32(height - 1).prefix(3)))
        return webpFile([riffChunk("VP8X", canvas), riffChunk("VP8L", [0x2F, 0, 0, 0, 0, 0])])
    }

    /// A PNG whose header says `width` × `height`, with the image data of a 1×1 one.
    func png(_ width: Int, _ height: Int) -> [UInt8] {
        concat(
            pngSignature, pngChunk("IHDR", concat(bigEndianBytes(width, 4), bigEndianBytes(height, 4), [8, 0, 0, 0, 0])),
            tinyIDAT, tinyIEND)
    }

    /// The JPEG fixture with its frame header saying `width` × `height`.
    func jpeg(_ width: Int, _ height: Int) throws -> [UInt8] {
        var bytes = [UInt8](try imageFixture("plain.jpg"))
        let frame = try #require((0..<(bytes.count - 9)).first { bytes[$0] == 0xFF && [0xC0, 0xC1, 0xC2].contains(bytes[$0 + 1]) })
        bytes.replaceSubrange((frame + 5)..<(frame + 9), with: concat(bigEndianBytes(height, 2), bigEndianBytes(width, 2)))
        return bytes
    }

    @Test func picturesOverTwelveThousandPixelsASideOrFiftyMegapixelsAreRefusedFromTheirHeaders() throws {
        // given small files that declare huge pictures, in every format
        var heic = HEICRecipe(label: "a huge grid")
        (heic.width, heic.height) = (20_000, 10_000)
        let huge: [(String, [UInt8], Int, Int)] = [
            ("PNG", png(20_000, 20_000), 20_000, 20_000),
            ("JPEG", try jpeg(65_500, 65_500), 65_500, 65_500),
            ("WebP", webp(canvas: 16_384, 16_384), 16_384, 16_384),
            ("HEIC", makeHEIC(heic).bytes, 20_000, 10_000),
            ("PNG within the sides but over 50 megapixels", png(8_000, 7_000), 8_000, 7_000),
        ]
        for (label, bytes, width, height) in huge {
            #expect(bytes.count < 20_000, "\(label) is a small file")
            // then each is refused for its pixels before anything else
            #expect(sanitizeError(Data(bytes)) == .tooManyPixels(width: width, height: height), "\(label)")
        }
        // and pictures at the limits pass
        #expect(sanitizeError(Data(png(12_000, 4_000))) == nil)
        #expect(sanitizeError(Data(png(7_000, 7_000))) == nil)
        #expect(sanitizeError(Data(try jpeg(640, 480))) == nil)
        #expect(sanitizeError(Data(webp(canvas: 4_000, 3_000))) == nil)
        var large = HEICRecipe(label: "a large picture")
        (large.width, large.height) = (6_000, 4_000)
        #expect(sanitizeError(Data(makeHEIC(large).bytes)) == nil)
    }

    @Test func picturesOfNoSizeAreDamaged() throws {
        var heic = HEICRecipe(label: "no width")
        heic.width = 0
        for bytes in [png(0, 10), try jpeg(10, 0), makeHEIC(heic).bytes] {
            #expect(isMalformed(sanitizeError(Data(bytes))))
        }
    }

    @Test func aPngWhoseChecksumsDoNotAddUpIsRefused() throws {
        // given a well-formed PNG, and the same with one byte of its image data changed
        let good = png(1, 1)
        #expect(sanitizeError(Data(good)) == nil)
        var bad = good
        let data = try #require(indexOfBytes(Array("IDAT".utf8), in: bad)) + 6
        bad[data] ^= 0x01
        // then the changed one is damaged, and so is one whose checksum alone is wrong
        #expect(isMalformed(sanitizeError(Data(bad))))
        var badChecksum = good
        badChecksum[badChecksum.count - 1] ^= 0xFF // IEND's checksum
        #expect(isMalformed(sanitizeError(Data(badChecksum))))
    }

    // MARK: Robustness

    @Test func truncatedJpegAndPngAreMalformed() throws {
        for name in ["gps.jpg", "gps.png"] {
            let input = try imageFixture(name)
            #expect(isMalformed(sanitizeError(input.prefix(input.count / 2))), "\(name)")
            #expect(isMalformed(sanitizeError(input.dropLast())), "\(name)")
        }
    }

    @Test(arguments: ["gps.jpg", "plain.jpg", "gps.png", "gps.webp", "gps.heic"])
    func everyTruncationIsRefusedWithoutCrashing(name: String) throws {
        let input = [UInt8](try imageFixture(name))
        for length in 0..<input.count {
            let error = sanitizeError(Data(input[0..<length]))
            #expect(error == .unsupportedType || isMalformed(error), "\(name) cut to \(length) bytes")
        }
    }

    @Test(arguments: ["gps.jpg", "gps.png", "gps.webp", "gps.heic"])
    func corruptedBytesAreRefusedOrCleanedNeverACrash(name: String) throws {
        let original = [UInt8](try imageFixture(name))
        var random = SeededRandom(seed: 0x5EED_1234)
        for _ in 0..<400 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) {
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let length = Int.random(in: 1...64, using: &random)
                bytes.removeSubrange(start..<min(bytes.count, start + length))
            }
            // Refusing is fine; what comes out must be stable under a second pass.
            guard let once = try? sanitizer.sanitize(Data(bytes)) else { continue }
            let twice = try sanitizer.sanitize(once.data)
            #expect(twice.data == once.data)
        }
    }

    @Test(arguments: ["gps.jpg", "plain.jpg", "gps.png", "gps.webp", "gps.heic"])
    func sanitizingTwiceGivesTheSameBytesAsOnce(name: String) throws {
        let once = try sanitizer.sanitize(try imageFixture(name))
        let twice = try sanitizer.sanitize(once.data)
        #expect(twice.format == once.format)
        #expect(twice.data == once.data)
    }

    @Test func sanitizingAcceptsDataSlices() throws {
        // Data from a larger buffer (as a request body can be) does not start at index 0.
        let input = try imageFixture("gps.png")
        let padded = Data([0, 1, 2]) + input
        let slice = padded[3...]
        #expect(try sanitizer.sanitize(slice).data == sanitizer.sanitize(input).data)
    }
}
