import Foundation
import PawpackCore
import Plot
import Vapor

/// Care's pages: the tab's card per pet, a pet's care (logging with a choice of portion and
/// time, foods and stock, settings, sharing), its history by day, its health (the 14-day intake
/// and the weights, drawn by the server with the numbers as text beside). Every form works
/// without JavaScript; the script keeps the cards live and counts down to the next feed.
struct CarePages {
    let care: CareService
    let medications: MedicationService

    var pets: PetService { care.pets }
    var families: FamilyService { care.families }

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.care.pathComponents, use: dashboard)
        routes.get(WebPath.carePet(Param.pet).pathComponents) { req in try await petPage(req) }
        routes.post(WebPath.careFeeds(Param.pet).pathComponents, use: logFeed)
        routes.post(WebPath.deleteFeed(Param.feed).pathComponents, use: deleteFeed)
        routes.get(WebPath.careHistory(Param.pet).pathComponents, use: history)
        routes.get(WebPath.careHealth(Param.pet).pathComponents) { req in try await healthPage(req) }
        routes.post(WebPath.careWeights(Param.pet).pathComponents, use: logWeight)
        routes.post(WebPath.careSettings(Param.pet).pathComponents, use: saveSettings)
        routes.post(WebPath.careFoods(Param.pet).pathComponents, use: addFood)
        routes.post(WebPath.foodStock(Param.food).pathComponents, use: changeStock)
        routes.post(WebPath.foodLowAlert(Param.food).pathComponents, use: setLowAlert)
        routes.post(WebPath.deleteFood(Param.food).pathComponents, use: deleteFood)
        routes.post(WebPath.editFood(Param.food).pathComponents, use: editFood)
        routes.post(WebPath.careShare(Param.pet).pathComponents, use: share)
        routes.get(WebPath.careLogCSV(Param.pet).pathComponents, use: csv)
        registerMedications(on: routes)
    }

    // MARK: The tab

    @Sendable func dashboard(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let summaries = try await care.dashboard(user, on: req.db)
        let cards = try await pets.cards(ofPets: summaries.map(\.pet), on: req.db)
        let now = care.clock.now()
        return WebPages.page(
            req, title: "Care",
            main: .group(
                .if(
                    summaries.isEmpty,
                    .div(
                        .class("empty"), .id("care-empty"), Icon.bowl.node(),
                        .p(.text("Add a pet to log its feeds, or join your family's with its code to share the feeding.")),
                        .a(.class("button"), .href(WebPath.newPet), .text("Add a pet")), .text(" "),
                        .a(.class("button secondary"), .href(WebPath.families), .text("Join a family")))),
                .div(
                    .class("care-cards"), .id("care-cards"),
                    .forEach(summaries) { CareViews.card(req, $0, card: cards[$0.pet], now: now, me: me, back: WebPath.care) }),
                .p(
                    .class("care-links"),
                    .a(.class("button quiet"), .id("care-families"), .href(WebPath.families), Icon.person.node(), .text(" Family and sharing")),
                    .text(" "),
                    .a(.class("button quiet"), .id("care-your-pets"), .href(WebPath.pets), Icon.dog.node(), .text(" Your pets")))
            ))
    }

    /// Home: the pets whose feed is due or overdue, with their buttons.
    static func home(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let due = try await services.care.dashboard(user, on: req.db).filter { $0.state != .fed && $0.access.canLog && !$0.foods.isEmpty }
        var cards: [HomeCard] = []
        if !due.isEmpty {
            let now = services.care.clock.now()
            let photos = try await services.pets.cards(ofPets: due.map(\.pet), on: req.db)
            cards.append(
                .section(
                    .happeningSoon, id: "home-feeds", title: due.count == 1 ? "\(due[0].petName) is waiting to eat" : "Feeds due",
                    .div(
                        .class("care-cards"),
                        .forEach(due) { CareViews.card(req, $0, card: photos[$0.pet], now: now, me: me, back: WebPath.home) })))
        }
        let requests = try await services.families.joinRequests(for: user, on: req.db).filter(\.incoming)
        if !requests.isEmpty {
            cards.append(
                .section(
                    .answerNeeded, id: "home-join-requests",
                    title: requests.count == 1 ? "A request to join your family" : "\(requests.count) requests to join your family",
                    .ul(.class("plain-list"), .forEach(requests) { FamilyPages.requestItem(req, $0) })))
        }
        return cards
    }

    // MARK: A pet's care

    struct FeedForm: Content {
        var id: String?
        var food: String?
        /// A share of a packet (wet food).
        var portion: String?
        var grams: String?
        /// `datetime-local` in the household's time zone; now when empty.
        var time: String?
        /// The instant (RFC 3339) a feed kept offline was logged, when `time` is empty: the
        /// service worker sends it later with this (`sw.js`).
        var at: String?
        var logAnyway: String?
        var back: String?
    }

    /// A pet's care page; `editing`: the food whose form is open (its errors shown there).
    func petPage(
        _ req: Request, pet: Pet.ID? = nil, errors: FormErrors = [], status: HTTPResponseStatus = .ok, editing: Care.Food.ID? = nil
    ) async throws -> Response {
        let user = try req.requireWebUser().user
        let id = try pet ?? req.idParameter(Param.pet)
        let summary = try await care.summary(user, pet: id, on: req.db)
        let card = try await pets.cards(ofPets: [id], on: req.db)[id]
        let myFamilies = summary.access.canShare ? try await families.families(of: user, on: req.db) : []
        let now = care.clock.now()
        let here = WebPath.carePet(id)
        return WebPages.page(
            req, title: summary.petName, status: status, errors: errors, back: (WebPath.care, "Care"),
            main: .group(
                CareViews.card(req, summary, card: card, now: now, me: try user.requireID(), heading: false, back: here),
                .if(summary.access.canLog && !summary.foods.isEmpty, feedForm(req, summary, errors: errors)),
                .nav(
                    .class("care-links"),
                    .a(.class("button quiet"), .href(WebPath.careHistory(id)), .text("History")), .text(" "),
                    .a(.class("button quiet"), .href(WebPath.careHealth(id)), .text("Health and weight")), .text(" "),
                    .a(
                        .class("button quiet"), .href(WebPath.careLogCSV(id)), .attribute(named: "download", value: "feeds.csv"),
                        .text("Download the log (CSV)"))),
                foodsSection(req, summary, errors: errors, editing: editing),
                .if(summary.access.canManage, settingsForm(req, summary, errors: errors)),
                .if(summary.access.canShare, shareSection(req, summary, families: myFamilies)),
                .unwrap(summary.dietaryNotes) { notes in
                    .if(!summary.access.canManage, .section(.class("card"), .h2(.text("Dietary notes")), .p(.text(notes))))
                }
            ))
    }

    private func feedForm(_ req: Request, _ summary: CareSummaryValue, errors: FormErrors) -> Node<HTML.BodyContext> {
        let foods = summary.foods
        let hasWet = foods.contains { $0.kind == .wet }
        let hasDry = foods.contains { $0.kind == .dry }
        return .form(
            .class("card"), .id("feed-form"), .action(WebPath.careFeeds(summary.pet)), .method(.post),
            WebPages.csrfField(req),
            .h2(.text("Log a feed")),
            .input(.type(.hidden), .name("id"), .value(UUID().text(uppercase: false))),
            .input(.type(.hidden), .name("back"), .value(WebPath.carePet(summary.pet))),
            FormControls.select(
                "Food", name: "food", options: foods.map { ($0.id.description, "\($0.name) (\($0.kind == .wet ? "wet" : "dry"))") },
                selected: foods.first?.id.description ?? "", errors: errors),
            .div(
                .class("row"),
                .if(
                    hasWet,
                    FormControls.select(
                        "Portion (wet food)", name: "portion",
                        options: [("", "Its usual"), ("0.25", "¼ packet"), ("0.5", "½ packet"), ("1", "1 packet")], selected: "",
                        errors: errors)),
                .if(
                    hasDry,
                    WebPages.field(
                        "Grams (dry food)", name: "grams", type: .number, autocomplete: "off", required: false,
                        hint: "Empty: its usual portion.", limits: .init(min: "1", max: "1000", step: "1"), errors: errors))),
            WebPages.field(
                "When", name: "time", type: .init(rawValue: "datetime-local") ?? .text, autocomplete: "off", required: false,
                hint: "Empty: now. In \(summary.timeZone) time; never in the future.", errors: errors),
            WebPages.submit("Log feed", id: "feed-submit"))
    }

    private func foodsSection(_ req: Request, _ summary: CareSummaryValue, errors: FormErrors, editing: Care.Food.ID?)
        -> Node<HTML.BodyContext>
    {
        .section(
            .class("card"), .id("foods"),
            .h2(.text("Foods and stock")),
            .if(summary.foods.isEmpty, .p(.class("muted"), .text("No food yet."))),
            .ul(
                .class("plain-list food-list"),
                .forEach(summary.foods) { food in
                    .li(
                        .id("food-\(food.id)"),
                        .strong(.text(food.name)),
                        .span(
                            .class("muted"),
                            .text(
                                " · \(food.kind == .wet ? "wet" : "dry")"
                                    + (food.kcal.map { " · \(Int($0.rounded())) kcal per \(food.kind == .wet ? "packet" : "100 g")" } ?? "")
                                    + " · usual \(CareViews.amount(units: food.usualUnits, kind: food.kind))")),
                        .p(
                            .class("food-stock"),
                            .text(
                                food.stockUnits.map {
                                    "\(CareViews.amount(units: $0, kind: food.kind)) left"
                                        + (food.daysLeft.map { ", runs out in about \($0) day\($0 == 1 ? "" : "s")" } ?? "")
                                } ?? "Stock not kept."),
                            .text(food.stockUnits == nil ? "" : "."),
                            .unwrap(food.lowStockUnits) { .text(" The household hears at \(CareViews.amount(units: $0, kind: food.kind)).") }),
                        .if(summary.access.canLog, stockForm(req, food)),
                        .if(summary.access.canManage, lowAlertForm(req, food)),
                        .if(summary.access.canManage, editFoodForm(req, food, open: editing == food.id, errors: errors)),
                        .if(
                            summary.access.canManage,
                            DogViews.confirm(
                                req, summary: "Delete this food", question: "Its feeds stay in the log with its name.",
                                action: WebPath.deleteFood(food.id), button: "Delete \(food.name)", id: "delete-food-\(food.id)")))
                }),
            .if(summary.access.canManage, addFoodForm(req, summary, errors: editing == nil ? errors : []))
        )
    }

    private func stockForm(_ req: Request, _ food: FoodValue) -> Node<HTML.BodyContext> {
        var units: [(String, String)] = food.kind == .wet ? [("packets", "packets")] : [("grams", "g"), ("kilograms", "kg")]
        if food.kind == .wet, food.packetsPerBox != nil { units.append(("boxes", "boxes")) }
        if food.kind == .wet, food.packetsPerBag != nil { units.append(("bags", "bags")) }
        return .form(
            .class("stock-form"), .action(WebPath.foodStock(food.id)), .method(.post), WebPages.csrfField(req),
            .label(.for("amount-\(food.id)"), .class("visually-hidden"), .text("Amount of \(food.name)")),
            .input(
                .type(.number), .name("amount"), .id("amount-\(food.id)"), .attribute(named: "min", value: "0"),
                .attribute(named: "step", value: food.kind == .wet ? "0.25" : "1"), .attribute(named: "required", value: "required"),
                .attribute(named: "placeholder", value: "Amount")),
            .label(.for("unit-\(food.id)"), .class("visually-hidden"), .text("Unit")),
            .element(
                named: "select",
                nodes: [
                    .attribute(named: "name", value: "unit"), .attribute(named: "id", value: "unit-\(food.id)"),
                    .forEach(units) { .element(named: "option", nodes: [.attribute(named: "value", value: $0.0), .text($0.1)]) },
                ]),
            .button(.type(.submit), .name("action"), .value("add"), .class("button secondary small"), .text("Add a purchase")),
            .button(.type(.submit), .name("action"), .value("set"), .class("button quiet small"), .text("Set what is left")))
    }

    private func lowAlertForm(_ req: Request, _ food: FoodValue) -> Node<HTML.BodyContext> {
        .form(
            .class("stock-form"), .action(WebPath.foodLowAlert(food.id)), .method(.post), WebPages.csrfField(req),
            .label(.for("low-\(food.id)"), .text("Alert the household at")),
            .input(
                .type(.number), .name("lowStockAt"), .id("low-\(food.id)"), .attribute(named: "min", value: "0"),
                .attribute(named: "step", value: food.kind == .wet ? "0.25" : "1"),
                .value(food.lowStockUnits.map { food.kind == .wet ? Self.number(food.kind.amount(of: $0)) : "\($0)" } ?? "")),
            .span(.text(food.kind == .wet ? " packets " : " g ")),
            .button(.type(.submit), .class("button quiet small"), .text("Save")))
    }

    struct FoodForm: Content {
        var name: String?
        var kind: String?
        var kcal: String?
        var packetsPerBox: String?
        var packetsPerBag: String?
        var usual: String?

        /// The food as typed, for a food of `kind` (a new one's, or the one edited); an empty
        /// field is nil, left as it is.
        func draft(kind: FoodKind) throws -> FoodDraft {
            let number = { (field: String, text: String?) throws -> Double? in
                guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
                guard let value = Double(text.replacingOccurrences(of: ",", with: ".")) else { throw Problem.invalidField(field, "must be a number") }
                return value
            }
            let whole = { (field: String, text: String?) throws -> Int? in
                try number(field, text).map { value throws -> Int in
                    guard let count = Int(exactly: value) else { throw Problem.invalidField(field, "must be a whole number") }
                    return count
                }
            }
            let usual = try number("usual", self.usual).map { value throws -> Portion in
                guard kind == .dry else { return .packets(value) }
                guard let grams = Int(exactly: value) else { throw Problem.invalidField("usual", "must be whole grams") }
                return .grams(grams)
            }
            return FoodDraft(
                name: name, kcal: try number("kcal", kcal), packetsPerBox: try whole("packetsPerBox", packetsPerBox),
                packetsPerBag: try whole("packetsPerBag", packetsPerBag), usualPortion: usual)
        }
    }

    /// A food's name, kcal, usual portion, and its box and bag sizes (wet), changed in place.
    private func editFoodForm(_ req: Request, _ food: FoodValue, open: Bool, errors: FormErrors) -> Node<HTML.BodyContext> {
        let prefix = "food-\(food.id)"
        let shown = open ? errors : []
        return .element(
            named: "details",
            nodes: [
                .class("edit-food"), .attribute(named: "open", value: open ? "open" : nil),
                .element(named: "summary", nodes: [.id("\(prefix)-edit-open"), .text("Edit \(food.name)")]),
                .form(
                    .action(WebPath.editFood(food.id)), .method(.post), WebPages.csrfField(req),
                    WebPages.field(
                        "Name", name: "name", value: food.name, autocomplete: "off", idPrefix: prefix, limits: .init(maxLength: 60), errors: shown),
                    WebPages.field(
                        "Kcal", name: "kcal", type: .number, value: food.kcal.map(Self.number), autocomplete: "off", required: false,
                        hint: "Per packet (wet) or per 100 g (dry), from the label.", idPrefix: prefix,
                        limits: .init(min: "1", max: "2000"), errors: shown),
                    WebPages.field(
                        "Usual portion", name: "usual", type: .number,
                        value: food.kind == .wet ? Self.number(food.kind.amount(of: food.usualUnits)) : "\(food.usualUnits)",
                        autocomplete: "off", required: false, hint: food.kind == .wet ? "0.25, 0.5 or 1 packet." : "Grams.", idPrefix: prefix,
                        limits: .init(min: "0.25", max: "1000"), errors: shown),
                    .if(
                        food.kind == .wet,
                        .group(
                            WebPages.field(
                                "Packets per box", name: "packetsPerBox", type: .number, value: food.packetsPerBox.map(String.init),
                                autocomplete: "off", required: false, idPrefix: prefix, limits: .init(min: "1", max: "200", step: "1"),
                                errors: shown),
                            WebPages.field(
                                "Packets per bag", name: "packetsPerBag", type: .number, value: food.packetsPerBag.map(String.init),
                                autocomplete: "off", required: false, idPrefix: prefix, limits: .init(min: "1", max: "200", step: "1"),
                                errors: shown))),
                    WebPages.submit("Save \(food.name)", id: "\(prefix)-save")),
            ])
    }

    private func addFoodForm(_ req: Request, _ summary: CareSummaryValue, errors: FormErrors) -> Node<HTML.BodyContext> {
        .element(
            named: "details",
            nodes: [
                .class("add-food"), .attribute(named: "open", value: summary.foods.isEmpty ? "open" : nil),
                .element(named: "summary", nodes: [.id("add-food-open"), .text("Add a food")]),
                .form(
                    .action(WebPath.careFoods(summary.pet)), .method(.post), WebPages.csrfField(req),
                    WebPages.field("Name", name: "name", autocomplete: "off", limits: .init(maxLength: 60), errors: errors),
                    FormControls.select(
                        "Kind", name: "kind", options: [("wet", "Wet: packets or pouches"), ("dry", "Dry: weighed in grams")],
                        selected: "wet", errors: errors),
                    WebPages.field(
                        "Kcal", name: "kcal", type: .number, autocomplete: "off", required: false,
                        hint: "Per packet (wet) or per 100 g (dry), from the label.", limits: .init(min: "1", max: "2000"), errors: errors),
                    WebPages.field(
                        "Usual portion", name: "usual", type: .number, autocomplete: "off", required: false,
                        hint: "Wet: 0.25, 0.5 or 1 packet (1 when empty). Dry: grams (50 when empty).",
                        limits: .init(min: "0.25", max: "1000"), errors: errors),
                    WebPages.field(
                        "Packets per box", name: "packetsPerBox", type: .number, autocomplete: "off", required: false,
                        hint: "Wet food bought by the box: purchases can then be counted in boxes.",
                        limits: .init(min: "1", max: "200", step: "1"), errors: errors),
                    WebPages.field(
                        "Packets per bag", name: "packetsPerBag", type: .number, autocomplete: "off", required: false,
                        hint: "Wet food bought by the bag: purchases can then be counted in bags.",
                        limits: .init(min: "1", max: "200", step: "1"), errors: errors),
                    WebPages.submit("Add food", id: "add-food")),
            ])
    }

    private func settingsForm(_ req: Request, _ summary: CareSummaryValue, errors: FormErrors) -> Node<HTML.BodyContext> {
        let calories = summary.calories
        return .form(
            .class("card"), .id("care-settings"), .action(WebPath.careSettings(summary.pet)), .method(.post), WebPages.csrfField(req),
            .h2(.text("Feeding settings")),
            WebPages.field(
                "Hours between feeds", name: "feedingGapHours", type: .number, value: Self.number(summary.feedingGapHours),
                autocomplete: "off", hint: "After a whole portion; half a packet lasts half as long.",
                limits: .init(min: "1", max: "48", step: "0.25"), errors: errors),
            WebPages.field(
                "Time zone", name: "timeZone", value: summary.ownTimeZone, autocomplete: "off",
                required: false,
                hint: summary.family.map { "Its days follow the family \($0.name)'s time zone, \(summary.timeZone)." }
                    ?? (summary.ownTimeZone == nil
                        ? "Empty: the owner's own time zone, now \(summary.timeZone). Or where its days begin at midnight, such as Europe/Oslo."
                        : "Where its days begin at midnight, such as Europe/Oslo; empty: the owner's own time zone."),
                limits: .init(maxLength: 64), errors: errors),
            WebPages.field(
                "Energy factor", name: "energyFactor", type: .number, value: calories.factorIsDefault ? nil : calories.factor.map(Self.number),
                autocomplete: "off", required: false,
                hint: "Daily need = factor × 70 × kg^0.75. Empty: the usual factor for its kind and age"
                    + (calories.factorIsDefault ? (calories.factor.map { " (\(Self.number($0)))." } ?? ".") : "."),
                limits: .init(min: "0.5", max: "5", step: "0.05"), errors: errors),
            WebPages.field(
                "Vaccination reminders, days before", name: "vaccinationReminderDays", type: .number,
                value: String(summary.vaccinationReminderDays), autocomplete: "off",
                hint: "The household hears this many days before a vaccination's next due date.",
                limits: .init(min: "0", max: "60", step: "1"), errors: errors),
            FormControls.textarea(
                "Dietary notes", name: "dietaryNotes", id: "dietaryNotes", value: summary.dietaryNotes, maxLength: 1_000, errors: errors),
            WebPages.submit("Save settings", id: "save-care-settings"))
    }

    private func shareSection(_ req: Request, _ summary: CareSummaryValue, families: [FamilyValue]) -> Node<HTML.BodyContext> {
        .section(
            .class("card"), .id("care-share"),
            .h2(.text("Shared with")),
            .unwrap(
                summary.family,
                { family in
                    .form(
                        .action(WebPath.careShare(summary.pet)), .method(.post), WebPages.csrfField(req),
                        .p(.text("The family "), .a(.href(WebPath.family(family.id)), .text(family.name)), .text(" sees and logs its care.")),
                        .input(.type(.hidden), .name("family"), .value("")),
                        .button(.type(.submit), .class("button secondary"), .id("unshare"), .text("Stop sharing")))
                },
                else: .if(
                    families.isEmpty,
                    .p(
                        .text("Nobody else sees its care. "), .a(.href(WebPath.families), .text("Make a family")),
                        .text(" to share it with your household.")),
                    else: .form(
                        .action(WebPath.careShare(summary.pet)), .method(.post), WebPages.csrfField(req),
                        FormControls.select(
                            "Family", name: "family", options: families.map { ($0.id.description, $0.name) },
                            selected: families.first?.id.description ?? ""),
                        .button(.type(.submit), .class("button"), .id("share"), .text("Share its care"))))))
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    // MARK: Logging

    @Sendable func logFeed(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(FeedForm.self)
        let id = try req.idParameter(Param.pet)
        let back = WebPages.safeNext(form.back) ?? WebPath.carePet(id)
        do {
            guard let clientID = form.id.flatMap(UUID.init(text:)) else { throw Problem.invalidField("id", "must be a feed id") }
            // No food: the usual feed ("Mark as fed" from a reminder, in the inbox or a push).
            let food = try form.food.map { text in
                guard let food = Care.Food.ID(string: text) else { throw Problem.invalidField("food", "choose a food") }
                return food
            }
            let portion = try Self.portion(packets: form.portion, grams: form.grams)
            let context = try await care.context(user, pet: id, need: \.canView, on: req.db)
            let fedAt = try Self.localTime(form.time, in: context.days) ?? Self.instant(form.at)
            _ = try await care.logFeeds(
                user, [FeedDraft(clientID: clientID, pet: id, food: food, portion: portion, fedAt: fedAt)],
                logAnyway: form.logAnyway == "1", on: req.db)
            return WebPages.redirect(back, flash: .fed)
        } catch let problem as Problem where problem.code == .recentlyFed {
            return askFirst(req, problem: problem, form: form, pet: id, back: back)
        } catch let problem as Problem where problem.status == 422 {
            return try await petPage(
                req, errors: FormErrors(problem.renamingFields(["foodId": "food", "fedAt": "time"])), status: .unprocessableEntity)
        }
    }

    /// "Sam fed Miso 12 minutes ago. Log anyway?": the same feed again, with its id, or back.
    private func askFirst(_ req: Request, problem: Problem, form: FeedForm, pet: Pet.ID, back: String) -> Response {
        WebPages.page(
            req, title: "Fed a moment ago", status: .conflict, back: (back, "Back"),
            main: .section(
                .class("card"), .id("recently-fed"),
                .p(.text(problem.errors.map(\.message).joined(separator: " "))),
                .p(.text("Log this feed as well?")),
                .form(
                    .action(WebPath.careFeeds(pet)), .method(.post), WebPages.csrfField(req),
                    .forEach(
                        [("id", form.id), ("food", form.food), ("portion", form.portion), ("grams", form.grams), ("time", form.time)]
                    ) { field in .unwrap(field.1) { .input(.type(.hidden), .name(field.0), .value($0)) } },
                    .input(.type(.hidden), .name("logAnyway"), .value("1")),
                    .input(.type(.hidden), .name("back"), .value(back)),
                    .button(.type(.submit), .class("button"), .id("log-anyway"), .text("Log anyway")), .text(" "),
                    .a(.class("button secondary"), .href(back), .id("do-not-log"), .text("Don't log")))))
    }

    /// An RFC 3339 instant, with or without fractions of a second; nil when empty.
    static func instant(_ text: String?) throws -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.utf8.count <= 40,
            let date = (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
        else { throw Problem.invalidField("time", "must be a date and time") }
        return date
    }

    static func portion(packets: String?, grams: String?) throws -> Portion? {
        if let packets = packets?.trimmingCharacters(in: .whitespaces), !packets.isEmpty {
            guard let value = Double(packets) else { throw Problem.invalidField("portion", "must be ¼, ½ or 1 packet") }
            return .packets(value)
        }
        if let grams = grams?.trimmingCharacters(in: .whitespaces), !grams.isEmpty {
            guard let value = Int(grams) else { throw Problem.invalidField("grams", "must be whole grams") }
            return .grams(value)
        }
        return nil
    }

    /// A `datetime-local` value read in the household's time zone; nil (now) when empty.
    static func localTime(_ text: String?, in days: HouseholdDays) throws -> Date? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        let parts = text.split(separator: "T")
        guard parts.count == 2, let day = LocalDate(String(parts[0])) else {
            throw Problem.invalidField("time", "must be a date and time")
        }
        // HH:MM, and the seconds some browsers add (SS or SS.sss), nothing else.
        let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        let digits = { (text: Substring) in text.count == 2 && text.allSatisfy { $0.isASCII && $0.isNumber } }
        guard (2...3).contains(fields.count), digits(fields[0]), digits(fields[1]),
            fields.count == 2 || digits(fields[2].prefix { $0 != "." }),
            let hour = Int(fields[0]), let minute = Int(fields[1]), (0..<24).contains(hour), (0..<60).contains(minute)
        else { throw Problem.invalidField("time", "must be a date and time") }
        let clock = [hour, minute]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = days.timeZone
        guard
            let date = calendar.date(
                from: DateComponents(year: day.year, month: day.month, day: day.day, hour: clock[0], minute: clock[1]))
        else { throw Problem.invalidField("time", "must be a date and time") }
        return date
    }

    @Sendable func deleteFeed(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct Back: Content { var back: String? }
        let back = WebPages.safeNext(try req.content.decode(Back.self).back) ?? WebPath.care
        try await care.deleteFeed(user, feed: try req.idParameter(Param.feed), on: req.db)
        return WebPages.redirect(back, flash: .feedDeleted)
    }

    // MARK: History

    @Sendable func history(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let id = try req.idParameter(Param.pet)
        let cursor = req.query[String.self, at: "cursor"]
        let summary = try await care.summary(user, pet: id, on: req.db)
        let page = try await care.history(user, pet: id, limit: 50, cursor: cursor, on: req.db)
        let days = Dictionary(grouping: page.items, by: \.day).sorted { $0.key > $1.key }
        let here = WebPath.careHistory(id)
        return WebPages.page(
            req, title: "\(summary.petName)'s feeds", back: (WebPath.carePet(id), summary.petName),
            main: .group(
                .if(
                    page.items.isEmpty,
                    .div(
                        .class("empty"), Icon.bowl.node(), .p(.text("No feeds logged yet.")),
                        .a(.class("button"), .href(WebPath.carePet(id)), .text("Log a feed")))),
                .forEach(days) { entry in
                    .section(
                        .class("card history-day"),
                        .h2(.text(DateWords.long(entry.key, for: req))),
                        .p(.class("muted"), .text("\(Int(entry.value.map(\.kcal).reduce(0, +).rounded())) kcal in these feeds")),
                        .ul(
                            .class("plain-list care-today"),
                            .forEach(entry.value) { feed in
                                .li(
                                    .id("feed-\(feed.id)"),
                                    TimeViews.time(feed.fedAt, style: .time),
                                    .text(" · \(CareViews.amount(units: feed.units, kind: feed.kind)) \(feed.foodName) · "),
                                    .span(.class("care-who"), .text(feed.fedBy == me ? "you" : feed.fedByDisplayName ?? "a former member")),
                                    .if(feed.firstOfDay, .span(.class("badge care-first"), .text("first of the day"))),
                                    .if(
                                        summary.access.canChangeFeed(loggedByMe: feed.fedBy == me),
                                        DogViews.confirm(
                                            req, summary: "Delete", question: "Delete this feed? Its portion goes back to the stock.",
                                            action: WebPath.deleteFeed(feed.id), button: "Delete feed", id: "delete-feed-\(feed.id)",
                                            hiddenFields: [("back", here)])))
                            }))
                },
                .unwrap(page.next) { next in
                    .p(.a(.class("button quiet"), .id("history-more"), .href(here + "?cursor=\(next.text)"), .text("Older feeds")))
                }))
    }

    // MARK: Health

    func healthPage(_ req: Request, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let id = try req.idParameter(Param.pet)
        let summary = try await care.summary(user, pet: id, on: req.db)
        let weights = try await care.weights(user, pet: id, on: req.db)
        let medicationList = try await medications.list(user, pet: id, on: req.db)
        return WebPages.page(
            req, title: "\(summary.petName)'s health", status: status, errors: errors, back: (WebPath.carePet(id), summary.petName),
            main: .group(
                medicationSection(req, summary, medications: medicationList, errors: errors), intakeSection(req, summary),
                weightSection(req, summary, weights: weights, errors: errors)))
    }

    private func intakeSection(_ req: Request, _ summary: CareSummaryValue) -> Node<HTML.BodyContext> {
        let calories = summary.calories
        let average: String =
            calories.averagePerFeedingDay.map {
                "Over the last \(calories.windowDays) days it ate about \(Int($0.rounded())) kcal a day, counting only the \(calories.feedingDays) days with feeds: a day nobody logged is not counted as a day without food."
            } ?? "No feeds in the last \(calories.windowDays) days yet."
        let need: String? = calories.ideal.map { ideal in
            let kilograms = Self.number(((calories.kilograms ?? 0) * 10).rounded() / 10)
            return
                "An estimate of its daily need: about \(Int(ideal.rounded())) kcal (\(Self.number(calories.factor ?? 0)) × 70 × \(kilograms) kg^0.75). Ask your vet before changing its diet."
        }
        let caption =
            "Kcal a day, the last \(calories.windowDays) days and today" + (calories.ideal == nil ? "" : ", with the estimated need as a line")
        let rows: [Node<HTML.TableContext>] = calories.byDay.reversed().map { entry in
            .tr(.td(.text(DateWords.long(entry.day, for: req))), .td(.text(String(Int(entry.kcal.rounded())))))
        }
        let insight: Node<HTML.BodyContext> = .unwrap(summary.insight) { insight in
            .div(
                .class("notice care-insight"), .id("care-insight"), Icon.sparkle.node(), .strong(.text(" \(insight.headline)")),
                .p(.text(insight.why)))
        }
        return .section(
            .class("card"), .id("intake"),
            .h2(.text("What it eats")),
            .p(.text(CareViews.caloriesLine(calories) + ".")),
            .p(.class("muted"), .text(average)),
            .unwrap(need) { .p(.class("muted"), .text($0)) },
            .if(
                need == nil,
                .p(
                    .class("muted"),
                    .text("Log its weight (and, for pets other than cats and dogs, set its energy factor) to see an estimate of its daily need."))),
            insight,
            CareViews.figure(CareViews.intakeChart(calories), captionID: "intake-caption", caption: caption),
            .element(
                named: "details",
                nodes: [
                    .element(named: "summary", nodes: [.text("As a table")]),
                    .table(.tr(.th(.text("Day")), .th(.text("Kcal"))), .group(rows)),
                ]))
    }

    private func weightSection(_ req: Request, _ summary: CareSummaryValue, weights: [WeightValue], errors: FormErrors) -> Node<HTML.BodyContext> {
        let rows: [Node<HTML.TableContext>] = weights.reversed().prefix(20).map { weight in
            .tr(.td(.text(DateWords.long(weight.day, for: req))), .td(.text("\(Self.number(weight.kilograms)) kg")))
        }
        let form: Node<HTML.BodyContext> = .form(
            .action(WebPath.careWeights(summary.pet)), .method(.post), WebPages.csrfField(req),
            .div(
                .class("row"),
                WebPages.field(
                    "Weight in kg", name: "kilograms", type: .number, autocomplete: "off",
                    limits: .init(min: "0.05", max: "150", step: "0.01"), errors: errors),
                WebPages.field("Day", name: "date", type: .date, autocomplete: "off", required: false, hint: "Empty: today.", errors: errors)),
            WebPages.submit("Log weight", id: "log-weight"))
        return .section(
            .class("card"), .id("weights"),
            .h2(.text("Weight")),
            .if(weights.isEmpty, .p(.class("muted"), .text("No weight logged yet."))),
            .if(
                weights.count >= 2, CareViews.figure(CareViews.weightChart(weights), captionID: "weight-caption", caption: "Weight over time, in kg")),
            .if(!weights.isEmpty, .table(.tr(.th(.text("Day")), .th(.text("Weight"))), .group(rows))),
            .if(summary.access.canLog, form))
    }

    @Sendable func logWeight(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct WeightForm: Content {
            var kilograms: String?
            var date: String?
        }
        let form = try req.content.decode(WeightForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            guard let kilograms = form.kilograms.flatMap({ Double($0.replacingOccurrences(of: ",", with: ".")) }) else {
                throw Problem.invalidField("kilograms", "must be a number")
            }
            var day: LocalDate?
            if let text = form.date, !text.isEmpty {
                guard let parsed = LocalDate(text) else { throw Problem.invalidField("date", "must be a date") }
                day = parsed
            }
            _ = try await care.logWeight(user, pet: id, kilograms: kilograms, on: day, on: req.db)
            return WebPages.redirect(WebPath.careHealth(id), flash: .weightLogged)
        } catch let problem as Problem where problem.status == 422 {
            return try await healthPage(req, errors: FormErrors(problem), status: .unprocessableEntity)
        }
    }

    // MARK: Settings, foods, stock, sharing

    @Sendable func saveSettings(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct SettingsForm: Content {
            var feedingGapHours: String?
            var timeZone: String?
            var energyFactor: String?
            var dietaryNotes: String?
            var vaccinationReminderDays: String?
        }
        let form = try req.content.decode(SettingsForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            let gap = try form.feedingGapHours.map { text in
                guard let hours = Double(text) else { throw Problem.invalidField("feedingGapHours", "must be a number of hours") }
                return hours
            }
            let factorText = form.energyFactor?.trimmingCharacters(in: .whitespaces) ?? ""
            guard factorText.isEmpty || Double(factorText) != nil else { throw Problem.invalidField("energyFactor", "must be a number") }
            let zone = form.timeZone?.trimmingCharacters(in: .whitespaces)
            let leadText = form.vaccinationReminderDays?.trimmingCharacters(in: .whitespaces) ?? ""
            guard leadText.isEmpty || Int(leadText) != nil else {
                throw Problem.invalidField("vaccinationReminderDays", "must be a whole number of days")
            }
            _ = try await care.updateSettings(
                user, pet: id,
                draft: CareSettingsDraft(
                    feedingGapHours: gap, vaccinationReminderDays: Int(leadText), timeZone: zone,
                    dietaryNotes: form.dietaryNotes ?? "",
                    energyFactor: Double(factorText), defaultEnergyFactor: factorText.isEmpty), on: req.db)
            return WebPages.redirect(WebPath.carePet(id), flash: .careSaved)
        } catch let problem as Problem where problem.status == 422 {
            return try await petPage(req, errors: FormErrors(problem), status: .unprocessableEntity)
        }
    }

    @Sendable func addFood(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(FoodForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            let kind = FoodKind(rawValue: form.kind ?? "") ?? .wet
            var draft = try form.draft(kind: kind)
            draft.kind = kind
            draft.name = form.name ?? ""
            _ = try await care.addFood(user, pet: id, draft: draft, on: req.db)
            return WebPages.redirect(WebPath.carePet(id) + "#foods", flash: .foodAdded)
        } catch let problem as Problem where problem.status == 422 || problem.code == .limitReached {
            return try await petPage(
                req, errors: FormErrors(problem.renamingFields(["usualPortion": "usual"])), status: .init(statusCode: problem.status))
        }
    }

    @Sendable func changeStock(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct StockForm: Content {
            var amount: String?
            var unit: String?
            var action: String?
        }
        let form = try req.content.decode(StockForm.self)
        let foodID = try req.idParameter(Param.food)
        guard let amount = form.amount.flatMap({ Double($0.replacingOccurrences(of: ",", with: ".")) }),
            let unit = StockChange.Unit(rawValue: form.unit ?? "")
        else { throw Problem.invalidField("amount", "must be a number") }
        let food = try await care.changeStock(
            user, food: foodID, change: StockChange(action: form.action == "set" ? .set : .add, amount: amount, unit: unit), on: req.db)
        return WebPages.redirect(WebPath.carePet(food.pet) + "#foods", flash: .stockSaved)
    }

    @Sendable func setLowAlert(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct LowForm: Content { var lowStockAt: String? }
        let text = try req.content.decode(LowForm.self).lowStockAt?.trimmingCharacters(in: .whitespaces) ?? ""
        guard text.isEmpty || Double(text) != nil else { throw Problem.invalidField("lowStockAt", "must be a number") }
        let food = try await care.updateFood(
            user, food: try req.idParameter(Param.food), draft: FoodDraft(lowStockAt: Double(text) ?? 0), on: req.db)
        return WebPages.redirect(WebPath.carePet(food.pet) + "#foods", flash: .stockSaved)
    }

    @Sendable func editFood(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(FoodForm.self)
        let id = try req.idParameter(Param.food)
        let (pet, kind) = try await care.foodPetAndKind(user, food: id, on: req.db)
        do {
            _ = try await care.updateFood(user, food: id, draft: try form.draft(kind: kind), on: req.db)
            return WebPages.redirect(WebPath.carePet(pet) + "#food-\(id)", flash: .careSaved)
        } catch let problem as Problem where problem.status == 422 {
            let fields = ["name", "kcal", "usual", "packetsPerBox", "packetsPerBag"]
            return try await petPage(
                req, pet: pet,
                errors: FormErrors(problem.renamingFields(["usualPortion": "usual"]), ids: Set(fields.map { "food-\(id)-\($0)" })),
                status: .unprocessableEntity, editing: id)
        }
    }

    @Sendable func deleteFood(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.food)
        let pet = try await care.foodPet(user, food: id, on: req.db)
        try await care.deleteFood(user, food: id, on: req.db)
        return WebPages.redirect(WebPath.carePet(pet) + "#foods")
    }

    @Sendable func share(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        struct ShareForm: Content { var family: String? }
        let id = try req.idParameter(Param.pet)
        if let family = try req.content.decode(ShareForm.self).family.flatMap(Care.Family.ID.init(string:)) {
            try await families.share(user, pet: id, with: family, on: req.db)
            return WebPages.redirect(WebPath.carePet(id), flash: .shared)
        }
        let summary = try await care.summary(user, pet: id, on: req.db)
        if let family = summary.family { try await families.unshare(user, pet: id, from: family.id, on: req.db) }
        return WebPages.redirect(WebPath.carePet(id), flash: .unshared)
    }

    @Sendable func csv(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let (pet, feeds) = try await care.log(user, pet: try req.idParameter(Param.pet), on: req.db)
        let response = Response(status: .ok, body: .init(string: FeedLogCSV.text(of: feeds, pet: pet.pet.name)))
        response.headers.contentType = HTTPMediaType(type: "text", subType: "csv", parameters: ["charset": "utf-8"])
        response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"feeds.csv\"")
        return response
    }
}
