import NIOConcurrencyHelpers
import Vapor

/// Sends each read request (GET, HEAD) to the event loop with the fewest requests in flight,
/// staying on the connection's own loop unless another has fewer.
///
/// A connection belongs to one event loop, and with NIO's loops as Swift's executor an async
/// handler runs on the loop its connection belongs to. Requests are not spread as evenly as
/// connections: a client (or a proxy) that keeps a pool of connections reuses the one it used
/// last, so for a while most requests can come in on the connections of one loop. They then
/// queue behind each other on one core while the other core is idle; in the deck bench that was
/// the slowest 1 % (bursts of 20–50 ms, one loop thread taking 79 of 98 samples). Sending a
/// request to the shortest queue costs one hand-over to another thread, and only when the
/// connection's own loop already has more in flight.
///
/// Requests with a body stay where they are: their body is read from the connection as the
/// handler asks for it, on the connection's loop. They count there all the same, so reads go
/// around a loop busy with writes (in the Care bench half the requests are feeds logged).
/// (Reading a small body whole first and moving it too was tried: in one bench run in three a
/// client saw its connection closed, and it was taken out.) The response is always handed back to the
/// connection's loop, where Vapor writes it.
final class EventLoopBalancer: Middleware, Sendable {
    private let loops: [any EventLoop]
    private let inFlight: NIOLockedValueBox<[Int]>

    init(loops: some EventLoopGroup) {
        self.loops = Array(loops.makeIterator())
        self.inFlight = NIOLockedValueBox(Array(repeating: 0, count: self.loops.count))
    }

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        let here = request.eventLoop
        guard let own = loops.firstIndex(where: { $0 === here }) else { return next.respond(to: request) }
        let chosen = takeSlot(preferring: own, mayMove: request.method == .GET || request.method == .HEAD)
        let answer =
            chosen == own
            ? next.respond(to: request)
            : loops[chosen].flatSubmit { next.respond(to: request) }.hop(to: here)
        return answer.always { [inFlight] _ in inFlight.withLockedValue { $0[chosen] -= 1 } }
    }

    /// The loop with the fewest requests in flight, the connection's own on a tie (or always,
    /// when the request may not move); counted as busier by one until the request is answered.
    private func takeSlot(preferring own: Int, mayMove: Bool) -> Int {
        inFlight.withLockedValue { counts in
            var chosen = own
            if mayMove {
                for index in counts.indices where counts[index] < counts[chosen] {
                    chosen = index
                }
            }
            counts[chosen] += 1
            return chosen
        }
    }
}
