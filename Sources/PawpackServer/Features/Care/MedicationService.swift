import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A medication schedule as the household reads it.
struct MedicationValue: Sendable {
    var id: Care.Medication.ID
    var pet: Pet.ID
    var name: String
    var dose: String
    var interval: MedicationInterval
    var startsAt: Date
    var until: LocalDate?
    var nextDueAt: Date?
    /// The latest doses, newest first.
    var doses: [DoseValue]
    var createdAt: Date
}

struct DoseValue: Sendable {
    var id: Care.Dose.ID
    var givenAt: Date
    var givenBy: User.ID?
    var givenByUsername: String?
    var givenByDisplayName: String?
}

/// A new schedule as sent.
struct MedicationDraft: Sendable {
    var name: String
    var dose: String
    var every: Int
    var unit: String
    var startsAt: Date?
    var until: LocalDate?
}

/// Medication schedules and the doses given, through `CareService.context` as every Care
/// read and write; each schedule keeps its reminder (`CareReminders`) at its next dose.
final class MedicationService: Sendable {
    let care: CareService
    let rules = ReminderRules()
    let nameRule = TextRule.name(max: 60)
    /// Doses a schedule shows.
    let dosesShown = 10
    /// Doses one member may mark a minute.
    private let doseRequests = RateLimiter(limit: 30, window: 60)

    init(care: CareService) {
        self.care = care
    }

    var clock: any AppClock { care.clock }

    func list(_ user: UserRecord, pet id: Pet.ID, on db: any Database) async throws -> [MedicationValue] {
        let context = try await care.context(user, pet: id, need: \.canView, on: db)
        return try await values(of: context, on: db)
    }

    /// The pet's schedules, each with its latest doses, or all of them (the export).
    func values(of context: CareService.PetCare, allDoses: Bool = false, on db: any Database) async throws -> [MedicationValue] {
        let rows = try await MedicationRecord.query(on: db).filter(\.$pet.$id == context.id).sort(\.$createdAt).sort(\.$id).all()
        var values: [MedicationValue] = []
        for row in rows { values.append(try await value(of: row, days: context.days, allDoses: allDoses, on: db)) }
        return values
    }

    func create(_ user: UserRecord, pet id: Pet.ID, draft: MedicationDraft, on db: any Database) async throws -> MedicationValue {
        let context = try await care.context(user, pet: id, need: \.canManage, on: db)
        let now = clock.now()
        var errors: [FieldError] = []
        func text(_ value: String, field: String) -> String {
            switch nameRule.check(value) {
            case .success(let text) where !text.isEmpty: return text
            case .success: errors.append(.init(field: field, message: "must not be empty"))
            case .failure(let refusal): errors.append(.init(field: field, message: refusal.message))
            }
            return ""
        }
        let name = text(draft.name, field: "name")
        let dose = text(draft.dose, field: "dose")
        var interval: MedicationInterval?
        do { interval = try rules.interval(every: draft.every, unit: draft.unit) } catch { errors += error.errors }
        let startsAt = draft.startsAt ?? now
        if startsAt < now.addingTimeInterval(-care.feeding.earliestFeedAge) || startsAt > now.addingTimeInterval(366 * 86_400) {
            errors.append(.init(field: "startsAt", message: "must be within a month before now and a year after"))
        }
        do { try rules.checkUntil(draft.until, firstDay: context.days.day(of: startsAt)) } catch { errors += error.errors }
        guard errors.isEmpty, let interval else { throw Problem.validation(errors) }
        let record = MedicationRecord()
        record.id = .timeOrdered(at: now)
        record.$pet.id = id
        record.name = name
        record.dose = dose
        record.everyMinutes = interval.minutes
        record.startsAt = startsAt
        record.untilOn = draft.until?.description
        record.$createdBy.id = try user.requireID()
        record.createdAt = now
        try await db.transaction { tx in
            // The pet's row first (PostgreSQL; SQLite writes one at a time): two adds at once
            // count one after the other, so neither passes the limit.
            try await tx.sql.select().column("id").from(PetRecord.schema).where("id", .equal, id).for(.update).run()
            let count = try await MedicationRecord.query(on: tx).filter(\.$pet.$id == id).count()
            guard count < self.rules.medicationsPerPet else {
                throw Problem.invalidField("name", "is one too many: a pet has at most \(self.rules.medicationsPerPet) medications")
            }
            try await record.create(on: tx)
            try await self.armReminder(of: record, lastGiven: nil, days: context.days, on: tx)
        }
        return try await value(of: record, days: context.days, on: db)
    }

