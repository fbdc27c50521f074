import AsyncHTTPClient
import Foundation
import NIOCore

/// Where and as whom to reach S3-compatible object storage (AWS S3, MinIO, moto, …).
package struct S3Settings: Sendable, Equatable {
    /// Scheme, host and optional port (and path prefix), e.g. `http://127.0.0.1:9000` or
    /// `https://s3.eu-west-1.amazonaws.com`.
    package var endpoint: String
    /// The signing region, e.g. `us-east-1`.
    package var region: String
    package var bucket: String
    package var accessKeyID: String
    package var secretAccessKey: String
    /// true: `endpoint/bucket/key` (MinIO, moto, most self-hosted servers);
    /// false: `bucket.endpoint-host/key` (virtual-hosted style, AWS's default).
    package var pathStyle: Bool

    package init(
        endpoint: String,
        region: String,
        bucket: String,
        accessKeyID: String,
        secretAccessKey: String,
        pathStyle: Bool = true
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.pathStyle = pathStyle
    }
}

extension S3Settings: CustomStringConvertible {
    /// Safe to log: the secret access key is never included.
    package var description: String {
        "S3 bucket \(bucket) at \(endpoint) (region \(region), \(pathStyle ? "path-style" : "virtual-hosted-style"), "
            + "access key \(accessKeyID), secret <redacted>)"
    }
}

