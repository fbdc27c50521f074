import Foundation
import PawpackAPI
import PawpackCore

/// A page of a dog's deck: nearby dogs that are safe, compatible playmates, best first.
public struct DeckPage: Sendable, Equatable {
    /// One dog of the deck and why it is there.
    public struct Card: Sendable, Equatable, Identifiable {
        public var pet: PetCard
        /// 0–100.
        public var score: Int
        /// Rounded: "< 1 km" or whole kilometres. Never a position.
        public var distance: String
        /// Why it scored as it did, in words: "both love to chase", "2 km away".
        public var reasons: [String]

        public var id: Pet.ID { pet.id }
    }

    public var cards: [Card]
    /// Pass it to ``PawpackClient/deck(for:limit:cursor:maxDistanceKm:)`` for the next page;
    /// nil on the last.
    public var nextCursor: String?

    init(_ dto: Components.Schemas.DeckPage) throws {
        cards = try dto.items.map {
            Card(pet: try PetCard($0.pet), score: $0.score, distance: $0.distance, reasons: $0.reasons)
        }
        nextCursor = dto.nextCursor
    }
}

/// A like waiting for the other owner's answer.
public struct MatchRequest: Sendable, Equatable, Identifiable {
    public typealias ID = Playdates.MatchRequest.ID

    /// Requests your dogs received, or those they sent.
    public enum Direction: String, Sendable { case incoming, outgoing }
    public enum Status: String, Sendable { case pending, accepted, rejected, cancelled }

    public var id: ID
    public var fromPet: PetCard
    public var toPet: PetCard
    public var status: Status
    public var createdAt: Date

    init(_ dto: Components.Schemas.MatchRequest) throws {
        id = try serverID(dto.id)
        fromPet = try PetCard(dto.fromPet)
        toPet = try PetCard(dto.toPet)
        status = try same(dto.status, as: Status.self)
        createdAt = dto.createdAt
    }
}

/// Two dogs whose owners both said yes.
public struct Match: Sendable, Equatable, Identifiable {
    public typealias ID = Playdates.Match.ID

    public var id: ID
    /// Your dog.
    public var myPet: PetCard
    public var otherPet: PetCard
    public var otherOwnerDisplayName: String
    public var createdAt: Date
    /// The chat the match opened, to say hello in (`PawpackClient.messages(in:)`).
    public var chat: Chat.ID

    init(_ dto: Components.Schemas.Match) throws {
        id = try serverID(dto.id)
        myPet = try PetCard(dto.myPet)
        otherPet = try PetCard(dto.otherPet)
        otherOwnerDisplayName = dto.otherOwnerDisplayName
        createdAt = dto.createdAt
        chat = try serverID(dto.chatId)
    }
}

/// What a like or a pass led to.
public struct SwipeResult: Sendable, Equatable {
    /// True for a like.
    public var liked: Bool
    /// The request a like sent, while the other owner has not answered.
    public var request: MatchRequest?
    /// The match, when the other dog had liked yours already.
    public var match: Match?

    init(_ dto: Components.Schemas.SwipeResult) throws {
        liked = dto.decision == .like
        request = try dto.request.map(MatchRequest.init)
        match = try dto.match.map(Match.init)
    }
}

extension DeckPreferences {
    init(_ dto: Components.Schemas.DeckPreferences) {
        self.init(
            maxDistanceKm: dto.maxDistanceKm ?? DeckPreferences.defaultMaxDistanceKm,
            minAgeMonths: dto.minAgeMonths, maxAgeMonths: dto.maxAgeMonths,
            sexes: dto.sexes.map { Set($0.compactMap { PetSex(rawValue: $0.rawValue) }) },
            neuteredOnly: dto.neuteredOnly ?? false,
            sizes: dto.sizes.map { Set($0.compactMap { SizeClass(rawValue: $0.rawValue) }) },
            minWeightKg: dto.minWeightKg, maxWeightKg: dto.maxWeightKg,
            playStyles: dto.playStyles.map { Set($0.compactMap { PlayStyle(rawValue: $0.rawValue) }) })
    }

    /// The contract's form; sets become lists in a fixed order.
    var dto: Components.Schemas.DeckPreferences {
        .init(
            maxDistanceKm: maxDistanceKm, minAgeMonths: minAgeMonths, maxAgeMonths: maxAgeMonths,
            sexes: sexes?.map(\.rawValue).sorted().compactMap(Components.Schemas.PetSex.init(rawValue:)),
            neuteredOnly: neuteredOnly,
            sizes: sizes?.sorted().map(\.rawValue).compactMap(Components.Schemas.SizeClass.init(rawValue:)),
            minWeightKg: minWeightKg, maxWeightKg: maxWeightKg,
            playStyles: playStyles?.map(\.rawValue).sorted().compactMap(Components.Schemas.PlayStyle.init(rawValue:)))
    }
}

/// A member you blocked: neither of you sees the other's dogs, photos or requests.
public struct BlockedMember: Sendable, Equatable, Identifiable {
    public var username: String
    public var displayName: String
    public var blockedAt: Date

    public var id: String { username }

    init(_ dto: Components.Schemas.BlockedMember) {
        username = dto.username
        displayName = dto.displayName
        blockedAt = dto.blockedAt
    }
}
