import Foundation
import OpenAPIRuntime
import PawpackCore
import Vapor

/// Turns every error into RFC 9457 problem details (JSON clients) or a plain error page
/// (browsers), so no route ever answers with a bare 500 or leaks internals.
///
/// Future-based, not async: an async middleware starts a task of its own per request, which
/// waits its turn on the event loop (`RequestContextMiddleware` says more).
struct ProblemMiddleware: Middleware {
    let pageRenderer: @Sendable (Problem, Request) -> Response

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).recover { error in answer(to: request, failedWith: error) }
    }

    private func answer(to request: Request, failedWith error: any Error) -> Response {
        if let abort = error as? any AbortError, (300..<400).contains(abort.status.code) {
            // `Abort.redirect` (e.g. to the login page) is an answer, not a failure.
            return Response(status: abort.status, headers: abort.headers)
        }
        var problem = Self.problem(for: error)
        var allowed: [HTTPMethod] = []
        // No route took the request (Vapor's own 404): when the path exists for other
        // methods, the method is what is wrong.
        if error is any AbortError, problem.code == .notFound, request.route == nil {
            allowed = request.application.routes.methods(serving: request.url.path)
            if !allowed.isEmpty { problem = .methodNotAllowed }
        } else if (400..<500).contains(problem.status), request.route != nil {
            // A path the contract names literally (`/v1/families/join`, `/v1/feeds/friends`),
            // asked with a method it lacks, reached a route with a parameter in its place
            // (`/v1/families/{familyId}`, `/v1/feeds/{feedId}`), whose id it is not, and was
            // refused there (its body or id): the method is what is wrong here too.
            let literal = request.application.routes.methods(servingLiterally: request.url.path)
            if !literal.isEmpty, !literal.contains(request.method) {
                // Vapor answers HEAD wherever it answers GET.
                allowed = (literal.contains(.GET) && !literal.contains(.HEAD) ? literal + [.HEAD] : literal)
                    .sorted { $0.rawValue < $1.rawValue }
                problem = .methodNotAllowed
            }
        }
        if problem.status >= 500 {
            // By code and cause; the request id is in the logger's metadata. Never the request
            // itself, nor its input or output: they hold tokens and passwords.
            request.logger.error(
                "request failed",
                metadata: [
                    "code": .string(problem.code.rawValue), "error": .string(LogRedaction.describe(error)),
                ])
        }
        let response =
            Self.wantsHTML(request)
            ? pageRenderer(problem, request)
            : Self.response(for: problem, instance: request.url.path)
        if !allowed.isEmpty { response.headers.replaceOrAdd(name: .allow, value: allowed.map(\.rawValue).joined(separator: ", ")) }
        return response
    }

    static func wantsHTML(_ request: Request) -> Bool {
        !request.url.path.hasPrefix("/v1/") && request.url.path != "/healthz"
            && (request.headers.first(name: .accept)?.contains("text/html") ?? false)
    }

    static func response(for problem: Problem, instance: String?) -> Response {
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "application", subType: "problem+json")
        if let retry = problem.retryAfter { headers.replaceOrAdd(name: .retryAfter, value: String(retry)) }
        // A body refused for its size may still be arriving: the client should not send more on
        // this connection (the server reads what is left and drops it).
        if problem.status == 413 { headers.replaceOrAdd(name: .connection, value: "close") }
        let body = ProblemBody(problem, instance: instance)
        let data = (try? problemEncoder.encode(body)) ?? Data()
        return Response(status: .init(statusCode: problem.status), headers: headers, body: .init(data: data))
    }

    /// Maps anything thrown by a handler, the OpenAPI runtime or Vapor to a problem.
    static func problem(for error: any Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let serverError as ServerError:
            if let inner = serverError.underlyingError as? Problem { return inner }
            if serverError.operationInput == nil {
                // The request never became a typed input: its body or parameters are malformed.
                return decodingProblem(serverError.underlyingError, parameters: Self.parameterNames(of: serverError))
                    ?? Problem(
                        status: 400, code: .invalidRequest, title: "Malformed request",
                        detail: "The request could not be read: \(serverError.causeDescription).")
            }
            return problem(for: serverError.underlyingError)
        case let decoding as DecodingError:
            return decodingProblem(decoding) ?? internalError
        case let abort as any AbortError:
            switch abort.status {
            case .notFound: return .notFound
            case .unauthorized: return .unauthenticated
            case .payloadTooLarge:
                return Problem(status: 413, code: .payloadTooLarge, title: "Request too large", detail: abort.reason)
            default:
                let status = Int(abort.status.code)
                return Problem(
                    status: status, code: status >= 500 ? .internalError : .invalidRequest,
                    title: abort.status.reasonPhrase, detail: abort.reason)
            }
        default:
            return internalError
        }
    }

    /// Keys in order, as the contract's answers have them: the same problem, the same bytes.
    private static let problemEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    static let internalError = Problem(
        status: 500, code: .internalError, title: "Something went wrong",
        detail: "The server hit an unexpected error. It has been logged; please try again.")

    /// The query parameters of a request that carries no body: what a decoding failure with no
    /// field in it is about.
    static func parameterNames(of error: ServerError) -> [String]? {
        guard [.get, .delete, .head].contains(error.request.method),
            let path = error.request.path, let query = URLComponents(string: path)?.queryItems
        else { return nil }
        return query.map(\.name)
    }

    /// A decoding failure names the field it choked on: a body's member, or, for a request
    /// without a body, its query parameter (the one given, or the one the failing type is for).
    static func decodingProblem(_ error: any Error, parameters: [String]? = nil) -> Problem? {
        var underlying: any Error = error
        // The runtime wraps decoding errors one level deep in some paths.
        if let server = underlying as? ServerError { underlying = server.underlyingError }
        guard let decoding = underlying as? DecodingError else { return nil }
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        let (field, message): (String, String)
        switch decoding {
        case .keyNotFound(let key, let context):
            field = path(context.codingPath + [key])
            message = "is required"
        case .valueNotFound(_, let context):
            field = path(context.codingPath)
            message = "is required"
        case .typeMismatch(let type, let context):
            field = path(context.codingPath)
            message = "must be a \(friendlyName(type))"
        case .dataCorrupted(let context):
            // In plain words, and never the value sent, which may be long or someone's secret.
            field = path(context.codingPath)
            let reason = context.debugDescription.lowercased()
            message =
                reason.contains("cannot initialize")
                ? "is not one of the accepted values"
                : reason.contains("date")
                    ? "must be a date and time such as 2026-05-01T09:30:00Z"
                    : field.isEmpty && parameters == nil
                        ? "the body is not valid JSON"
                        : "is not valid"
        @unknown default:
            return nil
        }
        var (name, said) = (field.isEmpty ? "body" : field, message)
        if field.isEmpty, let parameters {
            // "Cannot initialize DirectionPayload from …": the generated type names the parameter.
            let typed = parameters.first { "\(decoding)".localizedCaseInsensitiveContains($0 + "Payload") }
            name = typed ?? (parameters.count == 1 ? parameters[0] : "query")
            if name == "query" { said = "a parameter (\(parameters.joined(separator: ", "))) " + message }
        }
        return Problem(
            status: 400, code: .invalidRequest, title: "Malformed request",
            detail: "\(name): \(said)", errors: [FieldError(field: name, message: said)])
    }

    private static func friendlyName(_ type: Any.Type) -> String {
        let name = String(describing: type)
        switch name {
        case "String": return "string"
        case "Int", "Int64", "Int32", "Double", "Float": return "number"
        case "Bool": return "boolean"
        default: return name.contains("Array") ? "list" : "value of the right type"
        }
    }
}

