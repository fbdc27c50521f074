import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Pets, welfare modes and Playdates for apps. Every call needs a signed-in session.

extension PawpackClient {
    /// Sets where you are, for the deck. Nobody else ever sees it.
    @discardableResult
    public func setLocation(_ point: GeoPoint) async throws -> Account {
        try await signedIn {
            switch try await client.setMyLocation(body: .json(.init(latitude: point.latitude, longitude: point.longitude))) {
            case let .ok(ok): return try Account(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Your pets and the pets you guard, owned first.
    public func myPets() async throws -> [PetDetails] {
        try await signedIn {
            switch try await client.listMyPets() {
            case let .ok(ok): return try ok.body.json.items.map(PetDetails.init)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Adds a pet; name, species and a birth date or estimated age are required. A new dog
    /// starts in Puppy Mode with play styles, environment and neuter status locked.
    @discardableResult
    public func addPet(_ draft: PetDraft) async throws -> PetDetails {
        try await signedIn {
            switch try await client.createPet(body: .json(.init(draft))) {
            case let .created(created): return try PetDetails(try created.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// A pet: its profile for owners and guardians, its public card for everyone else.
    public func pet(_ id: Pet.ID) async throws -> PetDetails {
        try await signedIn {
            switch try await client.getPet(path: .init(petId: id.description)) {
            case let .ok(ok): return try PetDetails(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Changes a pet; `nil` fields stay as they are.
    @discardableResult
    public func updatePet(_ id: Pet.ID, _ draft: PetDraft) async throws -> PetDetails {
        try await signedIn {
            switch try await client.updatePet(path: .init(petId: id.description), body: .json(.init(draft))) {
            case let .ok(ok): return try PetDetails(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Deletes a pet with its photos and records (owner only).
    public func deletePet(_ id: Pet.ID) async throws {
        try await signedIn {
            switch try await client.deletePet(path: .init(petId: id.description)) {
            case .noContent: return
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Records a vaccination; dates in the future or before birth are refused.
    public func addVaccination(to id: Pet.ID, _ vaccination: VaccinationInput) async throws {
        try await signedIn {
            let body = Components.Schemas.VaccinationInput(
                vaccine: .init(rawValue: vaccination.vaccine.rawValue) ?? .other, otherName: vaccination.otherName,
                givenOn: vaccination.givenOn, nextDueOn: vaccination.nextDueOn, clinic: vaccination.clinic)
            switch try await client.addVaccination(path: .init(petId: id.description), body: .json(body)) {
            case .created: return
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// The dog's welfare mode, what is still needed, and from when Social Mode is possible.
    public func welfareStatus(of id: Pet.ID) async throws -> WelfareStatus {
        try await signedIn {
            switch try await client.getPetMode(path: .init(petId: id.description)) {
            case let .ok(ok): return WelfareStatus(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Moves a dog to Social Mode; fails with `welfare_rules_unmet` while the rules say no.
    @discardableResult
    public func switchToSocialMode(_ id: Pet.ID) async throws -> WelfareStatus {
        try await signedIn {
            switch try await client.switchToSocialMode(path: .init(petId: id.description)) {
            case let .ok(ok): return WelfareStatus(try ok.body.json)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// A page of the dog's deck, best first; pass `nextCursor` back for the next page.
    public func deck(for id: Pet.ID, limit: Int = 20, cursor: String? = nil) async throws -> DeckPage {
        try await signedIn {
            switch try await client.getDeck(path: .init(petId: id.description), query: .init(limit: limit, cursor: cursor)) {
            case let .ok(ok):
                let page = try ok.body.json
                return DeckPage(cards: try page.items.map {
                    DeckPage.Card(pet: try PetCard($0.pet), score: $0.score, distance: $0.distance, reasons: $0.reasons)
                }, nextCursor: page.nextCursor)
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Likes or passes another dog; returns whether the like made a match.
    @discardableResult
    public func swipe(_ id: Pet.ID, on target: Pet.ID, like: Bool) async throws -> Bool {
        try await signedIn {
            switch try await client.swipe(path: .init(petId: id.description),
                                          body: .json(.init(targetPetId: target.description, decision: like ? .like : .pass))) {
            case let .created(created): return try created.body.json.match != nil
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }

    /// Your dogs' matches, newest first: (your dog, the other dog, its owner's display name).
    public func matches() async throws -> [(mine: PetCard, other: PetCard, ownerDisplayName: String)] {
        try await signedIn {
            switch try await client.listMatches() {
            case let .ok(ok):
                return try ok.body.json.items.map { (try PetCard($0.myPet), try PetCard($0.otherPet), $0.otherOwnerDisplayName) }
            case let .default(status, problem): throw PawpackError(status: status, problem)
            }
        }
    }
}

/// What every member sees of a pet.
public struct PetCard: Sendable, Equatable {
    public var id: Pet.ID
    public var name: String
    public var species: Species
    public var breed: String?
    public var ageText: String
    public var sizeClass: SizeClass?
    public var photoURLs: [String]
    /// Dogs only.
    public var mode: WelfareMode?
    public var ownerDisplayName: String

    init(_ dto: Components.Schemas.PetCard) throws {
        guard let id = Pet.ID(string: dto.id), let species = Species(rawValue: dto.species.rawValue) else {
            throw PawpackError.malformed("pet \(dto.id) has an unreadable id or species")
        }
        self.id = id
        name = dto.name
        self.species = species
        breed = dto.breed
        ageText = dto.ageText
        sizeClass = dto.sizeClass.flatMap { SizeClass(rawValue: $0.rawValue) }
        photoURLs = dto.photos.map(\.url)
        mode = dto.mode.flatMap { WelfareMode(rawValue: $0.rawValue) }
        ownerDisplayName = dto.ownerDisplayName
    }
}

/// A pet as you see it: the card, and for your own or guarded pets your role and the profile.
public struct PetDetails: Sendable, Equatable {
    public var card: PetCard
    public var role: PetRole?
    /// Present for owners and guardians only.
    public var profile: Profile?

    public struct Profile: Sendable, Equatable {
        public var sex: PetSex
        public var neutered: Bool?
        public var dateOfBirth: LocalDate
        public var birthDateIsEstimate: Bool
        public var weightKg: Double?
        public var playStyles: [PlayStyle]
        public var energy: EnergyLevel?
        public var personality: [String]
        public var notes: String?
        /// Fields that cannot change now (Puppy Mode).
        public var lockedFields: [String]
    }

    init(_ dto: Components.Schemas.PetView) throws {
        card = try PetCard(dto.card)
        role = dto.role.flatMap { PetRole(rawValue: $0.rawValue) }
        profile = try dto.profile.map { details in
            guard let birth = LocalDate(details.dateOfBirth) else { throw PawpackError.malformed("unreadable date of birth") }
            return Profile(sex: PetSex(rawValue: details.sex.rawValue) ?? .unknown, neutered: details.neutered,
                           dateOfBirth: birth, birthDateIsEstimate: details.birthDateIsEstimate, weightKg: details.weightKg,
                           playStyles: details.playStyles.compactMap { PlayStyle(rawValue: $0.rawValue) },
                           energy: details.energy.flatMap { EnergyLevel(rawValue: $0.rawValue) },
                           personality: details.personality, notes: details.notes, lockedFields: details.lockedFields)
        }
    }
}

/// A dog's welfare mode and what keeps it in Puppy Mode.
public struct WelfareStatus: Sendable, Equatable {
    public var mode: WelfareMode
    public var eligibleForSocial: Bool
    /// Sentences an owner understands, e.g. "Give a parvovirus dose on or after …".
    public var reasons: [String]
    public var earliestSocialDate: LocalDate?
    public var lockedFields: [String]

    init(_ dto: Components.Schemas.WelfareStatus) {
        mode = WelfareMode(rawValue: dto.mode.rawValue) ?? .puppy
        eligibleForSocial = dto.eligibleForSocial
        reasons = dto.reasons.map(\.message)
        earliestSocialDate = dto.earliestSocialDate.flatMap(LocalDate.init)
        lockedFields = dto.lockedFields
    }
}

/// A page of the deck.
public struct DeckPage: Sendable, Equatable {
    public struct Card: Sendable, Equatable {
        public var pet: PetCard
        /// 0–100.
        public var score: Int
        /// Rounded: "< 1 km" or whole kilometres. Never a position.
        public var distance: String
        public var reasons: [String]
    }

    public var cards: [Card]
    public var nextCursor: String?
}

extension Components.Schemas.PetInput {
    init(_ draft: PetDraft) {
        self.init(
            name: draft.name, species: draft.species.flatMap { .init(rawValue: $0.rawValue) }, breed: draft.breed,
            sex: draft.sex.flatMap { .init(rawValue: $0.rawValue) }, neutered: draft.neutered,
            dateOfBirth: draft.dateOfBirth, estimatedAgeMonths: draft.estimatedAgeMonths, weightKg: draft.weightKg,
            sizeClass: draft.sizeClass.flatMap { .init(rawValue: $0.rawValue) },
            playStyles: draft.playStyles?.compactMap { .init(rawValue: $0.rawValue) },
            energy: draft.energy.flatMap { .init(rawValue: $0.rawValue) },
            environment: draft.environment.map {
                .init(area: .init(rawValue: $0.area.rawValue)!, hasGarden: $0.hasGarden,
                      livesWithOtherPets: $0.livesWithOtherPets, livesWithChildren: $0.livesWithChildren)
            },
            personality: draft.personality, notes: draft.notes)
    }
}
