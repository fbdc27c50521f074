import Foundation

/// What an owner sends to create or change a pet; `nil` means "not given" (on a change:
/// leave as it is). Empty text clears an optional text field.
public struct PetDraft: Sendable, Equatable {
    public var name: String?
    public var species: Species?
    public var breed: String?
    public var sex: PetSex?
    public var neutered: Bool?
    public var dateOfBirth: String?
    public var estimatedAgeMonths: Int?
    public var weightKg: Double?
    public var sizeClass: SizeClass?
    public var playStyles: [PlayStyle]?
    public var energy: EnergyLevel?
    public var environment: PetEnvironment?
    public var personality: [String]?
    public var notes: String?

    public init(
        name: String? = nil, species: Species? = nil, breed: String? = nil, sex: PetSex? = nil,
        neutered: Bool? = nil, dateOfBirth: String? = nil, estimatedAgeMonths: Int? = nil,
        weightKg: Double? = nil, sizeClass: SizeClass? = nil, playStyles: [PlayStyle]? = nil,
        energy: EnergyLevel? = nil, environment: PetEnvironment? = nil, personality: [String]? = nil,
        notes: String? = nil
    ) {
        self.name = name
        self.species = species
        self.breed = breed
        self.sex = sex
        self.neutered = neutered
        self.dateOfBirth = dateOfBirth
        self.estimatedAgeMonths = estimatedAgeMonths
        self.weightKg = weightKg
        self.sizeClass = sizeClass
        self.playStyles = playStyles
        self.energy = energy
        self.environment = environment
        self.personality = personality
        self.notes = notes
    }

}

/// The rules for pet profiles.
public struct PetRules: Sendable {
    public var nameLength = 1...40
    public var maximumBreedLength = 60
    public var weightRange = 0.1...150.0
    public var maximumPlayStyles = 3
    public var maximumPersonalityTags = 10
    public var tagLength = 1...20
    public var maximumNotesLength = 1000
    public var maximumAgeYears = 40

    public init() {}

    /// A new pet from a draft. Every fact an owner knows is taken, whatever the welfare mode:
    /// a dog in Puppy Mode has its behavioural facts held back from matching and from other
    /// members (`WelfarePolicy.heldBackInPuppyMode`), never refused.
    public func create(_ draft: PetDraft, id: Pet.ID = Pet.ID(), owner: User.ID, today: LocalDate) throws(Problem) -> PetProfile {
        var errors: [FieldError] = []
        if draft.name == nil { errors.append(.init(field: "name", message: "is required")) }
        if draft.species == nil { errors.append(.init(field: "species", message: "is required")) }
        if draft.dateOfBirth == nil && draft.estimatedAgeMonths == nil {
            errors.append(.init(field: "dateOfBirth", message: "give a date of birth or an estimated age in months"))
        }
        guard errors.isEmpty, let species = draft.species else { throw Problem.validation(errors) }
        let blank = PetProfile(
            id: id, ownerID: owner, name: "", species: species, breed: nil, sex: .unknown,
            neutered: nil, birthDate: today, birthDateIsEstimate: false, weightKg: nil,
            sizeClass: nil, playStyles: [], energy: nil, environment: nil, personality: [],
            notes: nil)
        return try apply(draft, to: blank, today: today)
    }

