import Foundation

/// The tools on this machine that some tests run beside the server (python3 with aiosmtpd or
/// moto, `timeout`): whether one is there, so a test can say what is missing.
package enum LocalTools {
    /// Whether `arguments` run (through `/usr/bin/env`) and exit with 0.
    package static func succeeds(_ arguments: [String]) -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = arguments
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do {
            try probe.run()
        } catch {
            return false
        }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }
}
