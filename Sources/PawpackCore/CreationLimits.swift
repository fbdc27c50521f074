import Foundation

/// How much one member may create, and how much of it one card shows: every list a member can
/// grow is bounded, so no member can make another's page, or the server's work, grow without end.
public struct CreationLimits: Sendable, Equatable {
    /// Pets one member owns.
    public var petsPerOwner = 20
    /// Photos of one pet (profile and gallery).
    public var photosPerPet = 24
    /// Photos a card shows other members: the profile photo first.
    public var photosPerCard = 6
    /// Vaccinations recorded for one pet.
    public var vaccinationsPerPet = 100
    /// Members guarding one pet or invited to.
    public var guardiansPerPet = 10

    public init() {}

    /// The refusal when `count` things are already there and `limit` is the most allowed.
    public static func reached(_ what: String, limit: Int, field: String) -> Problem {
        Problem(
            status: 409, code: .limitReached, title: "Limit reached",
            detail: "There can be at most \(limit) \(what). Remove one to add another.",
            errors: [FieldError(field: field, message: "at most \(limit) \(what)")])
    }
}
