import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PawpackServer
import Vapor
import WebSocketKit

/// `pawpack bench chat`: realtime chat through real sockets. Members are paired in matched
/// chats (made directly in the database); each member holds one WebSocket to `/v1/realtime`,
/// as an open app does, and acknowledges what it receives. Pairs then exchange messages at a
/// fixed rate through the HTTP send operation, each message stored; the time from when a
/// message was due to be sent to when the other member's socket had it is the latency.
///
/// The server runs as `pawpack serve` in processes of its own (one on SQLite; two on one
/// PostgreSQL database, each member's socket on one and their partner's sends through the
/// other, so that every message crosses instances), so that its memory and CPU are its own
/// and the sockets' two ends do not share one process's file descriptors.
struct BenchChat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat", abstract: "Realtime chat: sockets, messages, latency.")

    @ArgumentParser.Option(help: "Members connected, one socket each, two per chat.") var sockets = 10_000
    @ArgumentParser.Option(help: "Messages per second, open loop.") var rate = 1_000
    @ArgumentParser.Option(help: "Seconds of messages.") var duration = 30
    @ArgumentParser.Option(help: "SQLite folder to keep the members in (default ./data/bench-chat-<sockets>).") var dataDir: String?
    @ArgumentParser.Option(help: "A PostgreSQL URL to run on instead of SQLite (two instances).") var databaseURL: String?
    @ArgumentParser.Option(help: "Server instances (default 1 on SQLite, 2 on PostgreSQL).") var instances: Int?
    @ArgumentParser.Option(help: "Sockets opened at once while connecting.") var connecting = 64
    @ArgumentParser.Option(help: "The servers' log level (debug logs every SQL statement).") var logLevel = "warning"
    @ArgumentParser.Option(help: "A file for the servers' log lines (default: none).") var serverLog: String?
    @ArgumentParser.Option(help: "A file for each message's due time and latency, in ms (default: none).") var latencyLog: String?

    func run() async throws {
        raiseFileLimit()
        let folder = dataDir ?? "./data/bench-chat-\(sockets)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let count = instances ?? (databaseURL == nil ? 1 : 2)
        guard databaseURL != nil || count == 1 else {
            throw ArgumentParser.ValidationError("several instances need PostgreSQL: a served SQLite file belongs to one process")
        }
        let environment: [String: String] = [
            "PAWPACK_ENV": "development", "PAWPACK_DATA_DIR": folder, "DATABASE_URL": databaseURL ?? "", "SMTP_URL": "",
            "LOG_LEVEL": logLevel, "PAWPACK_LOG_FORMAT": "text",
            // The limits are for people; the load sends as fast as it is asked to.
            "PAWPACK_MESSAGES_PER_MINUTE": "1000000",
        ]
        let members = try await prepareMembers(environment)
        print(
            "bench chat: \(members.count * 2) members in \(members.count) chats, \(databaseURL == nil ? "SQLite (\(folder))" : "PostgreSQL"), "
                + "\(count) instance\(count == 1 ? "" : "s"), \(ProcessInfo.processInfo.activeProcessorCount) cores")

        var servers: [ServerProcess] = []
        defer { for server in servers { server.stop() } }
        for _ in 0..<count {
            servers.append(try await ServerProcess.start(environment: environment, log: serverLog))
        }
        try await measure(members, servers: servers)
    }

    /// The pairs, made in this process before any server starts: a served SQLite file is one
    /// process's.
    private func prepareMembers(_ environment: [String: String]) async throws -> [(ChatBenchMember, ChatBenchMember)] {
        let config = try loadConfig(overrides: environment)
        let app = try await makeApplication(config)
        app.logger.logLevel = .warning
        do {
            try await configure(
                app, config: config,
                dependencies: Dependencies(
                    clock: SystemClock(), mailer: DevelopmentOutbox(logger: app.logger), media: LocalMediaStore(root: config.localMediaDirectory)))
            try await app.autoMigrate()
            let started = ContinuousClock.now
            let pairs = try await app.pawpack.chatBenchPairs(sockets / 2, on: app.db)
            print(String(format: "members and chats ready in %.1f s", (ContinuousClock.now - started).seconds))
            await app.pawpack.stopBackgroundWork()
            try await app.asyncShutdown()
            guard pairs.count == sockets / 2 else { throw ArgumentParser.ValidationError("only \(pairs.count) pairs could be made") }
            return pairs
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
    }

    // MARK: Measuring

    private func measure(_ pairs: [(ChatBenchMember, ChatBenchMember)], servers: [ServerProcess]) async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(60), read: .seconds(120)))
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 256)
        let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
        defer { _ = client.shutdown() }
        let total = rate * duration
        let received = Received(total: total)

        // Every member's socket: in a pair, the first on instance 0 and the second on the last,
        // and each sends through the other's instance (with one instance, the same).
        let memoryBefore = servers.map(\.residentBytes)
        let connectStart = ContinuousClock.now
        var opened: [WebSocket] = []
        opened.reserveCapacity(pairs.count * 2)
        let everyone = pairs.flatMap { [($0.0, 0), ($0.1, servers.count - 1)] }
        for batch in stride(from: 0, to: everyone.count, by: connecting) {
            let slice = everyone[batch..<min(batch + connecting, everyone.count)]
            opened += try await withThrowingTaskGroup(of: WebSocket.self) { tasks in
                for (member, instance) in slice {
                    tasks.addTask { try await Self.connect(member, port: servers[instance].port, received: received, on: group) }
                }
                return try await tasks.reduce(into: []) { $0.append($1) }
            }
        }
        let connectSeconds = (ContinuousClock.now - connectStart).seconds
        try await Task.sleep(for: .seconds(2))
        let memoryAfter = servers.map(\.residentBytes)
        let perSocket = zip(memoryBefore, memoryAfter).map { Double($1 - $0) }.reduce(0, +) / Double(opened.count)
        print(
            String(
                format: "%d sockets open in %.1f s (%.0f/s); server memory %@ MB, %.1f KB more per socket", opened.count,
                connectSeconds, Double(opened.count) / connectSeconds,
                memoryAfter.map { String($0 / 1_048_576) }.joined(separator: " + "), perSocket / 1024))

        // The open loop: message k goes in chat k mod pairs, from either side in turn, through
        // the sender's instance (the recipient's socket is on the other one).
        print("messages: \(rate)/s for \(duration) s: running")
        let cpuBefore = servers.map(\.cpuSeconds)
        let interval = Int64((1e9 / Double(rate)).rounded())
        // Every request is made before the clock starts: making 30,000 takes longer than the
        // first ones may wait.
        let requests = try (0..<total).map { number in
            let pair = pairs[number % pairs.count]
            let fromFirst = (number / pairs.count) % 2 == 0
            let sender = fromFirst ? pair.0 : pair.1
            // The sender's app talks to the instance its partner's socket is not on.
            let port = servers[fromFirst ? servers.count - 1 : 0].port
            return try HTTPClient.Request(
                url: "http://127.0.0.1:\(port)/v1/chats/\(sender.chat)/messages", method: .POST,
                headers: ["Authorization": "Bearer \(sender.accessToken)", "Content-Type": "application/json"],
                body: .string(#"{"id":"\#(UUID().uuidString)","text":"bench \#(number)"}"#))
        }
        let begin = NIODeadline.now() + .milliseconds(200)
        received.begin(at: begin, interval: interval)
        let sent = NIOLockedValueBox(0)
        var answers: [EventLoopFuture<Void>] = []
        answers.reserveCapacity(total)
        let (run, machine) = try await MachineTimes.during(sampleOn: group.next()) {
            for (number, request) in requests.enumerated() {
                let loop = group.next()
                let due = begin + .nanoseconds(Int64(number) * interval)
                let answered = loop.flatScheduleTask(deadline: due) {
                    client.execute(request: request, eventLoop: .delegate(on: loop), deadline: .now() + .seconds(120)).map { response in
                        if response.status == .created { sent.withLockedValue { $0 += 1 } }
                    }
                }
                answers.append(answered.futureResult.recover { _ in })
            }
            try await EventLoopFuture.andAllComplete(answers, on: group.next()).get()
            // Stragglers: what was sent has a few seconds more to arrive.
            for _ in 0..<100 where received.count < sent.withLockedValue({ $0 }) {
                try await Task.sleep(for: .milliseconds(100))
            }
            return (NIODeadline.now() - begin).nanoseconds
        }
        let cpu = zip(cpuBefore, servers.map(\.cpuSeconds)).map { $1 - $0 }.reduce(0, +)
        let seconds = Double(run) / 1e9
        let latencies = received.latencies
        let delivered = latencies.compactMap { $0 }
        let messages = sent.withLockedValue { $0 }
        print(
            String(
                format: "sent %d of %d (201), delivered %d (%.2f%%), lost %d; send→receive %@", messages, total, delivered.count,
                Double(delivered.count) / Double(max(messages, 1)) * 100, messages - delivered.count,
                LatencySummary(delivered).description))
        print(
            String(
                format: "server CPU: %.2f cores on average over %.0f s (%.2f ms of CPU per message)", cpu / seconds, seconds,
                cpu / Double(max(messages, 1)) * 1000))
        if let machine {
            print("machine during the messages: \(machine)")
            let undisturbed = machine.undisturbed(latencies) { begin.uptimeNanoseconds + UInt64($0) * UInt64(interval) }
            print("the messages during which no CPU time was stolen: \(LatencySummary(undisturbed))")
        }
        if let latencyLog {
            try OpenLoopRun(latencies: latencies, seconds: seconds, begin: begin.uptimeNanoseconds, interval: UInt64(interval))
                .writeLog(to: latencyLog)
        }
        for socket in opened { socket.close(promise: nil) }
    }

    /// One member's socket, acknowledging each event as an app does; a message from the other
    /// member ("bench <number>") is timed.
    private static func connect(
        _ member: ChatBenchMember, port: Int, received: Received,
        on group: any EventLoopGroup
    ) async throws -> WebSocket {
        let socket = NIOLockedValueBox<WebSocket?>(nil)
        try await WebSocket.connect(
            to: "ws://127.0.0.1:\(port)/v1/realtime", headers: ["Authorization": "Bearer \(member.accessToken)"], on: group
        ) { ws in
            socket.withLockedValue { $0 = ws }
            ws.onText { ws, text in
                // `{"id":12,"type":"message",…}`: the id first, as the server writes it.
                if text.hasPrefix(#"{"id":"#), let end = text.dropFirst(6).firstIndex(of: ",") {
                    ws.send(#"{"type":"ack","id":\#(text[text.index(text.startIndex, offsetBy: 6)..<end])}"#)
                }
                guard let number = benchNumber(inMessageEvent: text) else { return }
                received.arrived(number)
            }
        }.get()
        guard let opened = socket.withLockedValue({ $0 }) else { throw ArgumentParser.ValidationError("no socket for \(member.user)") }
        return opened
    }

    /// The number of the other member's bench message ("bench <number>") in an event's text, found
    /// in its bytes: Foundation's `contains` and `range(of:)` were a twentieth of this process's
    /// CPU, and the standard library's generic `firstRange(of:)` more, on a machine the bench
    /// shares with the server it measures.
    private static func benchNumber(inMessageEvent text: String) -> Int? {
        var text = text
        return text.withUTF8 { bytes -> Int? in
            func end(of needle: StaticString) -> Int? {
                let wanted = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
                guard bytes.count >= wanted.count else { return nil }
                for start in 0...(bytes.count - wanted.count) where bytes[start] == wanted[0] {
                    if memcmp(bytes.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0 { return start + wanted.count }
                }
                return nil
            }
            guard end(of: #""type":"message""#) != nil, end(of: #""fromMe":false"#) != nil,
                let first = end(of: #""text":"bench "#)
            else { return nil }
            var (index, number) = (first, 0)
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            return index > first ? number : nil
        }
    }

    /// Raises this process's limit on open files to the most allowed: ten thousand sockets are
    /// ten thousand descriptors (the servers inherit the limit).
    private func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if Int(limit.rlim_max) < sockets + 512 {
            print("note: at most \(limit.rlim_max) open files here; \(sockets) sockets may not all open")
        }
    }
}

/// When each message reached its recipient, from when it was due to be sent (ms).
private final class Received: Sendable {
    private let state: NIOLockedValueBox<(latencies: [Double?], count: Int, begin: NIODeadline, interval: Int64)>

    init(total: Int) {
        state = NIOLockedValueBox((Array(repeating: nil, count: total), 0, .now(), 1))
    }

    func begin(at begin: NIODeadline, interval: Int64) {
        state.withLockedValue {
            $0.begin = begin
            $0.interval = interval
        }
    }

    func arrived(_ number: Int) {
        let now = NIODeadline.now()
        state.withLockedValue { state in
            guard number >= 0, number < state.latencies.count, state.latencies[number] == nil else { return }
            let due = state.begin + .nanoseconds(Int64(number) * state.interval)
            state.latencies[number] = Double((now - due).nanoseconds) / 1e6
            state.count += 1
        }
    }

    var count: Int { state.withLockedValue { $0.count } }
    var latencies: [Double?] { state.withLockedValue { $0.latencies } }
}

/// `pawpack serve` in a process of its own, on a free port, stopped with the bench.
private final class ServerProcess: @unchecked Sendable {
    let process: Process
    let port: Int

    private init(process: Process, port: Int) {
        self.process = process
        self.port = port
    }

    static func start(environment: [String: String], log path: String?) async throws -> ServerProcess {
        let port = try await freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve", "--port", String(port)]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let path { FileManager.default.createFile(atPath: path, contents: nil) }
        process.standardOutput = FileHandle(forWritingAtPath: path ?? "/dev/null")
        process.standardError = FileHandle.standardError
        try process.run()
        let server = ServerProcess(process: process, port: port)
        // Ready once it answers its health check (it migrates first).
        for _ in 0..<600 {
            if let response = try? await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(port)/healthz"),
                timeout: .seconds(5)), response.status == .ok
            {
                return server
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        server.stop()
        throw ArgumentParser.ValidationError("pawpack serve on port \(port) did not start")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    /// Its resident memory, from /proc.
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes * 1024
    }

    /// User and system CPU time it used so far, from /proc.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command name: state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func freePort() async throws -> Int {
        let socket = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = socket.localAddress?.port ?? 0
        try await socket.close().get()
        return port
    }
}
