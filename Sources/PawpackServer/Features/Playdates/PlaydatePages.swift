import Foundation
import PawpackCore
import Plot
import Vapor

/// The Playdates pages: a dog's deck as a stack of photo cards (like/pass forms that work
/// without JavaScript; drag to swipe with it), the match screen, the pass pile, preferences,
/// requests and matches.
struct PlaydatePages {
    let playdates: PlaydateService
    var pets: PetService { playdates.pets }

    /// Cards rendered at once: the top one and those behind it, so the next is already there.
    static let cardsPerPage = 5

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.playdates.pathComponents, use: overview)
        routes.get(WebPath.deck(Param.pet).pathComponents, use: deck)
        routes.post(WebPath.swipes(Param.pet).pathComponents, use: swipe)
        routes.post(WebPath.undoSwipe(Param.pet).pathComponents, use: undo)
        routes.get(WebPath.passes(Param.pet).pathComponents, use: passes)
        routes.post(WebPath.likeFromPasses(Param.pet).pathComponents, use: likeFromPasses)
        routes.get(WebPath.deckPreferences(Param.pet).pathComponents, use: preferences)
        routes.post(WebPath.deckPreferences(Param.pet).pathComponents, use: savePreferences)
        routes.get(WebPath.matchRequests.pathComponents, use: requests)
        routes.post(WebPath.acceptMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .accept) }
        routes.post(WebPath.rejectMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .reject) }
        routes.post(WebPath.cancelMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .cancel) }
        routes.get(WebPath.matches.pathComponents, use: matches)
        routes.get(WebPath.match(Param.match).pathComponents, use: match)
        routes.post(WebPath.unmatch(Param.match).pathComponents, use: unmatch)
        routes.post(WebPath.blockOwner(Param.pet).pathComponents, use: blockOwner)
    }

    /// With one dog, straight to its deck; with none, the way to add one; else a choice.
    @Sendable func overview(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let dogs = try await pets.listMine(user, on: req.db).filter { $0.profile.species == .dog }
        if dogs.count == 1, let only = dogs.first {
            return WebPages.redirect(WebPath.deck(only.profile.id))
        }
        return WebPages.page(
            req, title: "Playdates",
            main: .group(
                .if(
                    dogs.isEmpty,
                    .div(
                        .class("empty"), .id("no-dogs"),
                        Icon.dog.node(),
                        .p(.text("Add your dog to see safe, compatible playmates nearby.")),
                        .a(.class("button"), .href(WebPath.newPet), .text("Add your dog"))),
                    else: .group(
                        .p(.class("muted"), .text("Which dog is looking for a playmate?")),
                        .ul(
                            .class("dog-list"),
                            .forEach(dogs) { dog in
                                DogViews.row(
                                    dog.card, today: pets.today,
                                    actions:
                                        .a(
                                            .class("button"), .href(WebPath.deck(dog.profile.id)), .ariaLabel("\(dog.profile.name)'s deck"),
                                            .text("Deck")))
                            }))),
                links(nil)
            ))
    }

    private func links(_ pet: Pet.ID?) -> Node<HTML.BodyContext> {
        .nav(
            .class("deck-links"), .attribute(named: "aria-label", value: "Playdates"),
            .unwrap(pet) { pet in
                .group(
                    .a(.id("preferences-link"), .href(WebPath.deckPreferences(pet)), Icon.sliders.node(), .text("Preferences")),
                    .a(.id("passes-link"), .href(WebPath.passes(pet)), Icon.undo.node(), .text("Dogs you passed"))
                )
            },
            .a(.id("requests-link"), .href(WebPath.matchRequests), Icon.paw.node(), .text("Requests")),
            .a(.id("matches-link"), .href(WebPath.matches), Icon.heart.node(), .text("Matches"))
        )
    }

    @Sendable func deck(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        let petID = try req.idParameter(Param.pet)
        let pet = try await playdates.deck.actingDog(webUser.user, pet: petID, on: req.db)
        // `?within=` looks further for this visit only (the empty deck offers it); the saved
        // preference stays.
        let within = req.query[Double.self, at: "within"].flatMap { DeckPreferences.distanceRangeKm.contains($0) ? $0 : nil }
        let page: DeckPageValue
        do {
            page = try await playdates.deck.deck(
                webUser.user, pet: petID, overrides: .init(maxDistanceKm: within), limit: Self.cardsPerPage,
                cursor: nil, on: req.db)
        } catch let problem as Problem where problem.code == .locationNeeded {
            return WebPages.page(
                req, title: "\(pet.name)'s playmates", status: .conflict,
                main: .div(
                    .class("empty"), .id("location-needed"),
                    Icon.pin.node(),
                    .p(.text("Tell Pawpack roughly where you live, and \(pet.name)'s deck fills with dogs nearby.")),
                    .a(.class("button"), .href(WebPath.accountLocation + "?next=" + WebPath.deck(petID)), .text("Set where you are"))))
        }
        let canUndo = try await playdates.canUndo(pet, on: req.db)
        // Plot builds both branches of `.if`: the stack is built only when there is a card.
        let stack: Node<HTML.BodyContext>
        if let top = page.cards.first {
            stack = .group(
                .div(
                    .class("deck"), .id("deck"), .attribute(named: "aria-label", value: "Dogs near you, one at a time"),
                    .forEach(page.cards.enumerated()) { index, entry in card(req, seeker: petID, entry: entry, isTop: index == 0) }),
                .div(
                    .class("deck-actions"),
                    .button(
                        .type(.submit), .class("round pass"), .id("pass-button"), .attribute(named: "form", value: "pass-form"),
                        .data(named: "swipe", value: "pass"), .ariaLabel("Pass on \(top.pet.name)"), Icon.cross.node()),
                    undoForm(req, pet: petID, visible: canUndo),
                    .button(
                        .type(.submit), .class("round like"), .id("like-button"), .attribute(named: "form", value: "like-form"),
                        .data(named: "swipe", value: "like"), .ariaLabel("Like \(top.pet.name)"), Icon.heart.node())))
        } else {
            // A newcomer far from everyone learns how far the deck looked, and can look further.
            let km = Int(page.maxDistanceKm.rounded())
            let further = Self.widerDistances.first { $0 > page.maxDistanceKm }
            stack = .group(
                .div(
                    .class("empty"), .id("deck-empty"),
                    Icon.paw.node(),
                    .p(
                        .text(
                            "No more dogs within \(km) km of you for now. Look further, widen \(pet.name)'s preferences, look again at the dogs you passed, or come back later."
                        )),
                    .div(
                        .class("actions"),
                        .unwrap(further) { further in
                            .a(
                                .class("button"), .id("look-further"), .href(WebPath.deck(petID) + "?within=\(Int(further))"),
                                .text("Look within \(Int(further)) km"))
                        },
                        .a(.class("button secondary"), .href(WebPath.deckPreferences(petID)), .text("Widen preferences")))),
                .div(.class("deck-actions"), undoForm(req, pet: petID, visible: canUndo)))
        }
        return WebPages.page(req, title: "\(pet.name)'s playmates", main: .group(stack, links(petID)))
    }

    /// The distances an empty deck offers to look within, nearest first.
    static let widerDistances: [Double] = [50, 100, DeckPreferences.distanceRangeKm.upperBound]

    /// Undo, on the page only when there is a swipe to undo (the deck's script shows it after
    /// a swipe it sent).
    private func undoForm(_ req: Request, pet: Pet.ID, visible: Bool) -> Node<HTML.BodyContext> {
        .form(
            .id("undo-form"), .action(WebPath.undoSwipe(pet)), .method(.post), .attribute(named: "hidden", value: visible ? nil : "hidden"),
            WebPages.csrfField(req),
            .button(.type(.submit), .class("round small"), .id("undo-button"), .ariaLabel("Undo the last swipe"), Icon.undo.node()))
    }

    /// One card: the photo filling a fixed shape, name, age, breed and distance over it, and
    /// the strongest reasons as chips. The top card's forms are what the big buttons send.
    private func card(_ req: Request, seeker: Pet.ID, entry: (card: DeckCard, pet: PetCardValue), isTop: Bool) -> Node<HTML.BodyContext> {
        let dog = entry.pet
        let age = PetAge.text(birthDate: dog.birthDate, estimated: dog.birthDateIsEstimate, today: pets.today)
        // The distance is on the card already; the chips say why this dog suits.
        let reasons = entry.card.reasons.filter { !$0.hasSuffix(" away") }.prefix(3)
        return .element(
            named: "article",
            nodes: [
                .class("deck-card"), .id(isTop ? "deck-card" : "deck-card-\(dog.id)"), .data(named: "pet", value: dog.id.description),
                .data(named: "name", value: dog.name),
                .a(
                    .href(WebPath.pet(dog.id, fromDeckOf: seeker)), .attribute(named: "draggable", value: "false"),
                    .unwrap(
                        dog.photos.first,
                        { photo in
                            .img(.src(WebPath.media(photo.storageKey)), .alt("Photo of \(dog.name)"), .attribute(named: "draggable", value: "false"))
                        },
                        else: .span(
                            .class("deck-photo-none"), .attribute(named: "role", value: "img"),
                            .attribute(named: "aria-label", value: "\(dog.name) has no photo yet"), Icon.dog.node())),
                    .span(.class("stamp like"), .attribute(named: "aria-hidden", value: "true"), .text("LIKE")),
                    .span(.class("stamp pass"), .attribute(named: "aria-hidden", value: "true"), .text("NOPE")),
                    .div(
                        .class("deck-info"),
                        .h2(.id(isTop ? "deck-name" : "deck-name-\(dog.id)"), .text(dog.name), .span(.text(", \(age)"))),
                        .p(
                            .text(
                                ([dog.breed].compactMap { $0 } + [
                                    entry.card.roundedDistance == "less than 1 km" ? "less than 1 km away" : "\(entry.card.roundedDistance) away"
                                ]).joined(separator: " · ")),
                            .span(.class("visually-hidden"), .text(". Open \(dog.name)'s profile"))),
                        .if(
                            !reasons.isEmpty,
                            .ul(
                                .class("chips"), .id(isTop ? "deck-reasons" : "deck-reasons-\(dog.id)"),
                                .forEach(Array(reasons)) { .li(.text($0.prefix(1).uppercased() + $0.dropFirst())) }))
                    )
                ),
                swipeForm(req, pet: seeker, target: dog.id, decision: "pass", isTop: isTop),
                swipeForm(req, pet: seeker, target: dog.id, decision: "like", isTop: isTop),
            ])
    }

    private func swipeForm(_ req: Request, pet: Pet.ID, target: Pet.ID, decision: String, isTop: Bool) -> Node<HTML.BodyContext> {
        .form(
            .action(WebPath.swipes(pet)), .method(.post), .class("swipe-form"), .data(named: "decision", value: decision),
            .unwrap(isTop ? "\(decision)-form" : nil) { .id($0) },
            WebPages.csrfField(req),
            .input(.type(.hidden), .name("targetPetId"), .value(target.description)),
            .input(.type(.hidden), .name("decision"), .value(decision))
        )
    }

    struct SwipeForm: Content {
        var targetPetId: String?
        var decision: String?
    }

    /// A swipe from a form (a redirect) or from the deck's script (`Accept: application/json`:
    /// where a match leads, if it made one).
    @Sendable func swipe(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        let form = try req.content.decode(SwipeForm.self)
        guard let target = form.targetPetId.flatMap(Pet.ID.init(string:)) else { throw Problem.notFound }
        let outcome = try await playdates.swipe(
            webUser.user, pet: petID, target: target,
            decision: form.decision == "like" ? .like : .pass, on: req.db)
        let matchPath = outcome.match.map { WebPath.match($0.id) }
        // Exactly JSON (HTTPMediaType's == lets a browser's `*/*` match too).
        if req.headers.accept.contains(where: { $0.mediaType.type == "application" && $0.mediaType.subType == "json" }) {
            // `message`: what the redirect's flash would have said (the script shows it).
            struct Outcome: Content {
                var match: String?
                var message: String?
            }
            let flash: Flash? = matchPath == nil && outcome.decision == .like ? .liked : nil
            let response = try await Outcome(match: matchPath, message: flash?.message).encodeResponse(for: req)
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        }
        if let matchPath { return WebPages.redirect(matchPath) }
        return WebPages.redirect(WebPath.deck(petID), flash: outcome.decision == .like ? .liked : .passed)
    }

    @Sendable func undo(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        try await playdates.undoLastSwipe(webUser.user, pet: petID, on: req.db)
        return WebPages.redirect(WebPath.deck(petID), flash: .undone)
    }

    // MARK: It's a match

    @Sendable func match(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let match = try await playdates.match(user, id: try req.idParameter(Param.match), on: req.db)
        return WebPages.page(
            req, title: "It's a match", bare: true,
            main: .section(
                .class("match-screen"), .id("match-screen"),
                .attribute(named: "aria-labelledby", value: "match-title"),
                .div(
                    .class("match-pair"),
                    .element(
                        named: "figure",
                        nodes: [
                            DogViews.avatar(match.myPet, large: true),
                            .element(named: "figcaption", nodes: [.text(match.myPet.name)]),
                        ]),
                    .element(
                        named: "figure",
                        nodes: [
                            DogViews.avatar(match.otherPet, large: true),
                            .element(named: "figcaption", nodes: [.id("match-other"), .text(match.otherPet.name)]),
                        ])),
                .h1(.id("match-title"), .text("It's a match!")),
                .p(
                    .text(
                        "\(match.myPet.name) and \(match.otherPet.name) like each other. Say hello to \(match.otherPet.ownerDisplayName) and plan a first walk together."
                    )),
                .a(.class("button"), .id("say-hello"), .href(WebPath.chat(match.chat)), Icon.chat.node(), .text("Say hello")),
                .a(.class("button secondary"), .id("keep-swiping"), .href(WebPath.deck(match.myPet.id)), .text("Keep swiping")),
                .a(.class("button quiet"), .id("view-matches"), .href(WebPath.matches), .text("See your matches"))
            ))
    }

    // MARK: The pass pile

    @Sendable func passes(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let petID = try req.idParameter(Param.pet)
        let pet = try await playdates.deck.actingDog(user, pet: petID, on: req.db)
        let page = try await playdates.passes(user, pet: petID, limit: Self.listPageSize, after: try Self.listCursor(req, "after"), on: req.db)
        let passed = page.items
        return WebPages.page(
            req, title: "Dogs \(pet.name) passed", back: (WebPath.deck(petID), "\(pet.name)'s deck"),
            main: .group(
                .if(
                    passed.isEmpty,
                    .div(
                        .class("empty"), .id("passes-empty"), Icon.undo.node(),
                        .p(.text("No dogs passed yet. A dog you pass on waits here in case you change your mind.")))),
                .ul(
                    .class("dog-list"), .id("pass-list"),
                    .forEach(passed) { dog in
                        DogViews.row(
                            dog, today: pets.today,
                            actions:
                                .form(
                                    .action(WebPath.likeFromPasses(petID)), .method(.post), WebPages.csrfField(req),
                                    .input(.type(.hidden), .name("targetPetId"), .value(dog.id.description)),
                                    .button(
                                        .type(.submit), .class("icon-button yes"), .id("like-\(dog.id)"), .ariaLabel("Like \(dog.name) after all"),
                                        Icon.heart.node())))
                    }),
                .unwrap(page.next) { Self.moreLink(WebPath.passes(petID) + "?after=\($0.text)", id: "passes-more", "More dogs passed") }
            ))
    }

    @Sendable func likeFromPasses(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        let form = try req.content.decode(SwipeForm.self)
        guard let target = form.targetPetId.flatMap(Pet.ID.init(string:)) else { throw Problem.notFound }
        let outcome = try await playdates.likeFromPasses(user, pet: petID, target: target, on: req.db)
        if let match = outcome.match { return WebPages.redirect(WebPath.match(match.id)) }
        return WebPages.redirect(WebPath.passes(petID), flash: .liked)
    }

    // MARK: Preferences

    struct PreferencesForm: Content {
        var maxDistanceKm: String?
        var minAgeYears: String?
        var minAgeMonths: String?
        var maxAgeYears: String?
        var maxAgeMonths: String?
        var sexes: [String]?
        var neuteredOnly: String?
        var sizes: [String]?
        var minWeightKg: String?
        var maxWeightKg: String?
        var playStyles: [String]?
    }

    @Sendable func preferences(_ req: Request) async throws -> Response {
        try await preferencesPage(req, webUser: req.requireWebUser())
    }

    func preferencesPage(_ req: Request, webUser: WebUser, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let petID = try req.idParameter(Param.pet)
        let pet = try await playdates.deck.actingDog(webUser.user, pet: petID, on: req.db)
        let saved = try await playdates.deck.preferences(webUser.user, pet: petID, on: req.db)
        return WebPages.page(
            req, title: "What \(pet.name) looks for", status: status, errors: errors,
            back: (WebPath.deck(petID), "\(pet.name)'s deck"),
            main:
                .form(
                    .id("preferences-form"), .action(WebPath.deckPreferences(petID)), .method(.post),
                    WebPages.csrfField(req),
                    WebPages.field(
                        "Maximum distance in km", name: "maxDistanceKm", type: .number, value: String(Int(saved.maxDistanceKm)),
                        autocomplete: "off", limits: .init(min: "1", max: "200", step: "1"), errors: errors),
                    ageFields("Youngest", prefix: "min", months: saved.minAgeMonths, errors: errors),
                    ageFields("Oldest", prefix: "max", months: saved.maxAgeMonths, errors: errors),
                    FormControls.chips(
                        "Sex", name: "sexes", options: [PetSex.female, .male].map { ($0.rawValue, PetWords.sex($0)) },
                        selected: Set((saved.sexes ?? []).map(\.rawValue)), hint: "None chosen means any."),
                    FormControls.toggle(
                        "Neutered dogs only", name: "neuteredOnly", checked: saved.neuteredOnly,
                        hint: "Dogs in Puppy Mode are never filtered on this: their neuter status is not shared yet."),
                    FormControls.chips(
                        "Size", name: "sizes", options: SizeClass.allCases.map { ($0.rawValue, PetWords.name($0).capitalized) },
                        selected: Set((saved.sizes ?? []).map(\.rawValue)), hint: "None chosen means any."),
                    .div(
                        .class("row"),
                        WebPages.field(
                            "Lightest (kg)", name: "minWeightKg", type: .number, value: saved.minWeightKg.map { String(format: "%g", $0) },
                            autocomplete: "off", required: false, limits: .init(min: "0.1", max: "150"), errors: errors),
                        WebPages.field(
                            "Heaviest (kg)", name: "maxWeightKg", type: .number, value: saved.maxWeightKg.map { String(format: "%g", $0) },
                            autocomplete: "off", required: false, limits: .init(min: "0.1", max: "150"), errors: errors)),
                    FormControls.chips(
                        "Plays", name: "playStyles", options: PlayStyle.allCases.map { ($0.rawValue, PetWords.playStyle($0)) },
                        selected: Set((saved.playStyles ?? []).map(\.rawValue)), hint: "Dogs sharing at least one; none chosen means any."),
                    WebPages.submit("Save preferences", id: "preferences-submit")
                ))
    }

    /// An age limit as years and months (`minAgeYears` and `minAgeMonths`, or `max…`).
    private func ageFields(_ legend: String, prefix: String, months: Int?, errors: FormErrors) -> Node<HTML.FormContext> {
        .fieldset(
            .element(named: "legend", text: legend),
            .div(
                .class("row"),
                WebPages.field(
                    "Years", name: "\(prefix)AgeYears", type: .number, value: months.map { String($0 / 12) },
                    autocomplete: "off", required: false, limits: .init(min: "0", max: "40", step: "1"), errors: errors),
                WebPages.field(
                    "Months", name: "\(prefix)AgeMonths", type: .number, value: months.map { String($0 % 12) },
                    autocomplete: "off", required: false, limits: .init(min: "0", max: "11", step: "1"), errors: errors)))
    }

    @Sendable func savePreferences(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        let form = try req.content.decode(PreferencesForm.self)
        var preferences = try await playdates.deck.preferences(webUser.user, pet: petID, on: req.db)
        func text(_ value: String?) -> String? {
            value.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        /// Years and months as months; nil when both are empty, -1 (refused) when unreadable.
        func age(years: String?, months: String?) -> Int? {
            guard text(years) != nil || text(months) != nil else { return nil }
            guard let y = Int(text(years) ?? "0"), let m = Int(text(months) ?? "0"), (0...11).contains(m), y >= 0 else { return -1 }
            return y * 12 + m
        }
        func weight(_ value: String?) -> Double? { text(value).map { Double($0.replacingOccurrences(of: ",", with: ".")) ?? -1 } }
        preferences.maxDistanceKm = text(form.maxDistanceKm).flatMap { Double($0) } ?? -1
        preferences.minAgeMonths = age(years: form.minAgeYears, months: form.minAgeMonths)
        preferences.maxAgeMonths = age(years: form.maxAgeYears, months: form.maxAgeMonths)
        preferences.sexes = Set((form.sexes ?? []).compactMap(PetSex.init(rawValue:)))
        preferences.neuteredOnly = form.neuteredOnly == "on"
        preferences.sizes = Set((form.sizes ?? []).compactMap(SizeClass.init(rawValue:)))
        preferences.minWeightKg = weight(form.minWeightKg)
        preferences.maxWeightKg = weight(form.maxWeightKg)
        preferences.playStyles = Set((form.playStyles ?? []).compactMap(PlayStyle.init(rawValue:)))
        do {
            _ = try await playdates.deck.savePreferences(webUser.user, pet: petID, preferences.validated(), on: req.db)
            return WebPages.redirect(WebPath.deck(petID), flash: .preferences)
        } catch let problem as Problem {
            // The form asks for ages in years and months: errors about an age stand by its years.
            let renamed = problem.renamingFields(["minAgeMonths": "minAgeYears", "maxAgeMonths": "maxAgeYears"])
            return try await preferencesPage(
                req, webUser: webUser, errors: FormErrors(renamed),
                status: .init(statusCode: problem.status))
        }
    }

    // MARK: Requests and matches

    @Sendable func requests(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        // Any number of dogs may like one: each list a page at a time, with its own "More".
        let incomingPage = try await playdates.requests(
            user, incoming: true, limit: Self.listPageSize, after: try Self.listCursor(req, "incomingAfter"), on: req.db)
        let outgoingPage = try await playdates.requests(
            user, incoming: false, limit: Self.listPageSize, after: try Self.listCursor(req, "outgoingAfter"), on: req.db)
        let (incoming, outgoing) = (incomingPage.items, outgoingPage.items)
        let today = pets.today
        return WebPages.page(
            req, title: "Match requests", back: (WebPath.playdates, "Playdates"),
            main: .group(
                .h2(.text("Waiting for you")),
                .if(incoming.isEmpty, .p(.class("muted"), .text("No requests right now. When another dog likes yours, it shows here."))),
                .ul(
                    .class("dog-list"), .id("incoming-requests"),
                    .forEach(incoming) { request in
                        DogViews.row(
                            request.fromPet, today: today, key: "likes \(request.toPet.name)",
                            actions: .group(
                                .form(
                                    .action(WebPath.rejectMatchRequest(request.id)), .method(.post), WebPages.csrfField(req),
                                    .button(
                                        .type(.submit), .class("icon-button"), .id("reject-\(request.id)"),
                                        .ariaLabel("Decline \(request.fromPet.name)'s request"), Icon.cross.node())),
                                .form(
                                    .action(WebPath.acceptMatchRequest(request.id)), .method(.post), WebPages.csrfField(req),
                                    .button(
                                        .type(.submit), .class("icon-button yes"), .id("accept-\(request.id)"),
                                        .ariaLabel("Accept \(request.fromPet.name)'s request"), Icon.heart.node()))))
                    }),
                .unwrap(incomingPage.next) {
                    Self.moreLink(WebPath.matchRequests + "?incomingAfter=\($0.text)", id: "incoming-more", "More requests")
                },
                .h2(.text("Sent")),
                .if(outgoing.isEmpty, .p(.class("muted"), .text("Nothing sent and unanswered."))),
                .ul(
                    .class("dog-list"), .id("outgoing-requests"),
                    .forEach(outgoing) { request in
                        DogViews.row(
                            request.toPet, today: today, line: "\(request.fromPet.name) asked",
                            actions:
                                .form(
                                    .action(WebPath.cancelMatchRequest(request.id)), .method(.post), WebPages.csrfField(req),
                                    .button(
                                        .type(.submit), .class("button secondary"), .id("cancel-\(request.id)"),
                                        .ariaLabel("Withdraw the request to \(request.toPet.name)"), .text("Withdraw"))))
                    }),
                .unwrap(outgoingPage.next) {
                    Self.moreLink(WebPath.matchRequests + "?outgoingAfter=\($0.text)#outgoing-requests", id: "outgoing-more", "More sent")
                }
            ))
    }

    /// Requests, matches and passed dogs a page shows at once; "More" shows the next.
    static let listPageSize = 20

    /// Where a list starts (`name` in the address, as its "More" link gave it).
    static func listCursor<Subject>(_ req: Request, _ name: String) throws -> ActivityCursor<Subject>? {
        guard let text = req.query[String.self, at: name], !text.isEmpty else { return nil }
        guard let cursor = try? ActivityCursor<Subject>(text: text) else { throw Problem.invalidField(name, "is not a page of this list") }
        return cursor
    }

    /// The link to a list's next page.
    static func moreLink(_ href: String, id: String, _ label: String) -> Node<HTML.BodyContext> {
        .a(.class("button quiet"), .id(id), .href(href), .text(label))
    }

    enum Answer { case accept, reject, cancel }

    func answer(_ req: Request, _ answer: Answer) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let requestID = try req.idParameter(Param.matchRequest)
        switch answer {
        case .accept:
            let match = try await playdates.accept(user, request: requestID, on: req.db)
            return WebPages.redirect(WebPath.match(match.id))
        case .reject:
            try await playdates.reject(user, request: requestID, on: req.db)
        case .cancel:
            try await playdates.cancel(user, request: requestID, on: req.db)
        }
        return WebPages.redirect(WebPath.matchRequests)
    }

    @Sendable func matches(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let after: ActivityCursor<Playdates.Match>? = try Self.listCursor(req, "after")
        let page = try await playdates.matches(user, limit: Self.listPageSize, after: after, on: req.db)
        let rows = page.items
        // A member whose matches ended (their chats stay, closed) has had matches: "yet" would
        // be untrue beside them.
        let hadMatches =
            rows.isEmpty && after == nil
            ? try await ChatRecord.query(on: req.db).involving(\.$userA.$id, \.$userB.$id, try user.requireID()).first() != nil : true
        let today = pets.today
        return WebPages.page(
            req, title: "Matches", back: (WebPath.playdates, "Playdates"),
            main: .group(
                .if(
                    rows.isEmpty,
                    .div(
                        .class("empty"), .id("matches-empty"), Icon.heart.node(),
                        .p(
                            .text(
                                hadMatches
                                    ? "No current matches. Chats with the dogs you matched before stay in Chats, closed."
                                    : "No matches yet. When a dog you like likes yours back, you meet here.")),
                        .a(.class("button"), .href(WebPath.playdates), .text("Go to your deck")))),
                .ul(
                    .class("dog-list"), .id("match-list"),
                    .forEach(rows) { match in
                        DogViews.row(
                            match.otherPet, today: today,
                            key: "with \(match.myPet.name)",
                            id: "match-\(match.id)",
                            actions: .group(
                                .a(
                                    .class("button"), .id("chat-\(match.id)"), .href(WebPath.chat(match.chat)),
                                    .ariaLabel("Chat with \(match.otherPet.ownerDisplayName) about \(match.otherPet.name)"), Icon.chat.node(),
                                    .text("Chat")),
                                DogViews.confirm(
                                    req, summary: "Unmatch",
                                    question: "Unmatch \(match.myPet.name) and \(match.otherPet.name)? You can find each other again later.",
                                    action: WebPath.unmatch(match.id), button: "Yes, unmatch", id: "unmatch-\(match.id)"),
                                DogViews.confirm(
                                    req, summary: "Block",
                                    question:
                                        "Block \(match.otherPet.ownerDisplayName)? Neither of you will see the other's dogs; this ends every match between you.",
                                    action: WebPath.blockOwner(match.otherPet.id), button: "Yes, block", id: "block-\(match.id)")))
                    }),
                .unwrap(page.next) { Self.moreLink(WebPath.matches + "?after=\($0.text)", id: "matches-more", "More matches") }
            ))
    }

    @Sendable func unmatch(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await playdates.unmatch(user, match: try req.idParameter(Param.match), on: req.db)
        return WebPages.redirect(WebPath.matches, flash: .unmatched)
    }

    @Sendable func blockOwner(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await playdates.blockOwner(user, of: try req.idParameter(Param.pet), on: req.db)
        return WebPages.redirect(WebPath.matches, flash: .blocked)
    }
}

