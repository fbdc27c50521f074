import Fluent
import Foundation
import PawpackCore
import Plot
import Vapor

/// Medications on a pet's health page (schedules, "Given", the doses), "Mark as fed" in the
/// inbox, and the doses due on Home. Every form works without JavaScript.
extension CarePages {
    func registerMedications(on routes: any RoutesBuilder) {
        routes.post(WebPath.careMedications(Param.pet).pathComponents, use: addMedication)
        routes.post(WebPath.medicationDoses(Param.medication).pathComponents, use: giveDose)
        routes.post(WebPath.deleteMedication(Param.medication).pathComponents, use: deleteMedication)
    }

    func medicationSection(
        _ req: Request, _ summary: CareSummaryValue, medications: [MedicationValue], errors: FormErrors
    ) -> Node<HTML.BodyContext> {
        let days = HouseholdDays(timeZone: HouseholdDays.timeZone(named: summary.timeZone) ?? .gmt)
        let now = care.clock.now()
        let form: Node<HTML.BodyContext> = .form(
            .id("medication-form"), .action(WebPath.careMedications(summary.pet)), .method(.post), WebPages.csrfField(req),
            .div(
                .class("row"),
                WebPages.field("Medication", name: "name", autocomplete: "off", limits: .init(maxLength: 60), errors: errors),
                WebPages.field(
                    "Dose", name: "dose", autocomplete: "off", hint: "As the vet wrote it: ½ tablet, 0.5 ml.", limits: .init(maxLength: 60),
                    errors: errors)),
            .div(
                .class("row"),
                WebPages.field(
                    "Every", name: "every", type: .number, autocomplete: "off", limits: .init(min: "1", max: "90", step: "1"), errors: errors),
                FormControls.select(
                    "Hours or days", name: "unit", options: [("hours", "hours"), ("days", "days")], selected: "hours", errors: errors)),
            // One per line: a phone has no room for two date fields side by side.
            WebPages.field(
                "First dose", name: "startsAt", type: .init(rawValue: "datetime-local") ?? .text, autocomplete: "off", required: false,
                hint: "Empty: now.", errors: errors),
            WebPages.field(
                "Last day", name: "until", type: .date, autocomplete: "off", required: false, hint: "Empty: until you delete it.",
                errors: errors),
            WebPages.submit("Add medication", id: "add-medication"))
        return .section(
            .class("card"), .id("medications"),
            .h2(.text("Medications")),
            .if(
                medications.isEmpty,
                .p(.class("muted"), .text("No medications. The household is reminded of each dose when it falls due."))),
            .ul(
                .class("plain-list medication-list"),
                .forEach(medications) { medication in
                    .li(
                        .class("medication"), .id("medication-\(medication.id)"),
                        .strong(.text(medication.name)),
                        .span(.class("muted"), .text(" · \(medication.dose), \(medication.interval.words)")),
                        .p(
                            .class(medication.nextDueAt.map { $0 <= now } == true ? "medication-due due" : "medication-due"),
                            .text(Self.nextDose(medication, now: now, days: days, dayWords: DateWords.writer(for: req)))),
                        .if(
                            summary.access.canLog && medication.nextDueAt != nil,
                            .form(
                                .action(WebPath.medicationDoses(medication.id)), .method(.post), WebPages.csrfField(req),
                                .input(.type(.hidden), .name("id"), .value(UUID().uuidString.lowercased())),
                                .button(.type(.submit), .class("button"), .id("give-\(medication.id)"), .text("Given")))),
                        .unwrap(medication.doses.first) { dose in
                            .p(
                                .class("muted"),
                                .text(
                                    "Last given \(CareReminders.time(dose.givenAt, days: days)) on \(DateWords.long(days.day(of: dose.givenAt), for: req))"
                                        + (dose.givenByDisplayName.map { " by \($0)" } ?? "") + "."))
                        },
                        .if(
                            summary.access.canManage,
                            .form(
                                .class("inline"), .action(WebPath.deleteMedication(medication.id)), .method(.post), WebPages.csrfField(req),
                                .button(
                                    .type(.submit), .class("button quiet"), .id("delete-\(medication.id)"),
                                    .text("Delete \(medication.name)")))))
                }),
            .if(summary.access.canManage, form))
    }

    /// "Next dose today at 20:00", "Due since 08:00", "Course ended".
    static func nextDose(
        _ medication: MedicationValue, now: Date, days: HouseholdDays, dayWords: (LocalDate) -> String
    ) -> String {
        guard let next = medication.nextDueAt else { return "Course ended." }
        let time = CareReminders.time(next, days: days)
        let day = days.day(of: next)
        let words =
            switch days.day(of: now).days(until: day) {
            case 0: "today at \(time)"
            case 1: "tomorrow at \(time)"
            case -1: "yesterday at \(time)"
            default: "\(dayWords(day)) at \(time)"
            }
        return next <= now ? "Due since \(words)." : "Next dose \(words)."
    }

