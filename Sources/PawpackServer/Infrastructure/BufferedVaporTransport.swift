import HTTPTypes
import NIOConcurrencyHelpers
import OpenAPIRuntime
import Vapor

/// Serves the OpenAPI operations through Vapor, as swift-openapi-vapor's `VaporTransport` does,
/// but answers a body of known length (every JSON answer) from one buffer.
///
/// `VaporTransport` streams every answer: each response starts a task of its own that iterates
/// the body and writes it chunk by chunk, waiting for each write on the event loop. For the
/// deck, a few hundred answers a second, that machinery cost more CPU than building the answer's
/// cards. A body of unknown length (a stream) is still streamed the same way.
///
/// An operation may have a `Shortcut`: hand-written code that answers the requests it
/// recognises, ahead of the generated code, which answers all the others.
struct BufferedVaporTransport: ServerTransport {
    let routes: any RoutesBuilder
    private let shortcuts: [Shortcut]
    /// The shortcuts' keys not yet matched by a registered operation.
    private let unmatched: NIOLockedValueBox<Set<String>>

    /// An operation's own answer, for the requests whose answer it writes faster than the
    /// generated code (see `DeckShortcut`); for every other request it answers nil.
    struct Shortcut: Sendable {
        var method: HTTPRequest.Method
        /// The operation's path as the contract writes it: `/v1/pets/{petId}/deck`.
        var path: String
        var answer: @Sendable (Request) async throws -> Response?

        var key: String { "\(method.rawValue) \(path)" }
    }

    init(routes: any RoutesBuilder, shortcuts: [Shortcut] = []) {
        self.routes = routes
        self.shortcuts = shortcuts
        unmatched = NIOLockedValueBox(Set(shortcuts.map(\.key)))
    }

    /// Once every operation is registered: throws if a shortcut matched none of them (a path
    /// mistyped, or an operation gone from the contract), which would otherwise never be used.
    func checkEveryShortcutMatched() throws {
        let keys = unmatched.withLockedValue { $0.sorted() }
        guard keys.isEmpty else { throw UnmatchedShortcuts(keys: keys) }
    }

    struct UnmatchedShortcuts: Error, CustomStringConvertible {
        var keys: [String]
        var description: String { "Shortcuts for no operation of the contract: \(keys.joined(separator: ", "))" }
    }

    func register(_ handler: @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?),
                  method: HTTPRequest.Method, path: String) throws {
        let shortcut = shortcuts.first { $0.method == method && $0.path == path }
        if let shortcut { _ = unmatched.withLockedValue { $0.remove(shortcut.key) } }
        let components = Self.pathComponents(path)
        let parameterNames = components.compactMap { component -> String? in
            if case let .parameter(name) = component { return name }
            return nil
        }
        // Request bodies stay streams, as with `VaporTransport`: uploads are read as they arrive.
        routes.on(HTTPMethod(rawValue: method.rawValue), components, body: .stream) { request in
            if let shortcut, let answer = try await shortcut.answer(request) { return answer }
            var parameters: [String: Substring] = [:]
            for name in parameterNames {
                // Never missing: the route was registered with these very parameters.
                guard let value = request.parameters.get(name) else {
                    throw Abort(.internalServerError, reason: "no path parameter \(name)")
                }
                parameters[name] = Substring(value)
            }
            let length = request.headers.first(name: .contentLength).flatMap(Int64.init)
            let body = HTTPBody(request.body.map(\.readableBytesView), length: length.map { .known($0) } ?? .unknown,
                                iterationBehavior: .single)
            let (response, responseBody) = try await handler(Self.httpRequest(request, method: method), body,
                                                            ServerRequestMetadata(pathParameters: parameters))
            var headers = HTTPHeaders()
            for field in response.headerFields where field.name != .contentLength {
                headers.add(name: field.name.rawName, value: field.value)
            }
            return Response(status: HTTPResponseStatus(statusCode: response.status.code), headers: headers,
                            body: try await Self.body(responseBody, allocator: request.byteBufferAllocator))
        }
    }

    /// `/v1/pets/{petId}` as Vapor's path components.
    private static func pathComponents(_ path: String) -> [PathComponent] {
        path.split(separator: "/").map { part in
            part.first == "{" && part.last == "}" ? .parameter(String(part.dropFirst().dropLast())) : .constant(String(part))
        }
    }

    /// The request as the OpenAPI runtime reads it; its method is the route's, which Vapor matched.
    private static func httpRequest(_ request: Request, method: HTTPRequest.Method) -> HTTPRequest {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        let query = request.url.query.map { "?" + $0 } ?? ""
        return HTTPRequest(method: method, scheme: request.url.scheme,
                           authority: request.url.host, path: request.url.path + query, headerFields: fields)
    }

    /// The answer's body: collected into one buffer when its length is known, a stream otherwise.
    private static func body(_ body: HTTPBody?, allocator: ByteBufferAllocator) async throws -> Response.Body {
        guard let body else { return .empty }
        guard case let .known(length) = body.length else { return streamed(body) }
        var buffer = allocator.buffer(capacity: Int(clamping: length))
        for try await chunk in body { buffer.writeBytes(chunk) }
        return .init(buffer: buffer, byteBufferAllocator: allocator)
    }

    private static func streamed(_ body: HTTPBody) -> Response.Body {
        // A stream is read once: Vapor may ask again (vapor/vapor#3002), and gets an error then.
        let iterated = NIOLockedValueBox(false)
        return .init(stream: { writer in
            let first = iterated.withLockedValue { done in
                defer { done = true }
                return !done
            }
            guard first else {
                writer.write(.error(Abort(.internalServerError, reason: "the body was already sent")), promise: nil)
                return
            }
            _ = writer.eventLoop.makeFutureWithTask {
                do {
                    for try await chunk in body { try await writer.write(.buffer(ByteBuffer(bytes: chunk))).get() }
                    try await writer.write(.end).get()
                } catch {
                    try await writer.write(.error(error)).get()
                }
            }
        })
    }
}
