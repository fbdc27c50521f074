import Foundation
import PawpackTestSupport
import Testing
import Vapor

/// Every operation answers JSON to a client that accepts it or says nothing, and 406 to one
/// that rules out JSON and problem details, before doing anything: a client is never told
/// "500" for a write that happened.
@Suite struct ContentNegotiationTests {
    static let rulingJSONOut = [
        "text/html", "text/plain", "image/png, text/*",
        "application/json;q=0, application/problem+json;q=0, */*",
    ]
    /// What generated clients send (problem details alone for an operation whose success has no
    /// body), and other ways of saying JSON will do.
    static let acceptingJSON = [
        "*/*", "application/*", "application/json", "text/html, application/json;q=0.5",
        "application/json; charset=utf-8", "application/json, application/problem+json",
        "application/problem+json", "not a media type",
    ]

    @Test func everyOperationRefusesAClientThatRulesJSONAndProblemsOutBeforeDoingAnything() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let before = try await server.rowCounts()
            let operations = Self.operations(server)
            #expect(operations.count >= 45, "\(operations.count) operations")

            for (method, path) in operations {
                // The log's CSV download is also what `text/*` and `*/*` take.
                for accept in path.hasSuffix(".csv") ? ["text/html", "text/plain"] : Self.rulingJSONOut {
                    let reply = try await server.request(
                        method, path.replacingOccurrences(of: ":petId", with: ada.dogID),
                        raw: "{}", token: ada.token, headers: [("Accept", accept)])
                    #expect(reply.status == 406, "\(method) \(path) with Accept \(accept): \(reply.status) \(reply.text)")
                    #expect(reply.code == "not_acceptable")
                    #expect(reply.headers.contentType?.description.hasPrefix("application/problem+json") == true)
                }
            }
            // and nothing was changed by any of them
            #expect(try await server.rowCounts() == before)
        }
    }

    @Test func everyOperationAnswersWithoutAServerErrorWhateverJSONFriendlyAcceptItIsSent() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            for (method, path) in Self.operations(server) where !(method == .DELETE && path == APIPath.me) {
                for accept in Self.acceptingJSON + [""] {
                    let reply = try await server.request(
                        method, path.replacingOccurrences(of: ":petId", with: ada.dogID),
                        raw: "{}", token: ada.token,
                        headers: accept.isEmpty ? [] : [("Accept", accept)])
                    #expect(reply.status < 500 && reply.status != 406, "\(method) \(path) with Accept \(accept): \(reply.status) \(reply.text)")
                }
            }
        }
    }

    @Test func aClientThatAcceptsJSONGetsItsAnswerAndProblemsComeAsProblems() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            for (index, accept) in Self.acceptingJSON.enumerated() {
                let me = try await server.request(.GET, APIPath.me, token: ada.token, headers: [("Accept", accept)])
                #expect(me.status == 200 && me.json["username"] as? String == "ada", "\(accept): \(me.status) \(me.text)")
                #expect(me.headers.contentType == .json)
                #expect(me.headers.first(name: "X-Content-Type-Options") == "nosniff")
                let added = try await server.request(
                    .POST, APIPath.pets, raw: #"{"name": "Pup \#(index)", "species": "dog", "estimatedAgeMonths": 30}"#,
                    token: ada.token, headers: [("Accept", accept)])
                #expect(added.status == 201, "\(accept): \(added.status) \(added.text)")
                let missing = try await server.request(
                    .GET, APIPath.pet(UUID().uuidString), token: ada.token,
                    headers: [("Accept", accept)])
                #expect(missing.status == 404 && missing.code == "not_found")
                #expect(missing.headers.contentType?.description.hasPrefix("application/problem+json") == true)
            }
        }
    }

    /// Every operation of the contract as the server routes it, its parameters other than the
    /// dog's filled with ids that name nothing.
    static func operations(_ server: TestServer) -> [(HTTPMethod, String)] {
        server.app.routes.all.compactMap { route in
            let first = route.path.first.map { "\($0)" }
            guard first == "v1" || first == "healthz" else { return nil }
            let path = route.path.map { component -> String in
                switch component {
                case .parameter(let name): name == "petId" ? ":petId" : UUID().uuidString
                default: "\(component)"
                }
            }.joined(separator: "/")
            return (route.method, "/" + path)
        }
    }
}
