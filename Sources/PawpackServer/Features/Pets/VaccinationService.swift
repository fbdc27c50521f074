import Fluent
import Foundation
import PawpackCore

/// A pet's vaccination records and the welfare mode they decide: the health records Care grows
/// from. Stands on Pets' loading and permission checks; the mode itself is `WelfareModes`'.
final class VaccinationService: Sendable {
    let pets: PetService

    init(pets: PetService) {
        self.pets = pets
    }

    var welfare: WelfareModes { pets.welfare }

    func vaccinations(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [VaccinationValue] {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        return try await welfare.records(of: pet, on: db).map(VaccinationValue.init)
    }

    /// Records a dose; the record, and whether it brought the dog to Social Mode just now.
    func addVaccination(
        _ user: UserRecord, pet id: Pet.ID, input: VaccinationInput,
        on db: any Database
    ) async throws -> (record: VaccinationValue, reachedSocialMode: Bool) {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canEdit, on: db)
        let valid = try VaccinationRules().validate(input, birthDate: pet.birthLocalDate, today: welfare.today)
        guard try await VaccinationRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).count() < pets.limits.vaccinationsPerPet else {
            throw CreationLimits.reached("vaccinations of a pet", limit: pets.limits.vaccinationsPerPet, field: "vaccine")
        }
        let record = VaccinationRecord()
        record.$pet.id = try pet.requireID()
        record.vaccine = valid.vaccine.rawValue
        record.otherName = valid.otherName
        record.givenOn = valid.givenOn.description
        record.nextDueOn = valid.nextDueOn?.description
        record.clinic = valid.clinic
        record.createdAt = welfare.clock.now()
        try await record.create(on: db)
        let reached = try await welfare.reachSocialModeIfAllowed(pet, doses: try await welfare.doses(of: pet, on: db), on: db)
        return (try VaccinationValue(record), reached)
    }

    func deleteVaccination(
        _ user: UserRecord, pet id: Pet.ID, vaccination: Pet.Vaccination.ID,
        on db: any Database
    ) async throws {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canEdit, on: db)
        guard
            let record = try await VaccinationRecord.query(on: db).filter(\.$id == vaccination)
                .filter(\.$pet.$id == pet.requireID()).first()
        else { throw Problem.notFound }
        try await record.delete(on: db)
    }

    func mode(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> WelfareStatus {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canSeePrivateFields, on: db)
        let doses = try await welfare.doses(of: pet, on: db)
        try await welfare.reachSocialModeIfAllowed(pet, doses: doses, on: db)
        guard let status = welfare.status(of: pet, doses: doses, today: welfare.today) else { throw Self.notADog }
        return status
    }

    /// Asks for Social Mode now. Dogs reach it by themselves (`WelfareModes.reachSocialModeIfAllowed`), so
    /// this only answers why not yet, for clients that still offer the button, with the dates
    /// in its sentences written by `writingDates`.
    func switchToSocial(
        _ user: UserRecord, pet id: Pet.ID, writingDates dates: (LocalDate) -> String,
        on db: any Database
    ) async throws -> WelfareStatus {
        let (pet, _) = try await pets.authorized(user, pet: id, need: \.canEdit, on: db)
        let doses = try await welfare.doses(of: pet, on: db)
        try await welfare.reachSocialModeIfAllowed(pet, doses: doses, on: db)
        guard let status = welfare.status(of: pet, doses: doses, today: welfare.today) else { throw Self.notADog }
        guard status.mode == .social else {
            let earliest = status.assessment.earliestSocialDate.map { " Earliest date: \(dates($0))." } ?? ""
            let messages = status.assessment.reasons.map { $0.message(writingDates: dates) }
            throw Problem(
                status: 409, code: .welfareRulesUnmet, title: "Not ready for Social Mode yet",
                detail: messages.joined(separator: " ") + earliest,
                errors: messages.map { FieldError(field: "vaccinations", message: $0) })
        }
        return status
    }

    static let notADog = Problem(
        status: 404, code: .notFound, title: "No welfare mode",
        detail: "Welfare modes apply to dogs only.")
}

extension VaccinationRecord {
    /// The record as a dose for the welfare rules; nil when its date is unreadable.
    var dose: VaccinationDose? {
        Self.dose(vaccine: vaccine, otherName: otherName, givenOn: givenOn)
    }

    static func dose(vaccine: String, otherName: String?, givenOn: String) -> VaccinationDose? {
        guard let date = LocalDate(givenOn), let kind = VaccineKind(rawValue: vaccine) else { return nil }
        return VaccinationDose(vaccine: kind.vaccine(otherName: otherName), givenOn: date)
    }
}
