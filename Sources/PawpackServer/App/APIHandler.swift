import Foundation
import PawpackAPI
import PawpackCore
import Vapor

/// Implements the generated `APIProtocol`. Each feature adds its operations in an extension
/// in its own folder; this type only holds what they share.
struct APIHandler: APIProtocol {
    let services: PawpackServices

    var accounts: AccountService { services.accounts }
    var sessions: SessionService { services.sessions }

    /// The Vapor request behind the running operation.
    func currentRequest() throws -> Request {
        guard let request = RequestContext.current else {
            throw Problem(
                status: 500, code: .internalError, title: "No request context",
                detail: "The request context middleware is not installed.")
        }
        return request
    }

    /// The signed-in account, or 401 when the bearer token is missing, unknown or expired.
    func authenticated() async throws -> Authenticated {
        let request = try currentRequest()
        guard let token = request.headers.bearerAuthorization?.token else { throw Problem.unauthenticated }
        let (user, accessToken) = try await sessions.authenticate(accessToken: token, on: request.db)
        return Authenticated(request: request, user: user, token: accessToken)
    }

    /// A path's identifier; one that is not a UUID names nothing: 404, like a deleted pet.
    func pathID<Owner>(_ text: String) throws -> Identifier<Owner> {
        guard let id = Identifier<Owner>(string: text) else { throw Problem.notFound }
        return id
    }

    struct Authenticated {
        var request: Request
        var user: UserRecord
        var token: AuthTokenRecord
    }
}
