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

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        guard let body else { return try await next(request, nil, metadata) }
        let limit = self.limit(operationID)
        if case let .known(length) = body.length, length > limit { throw Problem.bodyTooLarge(limit: limit) }
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
        return Problem(status: 413, code: .payloadTooLarge, title: "Request too large",
                       detail: "This request may send at most \(size).")
    }
}