    struct MedicationForm: Content {
        var name: String?
        var dose: String?
        var every: String?
        var unit: String?
        var startsAt: String?
        var until: String?
    }

    @Sendable func addMedication(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(MedicationForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            let context = try await care.context(user, pet: id, need: \.canView, on: req.db)
            guard let every = form.every.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw Problem.invalidField("every", "must be a whole number")
            }
            var until: LocalDate?
            if let text = form.until, !text.isEmpty {
                guard let day = LocalDate(text) else { throw Problem.invalidField("until", "must be a date") }
                until = day
            }
            let startsAt: Date?
            do { startsAt = try Self.localTime(form.startsAt, in: context.days) } catch {
                throw Problem.invalidField("startsAt", "must be a date and time")
            }
            _ = try await medications.create(
                user, pet: id,
                draft: MedicationDraft(
                    name: form.name ?? "", dose: form.dose ?? "", every: every, unit: form.unit ?? "hours", startsAt: startsAt, until: until),
                on: req.db)
            return WebPages.redirect(WebPath.careHealth(id), flash: .medicationAdded)
        } catch let problem as Problem where problem.status == 422 {
            return try await healthPage(req, errors: FormErrors(problem), status: .unprocessableEntity)
        }
    }

    @Sendable func giveDose(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct DoseForm: Content { var id: String? }
        let id = try req.idParameter(Param.medication)
        guard let clientID = try req.content.decode(DoseForm.self).id.flatMap(UUID.init(text:)) else {
            throw Problem.invalidField("id", "must be a dose id")
        }
        let (medication, _) = try await medications.give(user, medication: id, clientID: clientID, givenAt: nil, on: req.db)
        return WebPages.redirect(WebPath.careHealth(medication.pet), flash: .doseGiven)
    }

    @Sendable func deleteMedication(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.medication)
        let pet = try await medications.pet(user, medication: id, on: req.db)
        try await medications.delete(user, medication: id, on: req.db)
        return WebPages.redirect(WebPath.careHealth(pet), flash: .medicationDeleted)
    }

    // MARK: The inbox and Home

    /// "Mark as fed" under a feeding reminder the member may answer, until the pet is fed;
    /// then who fed it.
    static func inboxItem(_ req: Request, _ item: NotificationValue, services: PawpackServices) async throws -> Node<HTML.BodyContext>? {
        guard item.kind == .feeding, let pet = item.pet else { return nil }
        let user = try req.requireWebUser().user
        guard let context = try? await services.care.context(user, pet: pet, need: \.canLog, on: req.db) else { return nil }
        let last = try await FeedRecord.query(on: req.db).filter(\.$pet.$id == pet).sort(\.$activity, .descending).with(\.$fedBy).first()
        if let last, last.createdAt >= item.createdAt {
            let who = last.$fedBy.id == user.id ? "you" : (last.fedBy?.displayName ?? "someone")
            return .p(
                .class("inbox-answer muted"), .id("fed-\(item.id)"),
                .text("Fed by \(who) at \(CareReminders.time(last.fedAt, days: context.days))."))
        }
        return .form(
            .class("inbox-answer"), .action(WebPath.careFeeds(pet)), .method(.post), WebPages.csrfField(req),
            // The notification's id is the feed's: a second tap, or the push's button, logs nothing more.
            .input(.type(.hidden), .name("id"), .value(item.id.description)),
            .input(.type(.hidden), .name("back"), .value(WebPath.notifications)),
            .button(.type(.submit), .class("button"), .id("mark-fed-\(item.id)"), .text("Mark \(context.pet.name) as fed")))
    }

    /// The doses due now across the member's pets, for Home.
    static func dosesDue(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        let user = try req.requireWebUser().user
        let now = services.care.clock.now()
        var due: [(pet: String, medication: MedicationValue)] = []
        for pet in try await services.care.caredPets(of: user, on: req.db) {
            let context = try await services.care.context(user, pet: pet, need: \.canView, on: req.db)
            guard context.access.canLog else { continue }
            for medication in try await services.medications.values(of: context, on: req.db) {
                if let next = medication.nextDueAt, next <= now { due.append((context.pet.name, medication)) }
            }
        }
        guard !due.isEmpty else { return [] }
        return [
            .section(
                .happeningSoon, id: "home-doses", title: due.count == 1 ? "A dose is due" : "\(due.count) doses are due",
                .ul(
                    .class("plain-list"),
                    .forEach(due) { entry in
                        .li(
                            .a(
                                .href(WebPath.careHealth(entry.medication.pet)),
                                .text("\(entry.pet): \(entry.medication.name), \(entry.medication.dose)")))
                    }))
        ]
    }
}
