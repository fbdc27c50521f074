import Vapor

/// The Vapor request behind the OpenAPI handler that is running. The generated `APIProtocol`
/// methods see only typed input; auth headers and the client address come from here.
enum RequestContext {
    @TaskLocal static var current: Request?
}

/// Binds `RequestContext.current` for the rest of the chain, and echoes the request id so a
/// user's report can be matched to log lines.
struct RequestContextMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await RequestContext.$current.withValue(request) {
            try await next.respond(to: request)
        }
        response.headers.replaceOrAdd(name: "X-Request-ID", value: request.id)
        return response
    }
}

extension Request {
    /// The client's address, for the per-address sign-in limit.
    var clientAddress: String {
        remoteAddress?.ipAddress ?? "unknown"
    }
}
