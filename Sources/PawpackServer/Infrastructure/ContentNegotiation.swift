import HTTPTypes
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

/// Decides, before an operation runs, whether its client can take the JSON every operation
/// answers with (HTTP's proactive negotiation, RFC 9110 §12.5.1).
///
/// The generated code checks `Accept` only when it writes the answer, after the handler has
/// done its work: a client that said `Accept: text/html` got a 500 for a write that had
/// happened, and retried it. Here a client that accepts JSON (or says nothing) gets JSON and
/// one that accepts neither JSON nor problem details gets 406 before anything happens.
///
/// A client that accepts only `application/problem+json` is served: generated clients send
/// exactly that for an operation whose success has no body (log-out's 204). Should such an
/// operation answer with a body after all, it is JSON, as RFC 9110 lets a server disregard
/// `Accept` rather than refuse. Problems are always `application/problem+json`.
struct ContentNegotiationMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        guard let accept = request.headerFields[values: .accept].joined(separator: ",").nilIfBlank else {
            return try await next(request, body, metadata)
        }
        let ranges = AcceptHeader(accept)
        let answer = Self.otherAnswers[operationID] ?? ("application", "json")
        guard
            ranges.accepts(type: answer.type, subtype: answer.subtype) || ranges.accepts(type: "application", subtype: "json")
                || ranges.accepts(type: "application", subtype: "problem+json")
        else { throw Problem.notAcceptable }
        // What the generated code checks against: the answer's type, and problems in their own.
        var request = request
        request.headerFields[.accept] = "\(answer.type)/\(answer.subtype), application/problem+json"
        return try await next(request, body, metadata)
    }

    /// The operations that answer with something other than JSON (a client that takes only
    /// JSON gets it all the same, as for a body after a 204 above).
    static let otherAnswers: [String: (type: String, subtype: String)] = [
        Operations.DownloadFeeds.id: ("text", "csv")
    ]
}

/// An `Accept` header's media ranges with their weights.
struct AcceptHeader {
    struct Range {
        var type: String
        var subtype: String
        var quality: Double
    }

    let ranges: [Range]

    init(_ header: String) {
        ranges = header.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let names = parts.first?.split(separator: "/", omittingEmptySubsequences: false) ?? []
            guard names.count == 2, !names[0].isEmpty, !names[1].isEmpty else { return nil }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)).map { min(max($0, 0), 1) } ?? 1
            }
            return Range(type: String(names[0]), subtype: String(names[1]), quality: quality)
        }
    }

    /// Whether `type/subtype` is acceptable: the most specific range that matches it decides,
    /// so `application/json;q=0, */*` rules JSON out. A header with no range this server can
    /// read says nothing, and everything is acceptable.
    func accepts(type: String, subtype: String) -> Bool {
        guard !ranges.isEmpty else { return true }
        let matching = ranges.filter { range in
            (range.type == "*" && range.subtype == "*") || (range.type == type && (range.subtype == "*" || range.subtype == subtype))
        }
        func specificity(_ range: Range) -> Int { (range.type == "*" ? 0 : 1) + (range.subtype == "*" ? 0 : 1) }
        guard let decisive = matching.max(by: { specificity($0) < specificity($1) }) else { return false }
        return decisive.quality > 0
    }
}

extension Problem {
    static let notAcceptable = Problem(
        status: 406, code: .notAcceptable, title: "Not acceptable",
        detail: "This operation answers with application/json, and problems with application/problem+json; the Accept header rules both out.")
}

extension String {
    fileprivate var nilIfBlank: String? { allSatisfy(\.isWhitespace) ? nil : self }
}
