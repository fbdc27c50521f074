import Foundation
import HTTPTypes
import OpenAPIRuntime
import PawpackCore

/// Bounds the body of every OpenAPI operation: the generated code collects a JSON body whole,
/// with no limit of its own, so without this one anonymous request could make the server hold
/// gigabytes. An operation's limit comes from `limit(operationID)` (uploads have their own).
///
/// A body that says it is too large (`Content-Length`) is refused before a byte of it is read:
/// Vapor then reads what is left of it and drops it, so the connection stays usable. One that
/// grows too large as it streams (no length given) is refused as soon as it passes the limit;
/// the rest is read and dropped here, up to `drainLimit`, for the same reason.
struct BodyLimitMiddleware: ServerMiddleware {
    let limit: @Sendable (_ operationID: String) -> Int
    /// How much past the limit a streamed body is read to keep the connection; beyond it the
    /// client is cut off mid-body.
    var drainLimit = 64 * 1_048_576

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        guard let body else { return try await next(request, nil, metadata) }
        let limit = self.limit(operationID)
        if case .known(let length) = body.length, length > limit { throw Problem.bodyTooLarge(limit: limit) }
        let bounded = BoundedBody(body: body, limit: limit, drainLimit: drainLimit)
        return try await next(request, HTTPBody(bounded, length: body.length, iterationBehavior: .single), metadata)
    }
}

/// A body that throws `Problem.bodyTooLarge` once more than `limit` bytes have come.
private struct BoundedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let body: HTTPBody
    let limit: Int
    let drainLimit: Int

    func makeAsyncIterator() -> Iterator { Iterator(chunks: body.makeAsyncIterator(), limit: limit, drainLimit: drainLimit) }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: HTTPBody.AsyncIterator
        let limit: Int
        let drainLimit: Int
        var received = 0

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let chunk = try await chunks.next() else { return nil }
            received += chunk.count
            guard received > limit else { return chunk }
            // Read the rest and drop it, so the answer is the next thing on the connection.
            var drained = 0
            while drained <= drainLimit, let rest = try await chunks.next() { drained += rest.count }
            throw Problem.bodyTooLarge(limit: limit)
        }
    }
}

extension Problem {
    /// A request body over `limit` bytes.
    static func bodyTooLarge(limit: Int) -> Problem {
        let size = limit >= 1_048_576 ? "\(limit / 1_048_576) MB" : "\(max(1, limit / 1_024)) KB"
        return Problem(
            status: 413, code: .payloadTooLarge, title: "Request too large",
            detail: "This request may send at most \(size).")
    }
}

/// Refuses a JSON body in which a member the contract declares is `null`: the contract has no
/// nullable member, and the generated decoder would read `null` as "left out", accepting what
/// the contract says is invalid. Members it does not declare are ignored, as the decoder
/// ignores them. Bodies are bounded before this (`BodyLimitMiddleware`) and the generated code
/// collects them whole anyway; only bodies are read, so reads (the deck) pay nothing.
struct NoNullMembersMiddleware: ServerMiddleware {
    /// Every name the contract uses as a key: its members are among them.
    let declaredNames: Set<String>

    init(contract: String) {
        var names: Set<String> = []
        // A member is declared at the start of its line (`name: { type: string }`).
        for line in contract.split(separator: "\n") {
            let key = line.drop { $0 == " " || $0 == "-" }.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            if !key.isEmpty { names.insert(String(key)) }
        }
        declaredNames = names
    }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        guard let body, request.headerFields[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            return try await next(request, body, metadata)
        }
        let bytes = try await [UInt8](collecting: body, upTo: .max)
        if let json = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]),
            let path = firstNullMember(in: json, at: "")
        {
            throw Problem.invalidField(path, "must be left out rather than null")
        }
        return try await next(request, HTTPBody(bytes), metadata)
    }

    /// The path of the first declared member whose value is `null`, looking into declared
    /// members and list items only.
    func firstNullMember(in value: Any, at path: String) -> String? {
        if let object = value as? [String: Any] {
            for key in object.keys.sorted() where declaredNames.contains(key) {
                let member = path.isEmpty ? key : path + "." + key
                if object[key] is NSNull { return member }
                if let found = firstNullMember(in: object[key]!, at: member) { return found }
            }
        } else if let array = value as? [Any] {
            for (index, element) in array.enumerated() {
                if let found = firstNullMember(in: element, at: "\(path).\(index)") { return found }
            }
        }
        return nil
    }
}
