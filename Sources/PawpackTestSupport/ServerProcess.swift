import AsyncHTTPClient
import Foundation
import NIOCore

/// The `pawpack` executable built beside the tests, serving in a process of its own: for what
/// only a whole process shows, such as the most memory it ever held (`VmHWM`), which the tests
/// running in parallel in this process would blur.
package final class ServerProcess: @unchecked Sendable {
    package let baseURL: String
    private let process: Process
    private let dataDirectory: String
    /// Where the process's output goes when the test reads its log, nil when dropped.
    private let logFile: URL?

    /// The SQLite database the process serves.
    package var databaseFile: String { dataDirectory + "/pawpack.sqlite" }

    /// Starts `pawpack serve` on a free port with an empty data folder and waits until it
    /// answers; with `keepingLog`, what it writes can be read with `log()`.
    package init(environment extra: [String: String] = [:], keepingLog: Bool = false) async throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pawpack")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("no \(executable.path): build the package (swift build) before the tests")
        }
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-process-\(UUID().uuidString)").path
        let port = try Self.freePort()
        baseURL = "http://127.0.0.1:\(port)"
        process = Process()
        process.executableURL = executable
        process.arguments = ["serve", "--hostname", "127.0.0.1", "--port", String(port)]
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasPrefix("PAWPACK_") || key == "DATABASE_URL" || key == "SMTP_URL" {
            environment[key] = nil
        }
        environment.merge([
            "PAWPACK_ENV": "development", "PAWPACK_DATA_DIR": dataDirectory, "LOG_LEVEL": "warning",
            "PAWPACK_BCRYPT_COST": "4", "PAWPACK_SQLITE_RESIDENT_MB": "0",
        ]) { _, new in new }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        if keepingLog {
            let file = URL(fileURLWithPath: dataDirectory + ".log")
            FileManager.default.createFile(atPath: file.path, contents: nil)
            let handle = try FileHandle(forWritingTo: file)
            process.standardOutput = handle
            process.standardError = handle
            logFile = file
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            logFile = nil
        }
        try process.run()
        for _ in 0..<300 {
            if let health = try? await get("/healthz"), health == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        stop()
        throw TestFailure("pawpack serve did not answer on \(baseURL)")
    }

    /// The most memory the process has held so far, in bytes (`VmHWM` in `/proc/<pid>/status`).
    package func peakMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else {
            throw TestFailure("no VmHWM in /proc/\(process.processIdentifier)/status")
        }
        return kilobytes * 1_024
    }

    /// Everything the process has written so far (its log lines).
    package func log() throws -> String {
        guard let logFile else { throw TestFailure("started without keepingLog") }
        return try String(contentsOf: logFile, encoding: .utf8)
    }

    package func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dataDirectory)
        if let logFile { try? FileManager.default.removeItem(at: logFile) }
    }

    deinit { stop() }

    private func get(_ path: String) async throws -> Int {
        let response = try await TestBrowser.client.execute(HTTPClientRequest(url: baseURL + path), timeout: .seconds(2))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }

    private static func freePort() throws -> Int {
        let socket = try RawConnection.listeningSocket()
        defer { close(socket.descriptor) }
        return socket.port
    }
}
