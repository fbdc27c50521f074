import Foundation
import HTTPTypes
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

/// Turns every refusal the server answers (4xx and 5xx, problem details per the contract) into
/// `PawpackError.server` in one place, so each call reads only its success:
/// `try await client.getMeetup(…).ok.body.json`. A refusal without problem details (a proxy's
/// page) is an unexpected response.
struct ProblemMiddleware: ClientMiddleware {
    /// A problem is a few hundred bytes; more is not one.
    static let maximumProblemBytes = 64 * 1_024

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        let status = response.status.code
        guard let responseBody,
            let data = try? await Data(collecting: responseBody, upTo: Self.maximumProblemBytes),
            let problem = try? JSONDecoder().decode(Components.Schemas.Problem.self, from: data)
        else {
            throw PawpackError.unexpectedResponse("HTTP \(status) without problem details")
        }
        throw PawpackError.server(
            .init(
                status: status, code: problem.code, title: problem.title, detail: problem.detail,
                errors: (problem.errors ?? []).map { FieldError(field: $0.field, message: $0.message) }))
    }
}
