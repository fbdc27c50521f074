import Foundation

/// Why a `MediaStore` refused or failed an operation.
package enum MediaStoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The key is empty, absolute, has an empty, `.` or `..` segment, contains a backslash or a
    /// control character (NUL included), or is longer than 1,024 UTF-8 bytes.
    case invalidKey(String)
    /// The content type is empty, has leading or trailing spaces, or contains something other
    /// than printable ASCII, so it would not come back unchanged through an HTTP header.
    case invalidContentType(String)
    /// The S3 settings cannot work (endpoint, bucket, region or access key); says why.
    case invalidSettings(String)
    /// A file in the local store is not in the store's format (it was not written by it).
    case corruptObject(key: String)
    /// The local file system refused an operation; says which one and why.
    case fileSystem(String)
    /// S3 answered with a status outside 2xx. `code` and `message` come from the XML error
    /// body (`<Error><Code>…</Code><Message>…</Message></Error>`) when there is one.
    case s3(status: Int, code: String?, message: String)

    package var description: String {
        switch self {
        case .invalidKey(let key):
            return "invalid media key \(key.debugDescription): keys are relative, slash-separated paths of at most "
                + "1024 bytes without empty, \".\" or \"..\" segments, backslashes or control characters"
        case .invalidContentType(let contentType):
            return "invalid media content type \(contentType.debugDescription): it must be non-empty printable ASCII "
                + "without leading or trailing spaces"
        case .invalidSettings(let reason):
            return "invalid S3 settings: \(reason)"
        case .corruptObject(let key):
            return "the stored file for media key \(key.debugDescription) is not in the media store's format"
        case .fileSystem(let reason):
            return "media file system error: \(reason)"
        case .s3(let status, let code, let message):
            return "S3 answered HTTP \(status) \(code ?? "without an error code"): \(message)"
        }
    }

    package var errorDescription: String? { description }
}

/// The rules every store checks before touching storage, so that all stores accept and refuse
/// the same keys and content types.
enum MediaRules {
    /// S3's limit for a key, in UTF-8 bytes.
    static let maximumKeyBytes = 1024

    static func validate(key: String) throws {
        guard isValid(key: key) else { throw MediaStoreError.invalidKey(key) }
    }

    static func validate(contentType: String) throws {
        guard isValid(contentType: contentType) else { throw MediaStoreError.invalidContentType(contentType) }
    }

    static func isValid(key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= maximumKeyBytes else { return false }
        // NUL ends a C path early and a backslash is a separator on Windows: either would make
        // a key name another file than the one it seems to. Other control characters have no
        // business in a key and do not survive every S3 implementation's XML listings.
        let hasForbiddenCharacter = key.unicodeScalars.contains { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\\"
        }
        guard !hasForbiddenCharacter else { return false }
        // Every segment must name something: no leading slash (absolute path), no "a//b" or
        // trailing slash (empty segment), no "." or "..", so a key always names exactly one
        // object below the store's root and two spellings never name the same object.
        return key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && segment != "." && segment != ".."
        }
    }

    static func isValid(contentType: String) -> Bool {
        // HTTP trims header values and only promises to carry visible ASCII and spaces.
        guard let first = contentType.unicodeScalars.first, let last = contentType.unicodeScalars.last,
            first != " ", last != " "
        else { return false }
        return contentType.unicodeScalars.allSatisfy { scalar in
            scalar.value >= 0x20 && scalar.value <= 0x7E
        }
    }
}
