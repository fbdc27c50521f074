import Foundation

/// Namespace for pet identifiers and values.
public enum Pet {
    public typealias ID = Identifier<Pet>

    /// A photo of a pet: its profile photo or one of its gallery.
    public enum Photo {
        public typealias ID = Identifier<Photo>
    }

    /// One vaccination recorded for a pet.
    public enum Vaccination {
        public typealias ID = Identifier<Vaccination>
    }

    /// A member invited to guard (co-own) a pet, and once they accept, their guardianship.
    public enum Guardianship {
        public typealias ID = Identifier<Guardianship>
    }
}

public enum Species: String, Sendable, Codable, CaseIterable {
    case dog, cat, other
}

public enum PetSex: String, Sendable, Codable, CaseIterable {
    case male, female, unknown
}

/// Size classes for dogs (FCI-style weight bands); cats and others use the same bands.
public enum SizeClass: String, Sendable, Codable, CaseIterable, Comparable {
    case toy, small, medium, large, giant

    /// The class a weight falls in: toy < 5 kg ≤ small < 10 kg ≤ medium < 25 kg ≤ large < 45 kg ≤ giant.
    public init(weightKg: Double) {
        switch weightKg {
        case ..<5: self = .toy
        case ..<10: self = .small
        case ..<25: self = .medium
        case ..<45: self = .large
        default: self = .giant
        }
    }

    /// The class a pet is matched and shown with: the one given, or else the one its weight
    /// implies; nil with neither.
    public static func effective(given: SizeClass?, weightKg: Double?) -> SizeClass? {
        given ?? weightKg.map(SizeClass.init(weightKg:))
    }

    public static func < (lhs: SizeClass, rhs: SizeClass) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How a dog likes to play; matchmaking pairs compatible styles.
public enum PlayStyle: String, Sendable, Codable, CaseIterable {
    case chase, wrestle, tug, fetch, gentle, independent
}

public enum EnergyLevel: String, Sendable, Codable, CaseIterable {
    case low, moderate, high, veryHigh
}

public enum HomeArea: String, Sendable, Codable, CaseIterable {
    case city, suburb, rural
}

/// Where and with whom a pet lives.
public struct PetEnvironment: Sendable, Codable, Equatable {
    public var area: HomeArea
    public var hasGarden: Bool
    public var livesWithOtherPets: Bool
    public var livesWithChildren: Bool

    public init(
        area: HomeArea, hasGarden: Bool = false, livesWithOtherPets: Bool = false,
        livesWithChildren: Bool = false
    ) {
        self.area = area
        self.hasGarden = hasGarden
        self.livesWithOtherPets = livesWithOtherPets
        self.livesWithChildren = livesWithChildren
    }

    /// An environment as the contract carries it: the area by its name, the rest absent for
    /// "no". Nil for an area of no known name.
    public init?(areaName: String, hasGarden: Bool?, livesWithOtherPets: Bool?, livesWithChildren: Bool?) {
        guard let area = HomeArea(rawValue: areaName) else { return nil }
        self.init(
            area: area, hasGarden: hasGarden ?? false, livesWithOtherPets: livesWithOtherPets ?? false,
            livesWithChildren: livesWithChildren ?? false)
    }
}

/// A pet's profile as its owner and guardians see it.
public struct PetProfile: Sendable, Codable, Equatable, Identifiable {
    public var id: Pet.ID
    public var ownerID: User.ID
    public var name: String
    public var species: Species
    public var breed: String?
    public var sex: PetSex
    public var neutered: Bool?
    public var birthDate: LocalDate
    /// True when the owner gave an estimated age rather than a birth date.
    public var birthDateIsEstimate: Bool
    public var weightKg: Double?
    public var sizeClass: SizeClass?
    public var playStyles: [PlayStyle]
    public var energy: EnergyLevel?
    public var environment: PetEnvironment?
    public var personality: [String]
    public var notes: String?

    public init(
        id: Pet.ID, ownerID: User.ID, name: String, species: Species, breed: String?, sex: PetSex,
        neutered: Bool?, birthDate: LocalDate, birthDateIsEstimate: Bool, weightKg: Double?,
        sizeClass: SizeClass?, playStyles: [PlayStyle], energy: EnergyLevel?,
        environment: PetEnvironment?, personality: [String], notes: String?
    ) {
        self.id = id
        self.ownerID = ownerID
        self.name = name
        self.species = species
        self.breed = breed
        self.sex = sex
        self.neutered = neutered
        self.birthDate = birthDate
        self.birthDateIsEstimate = birthDateIsEstimate
        self.weightKg = weightKg
        self.sizeClass = sizeClass
        self.playStyles = playStyles
        self.energy = energy
        self.environment = environment
        self.personality = personality
        self.notes = notes
    }

    /// The size class given, or the one the weight implies.
    public var effectiveSizeClass: SizeClass? { SizeClass.effective(given: sizeClass, weightKg: weightKg) }
}

/// A latitude and longitude in degrees (WGS 84).
public struct GeoPoint: Sendable, Codable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Nil when either coordinate is outside the globe.
    public static func validated(latitude: Double, longitude: Double) -> GeoPoint? {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}