// MARK: Another dog's page

extension PlaydatePages {
    /// Another dog's page opened from one of the member's decks (`?deck=`, `Area.petPage`):
    /// the way back to that deck, and Like and Pass as there. Nothing for a deck that is not
    /// the member's, or for the member's own dog.
    static func petPage(_ req: Request, _ page: PetPageContext, services: PawpackServices) async throws -> PetPagePart? {
        let pet = page.pet
        guard !page.isViewers, let seeker = req.query[String.self, at: "deck"].flatMap(Pet.ID.init(string:)), seeker != pet else {
            return nil
        }
        let user = try req.requireWebUser().user
        guard let dog = try? await services.deck.actingDog(user, pet: seeker, on: req.db) else { return nil }
        func swipe(_ decision: String, _ title: String, _ icon: Icon, secondary: Bool) -> Node<HTML.BodyContext> {
            .form(
                .class("inline"), .action(WebPath.swipes(seeker)), .method(.post), WebPages.csrfField(req),
                .input(.type(.hidden), .name("targetPetId"), .value(pet.description)),
                .input(.type(.hidden), .name("decision"), .value(decision)),
                .button(.type(.submit), .class(secondary ? "button secondary" : "button"), .id("profile-\(decision)"), icon.node(), .text(title)))
        }
        return PetPagePart(
            back: (WebPath.deck(seeker), "\(dog.name)'s deck"),
            actions: .div(
                .class("actions profile-swipe"), swipe("pass", "Pass", .cross, secondary: true), swipe("like", "Like", .heart, secondary: false)))
    }
}