    func delete(_ user: UserRecord, medication id: Care.Medication.ID, on db: any Database) async throws {
        let (record, _) = try await medication(user, id: id, need: \.canManage, on: db)
        try await db.transaction { tx in
            try await CareReminders.arm(.medication, pet: record.$pet.id, subject: id.rawValue, dueAt: nil, on: tx)
            try await record.delete(on: tx)
        }
    }

    /// Marks a dose given; the same client id again answers the schedule as it is.
    func give(_ user: UserRecord, medication id: Care.Medication.ID, clientID: UUID, givenAt: Date?, on db: any Database) async throws
        -> (MedicationValue, created: Bool)
    {
        let (record, context) = try await medication(user, id: id, need: \.canLog, on: db)
        let me = try user.requireID()
        let now = clock.now()
        try await doseRequests.take("member:\(me)", now: now, what: "doses marked")
        let at = givenAt ?? now
        try care.feeding.checkFeedTime(at, now: now, field: "givenAt")
        let created = try await answeringRacesAsSequential {
            try await db.transaction { tx -> Bool in
                if try await DoseRecord.query(on: tx).filter(\.$medication.$id == id).filter(\.$clientID == clientID).first() != nil {
                    return false
                }
                let dose = DoseRecord()
                dose.id = .timeOrdered(at: now)
                dose.$medication.id = id
                dose.$givenBy.id = me
                dose.clientID = clientID
                dose.givenAt = at
                dose.createdAt = now
                try await dose.create(on: tx)
                let last = try await DoseRecord.query(on: tx).filter(\.$medication.$id == id).sort(\.$givenAt, .descending).first()
                try await self.armReminder(of: record, lastGiven: last?.givenAt, days: context.days, on: tx)
                try await self.care.reminders.acted(
                    .health, pet: context.id, title: CareReminders.medicationTitle(pet: context.pet.name, medication: record.name), on: tx)
                return true
            }
        }
        return (try await value(of: record, days: context.days, on: db), created)
    }

    /// The pet of a medication the member may see.
    func pet(_ user: UserRecord, medication id: Care.Medication.ID, on db: any Database) async throws -> Pet.ID {
        try await medication(user, id: id, need: \.canView, on: db).0.$pet.id
    }

    /// The medications the member may reach for care, and the pet's care as they reach it.
    private func medication(
        _ user: UserRecord, id: Care.Medication.ID, need: (CareAccess) -> Bool, on db: any Database
    ) async throws -> (MedicationRecord, CareService.PetCare) {
        guard let record = try await MedicationRecord.find(id, on: db) else { throw Problem.notFound }
        let context = try await care.context(user, pet: record.$pet.id, need: need, on: db)
        return (record, context)
    }

    private func endsAt(_ record: MedicationRecord, days: HouseholdDays) -> Date? {
        record.untilOn.flatMap(LocalDate.init).map { days.range(of: $0).upperBound }
    }

    private func armReminder(of record: MedicationRecord, lastGiven: Date?, days: HouseholdDays, on tx: any Database) async throws {
        let next = rules.nextDose(
            lastGiven: lastGiven, startsAt: record.startsAt, interval: record.interval, endsAt: endsAt(record, days: days))
        try await CareReminders.arm(.medication, pet: record.$pet.id, subject: try record.requireID().rawValue, dueAt: next, on: tx)
    }

    private func value(of record: MedicationRecord, days: HouseholdDays, allDoses: Bool = false, on db: any Database) async throws
        -> MedicationValue
    {
        let id = try record.requireID()
        let query = DoseRecord.query(on: db).filter(\.$medication.$id == id).sort(\.$givenAt, .descending).with(\.$givenBy)
        let doses = try await (allDoses ? query : query.limit(dosesShown)).all()
        return MedicationValue(
            id: id, pet: record.$pet.id, name: record.name, dose: record.dose, interval: record.interval, startsAt: record.startsAt,
            until: record.untilOn.flatMap(LocalDate.init),
            nextDueAt: rules.nextDose(
                lastGiven: doses.first?.givenAt, startsAt: record.startsAt, interval: record.interval, endsAt: endsAt(record, days: days)),
            doses: try doses.map { dose in
                DoseValue(
                    id: try dose.requireID(), givenAt: dose.givenAt, givenBy: dose.$givenBy.id,
                    givenByUsername: dose.givenBy?.username, givenByDisplayName: dose.givenBy?.displayName)
            },
            createdAt: record.createdAt)
    }
}
