import Foundation
import PawpackCore

/// A page of the deck with what the cards show.
struct DeckPageValue: Sendable {
    var cards: [(card: DeckCard, pet: PetCardValue)]
    var nextCursor: String?
    /// How far the deck looked: the dog's preference, or the page's override.
    var maxDistanceKm: Double
}

struct SwipeOutcome: Sendable {
    var decision: SwipeRecord.Decision
    var request: MatchRequestValue?
    var match: MatchValue?
    /// What the other owner (and, for a match, both) hear once the swipe is committed.
    var events: [StoredRealtimeEvent] = []
}

struct MatchRequestValue: Sendable {
    var id: Playdates.MatchRequest.ID
    var fromPet: PetCardValue
    var toPet: PetCardValue
    var status: MatchRequestRecord.Status
    var createdAt: Date
}

struct MatchValue: Sendable {
    var id: Playdates.Match.ID
    var myPet: PetCardValue
    var otherPet: PetCardValue
    var createdAt: Date
    /// The chat the match opened (`ChatRecord.matchID`): where the two owners talk.
    var chat: Chats.Chat.ID
}

/// Where the deck finds its candidates. Members are always served through the index; the other
/// two are kept to check and measure it against (`DeckIndexTests`, `pawpack bench deck`) and
/// are no setting of an operator's.
package enum DeckSource: Sendable {
    /// The candidate index: its rows in memory on an SQLite file this process serves
    /// (`DeckIndex.resident`), its table otherwise.
    case index
    /// The index's table, on SQLite too.
    case indexTable
    /// The seed design: every dog inside the distance's bounding box loaded and scored.
    case naive
}

/// Everything Playdates keeps of one member, for the export (`PlaydateService.export`).
struct PlaydatesExport: Sendable {
    struct Swipe: Sendable {
        var pet: Pet.ID
        var target: Pet.ID
        var targetName: String
        var decision: SwipeRecord.Decision
        var createdAt: Date
    }

    struct Request: Sendable {
        var id: Playdates.MatchRequest.ID
        var fromPet: Pet.ID
        var fromPetName: String
        var toPet: Pet.ID
        var toPetName: String
        var status: MatchRequestRecord.Status
        var createdAt: Date
        var answeredAt: Date?
    }

    struct Match: Sendable {
        var id: Playdates.Match.ID
        var myPet: Pet.ID
        var myPetName: String
        var otherPet: Pet.ID
        var otherPetName: String
        var otherOwnerDisplayName: String
        var createdAt: Date
    }

    var swipes: [Swipe]
    var requests: [Request]
    var matches: [Match]
    /// Saved preferences by dog; dogs that never saved any are absent.
    var preferences: [Pet.ID: DeckPreferences]
}
