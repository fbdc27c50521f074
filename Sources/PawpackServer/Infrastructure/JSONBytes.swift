import NIOCore

/// Compact JSON written straight into bytes, byte for byte as the OpenAPI runtime's encoder
/// writes it with the contract's configuration (`Configuration.pawpack`: sorted keys, no
/// whitespace, `/` escaped). It knows nothing of key order: its caller writes each object's
/// keys in byte order, as `.sortedKeys` does.
///
/// For the one answer hot enough to need it (`DeckShortcut`): `JSONEncoder` builds a tree of
/// boxed values, a dictionary per object, before it writes a byte, and for a deck page that
/// cost more CPU than choosing the page's dogs. `DeckShortcutTests` holds the two writers equal.
///
/// The bytes collect in an array, handed to NIO whole at the end: writing a `ByteBuffer` piece
/// by piece checks its capacity, its uniqueness and exclusive access to its storage on every
/// byte, and cost ten times what the writing did.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []
    /// Whether the container open now already holds a value, so that the next one needs a comma.
    private var afterValue = false

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The JSON in a buffer of `allocator`'s.
    func buffer(_ allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return buffer
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    /// An array of these values, each written by `write`.
    mutating func array<Element>(_ values: [Element], _ write: (inout JSONBytes, Element) throws -> Void) rethrows {
        beginArray()
        for value in values { try write(&self, value) }
        endArray()
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        afterValue = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        afterValue = true
    }

    /// A key of the object open now. Keys are the contract's property names: plain ASCII letters,
    /// which JSON never escapes.
    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        append(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        afterValue = false
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { writeEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
        afterValue = true
    }

    mutating func strings(_ values: [String]) {
        array(values) { $0.string($1) }
    }

    mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        afterValue = true
    }

    /// As `JSONEncoder` writes a `Double`: its description, less a trailing ".0". JSON has no
    /// infinity or NaN; the encoder refuses them, and so does this.
    mutating func double(_ value: Double) throws {
        guard value.isFinite else { throw NonFiniteNumber(value: value) }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        separate()
        bytes.append(contentsOf: text.utf8)
        afterValue = true
    }

    struct NonFiniteNumber: Error {
        var value: Double
    }

    private mutating func separate() {
        if afterValue { bytes.append(UInt8(ascii: ",")) }
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
            self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            if escape.utf8CodeUnitCount > 0 {
                append(escape)
            } else {
                append("\\u00")
                self.bytes.append(Self.hexDigits[Int(byte >> 4)])
                self.bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            runStart = index + 1
        }
        self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
    }

    private mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
