import Fluent
import Foundation
import Logging
import PawpackCore
import SQLKit

/// Care's reminders: a row per pet and subject (`care_reminders`) holding when it is due,
/// moved by whatever the household does (a feed, a dose, new settings) inside that change's
/// transaction, and sent once by the scheduled job (`Area.jobs`). A server that was down finds
/// the rows that fell due meanwhile and sends each once: sending claims the row first.
final class CareReminders: Sendable {
    let notifications: NotificationService
    let realtime: RealtimeEvents
    let clock: any AppClock
    let rules = ReminderRules()
    let feeding = FeedingRules()
    /// Rows one round sends at most; the next round (a few seconds later) takes the rest.
    private let batch = 200

    init(notifications: NotificationService, realtime: RealtimeEvents, clock: any AppClock) {
        self.notifications = notifications
        self.realtime = realtime
        self.clock = clock
    }

    // MARK: Moving reminders

    /// Sets the reminder of `subject` to `dueAt` (nil: none). It goes again only when its time
    /// moves later (the pet was fed, a dose given) or its vaccination's day changed: moved back
    /// to a time already reminded of (the latest feed deleted, a shorter gap), it stays sent.
    static func arm(
        _ kind: CareReminderRecord.Kind, pet: Pet.ID, subject: UUID, dueAt: Date?, forDay: String? = nil, on db: any Database
    ) async throws {
        try await arm(kind, pet: pet, subject: subject, dueAt: dueAt, forDay: forDay, in: FluentWriteStatements(db: db))
    }

