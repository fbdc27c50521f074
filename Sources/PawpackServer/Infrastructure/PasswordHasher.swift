import Crypto
import Foundation
import NIOPosix
import PawpackCore
import Vapor

/// bcrypt off the event loops, on a pool sized to the cores, with a bounded queue: when more
/// than `queueLimit` hashes wait, new ones fail at once with 503 instead of piling up memory
/// and latency for everyone (a login flood cannot take the server down).
package final class PasswordHasher: Sendable {
    package let cost: Int
    private let pool: NIOThreadPool
    private let gate: BoundedGate

    package init(cost: Int, threads: Int, queueLimit: Int) {
        self.cost = cost
        self.pool = NIOThreadPool(numberOfThreads: threads)
        self.gate = BoundedGate(permits: threads, queueLimit: queueLimit)
        pool.start()
    }

    package func hash(_ password: String) async throws -> String {
        let (cost, input) = (self.cost, Self.bcryptInput(password))
        return try await run { try Bcrypt.hash(input, cost: cost) }
    }

    package func verify(_ password: String, against hash: String) async throws -> Bool {
        let input = Self.bcryptInput(password)
        return try await run { try Bcrypt.verify(input, created: hash) }
    }

    /// bcrypt reads only the first 72 bytes: a longer password is given to it as its SHA-256
    /// in Base64 (51 bytes with the prefix), so two long passphrases that share their first 72
    /// bytes do not open each other's accounts. Passwords up to 72 bytes, all those stored
    /// before, are given as they are.
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 else { return password }
        return "sha256:" + Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }

    package func shutdown() async throws {
        try await pool.shutdownGracefully()
    }

    private func run<T: Sendable>(_ work: @Sendable @escaping () throws -> T) async throws -> T {
        try await gate.acquire()
        do {
            let result = try await pool.runIfActive(work)
            await gate.release()
            return result
        } catch {
            await gate.release()
            throw error
        }
    }
}

/// A counting semaphore whose waiting line has a maximum length.
actor BoundedGate {
    private var available: Int
    private let queueLimit: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(permits: Int, queueLimit: Int) {
        self.available = permits
        self.queueLimit = queueLimit
    }

    /// Waits for a permit; throws `Problem.serverBusy` when the line is already full.
    func acquire() async throws {
        if available > 0 {
            available -= 1
            return
        }
        guard waiters.count < queueLimit else { throw Problem.serverBusy }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            // The permit passes straight to the next in line.
            waiters.removeFirst().resume()
        }
    }

    var waiting: Int { waiters.count }
}