    /// The profile after a change. Throws 422 naming every bad field.
    public func apply(_ draft: PetDraft, to pet: PetProfile, today: LocalDate) throws(Problem) -> PetProfile {
        var errors: [FieldError] = []
        var result = pet
        if let name = draft.name {
            switch TextRule.name(max: nameLength.upperBound).check(name) {
            case .success(let text):
                result.name = text
            case .failure(.empty), .failure(.tooLong):
                errors.append(.init(field: "name", message: "must be \(nameLength.lowerBound) to \(nameLength.upperBound) characters"))
            case .failure(let refusal):
                errors.append(.init(field: "name", message: refusal.message))
            }
        }
        if let species = draft.species, species != pet.species, !pet.name.isEmpty {
            errors.append(.init(field: "species", message: "cannot change once the pet exists"))
        }
        if let breed = draft.breed {
            switch TextRule.line(max: maximumBreedLength).check(breed) {
            case .success(let text): result.breed = text.isEmpty ? nil : text
            case .failure(let refusal): errors.append(.init(field: "breed", message: refusal.message))
            }
        }
        if let sex = draft.sex { result.sex = sex }
        if let neutered = draft.neutered { result.neutered = neutered }
        if draft.dateOfBirth != nil, draft.estimatedAgeMonths != nil {
            errors.append(.init(field: "estimatedAgeMonths", message: "give either a date of birth or an estimated age, not both"))
        } else if let text = draft.dateOfBirth {
            if let birth = LocalDate(text.trimmingCharacters(in: .whitespaces)) {
                if birth > today {
                    errors.append(.init(field: "dateOfBirth", message: "cannot be in the future"))
                } else if birth.age(on: today) >= maximumAgeYears {
                    errors.append(.init(field: "dateOfBirth", message: "must be within the last \(maximumAgeYears) years"))
                }
                result.birthDate = birth
                result.birthDateIsEstimate = false
            } else {
                errors.append(.init(field: "dateOfBirth", message: "must be a date written as YYYY-MM-DD"))
            }
        } else if let months = draft.estimatedAgeMonths {
            if (0...(maximumAgeYears * 12)).contains(months) {
                result.birthDate = today.monthsEarlier(months)
                result.birthDateIsEstimate = true
            } else {
                errors.append(.init(field: "estimatedAgeMonths", message: "must be from 0 to \(maximumAgeYears * 12)"))
            }
        }
        if let weight = draft.weightKg {
            if !weight.isFinite || !weightRange.contains(weight) {
                errors.append(.init(field: "weightKg", message: "must be between \(weightRange.lowerBound) and \(Int(weightRange.upperBound)) kg"))
            }
            result.weightKg = (weight * 10).rounded() / 10
        }
        if let size = draft.sizeClass { result.sizeClass = size }
        if let styles = draft.playStyles {
            var unique: [PlayStyle] = []
            for style in styles where !unique.contains(style) { unique.append(style) }
            if unique.count > maximumPlayStyles {
                errors.append(.init(field: "playStyles", message: "choose at most \(maximumPlayStyles)"))
            }
            result.playStyles = unique
        }
        if let energy = draft.energy { result.energy = energy }
        if let environment = draft.environment { result.environment = environment }
        if let tags = draft.personality {
            var normalized: [String] = []
            for tag in tags {
                let word = tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
                let allowed = word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == " " }
                if !tagLength.contains(word.count) || word.unicodeScalars.count > tagLength.upperBound * 2 || !allowed {
                    errors.append(.init(field: "personality", message: "tags are 1 to 20 letters, digits, spaces or -"))
                    break
                }
                if !normalized.contains(word) { normalized.append(word) }
            }
            if normalized.count > maximumPersonalityTags {
                errors.append(.init(field: "personality", message: "at most \(maximumPersonalityTags) tags"))
            }
            result.personality = normalized
        }
        if let notes = draft.notes {
            switch TextRule.paragraphs(max: maximumNotesLength).check(notes) {
            case .success(let text): result.notes = text.isEmpty ? nil : text
            case .failure(let refusal): errors.append(.init(field: "notes", message: refusal.message))
            }
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        return result
    }
}

/// What a user may do with a pet.
public enum PetRole: String, Sendable, Codable {
    case owner, guardian
}

public struct PetPermissions: Sendable, Equatable {
    public var role: PetRole?

    public init(role: PetRole?) { self.role = role }

    /// Owners and guardians see the whole profile and its records; others the public card.
    public var canSeePrivateFields: Bool { role != nil }
    /// Guardians edit the pet and its records, as co-owners do in Pawse.
    public var canEdit: Bool { role != nil }
    /// Only the owner deletes a pet or decides who guards it.
    public var canDelete: Bool { role == .owner }
    public var canManageGuardians: Bool { role == .owner }
}

extension LocalDate {
    /// The same day `months` months earlier, or the month's last day when it is shorter.
    public func monthsEarlier(_ months: Int) -> LocalDate {
        let index = year * 12 + (month - 1) - months
        let y = index / 12
        let m = index % 12 + 1
        return LocalDate(year: y, month: m, day: min(day, LocalDate.daysIn(month: m, year: y)))!
    }
}
