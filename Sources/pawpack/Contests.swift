import ArgumentParser
import PawpackServer
import Vapor

/// `pawpack contests …`: what operators do with the weekly photo contests.
struct Contests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Operate the weekly photo contests.", subcommands: [RotateContests.self])
}

/// `pawpack contests rotate`: the scheduled job does this every week; an operator forces it.
struct RotateContests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate", abstract: "End the running contest now (its winners are told) and start the next.")

    func run() async throws {
        let config = try loadConfig()
        bootstrapLogging(config)
        try await withMigratedApplication(config) { app in
            for line in try await app.pawpack.rotateContestsNow(on: app.db) { print(line) }
        }
    }
}