    /// `arm` among the statements of a transaction under way (`SQLWrites`).
    static func arm(
        _ kind: CareReminderRecord.Kind, pet: Pet.ID, subject: UUID, dueAt: Date?, forDay: String? = nil,
        in statements: any SQLWriteStatements
    ) async throws {
        guard let dueAt else {
            try await statements.run(
                #"DELETE FROM "care_reminders" WHERE "kind" = \#(bind: kind.rawValue) AND "subject_id" = \#(bind: subject)"#)
            return
        }
        try await statements.run(
            """
            INSERT INTO "care_reminders" ("id", "pet_id", "kind", "subject_id", "due_at", "for_day", "sent_at")
            VALUES (\(bind: UUID()), \(bind: pet), \(bind: kind.rawValue), \(bind: subject), \(bind: dueAt), \(bind: forDay), NULL)
            ON CONFLICT ("kind", "subject_id") DO UPDATE SET "due_at" = excluded."due_at", "for_day" = excluded."for_day",
                "sent_at" = CASE
                    WHEN excluded."due_at" > "care_reminders"."due_at"
                        OR COALESCE(excluded."for_day", '') <> COALESCE("care_reminders"."for_day", '') THEN NULL
                    ELSE "care_reminders"."sent_at" END
            """)
    }

    /// The pet's next feed from its latest feed, after a feed was logged, changed or deleted
    /// or its gap changed.
    func feedsChanged(pet: Pet.ID, gap: TimeInterval, on db: any Database) async throws {
        try await feedsChanged(pet: pet, gap: gap, in: FluentWriteStatements(db: db))
    }

    /// `feedsChanged` among the statements of a transaction under way (`SQLWrites`).
    func feedsChanged(pet: Pet.ID, gap: TimeInterval, in statements: any SQLWriteStatements) async throws {
        let last = try await statements.first(
            """
            SELECT "fed_at", "gap_share" FROM "feeds" WHERE "pet_id" = \(bind: pet) ORDER BY "activity" DESC, "id" DESC LIMIT 1
            """)
        let next = try last.flatMap {
            feeding.nextFeed(
                lastFedAt: try $0.decode(column: "fed_at", as: Date.self), lastGapShare: try $0.decode(column: "gap_share", as: Double.self),
                gap: gap)
        }
        try await Self.arm(.feeding, pet: pet, subject: pet.rawValue, dueAt: next, in: statements)
    }

    /// Someone acted on the pet (fed it, gave a dose): the reminders of `kind` still unread
    /// about it (with this title: one medication's, not another's) are read for everyone, so the
    /// inbox no longer asks and their pushes not yet sent never go (`PushOutbox` skips read
    /// notifications).
    func acted(_ kind: NotificationKind, pet: Pet.ID, title: String? = nil, on db: any Database) async throws {
        try await acted(kind, pet: pet, title: title, in: FluentWriteStatements(db: db))
    }

    /// `acted` among the statements of a transaction under way (`SQLWrites`).
    func acted(_ kind: NotificationKind, pet: Pet.ID, title: String? = nil, in statements: any SQLWriteStatements) async throws {
        let titled: SQLQueryString = title.map { #" AND "title" = \#(bind: $0)"# } ?? ""
        try await statements.run(
            """
            UPDATE "notifications" SET "read_at" = \(bind: clock.now())
            WHERE "pet_id" = \(bind: pet) AND "kind" = \(bind: kind.rawValue) AND "from_user_id" IS NULL AND "read_at" IS NULL\(titled)
            """)
    }

    /// A medication's reminder, as its notification is titled (`acted` finds it by this).
    static func medicationTitle(pet: String, medication: String) -> String { "\(pet)'s \(medication) is due" }

    /// Lets a Care notification to `user` about `pet` be pushed only when no other was in
    /// the last `pushCooldown`: the inbox and open apps still get every one.
    func pushAtMostOncePerCooldown(pet: Pet.ID) -> @Sendable ([User.ID], any SQLWriteStatements) async throws -> Set<User.ID> {
        let now = clock.now()
        let cutoff = now.addingTimeInterval(-rules.pushCooldown)
        return { users, statements in
            guard !users.isEmpty else { return [] }
            // A member's row is written only when it is new or its last push is older than the
            // cooldown: those the statement answers are the members pushed to now.
            let rows = users.map { "(\(bind: UUID()), \(bind: pet), \(bind: $0), \(bind: now))" as SQLQueryString }.joined(separator: ", ")
            return Set(
                try await statements.rows(
                    """
                    INSERT INTO "care_pushes" ("id", "pet_id", "user_id", "pushed_at") VALUES \(rows)
                    ON CONFLICT ("pet_id", "user_id") DO UPDATE SET "pushed_at" = excluded."pushed_at"
                    WHERE "care_pushes"."pushed_at" <= \(bind: cutoff)
                    RETURNING "user_id"
                    """
                ).map { try $0.decode(column: "user_id", as: User.ID.self) })
        }
    }

    // MARK: Who hears

    /// The members who may act on the pet's care: its owner, its guardians and its family's
    /// owner and members (viewers read only, so reminders would ask them for nothing). Without
    /// `family`, its owner and guardians alone: vaccinations are private to them.
    static func caretakers(of pet: Pet.ID, family: Bool = true, on db: any Database) async throws -> [User.ID] {
        let families: SQLQueryString =
            family
            ? """
            UNION SELECT "family_members"."user_id" FROM "family_members"
                JOIN "family_pets" ON "family_pets"."family_id" = "family_members"."family_id"
                WHERE "family_pets"."pet_id" = \(bind: pet) AND "family_members"."role" <> \(bind: FamilyRole.viewer.rawValue)
            """ : ""
        let rows = try await db.sql.raw(
            """
            SELECT "owner_id" AS "user_id" FROM "pets" WHERE "id" = \(bind: pet)
            UNION SELECT "user_id" FROM "pet_guardians" WHERE "pet_id" = \(bind: pet)
                AND "status" = \(bind: GuardianRecord.Status.active.rawValue)
            \(families)
            """
        ).all()
        return try rows.map { try $0.decode(column: "user_id", as: User.ID.self) }
    }

    // MARK: The job

    /// Plans the vaccinations falling due, then sends every reminder due now, each once.
    func runDue(on db: any Database, logger: Logger) async throws {
        try await planVaccinations(on: db)
        let now = clock.now()
        let due = try await CareReminderRecord.query(on: db).filter(\.$sentAt == nil).filter(\.$dueAt <= now)
            .sort(\.$dueAt).limit(batch).all()
        for reminder in due {
            let events = try await db.transaction { tx -> [StoredRealtimeEvent] in
                // Claimed first: another instance, or a round after a restart, finds it sent; one
                // moved later meanwhile (the pet was fed) is no longer due. (Not compared with the
                // time read: SQLite gives a time back rounded to microseconds.)
                let claimed = try await tx.sql.raw(
                    """
                    UPDATE "care_reminders" SET "sent_at" = \(bind: now)
                    WHERE "id" = \(bind: try reminder.requireID()) AND "sent_at" IS NULL AND "due_at" <= \(bind: now)
                    RETURNING "id"
                    """
                ).all()
                guard !claimed.isEmpty, let draft = try await self.draft(for: reminder, now: now, on: tx) else { return [] }
                let vaccination = reminder.kind == CareReminderRecord.Kind.vaccination.rawValue
                return try await self.notifications.notify(
                    draft, to: try await Self.caretakers(of: reminder.$pet.id, family: !vaccination, on: tx), on: tx)
            }
            await realtime.deliver(events)
        }
        if !due.isEmpty { logger.debug("care reminders sent", metadata: ["count": "\(due.count)"]) }
    }

    /// Vaccinations due from yesterday to the longest lead ahead that have no reminder for
    /// their due day yet, soonest first: a reminder each, `leadDays` before at the household's
    /// morning, waiting in its row until then (a changed lead plans them again).
    private func planVaccinations(on db: any Database) async throws {
        let today = LocalDate(utc: clock.now())
        let rows = try await db.sql.raw(
            """
            SELECT "vaccinations"."id", "vaccinations"."pet_id", "vaccinations"."next_due_on" FROM "vaccinations"
            WHERE "vaccinations"."next_due_on" >= \(bind: today.adding(days: -1).description)
                AND "vaccinations"."next_due_on" <= \(bind: today.adding(days: rules.vaccinationLeadDays.upperBound + 1).description)
                AND NOT EXISTS (SELECT 1 FROM "care_reminders" WHERE "care_reminders"."kind" = \(bind: CareReminderRecord.Kind.vaccination.rawValue)
                    AND "care_reminders"."subject_id" = "vaccinations"."id" AND "care_reminders"."for_day" = "vaccinations"."next_due_on")
            ORDER BY "vaccinations"."next_due_on" LIMIT \(unsafeRaw: String(batch))
            """
        ).all()
        for row in rows {
            let pet = try row.decode(column: "pet_id", as: Pet.ID.self)
            let dueText = try row.decode(column: "next_due_on", as: String.self)
            guard let due = LocalDate(dueText) else { continue }
            let settings = try await CareSettingsRecord.query(on: db).filter(\.$pet.$id == pet).first()
            let lead = settings?.vaccinationLeadDays ?? ReminderRules.defaultVaccinationLeadDays
            let days = try await CareService.householdDays(of: pet, on: db)
            try await Self.arm(
                .vaccination, pet: pet, subject: try row.decode(column: "id", as: UUID.self),
                dueAt: rules.vaccinationReminder(due: due, leadDays: lead, days: days), forDay: dueText, on: db)
        }
    }

    /// The words of a reminder, read when it goes; nil when its subject is gone or changed
    /// (a deleted medication, a vaccination given again), and the row with it.
    private func draft(for reminder: CareReminderRecord, now: Date, on tx: any Database) async throws -> NotificationDraft? {
        let pet = reminder.$pet.id
        guard let petRecord = try await PetRecord.find(pet, on: tx) else { return nil }
        let name = petRecord.name
        let days = try await CareService.householdDays(of: pet, on: tx)
        let push = pushAtMostOncePerCooldown(pet: pet)
        switch CareReminderRecord.Kind(rawValue: reminder.kind) {
        case .feeding:
            let last = try await FeedRecord.query(on: tx).filter(\.$pet.$id == pet).sort(\.$activity, .descending).with(\.$fedBy).first()
            guard let last else { return nil }
            let who = last.fedBy?.displayName ?? "someone"
            return NotificationDraft(
                from: nil, kind: .feeding, title: "Time to feed \(name)",
                body: "\(name) was last fed by \(who) at \(Self.time(last.fedAt, days: days)). Mark as fed once done.",
                pet: pet, mayPush: push)
        case .medication:
            guard let medication = try await MedicationRecord.find(Care.Medication.ID(reminder.subjectID), on: tx) else {
                try await reminder.delete(on: tx)
                return nil
            }
            return NotificationDraft(
                from: nil, kind: .health, title: Self.medicationTitle(pet: name, medication: medication.name),
                body: "Give \(medication.dose) (\(medication.interval.words)), then mark it given.", pet: pet, mayPush: push)
        case .vaccination:
            guard let vaccination = try await VaccinationRecord.find(Pet.Vaccination.ID(reminder.subjectID), on: tx),
                vaccination.nextDueOn == reminder.forDay, let due = reminder.forDay.flatMap(LocalDate.init)
            else {
                try await reminder.delete(on: tx)
                return nil
            }
            let vaccine = Vaccine(code: vaccination.otherName ?? vaccination.vaccine).spokenName
            let inDays = days.day(of: now).days(until: due)
            // After a long downtime: one due long ago is told no more (given and not logged, or
            // the pet moved on); one due a few days ago is told as overdue, once.
            guard inDays >= -rules.vaccinationStaleDays else {
                try await reminder.delete(on: tx)
                return nil
            }
            let (title, when) =
                inDays < 0
                ? ("is overdue", "was due on \(due)")
                : inDays == 0
                    ? ("is due today", "is due today")
                    : inDays == 1 ? ("is due tomorrow", "is due tomorrow") : ("is due soon", "is due in \(inDays) days, on \(due)")
            return NotificationDraft(
                from: nil, kind: .health, title: "\(name)'s \(vaccine) vaccination \(title)",
                body: "\(name)'s \(vaccine) vaccination \(when). Book it with your vet.", pet: pet, mayPush: push)
        case nil:
            return nil
        }
    }

    /// "18:05" in the household's time zone.
    static func time(_ instant: Date, days: HouseholdDays) -> String {
        let format = Date.FormatStyle(date: .omitted, time: .shortened, locale: Locale(identifier: "en_GB"), timeZone: days.timeZone)
        return instant.formatted(format)
    }
}
