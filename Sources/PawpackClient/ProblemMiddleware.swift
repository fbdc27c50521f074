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

    /// A problem's dates (`recentFeeds`) as the contract writes them, in ISO 8601.
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

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
            let problem = try? Self.decoder.decode(Components.Schemas.Problem.self, from: data)
        else {
            throw PawpackError.unexpectedResponse("HTTP \(status) without problem details")
        }
        throw PawpackError.server(
            .init(
                status: status, code: problem.code, title: problem.title, detail: problem.detail,
                errors: (problem.errors ?? []).map { FieldError(field: $0.field, message: $0.message) },
                recentFeeds: (problem.recentFeeds ?? []).compactMap { feed in
                    Pet.ID(string: feed.petId).map {
                        PawpackError.RecentFeed(pet: $0, fedBy: feed.fedBy?.username, fedByName: feed.fedBy?.displayName, fedAt: feed.fedAt)
                    }
                }))
    }
}
