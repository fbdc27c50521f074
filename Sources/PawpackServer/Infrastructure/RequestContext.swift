import Vapor

/// The Vapor request behind the OpenAPI handler that is running. The generated `APIProtocol`
/// methods see only typed input; auth headers and the client address come from here.
enum RequestContext {
    @TaskLocal static var current: Request?
}

/// Binds `RequestContext.current` for the rest of the chain, logs one line per request and
/// echoes the request id, so a user's report can be matched to log lines. Vapor puts the same
/// id in the metadata of `request.logger`, so every line logged for the request carries it.
///
/// A future-based middleware, as are the problem and web session layers: none of them awaits
/// anything of an API request, and an async middleware starts a task of its own per request,
/// which takes one more turn on the event loop behind whatever is queued there. The value is
/// bound while the rest of the chain is called; the handler's task, started inside, keeps it
/// (`RequestContextTests`).
struct RequestContextMiddleware: Middleware {
    /// Served over HTTPS (behind its proxy): browsers are told to keep to HTTPS for a year.
    let sendsHSTS: Bool

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let start = ContinuousClock.now
        let answer = RequestContext.$current.withValue(request) { next.respond(to: request) }
        return answer.map { response in
            response.headers.replaceOrAdd(name: "X-Request-ID", value: request.id)
            // No answer is ever read as another type than it says (a JSON body as HTML, a photo
            // as a page): set here, once, for every answer.
            response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
            if sendsHSTS {
                response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: "max-age=31536000")
            }
            let elapsed = ContinuousClock.now - start
            let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
            // The path only: query strings can carry single-use tokens.
            request.logger.info(
                "\(request.method.rawValue) \(request.url.path)",
                metadata: [
                    "status": "\(response.status.code)", "ms": .string(String(format: "%.1f", milliseconds)),
                ])
            return response
        }
    }
}

extension Request {
    /// The client's address, for the per-address limits: the peer's, or behind a trusted
    /// proxy (`PAWPACK_TRUSTED_PROXIES`) the one it forwarded for.
    var clientAddress: String {
        let peer = remoteAddress?.ipAddress ?? "unknown"
        let proxies = application.pawpack.config.trustedProxies
        return proxies.isEmpty ? peer : proxies.client(peer: peer, headers: headers)
    }
}
