import Foundation

/// The vaccine names the API and the web forms use.
public enum VaccineKind: String, Sendable, Codable, CaseIterable {
    case distemper, adenovirus, parvovirus, rabies
    /// A combined distemper–adenovirus–parvovirus shot (DHPP, DAPP, DA2PP).
    case dhpp
    /// Any other vaccine, named in `otherName`.
    case other

    public var label: String {
        switch self {
        case .distemper: "Distemper"
        case .adenovirus: "Adenovirus (hepatitis)"
        case .parvovirus: "Parvovirus"
        case .rabies: "Rabies"
        case .dhpp: "DHPP combined (distemper, adenovirus, parvovirus)"
        case .other: "Other"
        }
    }
}

/// A vaccination as the owner typed it.
public struct VaccinationInput: Sendable, Equatable {
    public var vaccine: VaccineKind
    public var otherName: String?
    public var givenOn: String
    public var nextDueOn: String?
    public var clinic: String?

    public init(
        vaccine: VaccineKind, otherName: String? = nil, givenOn: String, nextDueOn: String? = nil,
        clinic: String? = nil
    ) {
        self.vaccine = vaccine
        self.otherName = otherName
        self.givenOn = givenOn
        self.nextDueOn = nextDueOn
        self.clinic = clinic
    }
}

public struct ValidVaccination: Sendable, Equatable {
    public var vaccine: VaccineKind
    public var otherName: String?
    public var givenOn: LocalDate
    public var nextDueOn: LocalDate?
    public var clinic: String?
}

public struct VaccinationRules: Sendable {
    public var maximumNameLength = 60
    public var maximumClinicLength = 100
    public var maximumYearsUntilDue = 5

    public init() {}

    /// A dose cannot be given before the pet was born or after today; the next one is due
    /// after it was given.
    public func validate(_ input: VaccinationInput, birthDate: LocalDate, today: LocalDate) throws(Problem) -> ValidVaccination {
        var errors: [FieldError] = []
        var otherName: String?
        if input.vaccine == .other {
            switch TextRule.line(max: maximumNameLength).check(input.otherName ?? "") {
            case .success(let text) where text.isEmpty: errors.append(.init(field: "otherName", message: "name the vaccine"))
            case .success(let text): otherName = text
            case .failure(let refusal): errors.append(.init(field: "otherName", message: refusal.message))
            }
        }
        let given = LocalDate(input.givenOn.trimmingCharacters(in: .whitespaces))
        if let given {
            if given > today { errors.append(.init(field: "givenOn", message: "cannot be in the future")) }
            if given < birthDate { errors.append(.init(field: "givenOn", message: "cannot be before the pet was born (\(birthDate))")) }
        } else {
            errors.append(.init(field: "givenOn", message: "must be a date written as YYYY-MM-DD"))
        }
        var nextDue: LocalDate?
        if let text = input.nextDueOn?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            nextDue = LocalDate(text)
            if nextDue == nil {
                errors.append(.init(field: "nextDueOn", message: "must be a date written as YYYY-MM-DD"))
            } else if let nextDue, let given, nextDue <= given {
                errors.append(.init(field: "nextDueOn", message: "must be after the date given"))
            } else if let nextDue, nextDue > today.adding(years: maximumYearsUntilDue) {
                // No vaccine lasts longer; a date decades ahead is a typing slip.
                errors.append(.init(field: "nextDueOn", message: "must be within \(maximumYearsUntilDue) years from today"))
            }
        }
        var clinic: String?
        switch input.clinic.map(TextRule.line(max: maximumClinicLength).check) {
        case .success(let text)?: clinic = text
        case .failure(let refusal)?: errors.append(.init(field: "clinic", message: refusal.message))
        case nil: break
        }
        guard errors.isEmpty, let given else { throw Problem.validation(errors) }
        return ValidVaccination(
            vaccine: input.vaccine, otherName: input.vaccine == .other ? otherName : nil,
            givenOn: given, nextDueOn: nextDue,
            clinic: (clinic?.isEmpty ?? true) ? nil : clinic)
    }
}

extension VaccineKind {
    /// The vaccine the welfare rules count.
    public func vaccine(otherName: String?) -> Vaccine {
        switch self {
        case .distemper: .distemper
        case .adenovirus: .adenovirus
        case .parvovirus: .parvovirus
        case .rabies: .rabies
        case .dhpp: .dap
        case .other: .other(otherName ?? "other")
        }
    }
}
