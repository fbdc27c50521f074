import NIOConcurrencyHelpers

/// Background work done in rounds: one now, then one every `interval`, until `stop`, which
/// waits for a round under way (a test drops its schema only once nothing reads it).
final class RepeatingTask: Sendable {
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    init() {}

    /// Starts the rounds, replacing any started before.
    func start(every interval: Duration, _ round: @escaping @Sendable () async -> Void) {
        let started = Task {
            while !Task.isCancelled {
                await round()
                try? await Task.sleep(for: interval)
            }
        }
        task.withLockedValue {
            $0?.cancel()
            $0 = started
        }
    }

    /// Stops the rounds; stopping twice changes nothing.
    func stop() async {
        let running = task.withLockedValue { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }
}
