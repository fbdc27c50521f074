import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var playdates: PlaydateService { services.playdates }

    func getDeckPreferences(_ input: Operations.GetDeckPreferences.Input) async throws -> Operations.GetDeckPreferences.Output {
        let auth = try await authenticated()
        let preferences = try await services.deck.preferences(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(preferences))))
    }

    func saveDeckPreferences(_ input: Operations.SaveDeckPreferences.Input) async throws -> Operations.SaveDeckPreferences.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let saved = try await services.deck.savePreferences(
            auth.user, pet: try pathID(input.path.petId), DeckPreferences(body),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(saved))))
    }

    func getDeck(_ input: Operations.GetDeck.Input) async throws -> Operations.GetDeck.Output {
        let auth = try await authenticated()
        let query = input.query
        let limit = query.limit ?? 20
        guard (1...50).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 50") }
        let overrides = DeckService.Overrides(
            maxDistanceKm: query.maxDistanceKm, minAgeMonths: query.minAgeMonths,
            maxAgeMonths: query.maxAgeMonths)
        let page = try await services.deck.deck(
            auth.user, pet: try pathID(input.path.petId), overrides: overrides,
            limit: limit, cursor: query.cursor, on: auth.request.db)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.cards.map {
                            .init(
                                pet: Components.Schemas.PetCard($0.pet, mapping), score: $0.card.score, distance: $0.card.roundedDistance,
                                reasons: $0.card.reasons)
                        },
                        nextCursor: page.nextCursor))))
    }

    func swipe(_ input: Operations.Swipe.Input) async throws -> Operations.Swipe.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        guard let target = Pet.ID(string: body.targetPetId) else {
            throw Problem.invalidField("targetPetId", "must be a pet id")
        }
        let outcome = try await playdates.swipe(
            auth.user, pet: try pathID(input.path.petId), target: target,
            decision: body.decision == .like ? .like : .pass, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.SwipeResult(outcome, mapping))))
    }

    func undoLastSwipe(_ input: Operations.UndoLastSwipe.Input) async throws -> Operations.UndoLastSwipe.Output {
        let auth = try await authenticated()
        try await playdates.undoLastSwipe(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .noContent(.init())
    }

    func listPasses(_ input: Operations.ListPasses.Input) async throws -> Operations.ListPasses.Output {
        let auth = try await authenticated()
        let page = try await playdates.passes(
            auth.user, pet: try pathID(input.path.petId), limit: try Self.pageLimit(input.query.limit, default: 50, most: 100),
            after: try input.query.cursor.map { try ActivityCursor<Playdates.Swipe>(text: $0) }, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map { Components.Schemas.PetCard($0, mapping) }, nextCursor: page.next?.text))))
    }

    func likeFromPasses(_ input: Operations.LikeFromPasses.Input) async throws -> Operations.LikeFromPasses.Output {
        let auth = try await authenticated()
        let outcome = try await playdates.likeFromPasses(
            auth.user, pet: try pathID(input.path.petId),
            target: try pathID(input.path.targetPetId), on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.SwipeResult(outcome, mapping))))
    }

    func listMatchRequests(_ input: Operations.ListMatchRequests.Input) async throws -> Operations.ListMatchRequests.Output {
        let auth = try await authenticated()
        let page = try await playdates.requests(
            auth.user, incoming: input.query.direction == .incoming, limit: try Self.pageLimit(input.query.limit, default: 50, most: 100),
            after: try input.query.cursor.map { try ActivityCursor<Playdates.MatchRequest>(text: $0) }, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map { Components.Schemas.MatchRequest($0, mapping) }, nextCursor: page.next?.text))))
    }

    func acceptMatchRequest(_ input: Operations.AcceptMatchRequest.Input) async throws -> Operations.AcceptMatchRequest.Output {
        let auth = try await authenticated()
        let match = try await playdates.accept(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Match(match, mapping))))
    }

    func rejectMatchRequest(_ input: Operations.RejectMatchRequest.Input) async throws -> Operations.RejectMatchRequest.Output {
        let auth = try await authenticated()
        try await playdates.reject(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    func cancelMatchRequest(_ input: Operations.CancelMatchRequest.Input) async throws -> Operations.CancelMatchRequest.Output {
        let auth = try await authenticated()
        try await playdates.cancel(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    func listMatches(_ input: Operations.ListMatches.Input) async throws -> Operations.ListMatches.Output {
        let auth = try await authenticated()
        let page = try await playdates.matches(
            auth.user, limit: try Self.pageLimit(input.query.limit, default: 50, most: 100),
            after: try input.query.cursor.map { try ActivityCursor<Playdates.Match>(text: $0) }, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map { Components.Schemas.Match($0, mapping) }, nextCursor: page.next?.text))))
    }

    func unmatch(_ input: Operations.Unmatch.Input) async throws -> Operations.Unmatch.Output {
        let auth = try await authenticated()
        try await playdates.unmatch(auth.user, match: try pathID(input.path.matchId), on: auth.request.db)
        return .noContent(.init())
    }
}

