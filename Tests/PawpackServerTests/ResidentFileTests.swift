import Foundation
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Linux tells what of a mapped file is in memory in `/proc/self/smaps`.
private let canReadProcessMappings = FileManager.default.isReadableFile(atPath: "/proc/self/smaps")

/// A served SQLite file is held in memory (`ResidentFile`): every page mapped into the server's
/// process and read in, so that no request waits for a disk read, and what the file grows by
/// is read in too. What is resident is read from Linux's `/proc/self/smaps`.
@Suite(.enabled(if: canReadProcessMappings, "reads /proc/self/smaps"))
struct ResidentFileTests {
    @Test func theWholeFileIsHeldAndWhatItGrowsByIsReadIn() throws {
        let path = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Not a whole number of pages, so the next part starts inside a page already held.
        try Self.write(bytes: 3 * 1_048_576 + 100, to: path)
        let file = ResidentFile(path: path, budget: 16 * 1_048_576)
        defer { file.release() }

        #expect(try file.refresh() == .held(addedBytes: 3 * 1_048_576 + 100, fileBytes: 3 * 1_048_576 + 100))
        #expect(file.heldBytes == 3 * 1_048_576 + 100)
        #expect(try Self.residentBytesMapped(path) >= 3 * 1_048_576, "the pages are mapped into this process, read in")

        try Self.append(bytes: 1_048_576, to: path)
        #expect(try file.refresh() == .held(addedBytes: 1_048_576, fileBytes: 4 * 1_048_576 + 100))
        #expect(try file.refresh() == .held(addedBytes: 0, fileBytes: 4 * 1_048_576 + 100), "nothing new, nothing read")
        #expect(try Self.residentBytesMapped(path) >= 4 * 1_048_576)

        // Shrunk, as after a VACUUM: held again from the start, nothing past the end.
        try Self.write(bytes: 1_048_576, to: path)
        #expect(try file.refresh() == .held(addedBytes: 1_048_576, fileBytes: 1_048_576))
        #expect(file.heldBytes == 1_048_576)

        file.release()
        #expect(file.heldBytes == 0)
        #expect(try Self.residentBytesMapped(path) == 0, "released, nothing of the file stays mapped")
    }

    @Test func aFileLargerThanTheBudgetIsNotHeld() throws {
        let path = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.write(bytes: 2 * 1_048_576, to: path)
        let file = ResidentFile(path: path, budget: 1_048_576)
        defer { file.release() }
        #expect(try file.refresh() == .overBudget(fileBytes: 2 * 1_048_576))
        #expect(file.heldBytes == 0)
        #expect(try Self.residentBytesMapped(path) == 0)

        #expect(throws: ResidentFileError.self) { try ResidentFile(path: path + ".missing", budget: 1_048_576).refresh() }
    }

    @Test func theServerHoldsItsSQLiteFileAndNothingOnPostgreSQLOrWithoutABudget() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-resident-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = (folder as NSString).appendingPathComponent("pawpack.sqlite")
        try await TestServer.run(adjust: { $0.database = .sqliteFile(path) }) { server in
            server.app.pawpack.keepDatabaseInMemory(on: server.app)
            let held = try #require(await server.app.pawpack.databaseHeldInMemory())
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(held == size && size > 0, "the migrated database, all of it")
        }
        #expect(try Self.residentBytesMapped(path) == 0, "let go of when the server stops")

        try await TestServer.run(adjust: {
            $0.database = .sqliteFile(path)
            $0.sqliteResidentBytes = 0
        }) { server in
            server.app.pawpack.keepDatabaseInMemory(on: server.app)
            #expect(await server.app.pawpack.databaseHeldInMemory() == nil, "PAWPACK_SQLITE_RESIDENT_MB=0 holds none")
        }
    }

    @Test(.enabled(if: TestServer.postgresURL != nil, "PostgreSQL"))
    func nothingIsHeldOnPostgreSQL() async throws {
        try await TestServer.run { server in
            server.app.pawpack.keepDatabaseInMemory(on: server.app)
            #expect(await server.app.pawpack.databaseHeldInMemory() == nil, "PostgreSQL keeps its own pages")
        }
    }

    @Test func theBudgetIsReadInMegabytes() throws {
        #expect(try Config.load(from: ["PAWPACK_SQLITE_RESIDENT_MB": "512"]).sqliteResidentBytes == 512 * 1_048_576)
        #expect(try Config.load(from: ["PAWPACK_SQLITE_RESIDENT_MB": "0"]).sqliteResidentBytes == 0)
        #expect(try Config.load(from: [:]).sqliteResidentBytes > 0, "held by default")
    }

    // MARK: Helpers

    private static func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-resident-\(UUID().uuidString).bin").path
    }

    private static func write(bytes: Int, to path: String) throws {
        try Data(repeating: 0x5A, count: bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func append(bytes: Int, to path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(repeating: 0xA5, count: bytes))
    }

    /// The bytes of `path` mapped into this process and present in memory, from Linux's
    /// `/proc/self/smaps` (the `Rss` of every mapping of the file).
    private static func residentBytesMapped(_ path: String) throws -> Int {
        // Read to the end: /proc reports a size of 0, and reading by the size reads too little.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = try #require(String(data: handle.readDataToEndOfFile(), encoding: .utf8))
        try? handle.close()
        var total = 0
        var inFile = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5, first.first?.isHexDigit == true {
                inFile = fields.count >= 6 && fields[5...].joined(separator: " ") == path
            } else if inFile, fields.first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                total += kilobytes * 1024
            }
        }
        return total
    }
}
