import Fluent
import PawpackAPI
import PawpackCore
import SQLKit

extension APIHandler {
    /// 200 only when the database answers a query and the server is not stopping, so a load
    /// balancer stops routing to an instance that lost its database or is going away.
    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        let request = try currentRequest()
        guard !services.isStopping else {
            throw Problem(
                status: 503, code: .unavailable, title: "Stopping",
                detail: "This server is stopping; send requests to another.", retryAfter: 5)
        }
        do {
            guard let sql = request.db as? any SQLDatabase else { throw Problem.serverBusy }
            try await sql.raw("SELECT 1").run()
        } catch {
            request.logger.error("health check: database unreachable", metadata: ["error": "\(error)"])
            throw Problem(
                status: 503, code: .unavailable, title: "Database unreachable",
                detail: "The server cannot reach its database.", retryAfter: 5)
        }
        return .ok(.init(body: .json(.init(status: .ok, database: .ok))))
    }
}
