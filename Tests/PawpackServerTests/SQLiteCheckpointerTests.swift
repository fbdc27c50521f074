import Foundation
import Logging
import Testing

@testable import PawpackServer

/// The own writer's WAL is checkpointed beside it (`SQLiteCheckpointer`), not in its commits:
/// under steady writing the WAL must still start over, so that it stays bounded, and nothing
/// written may be lost.
@Suite struct SQLiteCheckpointerTests {
    @Test func steadyWritingKeepsTheWALBoundedAndLosesNothing() async throws {
        let (folder, path, writer) = try Self.newDatabase()
        defer { try? FileManager.default.removeItem(at: folder) }
        defer { writer.close() }
        let turn = AsyncTurn()
        // At the event loops' priority: the bound below is the mechanism's, and the tests
        // around this one keep both cores busy, which would hold back a niced thread for as
        // long as they run (the price `SQLiteCheckpointer.nice` names).
        let checkpointer = try SQLiteCheckpointer(
            path: path, writersTurn: turn, pages: 50, restartAt: 200, nice: 0,
            logger: Logger(label: "test"))
        writer.afterEachCommit(checkpointer)

        // 2,000 commits of a row of 2 KB each: without checkpoints the WAL would hold at least
        // 2,000 frames of 4 KiB (8 MB), one or more a commit.
        let text = String(repeating: "w", count: 2_048)
        for number in 1...2_000 {
            await turn.take()
            #expect(try writer.rows("BEGIN IMMEDIATE", []) != nil)
            #expect(try writer.rows(#"INSERT INTO "notes" ("id", "text") VALUES (?, ?)"#, [.integer(number), .text(text)]) != nil)
            #expect(try writer.rows("COMMIT", []) != nil)
            turn.pass()
            // About ten thousand commits a second, ten times the chat bench's rate.
            if number % 10 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        await checkpointer.close()

        let counts = checkpointer.counts
        #expect(counts.asked > 0, "checkpoints were asked for")
        // The WAL was emptied under steady writing: by the checkpointer, or, when it is starved
        // of CPU (a busy machine, as CI's was once), by the commits checkpointing in place past
        // 800 frames, which bounds the WAL too.
        #expect(counts.restarts + counts.inPlace > 0, "the WAL was emptied under steady writing")
        let walBytes = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? Int.max
        #expect(walBytes < 2 * checkpointer.inPlaceAt * 4_120, "the WAL stays within a few restarts' frames: \(walBytes) bytes")

        let reader = try SQLiteOwnConnection(path: path)
        defer { reader.close() }
        let rows = try #require(try reader.rows(#"SELECT COUNT(*) AS "n", SUM(LENGTH("text")) AS "bytes" FROM "notes""#, []))
        #expect(try rows.first?.decode(column: "n", as: Int.self) == 2_000)
        #expect(try rows.first?.decode(column: "bytes", as: Int.self) == 2_000 * 2_048)
    }

    #if os(Linux)
        /// A checkpoint's burst of page copies and syncs runs in the time the requests leave:
        /// its thread at the lowest priority, the others (the event loops among them) untouched.
        @Test func checkpointsRunAtTheLowestPriority() async throws {
            let (folder, path, writer) = try Self.newDatabase()
            defer { try? FileManager.default.removeItem(at: folder) }
            defer { writer.close() }
            let checkpointer = try SQLiteCheckpointer(path: path, writersTurn: AsyncTurn(), logger: Logger(label: "test"))
            // Set by the thread's first job.
            for _ in 0..<200 where checkpointer.threadNice == nil { try await Task.sleep(for: .milliseconds(10)) }
            #expect(checkpointer.threadNice == 19)
            #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0, "this thread keeps its priority")
            await checkpointer.close()
        }
    #endif

    /// An SQLite file in WAL mode with a table of notes, in a folder of its own, and a
    /// connection that writes to it.
    static func newDatabase() throws -> (folder: URL, path: String, writer: SQLiteOwnConnection) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("checkpointer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("pawpack.sqlite").path
        // An empty file is an empty database; the own connections open files, not make them.
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let writer = try SQLiteOwnConnection(path: path, writes: true)
        for statement in ["PRAGMA journal_mode = WAL", #"CREATE TABLE "notes" ("id" INTEGER PRIMARY KEY, "text" TEXT NOT NULL)"#] {
            #expect(try writer.rows(statement, []) != nil)
        }
        return (folder, path, writer)
    }
}