extension DeckPreferences {
    init(_ body: Components.Schemas.DeckPreferences) {
        self.init()
        if let km = body.maxDistanceKm { maxDistanceKm = km }
        minAgeMonths = body.minAgeMonths
        maxAgeMonths = body.maxAgeMonths
        sexes = body.sexes.map { Set($0.compactMap { PetSex(rawValue: $0.rawValue) }) }
        neuteredOnly = body.neuteredOnly ?? false
        sizes = body.sizes.map { Set($0.compactMap { SizeClass(rawValue: $0.rawValue) }) }
        minWeightKg = body.minWeightKg
        maxWeightKg = body.maxWeightKg
        playStyles = body.playStyles.map { Set($0.compactMap { PlayStyle(rawValue: $0.rawValue) }) }
    }
}

extension Components.Schemas.DeckPreferences {
    init(_ preferences: DeckPreferences) {
        self.init(
            maxDistanceKm: preferences.maxDistanceKm, minAgeMonths: preferences.minAgeMonths,
            maxAgeMonths: preferences.maxAgeMonths,
            sexes: preferences.sexes.map { $0.map(\.rawValue).sorted().compactMap { .init(rawValue: $0) } },
            neuteredOnly: preferences.neuteredOnly,
            sizes: preferences.sizes.map { $0.sorted().compactMap { .init(rawValue: $0.rawValue) } },
            minWeightKg: preferences.minWeightKg, maxWeightKg: preferences.maxWeightKg,
            playStyles: preferences.playStyles.map { $0.map(\.rawValue).sorted().compactMap { .init(rawValue: $0) } })
    }
}

extension Components.Schemas.MatchRequestExport {
    init(_ request: PlaydatesExport.Request) {
        let status: StatusPayload =
            switch request.status {
            case .pending: .pending
            case .accepted: .accepted
            case .rejected: .rejected
            case .cancelled: .cancelled
            }
        self.init(
            id: request.id.description, fromPetId: request.fromPet.description, fromPetName: request.fromPetName,
            toPetId: request.toPet.description, toPetName: request.toPetName, status: status,
            createdAt: request.createdAt, answeredAt: request.answeredAt)
    }
}

// MARK: Mapping

extension Components.Schemas.SwipeResult {
    init(_ outcome: SwipeOutcome, _ mapping: APIMapping) {
        self.init(
            decision: outcome.decision == .like ? .like : .pass, request: outcome.request.map { Components.Schemas.MatchRequest($0, mapping) },
            match: outcome.match.map { Components.Schemas.Match($0, mapping) })
    }
}

extension Components.Schemas.MatchRequest {
    init(_ request: MatchRequestValue, _ mapping: APIMapping) {
        self.init(
            id: request.id.description, fromPet: Components.Schemas.PetCard(request.fromPet, mapping),
            toPet: Components.Schemas.PetCard(request.toPet, mapping),
            status: .init(rawValue: request.status.rawValue)!, createdAt: request.createdAt)
    }
}

extension Components.Schemas.Match {
    init(_ match: MatchValue, _ mapping: APIMapping) {
        self.init(
            id: match.id.description, myPet: Components.Schemas.PetCard(match.myPet, mapping),
            otherPet: Components.Schemas.PetCard(match.otherPet, mapping),
            otherOwnerDisplayName: match.otherPet.ownerDisplayName, createdAt: match.createdAt, chatId: match.chat.description)
    }
}

// MARK: Realtime events

extension RealtimeEventValue {
    /// A request the recipient's dog received.
    static func matchRequest(_ request: MatchRequestValue) -> Self {
        Self(kind: "match_request") { _, mapping in Components.Schemas.MatchRequest(request, mapping) }
    }

    /// A match, seen from the side of the member whose dog is `myPet`.
    static func match(_ match: MatchValue, chat: Chats.Chat.ID?) -> Self {
        Self(kind: "match") { _, mapping in
            Components.Schemas.RealtimeMatch(match: Components.Schemas.Match(match, mapping), chatId: chat?.description)
        }
    }
}
