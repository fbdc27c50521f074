import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps a served SQLite file's pages in memory for as long as the server runs, as
/// PostgreSQL's `pg_prewarm` or `vmtouch -l` would: the file is mapped read-only with every
/// page read in (`MAP_POPULATE`), and the mapping is held.
///
/// Why: a page of the database that is not in memory costs a disk read in the middle of a
/// request. After a restart every page is cold; and some hosts (virtual machines whose memory
/// manager hands back to the host the file pages no process has mapped and none touched for a
/// minute) evict pages while the server runs. On this project's machine such reads took
/// 100–270 ms each, inside a deck request that otherwise takes 2–3 ms (docs/PERFORMANCE.md,
/// (11)). Pages mapped by a live process are not "unmapped", and none of them is read from disk
/// again unless the kernel runs short of memory, when it may still reclaim them as it would
/// any cached page: holding the mapping costs page tables (2 MB a GB), not memory of its own.
///
/// The file grows as the community does; `refresh()` maps what was added since, so a server
/// that runs for months keeps all of it. A file larger than the budget is not held at all.
final class ResidentFile: Sendable {
    let path: String
    /// The largest file held, in bytes.
    let budget: Int
    private let state = NIOLockedValueBox(Held())

    /// The mappings made so far, and the end of the file they cover.
    private struct Held: @unchecked Sendable { // the pointers are only passed to munmap
        var mappings: [(start: UnsafeMutableRawPointer, length: Int)] = []
        var end = 0
    }

    init(path: String, budget: Int) {
        self.path = path
        self.budget = budget
    }

    deinit { release() }

    /// Bytes of the file held in memory now.
    var heldBytes: Int {
        state.withLockedValue { $0.end }
    }

    /// What `refresh()` did.
    enum Outcome: Equatable {
        /// The file is held up to its end; `addedBytes` were read in by this call.
        case held(addedBytes: Int, fileBytes: Int)
        /// The file is larger than the budget; nothing of it is held.
        case overBudget(fileBytes: Int)
    }

    /// Maps the part of the file not held yet (all of it the first time, or after the file
    /// shrank) and reads its pages in. Blocks while the kernel reads them: run it off the
    /// event loops.
    @discardableResult
    func refresh() throws -> Outcome {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ResidentFileError(path: path, call: "open", code: errno) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw ResidentFileError(path: path, call: "fstat", code: errno) }
        let size = Int(status.st_size)
        guard size <= budget else {
            release()
            return .overBudget(fileBytes: size)
        }
        return try state.withLockedValue { held in
            if size < held.end {
                // Shrunk (a VACUUM): what is mapped past the end is no longer the file's.
                Self.unmap(&held)
            }
            guard size > held.end else { return .held(addedBytes: 0, fileBytes: size) }
            // An offset must be a whole number of pages: the new part starts on the page
            // holding the first byte not held yet, which is then mapped twice, harmlessly.
            let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = held.end / pageSize * pageSize
            let length = size - start
            let mapped = mmap(nil, length, PROT_READ, MAP_SHARED | readInAtOnce, descriptor, off_t(start))
            guard let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
                throw ResidentFileError(path: path, call: "mmap", code: errno)
            }
            if readInAtOnce == 0 {
                // Where MAP_POPULATE does not exist, the kernel is asked to read ahead instead.
                _ = madvise(mapped, length, MADV_WILLNEED)
            }
            let added = size - held.end
            held.mappings.append((start: mapped, length: length))
            held.end = size
            return .held(addedBytes: added, fileBytes: size)
        }
    }

    /// Lets go of every page held.
    func release() {
        state.withLockedValue { Self.unmap(&$0) }
    }

    private static func unmap(_ held: inout Held) {
        for mapping in held.mappings { munmap(mapping.start, mapping.length) }
        held = Held()
    }
}

#if os(Linux)
    private let readInAtOnce = MAP_POPULATE
#else
    private let readInAtOnce: Int32 = 0
#endif

/// Holds the served SQLite file in memory (`ResidentFile`) from the server's start: the first
/// pass runs on the thread pool, so the server listens meanwhile, and once a minute what the
/// file grew by is read in too.
final class DatabaseKeeper: Sendable {
    let file: ResidentFile
    /// The first pass: what it did, or nil if it failed (logged).
    let firstPass: Task<ResidentFile.Outcome?, Never>
    private let everyMinute: RepeatedTask

    init(file: ResidentFile, threadPool: NIOThreadPool, eventLoop: any EventLoop, logger: Logger) {
        self.file = file
        firstPass = Task {
            let started = ContinuousClock.now
            do {
                let outcome = try await threadPool.runIfActive { try file.refresh() }
                let elapsed = (ContinuousClock.now - started).components
                let seconds = String(format: "%.1f", Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
                switch outcome {
                case .held(_, let fileBytes):
                    logger.info(
                        "Database file held in memory",
                        metadata: [
                            "file": .string(file.path), "megabytes": .string(String(format: "%.1f", Double(fileBytes) / 1_048_576)),
                            "seconds": .string(seconds),
                        ])
                case .overBudget(let fileBytes):
                    logger.warning(
                        "Database file larger than PAWPACK_SQLITE_RESIDENT_MB: its pages are read from disk as requests need them",
                        metadata: [
                            "file": .string(file.path), "megabytes": "\(fileBytes / 1_048_576)", "budget-megabytes": "\(file.budget / 1_048_576)",
                        ])
                }
                return outcome
            } catch {
                logger.error("Could not hold the database file in memory", metadata: ["error": "\(error)"])
                return nil
            }
        }
        everyMinute = eventLoop.scheduleRepeatedAsyncTask(initialDelay: .minutes(1), delay: .minutes(1)) { _ in
            threadPool.runIfActive(eventLoop: eventLoop) { try file.refresh() }
                .map { _ in }
                .recover { error in logger.debug("Could not read in what the database file grew by", metadata: ["error": "\(error)"]) }
        }
    }

    /// Stops following the file and lets go of its pages.
    func stop() {
        everyMinute.cancel()
        file.release()
    }
}

struct ResidentFileError: Error, CustomStringConvertible {
    let path: String
    let call: String
    let code: Int32

    var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
}