/// Media in one bucket of S3-compatible object storage, one object per key, spoken to over
/// plain HTTP(S) with requests signed by `SigV4Signer`.
///
/// Each `put` is a single PutObject, which S3 applies atomically: readers see the old object or
/// the new one, never a mix. Objects are read whole into memory, as the `MediaStore` contract
/// asks; Pawpack's media is bounded by the upload limit.
package struct S3MediaStore: MediaStore {
    /// The largest object `get` reads into memory.
    static let maximumObjectBytes = 512 * 1_048_576
    /// Time for one request, from connecting to the last byte of the answer.
    static let requestTimeout: TimeAmount = .minutes(2)

    private let settings: S3Settings
    private let httpClient: HTTPClient
    private let clock: @Sendable () -> Date
    private let signer: SigV4Signer
    /// Parsed once; settings that cannot work make every operation throw `invalidSettings`.
    private let endpoint: Result<S3Endpoint, MediaStoreError>

    /// - Parameters:
    ///   - clock: The signing time; requests signed more than 15 minutes off are refused by AWS.
    package init(
        settings: S3Settings,
        httpClient: HTTPClient = .shared,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.httpClient = httpClient
        self.clock = clock
        self.signer = SigV4Signer(
            accessKeyID: settings.accessKeyID,
            secretAccessKey: settings.secretAccessKey,
            region: settings.region
        )
        self.endpoint = S3Endpoint.make(settings)
    }

    package func put(_ data: Data, key: String, contentType: String) async throws {
        try MediaRules.validate(key: key)
        try MediaRules.validate(contentType: contentType)
        let path = try endpoint.get().objectPath(for: key)
        let answer = try await send(.put, path: path, body: data, contentType: contentType)
        guard answer.isSuccess else {
            throw S3ErrorAnswer(status: answer.status, body: answer.body).error
        }
    }

    package func get(key: String) async throws -> StoredMedia? {
        try MediaRules.validate(key: key)
        let path = try endpoint.get().objectPath(for: key)
        let answer = try await send(.get, path: path)
        if answer.isSuccess {
            return StoredMedia(data: answer.body, contentType: answer.contentType ?? "application/octet-stream")
        }
        let failure = S3ErrorAnswer(status: answer.status, body: answer.body)
        // A missing object is nil; a missing bucket is a setup problem the caller must hear about.
        if failure.status == 404, failure.code != "NoSuchBucket" {
            return nil
        }
        throw failure.error
    }

    package func delete(key: String) async throws {
        try MediaRules.validate(key: key)
        let path = try endpoint.get().objectPath(for: key)
        let answer = try await send(.delete, path: path)
        // S3 answers 204 whether or not the key existed; some compatible servers answer 404.
        if answer.isSuccess { return }
        let failure = S3ErrorAnswer(status: answer.status, body: answer.body)
        if failure.status == 404, failure.code != "NoSuchBucket" { return }
        throw failure.error
    }

    /// Creates the bucket unless it exists and belongs to these credentials already. For tests
    /// and a first start against empty storage; production buckets are usually made beforehand.
    package func createBucketIfNeeded() async throws {
        let path = try endpoint.get().bucketPath
        // Outside us-east-1 S3 wants the region restated in the body, or it refuses the request.
        var body = Data()
        if settings.region != "us-east-1" {
            body = Data(
                ("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                    + "<LocationConstraint>\(settings.region)</LocationConstraint></CreateBucketConfiguration>").utf8
            )
        }
        let answer = try await send(.put, path: path, body: body)
        if answer.isSuccess { return }
        let failure = S3ErrorAnswer(status: answer.status, body: answer.body)
        // us-east-1 answers 200 for a bucket we own already; every other region answers 409.
        if failure.code == "BucketAlreadyOwnedByYou" { return }
        throw failure.error
    }

    // MARK: - HTTP

    private enum Method: String {
        case get = "GET"
        case put = "PUT"
        case delete = "DELETE"
    }

    private struct Answer {
        var status: Int
        var contentType: String?
        var body: Data

        var isSuccess: Bool { (200..<300).contains(status) }
    }

    /// Signs and sends one request and reads the whole answer.
    private func send(_ method: Method, path: String, body: Data = Data(), contentType: String? = nil) async throws
        -> Answer
    {
        let endpoint = try self.endpoint.get()
        // Host is set explicitly so the value on the wire is the one that was signed.
        var headers: [(name: String, value: String)] = [(name: "host", value: endpoint.host)]
        if let contentType {
            headers.append((name: "content-type", value: contentType))
        }
        let signature = signer.sign(
            method: method.rawValue,
            path: path,
            headers: headers,
            payloadHash: SigV4Signer.sha256Hex(body),
            date: clock()
        )

        var request = HTTPClientRequest(url: endpoint.url(path: path))
        switch method {
        case .get: request.method = .GET
        case .put: request.method = .PUT
        case .delete: request.method = .DELETE
        }
        for header in headers + signature.headers {
            request.headers.add(name: header.name, value: header.value)
        }
        if method == .put {
            // Always a body for PUT, even an empty one, so Content-Length: 0 is sent.
            request.body = .bytes(ByteBuffer(bytes: body))
        }

        let response = try await httpClient.execute(request, timeout: Self.requestTimeout)
        let bytes = try await response.body.collect(upTo: Self.maximumObjectBytes)
        return Answer(
            status: Int(response.status.code),
            contentType: response.headers.first(name: "content-type"),
            body: Data(bytes.readableBytesView)
        )
    }
}

/// Scheme, `Host` header and paths for one bucket, worked out once from `S3Settings`.
struct S3Endpoint: Sendable, Equatable {
    var scheme: String
    /// The `Host` header: host name (with the bucket in front when virtual-hosted), plus the
    /// port when it is not the scheme's default.
    var host: String
    /// Percent-encoded path up to the bucket: the endpoint's own path prefix (usually empty),
    /// then `/bucket` when path-style.
    var bucketPrefix: String

    /// The path of the bucket itself, for creating it.
    var bucketPath: String { bucketPrefix.isEmpty ? "/" : bucketPrefix }

    /// The path of an object; each segment of the key is encoded, slashes are kept.
    func objectPath(for key: String) -> String {
        bucketPrefix + "/" + SigV4Signer.uriEncode(key, keepingSlashes: true)
    }

    func url(path: String) -> String {
        "\(scheme)://\(host)\(path)"
    }

    static func make(_ settings: S3Settings) -> Result<S3Endpoint, MediaStoreError> {
        guard let components = URLComponents(string: settings.endpoint),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var hostName = components.host, !hostName.isEmpty
        else {
            return .failure(
                .invalidSettings(
                    "endpoint \(settings.endpoint.debugDescription) must be an http:// or https:// URL with a host"
                ))
        }
        guard components.user == nil, components.password == nil, components.query == nil,
            components.fragment == nil
        else {
            return .failure(
                .invalidSettings(
                    "endpoint \(settings.endpoint.debugDescription) must not contain credentials, a query or a fragment"
                ))
        }
        guard isValidBucketName(settings.bucket) else {
            return .failure(
                .invalidSettings(
                    "bucket \(settings.bucket.debugDescription) must be 3 to 63 lower-case letters, digits, dots and hyphens"
                ))
        }
        // The region is part of the signature's scope and of the create-bucket body.
        guard !settings.region.isEmpty, settings.region.unicodeScalars.allSatisfy(isRegionCharacter) else {
            return .failure(
                .invalidSettings(
                    "region \(settings.region.debugDescription) must be letters, digits, hyphens and underscores"
                ))
        }
        // The access key ID is written into the Authorization header between "/" and ",".
        guard !settings.accessKeyID.isEmpty, settings.accessKeyID.unicodeScalars.allSatisfy(isAccessKeyCharacter),
            !settings.secretAccessKey.isEmpty
        else {
            return .failure(
                .invalidSettings(
                    "the access key ID and the secret access key must be set; the ID must be printable ASCII "
                        + "without spaces, slashes or commas"
                ))
        }

        // IPv6 literals need their brackets back in the Host header and URL.
        if hostName.hasPrefix("["), hostName.hasSuffix("]") {
            hostName = String(hostName.dropFirst().dropLast())
        }
        if hostName.contains(":") {
            hostName = "[\(hostName)]"
        }
        if !settings.pathStyle {
            hostName = "\(settings.bucket).\(hostName)"
        }
        let defaultPort = scheme == "https" ? 443 : 80
        var host = hostName
        if let port = components.port, port != defaultPort {
            host += ":\(port)"
        }

        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") {
            prefix.removeLast()
        }
        if settings.pathStyle {
            prefix += "/" + SigV4Signer.uriEncode(settings.bucket)
        }
        return .success(S3Endpoint(scheme: scheme, host: host, bucketPrefix: prefix))
    }

    private static func isValidBucketName(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count) && name.unicodeScalars.allSatisfy(isBucketCharacter)
    }

    private static func isBucketCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "0"..."9", ".", "-": return true
        default: return false
        }
    }

    private static func isRegionCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_": return true
        default: return false
        }
    }

    private static func isAccessKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "/", ",": return false
        case "!"..."~": return true
        default: return false
        }
    }
}

/// The parts of an S3 error answer that matter: status, `<Code>` and `<Message>`.
struct S3ErrorAnswer: Sendable, Equatable {
    var status: Int
    var code: String?
    var message: String

    init(status: Int, body: Data) {
        let text = String(decoding: body, as: UTF8.self)
        self.status = status
        self.code = S3XML.firstElementText("Code", in: text)
        if let message = S3XML.firstElementText("Message", in: text) {
            self.message = message
        } else {
            // Not an S3 error document: a proxy's page, or no body at all.
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            self.message = trimmed.isEmpty ? "no error message" : String(trimmed.prefix(200))
        }
    }

    var error: MediaStoreError {
        .s3(status: status, code: code, message: message)
    }
}

/// Just enough XML for AWS's small, flat answers (error documents, IAM results).
enum S3XML {
    /// The text of the first `<name>…</name>` element, with XML's predefined entities decoded.
    static func firstElementText(_ name: String, in text: String) -> String? {
        guard let start = text.range(of: "<\(name)>"),
            let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
            .replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
