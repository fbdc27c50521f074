import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// What the machine did with its CPU time while a bench measured, so that a run's figures can
/// be read against it: on a virtual machine the hypervisor takes time from the guest's cores
/// ("steal"), and on this project's shared two-core machine that was 5 % at rest and up to 45 %
/// in some seconds. A request that waits while its core is taken away says more about the
/// neighbours than about Pawpack, so the bench also gives the latencies of the requests during
/// which no time was stolen. Read from Linux's `/proc/stat`; elsewhere there is nothing to say.
struct MachineTimes: Sendable {
    /// Ticks (USER_HZ, 10 ms) of all cores since boot: busy, stolen and all.
    struct Ticks: Sendable {
        var busy: Double
        var steal: Double
        var total: Double

        /// The counters now, from `file` (`/proc/stat`, kept open).
        static func now(from file: StatFile) -> Ticks? {
            guard let line = file.firstLine(), line.hasPrefix("cpu ") else { return nil }
            // user nice system idle iowait irq softirq steal (guest time is already in user).
            let fields = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
            guard fields.count == 8 else { return nil }
            return Ticks(
                busy: fields[0] + fields[1] + fields[2] + fields[5] + fields[6],
                steal: fields[7], total: fields.reduce(0, +))
        }
    }

    /// `/proc/stat`, opened once and read again from its start for each sample: opening it a
    /// hundred times a second cost more than the reads (1 % of the bench's CPU in all).
    final class StatFile: @unchecked Sendable {
        private let descriptor: Int32
        private var buffer = [UInt8](repeating: 0, count: 512)

        init?() {
            descriptor = open("/proc/stat", O_RDONLY)
            guard descriptor >= 0 else { return nil }
        }

        deinit { close(descriptor) }

        /// The first line: the counters of all cores together. Called from one thread at a time.
        func firstLine() -> String? {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0, let end = buffer[..<count].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
            return String(decoding: buffer[..<end], as: UTF8.self)
        }
    }

    let stealShare: Double
    let worstSecondStealShare: Double
    /// Cores' worth of CPU this process used (server and load generator) and others used.
    let processCores: Double
    let otherCores: Double
    /// The counters every 10 ms: (CLOCK_MONOTONIC ns, ticks stolen and all ticks so far).
    private let samples: [(at: UInt64, steal: Double, total: Double)]

    /// The latencies (ms, nil for a failure) of the requests during which no CPU time was
    /// stolen: from 100 ms before each was due (a queue it met may have formed then) to its answer.
    func undisturbed(_ latencies: [Double?], due: (Int) -> UInt64) -> [Double] {
        latencies.enumerated().compactMap { number, latency in
            guard let latency else { return nil }
            let dueAt = due(number)
            return stoleTime(from: dueAt - min(dueAt, 100_000_000), to: dueAt + UInt64(latency * 1e6) + 10_000_000) == false ? latency : nil
        }
    }

    /// Whether the counter moved between `start` and `end` (CLOCK_MONOTONIC ns), give or take
    /// the counter's 10 ms: nil when the samples do not cover that span.
    func stoleTime(from start: UInt64, to end: UInt64) -> Bool? {
        guard let first = samples.first, let last = samples.last, first.at <= start, last.at >= end else { return nil }
        let before = samples.lastIndex { $0.at <= start } ?? 0
        let after = samples[before...].firstIndex { $0.at >= end } ?? samples.count - 1
        return samples[after].steal > samples[before].steal
    }

    /// Samples `/proc/stat` every 10 ms on `loop` while `work` runs.
    static func during<T: Sendable>(
        sampleOn loop: any EventLoop,
        _ work: () async throws -> T
    ) async throws -> (T, MachineTimes?) {
        guard let file = StatFile(), let first = Ticks.now(from: file) else { return (try await work(), nil) }
        let processBefore = processSeconds()
        let wallBefore = ContinuousClock.now
        let recorded = NIOLockedValueBox([(at: NIODeadline.now().uptimeNanoseconds, steal: first.steal, total: first.total)])
        let sampler = loop.scheduleRepeatedTask(initialDelay: .milliseconds(10), delay: .milliseconds(10)) { _ in
            guard let tick = Ticks.now(from: file) else { return }
            let at = NIODeadline.now().uptimeNanoseconds
            recorded.withLockedValue { $0.append((at: at, steal: tick.steal, total: tick.total)) }
        }
        let value: T
        do { value = try await work() } catch {
            sampler.cancel()
            throw error
        }
        let stopped = loop.makePromise(of: Void.self)
        sampler.cancel(promise: stopped)
        try await stopped.futureResult.get()
        guard let end = Ticks.now(from: file), end.total > first.total else { return (value, nil) }
        let wall = (ContinuousClock.now - wallBefore).seconds
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let ticksPerCore = (end.total - first.total) / cores
        let ownCores = (processSeconds() - processBefore) / max(wall, 0.001)
        let busyCores = (end.busy - first.busy) / max(ticksPerCore, 1)
        let samples = recorded.withLockedValue { $0 }
        // The worst second: the largest share stolen from a sample to the first one a second
        // or more later (a busy loop takes its samples late, so they are not counted off).
        var worst = 0.0
        var later = 0
        for start in samples.indices {
            while later < samples.count, samples[later].at < samples[start].at + 1_000_000_000 { later += 1 }
            guard later < samples.count else { break }
            let ticks = samples[later].total - samples[start].total
            if ticks > 0 { worst = max(worst, (samples[later].steal - samples[start].steal) / ticks) }
        }
        return (
            value,
            MachineTimes(
                stealShare: (end.steal - first.steal) / (end.total - first.total),
                worstSecondStealShare: worst, processCores: ownCores,
                otherCores: max(0, busyCores - ownCores), samples: samples)
        )
    }

    /// User and system CPU seconds of this process so far, all threads.
    private static func processSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

extension MachineTimes: CustomStringConvertible {
    var description: String {
        String(
            format: "CPU time stolen by the hypervisor %.0f %% (worst second %.0f %%), this process %.2f cores, other processes %.2f cores",
            stealShare * 100, worstSecondStealShare * 100, processCores, otherCores)
    }
}
