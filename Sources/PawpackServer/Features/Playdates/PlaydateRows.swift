import Fluent
import Foundation
import PawpackCore
import SQLKit

// Playdate reads in plain SQL with fixed text. The deck is the busiest read of the server: every
// query costs a hop to the database's thread and back, and SQLKit's query builder spends more
// building the text of a small query (quoting each identifier) than SQLite spends running it.

/// What a dog's deck needs to know about the dog besides its record: how its owner filters the
/// deck, which dogs it already swiped and which members are blocked around it.
struct DeckSeekerState: Sendable {
    var preferences: DeckPreferences
    var swipedPets: Set<Pet.ID>
    /// Members blocked by or blocking the dog's owner or the member acting for it.
    var blockedUsers: Set<User.ID>

    /// Saved preferences, or the defaults when there are none or they cannot be read.
    static func preferences(stored json: String?) -> DeckPreferences {
        guard let json, let saved = try? JSONDecoder().decode(DeckPreferences.self, from: Data(json.utf8)) else {
            return DeckPreferences()
        }
        return saved
    }

    /// The dog with what its deck needs to know, in one query where it took four or five: the
    /// pet's row, its saved preferences, the dogs it swiped and the members blocked by or
    /// blocking its owner or `actor`, each list as comma-separated text (`string_agg`, in
    /// SQLite since 3.44 and in PostgreSQL). Nil when there is no such pet. Read before the
    /// caller's permission is checked, and given to no one unless it is.
    static func read(
        pet: Pet.ID, actor: User.ID, reads: HotReads,
        on db: any Database
    ) async throws -> (PetRecord, DeckSeekerState)? {
        guard
            let row = try await reads.rows(
                """
                SELECT "pets".*,
                    (SELECT "preferences" FROM "deck_preferences" WHERE "pet_id" = "pets"."id") AS "deck_preferences",
                    (SELECT string_agg(CAST("target_pet_id" AS TEXT), ',') FROM "swipes"
                        WHERE "pet_id" = "pets"."id") AS "deck_swiped",
                    (SELECT string_agg(CAST("blocked_id" AS TEXT), ',') FROM "blocks"
                        WHERE "blocker_id" IN ("pets"."owner_id", \(bind: actor))) AS "deck_blocked",
                    (SELECT string_agg(CAST("blocker_id" AS TEXT), ',') FROM "blocks"
                        WHERE "blocked_id" IN ("pets"."owner_id", \(bind: actor))) AS "deck_blocking"
                FROM "pets" WHERE "pets"."id" = \(bind: pet)
                """, on: db
            ).first
        else { return nil }
        let list = { (column: String) throws -> [UUID] in
            guard let text = try row.decode(column: column, as: String?.self) else { return [] }
            return try text.split(separator: ",").map { try uuid(String($0)) }
        }
        let state = DeckSeekerState(
            preferences: preferences(stored: try row.decode(column: "deck_preferences", as: String?.self)),
            swipedPets: Set(try list("deck_swiped").map(Pet.ID.init)),
            blockedUsers: Set(try (list("deck_blocked") + list("deck_blocking")).map(User.ID.init)))
        return (try PetRecord(row: row), state)
    }

    private static func uuid(_ text: String) throws -> UUID {
        guard let id = UUID(text: text) else {
            throw Problem(
                status: 500, code: .internalError, title: "Unreadable identifier",
                detail: "A stored identifier is not a UUID.")
        }
        return id
    }
}
