import Foundation
import PawpackCore

/// What turning a server value into the contract's shape needs beyond the value itself: where
/// files are served from and the day ages are told on. Every mapping is an `init(_:)` on the
/// contract's type in its area's API file (`Components.Schemas.PetCard(card, mapping)`); those
/// that read "mine" and "theirs" take the viewer too.
struct APIMapping: Sendable {
    /// `Config.publicBaseURL`: photo URLs are absolute.
    var baseURL: String
    var today: LocalDate
    /// The clock's now: whether a contest is open.
    var now: Date
}

extension APIHandler {
    var mapping: APIMapping {
        APIMapping(baseURL: services.config.publicBaseURL, today: services.pets.today, now: services.dependencies.clock.now())
    }
}
