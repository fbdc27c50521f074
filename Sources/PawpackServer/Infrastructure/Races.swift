import FluentKit

/// A write found that a concurrent request changed its row first (a conditional update that
/// matched nothing): the request lost a race.
struct LostRace: Error {}

extension Error {
    /// A unique index (or another constraint) refused the write: a concurrent request wrote
    /// the same thing first.
    var isConstraintFailure: Bool { (self as? any DatabaseError)?.isConstraintFailure ?? false }
}

/// Runs `attempt`, and once more when it lost a race to a concurrent request (a unique index
/// hit, or `LostRace`): the second run's checks see the winner's row and answer exactly what
/// the second of two sequential requests gets (409, 404, or the idempotent answer), on SQLite
/// and on PostgreSQL alike. Every operation with a uniqueness rule goes through this.
func answeringRacesAsSequential<T: Sendable>(_ attempt: () async throws -> T) async throws -> T {
    do {
        return try await attempt()
    } catch let error where error is LostRace || error.isConstraintFailure {
        return try await attempt()
    }
}
