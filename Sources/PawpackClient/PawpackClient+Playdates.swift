import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Playdates: a dog's deck and preferences, likes and passes, match requests, matches and
// blocks. A dog acts through its owner or one of its guardians; every call needs a session.

extension PawpackClient {
    /// The dog's saved deck preferences (the defaults until saved).
    public func deckPreferences(for dog: Pet.ID) async throws -> DeckPreferences {
        try await signedIn {
            let ok = try await client.getDeckPreferences(path: .init(petId: dog.description)).ok
            return DeckPreferences(try ok.body.json)
        }
    }

    /// Saves the dog's deck preferences; answers them as saved. Out-of-range values are refused
    /// with the field named (`PawpackError.field`).
    @discardableResult
    public func saveDeckPreferences(_ preferences: DeckPreferences, for dog: Pet.ID) async throws -> DeckPreferences {
        try await signedIn {
            let ok = try await client.saveDeckPreferences(path: .init(petId: dog.description), body: .json(preferences.dto)).ok
            return DeckPreferences(try ok.body.json)
        }
    }

    /// A page of the dog's deck, best first; pass `nextCursor` back for the next page.
    /// `maxDistanceKm` overrides the saved preference for this request only. Needs your
    /// location (``setLocation(_:)``): without it the server answers `location_needed`.
    public func deck(
        for dog: Pet.ID, limit: Int = 20, cursor: String? = nil,
        maxDistanceKm: Double? = nil
    ) async throws -> DeckPage {
        try await signedIn {
            let ok = try await client.getDeck(
                path: .init(petId: dog.description),
                query: .init(limit: limit, cursor: cursor, maxDistanceKm: maxDistanceKm)
            ).ok
            return try DeckPage(try ok.body.json)
        }
    }

    /// Likes another dog for yours: its owner is asked, and if their dog liked yours already,
    /// it is a match (``SwipeResult/match``).
    @discardableResult
    public func like(_ other: Pet.ID, for dog: Pet.ID) async throws -> SwipeResult {
        try await swipe(other, for: dog, decision: .like)
    }

    /// Passes on another dog: it leaves the deck for the pass pile (``passes(for:limit:cursor:)``).
    @discardableResult
    public func pass(_ other: Pet.ID, for dog: Pet.ID) async throws -> SwipeResult {
        try await swipe(other, for: dog, decision: .pass)
    }

    private func swipe(
        _ other: Pet.ID, for dog: Pet.ID,
        decision: Components.Schemas.SwipeInput.DecisionPayload
    ) async throws -> SwipeResult {
        try await signedIn {
            let created = try await client.swipe(
                path: .init(petId: dog.description),
                body: .json(.init(targetPetId: other.description, decision: decision))
            ).created
            return try SwipeResult(try created.body.json)
        }
    }

    /// Takes back the dog's last swipe (and the request a like sent, while unanswered).
    public func undoLastSwipe(for dog: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.undoLastSwipe(path: .init(petId: dog.description)).noContent
        }
    }

    /// The dogs yours passed on, newest first, a page at a time: pass the page's `nextCursor`
    /// for the next (nil on the last).
    public func passes(for dog: Pet.ID, limit: Int = 50, cursor: String? = nil) async throws -> Page<PetCard> {
        try await signedIn {
            let page = try await client.listPasses(path: .init(petId: dog.description), query: .init(limit: limit, cursor: cursor)).ok.body.json
            return Page(items: try page.items.map(PetCard.init), nextCursor: page.nextCursor)
        }
    }

    /// Turns a pass into a like after all.
    @discardableResult
    public func likeFromPasses(_ other: Pet.ID, for dog: Pet.ID) async throws -> SwipeResult {
        try await signedIn {
            let created = try await client.likeFromPasses(path: .init(petId: dog.description, targetPetId: other.description)).created
            return try SwipeResult(try created.body.json)
        }
    }

    /// Pending requests your dogs received (`incoming`) or sent (`outgoing`), newest first, a
    /// page at a time: pass the page's `nextCursor` for the next (nil on the last).
    public func matchRequests(_ direction: MatchRequest.Direction, limit: Int = 50, cursor: String? = nil) async throws -> Page<MatchRequest> {
        try await signedIn {
            let page = try await client.listMatchRequests(
                query: .init(direction: direction == .incoming ? .incoming : .outgoing, limit: limit, cursor: cursor)
            ).ok.body.json
            return Page(items: try page.items.map(MatchRequest.init), nextCursor: page.nextCursor)
        }
    }

    /// Accepts a request your dog received: the two dogs match.
    @discardableResult
    public func acceptMatchRequest(_ request: MatchRequest.ID) async throws -> Match {
        try await signedIn {
            try Match(try await client.acceptMatchRequest(path: .init(requestId: request.description)).ok.body.json)
        }
    }

    /// Declines a request your dog received.
    public func declineMatchRequest(_ request: MatchRequest.ID) async throws {
        try await signedIn {
            _ = try await client.rejectMatchRequest(path: .init(requestId: request.description)).noContent
        }
    }

    /// Withdraws a request your dog sent; the other dog returns to its deck.
    public func withdrawMatchRequest(_ request: MatchRequest.ID) async throws {
        try await signedIn {
            _ = try await client.cancelMatchRequest(path: .init(requestId: request.description)).noContent
        }
    }

    /// Your dogs' matches, newest first, a page at a time: pass the page's `nextCursor` for
    /// the next (nil on the last).
    public func matches(limit: Int = 50, cursor: String? = nil) async throws -> Page<Match> {
        try await signedIn {
            let page = try await client.listMatches(query: .init(limit: limit, cursor: cursor)).ok.body.json
            return Page(items: try page.items.map(Match.init), nextCursor: page.nextCursor)
        }
    }

    /// Ends a match, for both owners.
    public func unmatch(_ match: Match.ID) async throws {
        try await signedIn {
            _ = try await client.unmatch(path: .init(matchId: match.description)).noContent
        }
    }

    /// Blocks a member by username: each disappears from the other's decks, lists and requests,
    /// and their matches end.
    public func block(username: String) async throws {
        try await signedIn {
            _ = try await client.blockUser(body: .json(.init(username: username))).noContent
        }
    }

    /// The members you blocked, newest first.
    public func blockedMembers() async throws -> [BlockedMember] {
        try await signedIn {
            try await client.listBlocks().ok.body.json.items.map(BlockedMember.init)
        }
    }

    /// Lifts your block of a member: each may find the other again; ended matches stay ended.
    public func unblock(username: String) async throws {
        try await signedIn {
            _ = try await client.unblockUser(path: .init(username: username)).noContent
        }
    }
}
