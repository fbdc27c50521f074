import Foundation
import OpenAPIRuntime
import PawpackCore

/// Reading an upload's multipart form, for every operation that takes one (a pet's photo, a
/// chat's photo, a moment's).
extension APIHandler {
    /// Reads a multipart form part by part; `read` answers the problem a part raises, if any.
    /// Every part is read to its end, also one refused, and the first problem is thrown once the
    /// form is over: a request left half read would leave its connection hanging. The runtime
    /// checks the form as it streams (a missing required part surfaces here), so its errors are
    /// the client's, answered as a malformed upload that says which `parts` to send.
    static func readForm<Part: Sendable>(
        _ form: MultipartBody<Part>, parts: String,
        _ read: (Part) async throws -> Problem?
    ) async throws {
        var refusal: Problem?
        do {
            for try await part in form {
                if let problem = try await read(part) { refusal = refusal ?? problem }
            }
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem(
                status: 400, code: .invalidRequest, title: "Malformed upload",
                detail: "Send multipart/form-data with \(parts).",
                errors: [.init(field: "photo", message: "is required")])
        }
        if let refusal { throw refusal }
    }

    /// A part's bytes, or nil when it holds more than `limit`: read to its end either way.
    static func collect(_ body: HTTPBody, upTo limit: Int) async throws -> Data? {
        var data = Data()
        var over = false
        for try await chunk in body {
            guard !over, data.count + chunk.count <= limit else {
                over = true
                data = Data()
                continue
            }
            data.append(contentsOf: chunk)
        }
        return over ? nil : data
    }
}