// MARK: Home

extension PlaydatePages {
    /// Playdates on Home (`Area.home`): until a first deck works, the checklist of what it
    /// needs, ticked as it is done; the requests waiting for the member's answer; each dog's
    /// deck.
    static func home(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        let user = try req.requireWebUser().user
        let mine = try await services.pets.listMine(user, on: req.db)
        let dogs = mine.filter { $0.profile.species == .dog && $0.role == .owner }
        // A member with pets but no dog is offered no playdate: Playdates is for dogs.
        if dogs.isEmpty, !mine.isEmpty { return [] }
        let firstDog = dogs.first
        let hasPhoto = dogs.contains { !$0.photos.isEmpty }
        let located = user.latitude != nil
        let swiped = try await services.playdates.hasSwiped(dogs.map(\.profile.id), on: req.db)
        typealias Step = (id: String, title: String, done: Bool, path: String)
        let steps: [Step] = [
            ("step-dog", "Add your dog", firstDog != nil, WebPath.newPet),
            (
                "step-photo", firstDog.map { "Add a photo of \($0.profile.name)" } ?? "Add a photo", hasPhoto,
                firstDog.map { WebPath.pet($0.profile.id) } ?? WebPath.newPet
            ),
            ("step-location", "Say where you are", located, WebPath.accountLocation),
            ("step-deck", "Like a dog in your deck", swiped, WebPath.playdates),
        ]
        let remaining = steps.filter { !$0.done }.count
        let waiting = req.waitingRequests
        var cards: [HomeCard] = []
        if remaining > 0 {
            cards.append(
                .section(
                    .firstSteps, id: "checklist",
                    title: remaining == steps.count ? "Let's get your first playdate going" : "Almost there: \(remaining) to go",
                    .ul(
                        .class("checklist"),
                        .forEach(steps) { step in
                            .li(
                                .class(step.done ? "done" : "todo"), .id(step.id),
                                .span(.class("tick"), .if(step.done, Icon.check.node())),
                                .if(
                                    step.done,
                                    .span(.class("step"), .text(step.title), .span(.class("visually-hidden"), .text(" (done)"))),
                                    else: .a(.href(step.path), .text(step.title))))
                        })))
        }
        if waiting > 0 {
            cards.append(
                .section(
                    .answerNeeded, id: "waiting",
                    title: waiting == 1 ? "A dog wants to meet yours" : "\(waiting) dogs want to meet yours",
                    .a(.class("button"), .href(WebPath.matchRequests), .text("See requests"))))
        }
        if !dogs.isEmpty {
            cards.append(
                .section(
                    .explore, id: "your-dogs", title: "Find playmates",
                    .ul(
                        .class("dog-list"),
                        .forEach(dogs) { dog in
                            DogViews.row(
                                dog.card, today: services.pets.today,
                                actions:
                                    .a(
                                        .class("button"), .href(WebPath.deck(dog.profile.id)), .ariaLabel("Open \(dog.profile.name)'s deck"),
                                        .text("Deck")))
                        })))
        }
        return cards
    }
}
