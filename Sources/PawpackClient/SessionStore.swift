import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Holds the session between calls; an actor because many calls may run at once.
actor SessionStore {
    private(set) var session: Session?

    init(_ session: Session?) { self.session = session }

    func set(_ session: Session?) { self.session = session }
}

/// Adds `Authorization: Bearer …` to every request while signed in.
struct BearerTokenMiddleware: ClientMiddleware {
    let store: SessionStore

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = await store.session?.accessToken {
            request.headerFields[.authorization] = "Bearer \(token)"
        }
        return try await next(request, body, baseURL)
    }
}
