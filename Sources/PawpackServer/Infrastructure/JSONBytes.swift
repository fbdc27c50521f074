import NIOCore

/// Compact JSON written straight into a buffer, byte for byte as the OpenAPI runtime's encoder
/// writes it with the contract's configuration (`Configuration.pawpack`: sorted keys, no
/// whitespace, `/` escaped). It knows nothing of key order: its caller writes each object's
/// keys in byte order, as `.sortedKeys` does.
///
/// For the one answer hot enough to need it (`DeckShortcut`): `JSONEncoder` builds a tree of
/// boxed values, a dictionary per object, before it writes a byte, and for a deck page that
/// cost more CPU than choosing the page's dogs. `JSONBytesTests` holds the two writers equal.
struct JSONBytes {
    private(set) var buffer: ByteBuffer
    /// Whether the container open now already holds a value, so that the next one needs a comma.
    private var afterValue = false

    init(buffer: ByteBuffer) {
        self.buffer = buffer
    }

    mutating func beginObject() {
        separate()
        buffer.writeInteger(UInt8(ascii: "{"))
        afterValue = false
    }

    mutating func endObject() {
        buffer.writeInteger(UInt8(ascii: "}"))
        afterValue = true
    }

    mutating func beginArray() {
        separate()
        buffer.writeInteger(UInt8(ascii: "["))
        afterValue = false
    }

    mutating func endArray() {
        buffer.writeInteger(UInt8(ascii: "]"))
        afterValue = true
    }

    /// A key of the object open now. Keys are the contract's property names: plain ASCII letters,
    /// which JSON never escapes.
    mutating func key(_ name: StaticString) {
        separate()
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeStaticString(name)
        buffer.writeInteger(UInt8(ascii: "\""))
        buffer.writeInteger(UInt8(ascii: ":"))
        afterValue = false
    }

    mutating func string(_ value: String) {
        separate()
        buffer.writeInteger(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { writeEscaped($0) }
        buffer.writeInteger(UInt8(ascii: "\""))
        afterValue = true
    }

    mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    mutating func int(_ value: Int) {
        separate()
        buffer.writeString(String(value))
        afterValue = true
    }

    /// As `JSONEncoder` writes a `Double`: its description, less a trailing ".0". JSON has no
    /// infinity or NaN; the encoder refuses them, and so does this.
    mutating func double(_ value: Double) throws {
        guard value.isFinite else { throw NonFiniteNumber(value: value) }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        separate()
        buffer.writeString(text)
        afterValue = true
    }

    struct NonFiniteNumber: Error {
        var value: Double
    }

    private mutating func separate() {
        if afterValue { buffer.writeInteger(UInt8(ascii: ",")) }
    }

    /// Writes the runs that need no escape whole, and escapes what `JSONEncoder` escapes:
    /// the quote, the backslash, the slash and the control characters, the common five by
    /// letter and the rest as `\u00XX` in lowercase hex.
    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in bytes.indices {
            let byte = bytes[index]
            let escape: StaticString
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "/"): escape = "\\/"
            case 0x08: escape = "\\b"
            case 0x09: escape = "\\t"
            case 0x0A: escape = "\\n"
            case 0x0C: escape = "\\f"
            case 0x0D: escape = "\\r"
            case 0..<0x20: escape = ""
            default: continue
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index])))
            if escape.utf8CodeUnitCount > 0 {
                buffer.writeStaticString(escape)
            } else {
                buffer.writeStaticString("\\u00")
                buffer.writeInteger(Self.hexDigits[Int(byte >> 4)])
                buffer.writeInteger(Self.hexDigits[Int(byte & 0x0F)])
            }
            runStart = index + 1
        }
        buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart...])))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
