import Fluent
import PawpackAPI
import PawpackCore
import SQLKit

extension APIHandler {
    /// 200 only when the database answers a query, so a load balancer stops routing to an
    /// instance that lost its database.
    func getHealth(_ input: Operations.GetHealth.Input) async throws -> Operations.GetHealth.Output {
        let request = try currentRequest()
        do {
            guard let sql = request.db as? any SQLDatabase else { throw Problem.serverBusy }
            try await sql.raw("SELECT 1").run()
        } catch {
            request.logger.error("health check: database unreachable", metadata: ["error": "\(error)"])
            throw Problem(status: 503, code: .unavailable, title: "Database unreachable",
                          detail: "The server cannot reach its database.", retryAfter: 5)
        }
        return .ok(.init(body: .json(.init(status: .ok, database: .ok))))
    }
}
