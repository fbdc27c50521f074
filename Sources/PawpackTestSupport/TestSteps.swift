import Foundation
import PawpackAPI
import PawpackCore
import Vapor

// What tests of every area share. Each area's steps (an owner with a dog, a match, a message,
// a meet-up) and paths are in its file under `Areas/`, through the HTTP API and read as the
// contract's types.

/// A test's own failure, thrown where a step it depends on went wrong.
package struct TestFailure: Error, CustomStringConvertible {
    package var description: String

    package init(_ description: String) { self.description = description }
}

extension TestServer {
    /// A GET that must answer 200, read as `T`.
    package func get<T: Decodable>(_ path: String, token: String, as type: T.Type) async throws -> T {
        let reply = try await request(.GET, path, token: token)
        guard reply.status == 200 else { throw TestFailure("GET \(path): \(reply.status) \(reply.text)") }
        return try reply.decode(T.self)
    }
}

/// A test image shipped with the Core tests (`Tests/PawpackCoreTests/Fixtures`).
package func fixture(_ name: String) throws -> Data {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try Data(contentsOf: package.appendingPathComponent("Tests/PawpackCoreTests/Fixtures").appendingPathComponent(name))
}

extension Components.Schemas.DeckPage {
    /// The dogs' names, best first.
    package var names: [String] { items.map(\.pet.name) }
}
