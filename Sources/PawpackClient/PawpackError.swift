import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

/// Why a call failed. Every method of ``PawpackClient`` throws this and nothing else, except
/// `CancellationError` when the calling task is cancelled.
public enum PawpackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused the request and said why. Its `code` is stable (see
    /// ``PawpackCore/ProblemCode``); `errors` names the fields at fault.
    case server(ServerProblem)
    /// The server could not be reached, or the connection broke before its answer arrived. The
    /// request may or may not have taken effect. The text says what the network layer reported.
    case network(String)
    /// The call needs a session and there is none: never signed in, signed out, or the session
    /// ended on the server (the password was changed or the account signed out elsewhere). Ask
    /// the member to log in again.
    case notSignedIn
    /// The server answered something this SDK cannot read: an older or newer server, or
    /// something else listening at that address.
    case unexpectedResponse(String)

    /// A refusal as the server described it (RFC 9457 problem details).
    public struct ServerProblem: Sendable, Equatable {
        /// The HTTP status: 4xx for the request, 5xx for the server.
        public var status: Int
        /// The stable code, e.g. `email_not_verified`.
        public var code: String
        public var title: String
        /// A sentence to show the member.
        public var detail: String
        /// The fields at fault, when the input was not valid.
        public var errors: [FieldError]
        /// With `recently_fed`: who fed each pet a moment ago and when, to ask the member in
        /// the app's own words ("Sam fed Miso 12 minutes ago — log anyway?").
        public var recentFeeds: [RecentFeed]

        public init(status: Int, code: String, title: String, detail: String, errors: [FieldError] = [], recentFeeds: [RecentFeed] = []) {
            self.status = status
            self.code = code
            self.title = title
            self.detail = detail
            self.errors = errors
            self.recentFeeds = recentFeeds
        }
    }

    /// A feed another member logged a moment ago.
    public struct RecentFeed: Sendable, Equatable {
        public var pet: Pet.ID
        /// Who fed it (a username); nil when their account is gone.
        public var fedBy: String?
        public var fedByName: String?
        public var fedAt: Date

        public init(pet: Pet.ID, fedBy: String?, fedByName: String?, fedAt: Date) {
            self.pet = pet
            self.fedBy = fedBy
            self.fedByName = fedByName
            self.fedAt = fedAt
        }
    }

    /// With `recently_fed`, who fed which pet a moment ago; empty for anything else.
    public var recentFeeds: [RecentFeed] {
        if case .server(let problem) = self { return problem.recentFeeds }
        return []
    }

    /// The HTTP status of a server refusal; nil for the other cases.
    public var status: Int? {
        if case .server(let problem) = self { return problem.status }
        return nil
    }

    /// The server's stable code; nil for the other cases.
    public var code: String? {
        if case .server(let problem) = self { return problem.code }
        return nil
    }

    /// The server's code as a known ``PawpackCore/ProblemCode``, when it is one.
    public var problemCode: ProblemCode? { code.flatMap(ProblemCode.init(rawValue:)) }

    /// The fields at fault in a refused input; empty for the other cases.
    public var errors: [FieldError] {
        if case .server(let problem) = self { return problem.errors }
        return []
    }

    /// The first field at fault.
    public var field: String? { errors.first?.field }

    public var description: String {
        switch self {
        case .server(let problem): "\(problem.status) \(problem.code): \(problem.detail)"
        case .network(let reason): "network: \(reason)"
        case .notSignedIn: "not signed in"
        case .unexpectedResponse(let reason): "unexpected response: \(reason)"
        }
    }
}

extension PawpackError {
    /// What the OpenAPI runtime threw: no answer at all is the network's failure; an answer it
    /// could not read is an unexpected response.
    init(_ error: ClientError) {
        if let known = error.underlyingError as? PawpackError {
            self = known
        } else if error.response == nil {
            self = .network(String(describing: error.underlyingError))
        } else {
            self = .unexpectedResponse("\(error.causeDescription) \(error.underlyingError)")
        }
    }

    static func malformed(_ what: String) -> PawpackError { .unexpectedResponse(what) }
}