extension Problem {
    /// A path that exists, asked with a method it does not take.
    static let methodNotAllowed = Problem(
        status: 405, code: .methodNotAllowed, title: "Method not allowed",
        detail: "This address does not take this method; the Allow header lists those it takes.")
}

/// The wire form of a problem (RFC 9457) with Pawpack's `code`, `field` and `errors` members.
struct ProblemBody: Codable {
    var type: String
    var title: String
    var status: Int
    var code: String
    var detail: String
    var instance: String?
    var field: String?
    var errors: [FieldError]?
    var recentFeeds: [RecentFeedBody]?

    struct RecentFeedBody: Codable {
        struct Member: Codable {
            var username: String
            var displayName: String
        }
        var petId: String
        var fedBy: Member?
        /// ISO 8601, as the contract's dates are, whatever the encoder's own strategy.
        var fedAt: String
    }

    init(_ problem: Problem, instance: String?) {
        type = "urn:pawpack:problem:\(problem.code.rawValue)"
        title = problem.title
        status = problem.status
        code = problem.code.rawValue
        detail = problem.detail
        // The path asked for, cut short: a path can carry whatever a client typed.
        self.instance = instance.map { $0.count > 120 ? String($0.prefix(120)) + "…" : $0 }
        field = problem.field
        errors = problem.errors.isEmpty ? nil : problem.errors
        recentFeeds =
            problem.recentFeeds.isEmpty
            ? nil
            : problem.recentFeeds.map { feed in
                RecentFeedBody(
                    petId: feed.pet.description,
                    fedBy: feed.username.map { .init(username: $0, displayName: feed.displayName ?? $0) },
                    fedAt: feed.fedAt.formatted(.iso8601))
            }
    }
}
