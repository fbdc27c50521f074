import Foundation
import PawpackAPI
import PawpackCore

/// A signed-in session: tokens and the account they belong to. `Codable` so an app can keep
/// it in the keychain (see ``PawpackClient/init(serverURL:transport:session:onSessionChange:)``).
public struct Session: Sendable, Codable, Equatable {
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    public var refreshToken: String
    public var refreshTokenExpiresAt: Date
    public var account: Account

    /// A session as an app saved it; ``PawpackClient`` makes its own at log-in.
    public init(
        accessToken: String, accessTokenExpiresAt: Date, refreshToken: String,
        refreshTokenExpiresAt: Date, account: Account
    ) {
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.account = account
    }

    init(_ dto: Components.Schemas.Session) throws {
        self.init(
            accessToken: dto.accessToken, accessTokenExpiresAt: dto.accessTokenExpiresAt,
            refreshToken: dto.refreshToken, refreshTokenExpiresAt: dto.refreshTokenExpiresAt,
            account: try Account(dto.account))
    }
}

/// Everything an account owns, as exported (`GET /v1/me/export`).
public struct AccountExport: Sendable, Equatable {
    /// One signed-in app or browser.
    public struct SessionSummary: Sendable, Equatable {
        public enum Kind: String, Sendable { case app, web }
        public var kind: Kind
        public var createdAt: Date
        public var lastUsedAt: Date
    }

    /// One of your pets with its records.
    public struct OwnedPet: Sendable, Equatable, Identifiable {
        public var pet: PetDetails
        public var vaccinations: [Vaccination]
        /// The dog's saved deck preferences; nil until saved.
        public var preferences: DeckPreferences?
        public var guardians: [Guardian]
        public var id: Pet.ID { pet.id }
    }

    /// Another member's pet you guard, or are invited to guard.
    public struct Guardianship: Sendable, Equatable, Identifiable {
        public var id: Pet.Guardianship.ID
        public var petID: Pet.ID
        public var petName: String
        public var ownerDisplayName: String
        public var status: Guardian.Status
        public var createdAt: Date
    }

    /// One of your dogs' likes or passes.
    public struct Swipe: Sendable, Equatable {
        public var petID: Pet.ID
        public var targetPetID: Pet.ID
        public var targetPetName: String
        public var liked: Bool
        public var createdAt: Date
    }

    /// A request from or to one of your dogs, in whatever state it ended.
    public struct RequestRecord: Sendable, Equatable, Identifiable {
        public var id: MatchRequest.ID
        public var fromPetID: Pet.ID
        public var fromPetName: String
        public var toPetID: Pet.ID
        public var toPetName: String
        public var status: MatchRequest.Status
        public var createdAt: Date
        public var answeredAt: Date?
    }

    /// One of your dogs' matches.
    public struct MatchRecord: Sendable, Equatable, Identifiable {
        public var id: Match.ID
        public var myPetID: Pet.ID
        public var myPetName: String
        public var otherPetID: Pet.ID
        public var otherPetName: String
        public var otherOwnerDisplayName: String
        public var createdAt: Date
    }

    /// One of your chats with every message, oldest first.
    public struct ChatRecord: Sendable, Equatable, Identifiable {
        public var id: Chat.ID
        public var myPetID: Pet.ID
        public var myPetName: String
        public var otherPetName: String
        public var otherOwnerDisplayName: String
        public var isClosed: Bool
        public var messages: [ChatMessage]
    }

    /// A member you blocked.
    public struct Block: Sendable, Equatable {
        public var username: String
        public var displayName: String
        public var createdAt: Date
    }

    public var exportedAt: Date
    public var account: Account
    public var sessions: [SessionSummary]
    public var pets: [OwnedPet]
    public var guardianships: [Guardianship]
    public var swipes: [Swipe]
    public var matchRequests: [RequestRecord]
    public var matches: [MatchRecord]
    public var blocks: [Block]
    public var chats: [ChatRecord]

    init(_ dto: Components.Schemas.AccountExport) throws {
        exportedAt = dto.exportedAt
        account = try Account(dto.account)
        sessions = dto.sessions.map {
            SessionSummary(kind: $0.kind == .web ? .web : .app, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
        }
        pets = try dto.pets.map {
            OwnedPet(
                pet: try PetDetails($0.pet), vaccinations: try $0.vaccinations.map(Vaccination.init),
                preferences: $0.preferences.map(DeckPreferences.init), guardians: try $0.guardians.map(Guardian.init))
        }
        guardianships = try dto.guardianships.map {
            Guardianship(
                id: try serverID($0.id), petID: try serverID($0.petId), petName: $0.petName,
                ownerDisplayName: $0.ownerDisplayName, status: $0.status == .active ? .active : .invited,
                createdAt: $0.createdAt)
        }
        swipes = try dto.swipes.map {
            Swipe(
                petID: try serverID($0.petId), targetPetID: try serverID($0.targetPetId), targetPetName: $0.targetPetName,
                liked: $0.decision == .like, createdAt: $0.createdAt)
        }
        matchRequests = try dto.matchRequests.map {
            RequestRecord(
                id: try serverID($0.id), fromPetID: try serverID($0.fromPetId), fromPetName: $0.fromPetName,
                toPetID: try serverID($0.toPetId), toPetName: $0.toPetName,
                status: try same($0.status, as: MatchRequest.Status.self),
                createdAt: $0.createdAt, answeredAt: $0.answeredAt)
        }
        matches = try dto.matches.map {
            MatchRecord(
                id: try serverID($0.id), myPetID: try serverID($0.myPetId), myPetName: $0.myPetName,
                otherPetID: try serverID($0.otherPetId), otherPetName: $0.otherPetName,
                otherOwnerDisplayName: $0.otherOwnerDisplayName, createdAt: $0.createdAt)
        }
        blocks = dto.blocks.map { Block(username: $0.username, displayName: $0.displayName, createdAt: $0.createdAt) }
        chats = try dto.chats.map {
            ChatRecord(
                id: try serverID($0.id), myPetID: try serverID($0.myPetId), myPetName: $0.myPetName,
                otherPetName: $0.otherPetName, otherOwnerDisplayName: $0.otherOwnerDisplayName, isClosed: $0.closed,
                messages: try $0.messages.map(ChatMessage.init))
        }
    }
}

extension Account {
    init(_ dto: Components.Schemas.Account) throws {
        guard let birth = LocalDate(dto.dateOfBirth) else {
            throw PawpackError.malformed("account \(dto.id) has an unreadable date of birth")
        }
        self.init(
            id: try serverID(dto.id), email: dto.email, username: dto.username, displayName: dto.displayName,
            dateOfBirth: birth, city: dto.city,
            location: dto.location.map { GeoPoint(latitude: $0.latitude, longitude: $0.longitude) },
            timeZone: dto.timeZone, emailVerified: dto.emailVerified, createdAt: dto.createdAt)
    }
}

/// A value of one of the contract's enums as the same value of ours: the two list the same raw
/// values, so a value with no counterpart means the answer cannot be read.
func same<From: RawRepresentable, To: RawRepresentable>(_ value: From, as type: To.Type) throws -> To
where From.RawValue == String, To.RawValue == String {
    guard let converted = To(rawValue: value.rawValue) else {
        throw PawpackError.malformed("\(value.rawValue) is no \(To.self)")
    }
    return converted
}

/// An identifier the server sent; one that is not a UUID means the answer cannot be read.
func serverID<Owner>(_ text: String) throws -> Identifier<Owner> {
    guard let id = Identifier<Owner>(string: text) else { throw PawpackError.malformed("unreadable identifier \(text)") }
    return id
}
