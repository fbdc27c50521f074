/// Runs work one piece at a time, in the order asked, each after the one before has ended.
actor OneAtATime {
    private var last: Task<Void, Never>?

    func run(_ work: @escaping @Sendable () async throws -> Void) async throws {
        // Taking the last task and putting this one in its place happens before any suspension,
        // so two callers can never both run after the same task.
        let previous = last
        let task = Task {
            await previous?.value
            try await work()
        }
        last = Task { _ = try? await task.value }
        // The work runs in a task of its own: a caller cancelled (a stop) cancels it too.
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
