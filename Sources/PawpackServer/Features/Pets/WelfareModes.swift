import Fluent
import Foundation
import PawpackCore

/// A dog's welfare mode as it stands today: the rule (`WelfarePolicy`) applied to its
/// vaccinations, and the switch to Social Mode once the rule allows. Profiles and cards
/// (`PetService`) and the vaccination answers (`VaccinationService`) read the mode here.
struct WelfareModes: Sendable {
    let policy = WelfarePolicy()
    let clock: any AppClock
    /// Told when a dog switches, as of any change to a pet (the deck's index ranks by mode).
    let followers: PetFollowers

    var today: LocalDate { LocalDate(utc: clock.now()) }

    /// The pet's vaccination records, newest first.
    func records(of pet: PetRecord, on db: any Database) async throws -> [VaccinationRecord] {
        try await VaccinationRecord.query(on: db).filter(\.$pet.$id == pet.requireID()).all()
            .sorted { ($0.givenOn, $0.createdAt) > ($1.givenOn, $1.createdAt) }
    }

    /// What the rule reads of the records.
    func doses(of pet: PetRecord, on db: any Database) async throws -> [VaccinationDose] {
        try await records(of: pet, on: db).compactMap(\.dose)
    }

    /// Switches a dog to Social Mode once its records allow it, instead of waiting for the
    /// owner to press a button; true when it switched now. Called when the records change and
    /// whenever the owner or a guardian looks at the dog, since time alone (age, the buffer
    /// after the last dose) can make a dog eligible. Until then the dog counts as in Puppy
    /// Mode for everyone else, the safe side.
    @discardableResult
    func reachSocialModeIfAllowed(_ pet: PetRecord, doses: [VaccinationDose], on db: any Database) async throws -> Bool {
        guard pet.species == .dog, pet.socialSince == nil,
            policy.assess(birthDate: pet.birthLocalDate, doses: doses, today: today).mode == .social
        else { return false }
        pet.socialSince = clock.now()
        let indexed = try await db.transaction { tx in
            try await pet.save(on: tx)
            return try await followers.changed([pet], on: tx)
        }
        await followers.committed(indexed, on: db)
        return true
    }

    /// The welfare status of a dog right now: Social only once switched on (by itself, when
    /// the records allow, or by the owner) and while the rules still hold (an expired booster
    /// sends an adult back to Puppy Mode). Nil for other species.
    func status(of pet: PetRecord, on db: any Database) async throws -> WelfareStatus? {
        guard pet.species == .dog else { return nil }
        return status(of: pet, doses: try await doses(of: pet, on: db), today: today)
    }

    func status(of pet: PetRecord, doses: [VaccinationDose], today: LocalDate) -> WelfareStatus? {
        guard pet.species == .dog else { return nil }
        // The birth date alone: the whole profile decodes its JSON fields.
        return status(birthDate: pet.birthLocalDate, socialSince: pet.socialSince, doses: doses, today: today)
    }

    /// A dog's status: Social only while it is switched on and the rules still allow it.
    func status(birthDate: LocalDate, socialSince: Date?, doses: [VaccinationDose], today: LocalDate) -> WelfareStatus {
        let assessment = policy.assess(birthDate: birthDate, doses: doses, today: today)
        let mode = Self.mode(switchedOnSince: socialSince, assessed: assessment)
        let heldBack = mode == .puppy ? WelfarePolicy.heldBackInPuppyMode.sorted() : []
        return WelfareStatus(mode: mode, assessment: assessment, heldBackFields: heldBack)
    }

    /// The mode alone, as `status` decides it, for cards: they show no held-back fields.
    func mode(birthDate: LocalDate, socialSince: Date?, doses: [VaccinationDose], today: LocalDate) -> WelfareMode {
        Self.mode(switchedOnSince: socialSince, assessed: policy.assess(birthDate: birthDate, doses: doses, today: today))
    }

    private static func mode(switchedOnSince socialSince: Date?, assessed assessment: WelfareAssessment) -> WelfareMode {
        socialSince != nil && assessment.mode == .social ? .social : .puppy
    }
}
