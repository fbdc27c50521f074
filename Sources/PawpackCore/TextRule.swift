import Foundation

/// The one rule every text a member writes goes through, in every area: what is stored is the
/// text as checked here, equal to what the API echoes and reads back on SQLite and PostgreSQL.
///
/// - White space at either end is dropped; `\r\n` and lone `\r` become `\n`.
/// - Control characters (C0, DEL, C1) are refused, except line breaks and tabs where lines are
///   allowed: a NUL cut text short on SQLite and failed on PostgreSQL.
/// - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) are refused in names,
///   where they could make a name read as another.
/// - The length is bounded in characters (what a reader counts) and in Unicode scalars too: one
///   character can carry any number of combining marks.
public struct TextRule: Sendable, Equatable {
    public enum Lines: Sendable, Equatable {
        /// A name: one line, no bidirectional controls.
        case name
        /// One line of free text (a place, a breed, a city).
        case line
        /// Paragraphs: line breaks and tabs allowed (a message, notes, a review).
        case paragraphs
    }

    public var lines: Lines
    /// At least one character (after trimming) is required.
    public var required: Bool
    public var maximumCharacters: Int

    public init(_ lines: Lines, maximumCharacters: Int, required: Bool = false) {
        self.lines = lines
        self.maximumCharacters = maximumCharacters
        self.required = required
    }

    public static func name(max: Int) -> TextRule { TextRule(.name, maximumCharacters: max, required: true) }
    public static func line(max: Int, required: Bool = false) -> TextRule { TextRule(.line, maximumCharacters: max, required: required) }
    public static func paragraphs(max: Int, required: Bool = false) -> TextRule {
        TextRule(.paragraphs, maximumCharacters: max, required: required)
    }

    /// Scalars allowed: room for accents and emoji sequences (a family emoji is 7), not for a flood.
    public var maximumScalars: Int { maximumCharacters * 8 }

    /// The text to store, or why it is refused (a sentence that follows the field's name).
    public func check(_ raw: String) -> Result<String, Refusal> {
        // Bounded before any other work: a megabyte of combining marks is refused unread.
        guard raw.unicodeScalars.count <= maximumScalars + 2_048 else { return .failure(.tooLong(maximumCharacters)) }
        let unified = raw.contains("\r") ? raw.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n") : raw
        let text = unified.trimmingCharacters(in: .whitespacesAndNewlines)
        for scalar in text.unicodeScalars {
            if Self.isLineBreak(scalar) || scalar == "\t" {
                guard lines == .paragraphs else { return .failure(.lineBreak) }
            } else if Self.isControl(scalar) {
                return .failure(.controlCharacter)
            } else if lines == .name, Self.isBidiControl(scalar) {
                return .failure(.directionControl)
            }
        }
        if required, text.isEmpty { return .failure(.empty) }
        if text.count > maximumCharacters || text.unicodeScalars.count > maximumScalars {
            return .failure(.tooLong(maximumCharacters))
        }
        return .success(text)
    }

    /// The text to store, or a 422 naming `field`.
    public func validate(_ raw: String, field: String) throws(Problem) -> String {
        switch check(raw) {
        case .success(let text): return text
        case .failure(let refusal): throw Problem.invalidField(field, refusal.message)
        }
    }

    public enum Refusal: Error, Sendable, Equatable {
        case empty, lineBreak, controlCharacter, directionControl
        case tooLong(Int)

        public var message: String {
            switch self {
            case .empty: "must not be empty"
            case .lineBreak: "must be one line"
            case .controlCharacter: "may not contain control characters"
            case .directionControl: "may not contain text direction controls"
            case .tooLong(let maximum): "must be at most \(maximum) characters"
            }
        }
    }

    static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }
}
