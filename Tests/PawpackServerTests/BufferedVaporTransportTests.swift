import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import OpenAPIRuntime
@testable import PawpackServer
import Testing
import Vapor

/// The OpenAPI operations reach Vapor through `BufferedVaporTransport`: a request arrives whole
/// (method, path, query, path parameters, headers, body), an answer of known length leaves in
/// one piece with its length, and one of unknown length still streams, over a real connection.
@Suite struct BufferedVaporTransportTests {
    @Test func aRequestArrivesWholeAndAnswersOfKnownAndUnknownLengthArriveWhole() async throws {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let transport = BufferedVaporTransport(routes: app)
        try transport.register({ request, body, metadata in
            let received = try await String(collecting: body ?? HTTPBody(), upTo: 1 << 16)
            let echo = [request.method.rawValue, request.path ?? "", String(metadata.pathParameters["petId"] ?? "-"),
                        request.headerFields[.authorization] ?? "-", received].joined(separator: "|")
            return (HTTPResponse(status: .created, headerFields: [.contentType: "text/plain", .cacheControl: "no-store"]),
                    HTTPBody(echo))
        }, method: .post, path: "/v1/pets/{petId}/echo")
        try transport.register({ _, _, _ in
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                for word in ["one ", "two ", "three"] { continuation.yield(ArraySlice(word.utf8)) }
                continuation.finish()
            }
            return (HTTPResponse(status: .ok), HTTPBody(chunks, length: .unknown, iterationBehavior: .single))
        }, method: .get, path: "/v1/words")
        try await serving(app) { base in try await exchange(base: base) }
    }

    /// Runs `body` with the app listening on a free port of 127.0.0.1, then shuts it down.
    private func serving(_ app: Application, _ body: (String) async throws -> Void) async throws {
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        do {
            try await body("http://127.0.0.1:\(try #require(app.http.server.shared.localAddress?.port))")
        } catch {
            await app.server.shutdown()
            try await app.asyncShutdown()
            throw error
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    private func exchange(base: String) async throws {

        var post = HTTPClientRequest(url: base + "/v1/pets/d0g/echo?limit=5")
        post.method = .POST
        post.headers.add(name: "Authorization", value: "Bearer abc")
        post.body = .bytes(ByteBuffer(string: "a body"))
        let echoed = try await HTTPClient.shared.execute(post, timeout: .seconds(30))
        #expect(echoed.status == .created)
        #expect(echoed.headers.first(name: "Cache-Control") == "no-store", "the handler's headers are sent")
        let echo = String(buffer: try await echoed.body.collect(upTo: 1 << 16))
        #expect(echo == "POST|/v1/pets/d0g/echo?limit=5|d0g|Bearer abc|a body")
        #expect(echoed.headers.first(name: "Content-Length") == "\(echo.utf8.count)", "a known length is sent as such")

        let words = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/v1/words"), timeout: .seconds(30))
        #expect(words.status == .ok)
        #expect(String(buffer: try await words.body.collect(upTo: 1 << 16)) == "one two three")
        #expect(words.headers.first(name: "Content-Length") == nil, "an unknown length streams")
    }

    /// A shortcut answers the requests it takes before the generated handler sees them, leaves
    /// the rest to it, and one that matches no registered operation is reported, not ignored.
    @Test func aShortcutAnswersWhatItTakesAndLeavesTheRestToTheHandler() async throws {
        let app = try await Application.make(.testing)
        app.logger.logLevel = .warning
        let shortcut = BufferedVaporTransport.Shortcut(method: .get, path: "/v1/pets/{petId}/deck") { request in
            guard request.url.query == "fast" else { return nil }
            return Response(status: .ok, body: .init(string: "shortcut for \(request.parameters.get("petId") ?? "-")"))
        }
        let stray = BufferedVaporTransport.Shortcut(method: .post, path: "/v1/pets/{petId}/deck") { _ in nil }
        let transport = BufferedVaporTransport(routes: app, shortcuts: [shortcut, stray])
        try transport.register({ request, _, _ in
            (HTTPResponse(status: .ok), HTTPBody("handler for \(request.path ?? "")"))
        }, method: .get, path: "/v1/pets/{petId}/deck")
        let unmatched = #expect(throws: BufferedVaporTransport.UnmatchedShortcuts.self) {
            try transport.checkEveryShortcutMatched()
        }
        #expect(unmatched?.keys == ["POST /v1/pets/{petId}/deck"])
        try await serving(app) { root in
            let base = root + "/v1/pets/d0g/deck"
            let fast = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "?fast"), timeout: .seconds(30))
            #expect(String(buffer: try await fast.body.collect(upTo: 1 << 16)) == "shortcut for d0g")
            let other = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "?slow"), timeout: .seconds(30))
            #expect(String(buffer: try await other.body.collect(upTo: 1 << 16)) == "handler for /v1/pets/d0g/deck?slow")
        }
    }
}
