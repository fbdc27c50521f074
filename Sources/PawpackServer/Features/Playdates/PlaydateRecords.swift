import Fluent
import Foundation
import PawpackCore

// Fluent models are `@unchecked Sendable`: each instance stays in the task that loaded it.

/// A dog's saved deck preferences, as JSON (`DeckPreferences` is Codable).
final class DeckPreferencesRecord: Model, @unchecked Sendable {
    static let schema = "deck_preferences"

    @ID(custom: .id) var id: Identifier<DeckPreferencesRecord>?
    @Parent(key: "pet_id") var pet: PetRecord
    @Field(key: "preferences") var json: String
    @Field(key: "updated_at") var updatedAt: Date

    init() {}
}

/// One dog's decision about another. Passes are the decline pile.
final class SwipeRecord: Model, @unchecked Sendable {
    static let schema = "swipes"

    enum Decision: String, Codable { case like, pass }

    @ID(custom: .id) var id: Playdates.Swipe.ID?
    @Parent(key: "pet_id") var pet: PetRecord
    @Parent(key: "target_pet_id") var target: PetRecord
    @Field(key: "decision") var decision: Decision
    @Field(key: "created_at") var createdAt: Date

    init() {}

    init(petID: Pet.ID, targetID: Pet.ID, decision: Decision, now: Date) {
        $pet.id = petID
        $target.id = targetID
        self.decision = decision
        createdAt = now
    }
}

/// A like waiting for the other owner's answer.
final class MatchRequestRecord: Model, @unchecked Sendable {
    static let schema = "match_requests"

    enum Status: String, Codable { case pending, accepted, rejected, cancelled }

    @ID(custom: .id) var id: Playdates.MatchRequest.ID?
    @Parent(key: "from_pet_id") var fromPet: PetRecord
    @Parent(key: "to_pet_id") var toPet: PetRecord
    @Parent(key: "from_user_id") var fromUser: UserRecord
    @Parent(key: "to_user_id") var toUser: UserRecord
    @Field(key: "status") var status: Status
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "answered_at") var answeredAt: Date?

    init() {}
}

/// Two dogs whose owners both agreed. `pet_a_id` sorts before `pet_b_id`, so a pair has
/// one row whichever side matched first.
final class MatchRecord: Model, @unchecked Sendable {
    static let schema = "matches"

    @ID(custom: .id) var id: Playdates.Match.ID?
    @Parent(key: "pet_a_id") var petA: PetRecord
    @Parent(key: "pet_b_id") var petB: PetRecord
    @Parent(key: "user_a_id") var userA: UserRecord
    @Parent(key: "user_b_id") var userB: UserRecord
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

extension MatchRecord {
    /// Opens the match's chat (`ChatService.open`), or opens again the one its dogs had.
    @discardableResult
    func openChat(now: Date, on db: any Database) async throws -> Chats.Chat.ID {
        try await ChatService.open(match: requireID(), pets: ($petA.id, $petB.id), owners: ($userA.id, $userB.id), now: now, on: db)
    }
}
