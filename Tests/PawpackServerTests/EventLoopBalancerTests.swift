import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import Vapor

@testable import PawpackServer

/// A read request is not left waiting behind another on its connection's event loop while
/// another loop has less to do (`EventLoopBalancer`); the answer still reaches the connection's
/// loop, and a request whose body is still on its way stays where its connection is, counted there.
@Suite struct EventLoopBalancerTests {
    @Test func aReadArrivingOnABusyLoopIsAnsweredByTheLeastBusyOne() async throws {
        try await withBalancer { arrive, loops, responder in
            let (a, b) = (loops[0], loops[1])

            // The first request stays on its own loop, which has nothing else in flight.
            let first = try await arrive(.GET, a)
            #expect(responder.ranOn.last === a)

            // The next one on the same loop goes to the idle loop, and is answered on its own.
            let second = try await arrive(.GET, a)
            #expect(responder.ranOn.last === b)
            #expect(second.eventLoop === a, "Vapor writes the answer on the connection's loop")

            // Both loops equally busy: the third stays home rather than paying for a hand-over.
            let third = try await arrive(.GET, b)
            #expect(responder.ranOn.last === b)

            // Answered requests no longer count: with nothing in flight, a request stays home
            // (were they still counted, the second loop would hold two to the first's one).
            responder.answerAll()
            for answer in [first, second, third] {
                #expect(try await answer.get().status == .ok)
            }
            let fourth = try await arrive(.GET, b)
            #expect(responder.ranOn.last === b)
            responder.answerAll()
            _ = try await fourth.get()
        }
    }

    @Test func aRequestWithABodyStaysOnItsConnectionsLoop() async throws {
        try await withBalancer { arrive, loops, responder in
            let busy = try await arrive(.GET, loops[0])
            let post = try await arrive(.POST, loops[0])
            #expect(responder.ranOn.last === loops[0], "its body is read from the connection, on the connection's loop")
            // It counts there: the first loop holds two, so a read on the second stays, and the
            // next read on the first goes to the second (which then holds as many).
            let stays = try await arrive(.GET, loops[1])
            #expect(responder.ranOn.last === loops[1])
            let read = try await arrive(.GET, loops[0])
            #expect(responder.ranOn.last === loops[1])
            responder.answerAll()
            for answer in [busy, post, stays, read] { _ = try await answer.get() }
        }
    }

    @Test func aFailedAnswerIsCountedOutToo() async throws {
        try await withBalancer { arrive, loops, responder in
            let busy = try await arrive(.GET, loops[0])
            let moved = try await arrive(.GET, loops[0])
            let stayed = try await arrive(.GET, loops[1])
            #expect(responder.ranOn.suffix(2).allSatisfy { $0 === loops[1] })
            responder.failAll()
            for failing in [busy, moved, stayed] {
                await #expect(throws: Abort.self) { try await failing.get() }
            }
            // Nothing in flight any more: a read on the second loop stays there (were the
            // failed ones still counted, it would hold two to the first's one).
            let next = try await arrive(.GET, loops[1])
            #expect(responder.ranOn.last === loops[1])
            responder.answerAll()
            _ = try await next.get()
        }
    }

    /// A request arriving on a connection of `loop`: handed to the balancer on that loop, as
    /// Vapor does when it reads one, and the responder's run there (or elsewhere) waited for.
    typealias Arrive = (HTTPMethod, any EventLoop) async throws -> EventLoopFuture<Response>

    /// A balancer over a group of two loops of its own, so no other test's connections count.
    private func withBalancer(_ body: (Arrive, [any EventLoop], HeldResponder) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let app = try await Application.make(.testing, .shared(group))
        let loops = Array(group.makeIterator())
        let balancer = EventLoopBalancer(loops: group)
        let responder = HeldResponder()
        let arrive: Arrive = { method, loop in
            let request = Request(application: app, method: method, url: "/v1/pets", on: loop)
            let answer = try await loop.submit { balancer.respond(to: request, chainingTo: responder) }.get()
            for loop in loops { try await loop.submit {}.get() } // every hand-over sent has run
            return answer
        }
        do {
            try await body(arrive, loops, responder)
        } catch {
            try await app.asyncShutdown()
            try await group.shutdownGracefully()
            throw error
        }
        try await app.asyncShutdown()
        try await group.shutdownGracefully()
    }
}

/// Records the loop each request ran on and holds its answer until told.
private final class HeldResponder: Responder, Sendable {
    private let state = NIOLockedValueBox<(ranOn: [any EventLoop], held: [EventLoopPromise<Response>])>(([], []))

    func respond(to request: Request) -> EventLoopFuture<Response> {
        // A responder run off the group's loops is a fault of the balancer: the request fails.
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop else {
            return request.eventLoop.makeFailedFuture(Abort(.internalServerError, reason: "ran off the event loops"))
        }
        let promise = loop.makePromise(of: Response.self)
        state.withLockedValue {
            $0.ranOn.append(loop)
            $0.held.append(promise)
        }
        return promise.futureResult
    }

    var ranOn: [any EventLoop] { state.withLockedValue { $0.ranOn } }

    func answerAll() {
        for promise in state.withLockedValue({ list in
            defer { list.held = [] }
            return list.held
        }) {
            promise.succeed(Response(status: .ok))
        }
    }

    func failAll() {
        for promise in state.withLockedValue({ list in
            defer { list.held = [] }
            return list.held
        }) {
            promise.fail(Abort(.internalServerError))
        }
    }
}
