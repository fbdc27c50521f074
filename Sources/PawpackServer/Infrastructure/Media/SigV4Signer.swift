import Crypto
import Foundation

/// AWS Signature Version 4 with the `Authorization` header, as the S3 API reference describes it
/// ("Authenticating Requests: Using the Authorization Header (AWS Signature Version 4)").
///
/// Pure: no clock, no I/O. The caller passes the date and the hex SHA-256 of the payload and
/// adds the returned headers to the request, so the algorithm can be checked against the
/// examples AWS publishes.
struct SigV4Signer: Sendable {
    var accessKeyID: String
    var secretAccessKey: String
    var region: String
    var service: String

    init(accessKeyID: String, secretAccessKey: String, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
        self.service = service
    }

    /// The hex SHA-256 of an empty payload (GET, DELETE).
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The result of signing one request.
    struct Signature: Sendable, Equatable {
        /// `x-amz-date`, e.g. `20130524T000000Z`.
        var amzDate: String
        /// `x-amz-content-sha256`: the payload hash that was signed.
        var contentSHA256: String
        /// The `Authorization` header.
        var authorization: String
        /// Intermediate results, kept for tests and for tracking down a `SignatureDoesNotMatch`.
        var canonicalRequest: String
        var stringToSign: String

        /// The headers to add to the request (besides the ones that were passed in and signed).
        var headers: [(name: String, value: String)] {
            [
                (name: "x-amz-date", value: amzDate),
                (name: "x-amz-content-sha256", value: contentSHA256),
                (name: "authorization", value: authorization),
            ]
        }
    }

    /// Signs one request.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`, …
    ///   - path: The request path exactly as it goes on the wire, already URI-encoded (see
    ///     `uriEncode(_:keepingSlashes:)`); S3 signs it as is, without normalising it.
    ///   - query: Query parameters, not encoded; they are encoded and sorted here.
    ///   - headers: Every header to sign, at least `host` (and `content-type` when there is a
    ///     body). `x-amz-date` and `x-amz-content-sha256` are added here; passing them (or
    ///     `authorization`) has no effect.
    ///   - payloadHash: Hex SHA-256 of the body, as sent in `x-amz-content-sha256`.
    ///   - date: The signing time; AWS refuses requests more than 15 minutes off.
    func sign(
        method: String,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)],
        payloadHash: String,
        date: Date
    ) -> Signature {
        let amzDate = Self.timestamp(date)
        let day = String(amzDate.prefix(8))

        // Canonical headers: lower-case names, values trimmed with inner runs of spaces collapsed,
        // repeated names joined with commas, sorted by name.
        var values: [String: [String]] = [:]
        for header in headers {
            let name = header.name.lowercased()
            guard name != "x-amz-date", name != "x-amz-content-sha256", name != "authorization" else { continue }
            values[name, default: []].append(Self.normalizedHeaderValue(header.value))
        }
        values["x-amz-date"] = [amzDate]
        values["x-amz-content-sha256"] = [payloadHash]
        let names = values.keys.sorted()
        let canonicalHeaders = names.map { name in
            "\(name):\((values[name] ?? []).joined(separator: ","))\n"
        }.joined()
        let signedHeaders = names.joined(separator: ";")

        // Canonical query: names and values encoded (slashes too), sorted by name, then value.
        let encodedQuery = query.map { item in
            (name: Self.uriEncode(item.name), value: Self.uriEncode(item.value))
        }
        let canonicalQuery =
            encodedQuery
            .sorted { lhs, rhs in lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name }
            .map { item in "\(item.name)=\(item.value)" }
            .joined(separator: "&")

        let canonicalRequest = [method, path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.sha256Hex(Data(canonicalRequest.utf8))]
            .joined(separator: "\n")
        let mac = HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: day))
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), "
            + "SignedHeaders=\(signedHeaders), Signature=\(Self.hex(mac))"

        return Signature(
            amzDate: amzDate,
            contentSHA256: payloadHash,
            authorization: authorization,
            canonicalRequest: canonicalRequest,
            stringToSign: stringToSign
        )
    }

    /// HMAC chain from the secret over date, region, service and the terminator: the key is
    /// scoped to one day, region and service.
    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            let mac = HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)
            key = SymmetricKey(data: Data(mac))
        }
        return key
    }

    // MARK: - Encoding helpers

    /// S3's `UriEncode`: every byte of the UTF-8 form except the unreserved characters
    /// `A-Z a-z 0-9 - _ . ~` becomes `%XX` with upper-case hex; `/` is kept only when
    /// `keepingSlashes` is set (object keys in paths), never in query names and values.
    static func uriEncode(_ string: String, keepingSlashes: Bool = false) -> String {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) || (keepingSlashes && byte == UInt8(ascii: "/")) {
                encoded.append(byte)
            } else {
                encoded.append(UInt8(ascii: "%"))
                encoded.append(upperHexDigits[Int(byte >> 4)])
                encoded.append(upperHexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Trims a header value and turns every inner run of spaces or tabs into one space.
    static func normalizedHeaderValue(_ value: String) -> String {
        value.split(whereSeparator: { character in character == " " || character == "\t" }).joined(separator: " ")
    }

    static func sha256Hex(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(lowerHexDigits[Int(byte >> 4)])
            text.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)
    private static let lowerHexDigits = Array("0123456789abcdef".utf8)

    // MARK: - Time

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC, computed with integer arithmetic so that no calendar,
    /// locale or formatter setting can change it.
    static func timestamp(_ date: Date) -> String {
        let totalSeconds = Int(date.timeIntervalSince1970.rounded(.down))
        var days = totalSeconds / 86_400
        var secondOfDay = totalSeconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let civil = civilDate(daysSince1970: days)
        let hour = secondOfDay / 3_600
        let minute = secondOfDay / 60 % 60
        let second = secondOfDay % 60
        return "\(padded(civil.year, 4))\(padded(civil.month, 2))\(padded(civil.day, 2))"
            + "T\(padded(hour, 2))\(padded(minute, 2))\(padded(second, 2))Z"
    }

    /// Proleptic Gregorian year, month and day of a day count since 1970-01-01
    /// (Howard Hinnant's `civil_from_days`, which counts in 400-year eras starting on March 1st).
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year: year, month: month, day: day)
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
