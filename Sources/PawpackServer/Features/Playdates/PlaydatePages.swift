import Foundation
import PawpackCore
import Plot
import Vapor

/// The Playdates pages: pick a dog, its deck one card at a time (like/pass forms that work
/// without JavaScript; swipe gestures with it), its preferences, requests and matches.
struct PlaydatePages {
    let playdates: PlaydateService
    var pets: PetService { playdates.pets }

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.playdates.pathComponents, use: overview)
        routes.get(WebPath.deck(Param.pet).pathComponents, use: deck)
        routes.post(WebPath.swipes(Param.pet).pathComponents, use: swipe)
        routes.post(WebPath.undoSwipe(Param.pet).pathComponents, use: undo)
        routes.get(WebPath.deckPreferences(Param.pet).pathComponents, use: preferences)
        routes.post(WebPath.deckPreferences(Param.pet).pathComponents, use: savePreferences)
        routes.get(WebPath.matchRequests.pathComponents, use: requests)
        routes.post(WebPath.acceptMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .accept) }
        routes.post(WebPath.rejectMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .reject) }
        routes.post(WebPath.cancelMatchRequest(Param.matchRequest).pathComponents) { req in try await answer(req, .cancel) }
        routes.get(WebPath.matches.pathComponents, use: matches)
        routes.post(WebPath.unmatch(Param.match).pathComponents, use: unmatch)
    }

    @Sendable func overview(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let dogs = try await pets.listMine(user, on: req.db).filter { $0.profile.species == .dog }
        return WebPages.page(req, title: "Playdates", main: .group(
            .p(.text("Find safe, compatible playmates near you. Choose the dog that is looking:")),
            .if(dogs.isEmpty, .p(.text("Add a dog first: "), .a(.href(WebPath.newPet), .text("add a pet")), .text("."))),
            .ul(.class("pet-list"), .forEach(dogs) { dog in
                .li(.a(.class("pet-summary"), .href(WebPath.deck(dog.profile.id)),
                       .span(.class("pet-name"), .text("\(dog.profile.name)'s deck"))))
            }),
            .p(.a(.id("requests-link"), .href(WebPath.matchRequests), .text("Match requests")), .text(" · "),
               .a(.id("matches-link"), .href(WebPath.matches), .text("Matches")))
        ))
    }

    @Sendable func deck(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        let petID = try req.idParameter(Param.pet)
        let pet = try await playdates.actingDog(webUser.user, pet: petID, on: req.db)
        let page: DeckPageValue
        do {
            page = try await playdates.deck(webUser.user, pet: petID, overrides: .init(), limit: 1, cursor: nil, on: req.db)
        } catch let problem as Problem where problem.code == .locationNeeded {
            return WebPages.page(req, title: "\(pet.name)'s deck", status: .conflict, errors: [problem.detail],
                                 main: .p(.a(.class("button"), .href(WebPath.account), .text("Set your location"))))
        }
        return WebPages.page(req, title: "\(pet.name)'s deck", main: .group(
            .unwrap(page.cards.first, { entry in
                .section(.class("card deck-card"), .id("deck-card"), .data(named: "pet", value: entry.pet.id.description),
                    .unwrap(entry.pet.photos.first) { photo in
                        .img(.src(WebPath.media(photo.storageKey)), .alt(entry.pet.name), .class("photo profile"))
                    },
                    .h2(.id("deck-name"), .text(entry.pet.name)),
                    .p(.text("\(PetAge.text(birthDate: entry.pet.birthDate, estimated: entry.pet.birthDateIsEstimate, today: pets.today))"),
                       .unwrap(entry.pet.breed) { .text(" · \($0)") }, .text(" · "),
                       .span(.id("deck-distance"), .text(entry.card.roundedDistance))),
                    .p(.class("muted"), .text("Score \(entry.card.score) of 100")),
                    .ul(.id("deck-reasons"), .forEach(entry.card.reasons) { .li(.text($0)) }),
                    .div(.class("actions swipe-actions"),
                        swipeForm(req, pet: petID, target: entry.pet.id, decision: "pass", title: "Pass", id: "pass-button"),
                        swipeForm(req, pet: petID, target: entry.pet.id, decision: "like", title: "Like", id: "like-button")
                    )
                )
            }, else: .p(.id("deck-empty"), .text("No more dogs nearby for now. Widen your preferences or come back later."))),
            .div(.class("actions"),
                .a(.id("preferences-link"), .href(WebPath.deckPreferences(petID)), .text("Preferences")),
                .form(.class("inline"), .action(WebPath.undoSwipe(petID)), .method(.post), WebPages.csrfField(req),
                      .button(.type(.submit), .class("link"), .id("undo-button"), .text("Undo last swipe"))),
                .a(.href(WebPath.matchRequests), .text("Requests")),
                .a(.href(WebPath.matches), .text("Matches"))
            )
        ))
    }

    private func swipeForm(_ req: Request, pet: Pet.ID, target: Pet.ID, decision: String, title: String,
                           id: String) -> Node<HTML.BodyContext> {
        .form(.action(WebPath.swipes(pet)), .method(.post), .class("swipe-form"), .data(named: "decision", value: decision),
            WebPages.csrfField(req),
            .input(.type(.hidden), .name("targetPetId"), .value(target.description)),
            .input(.type(.hidden), .name("decision"), .value(decision)),
            .button(.type(.submit), .id(id), .class(decision == "like" ? "button" : "button secondary"), .text(title))
        )
    }

    struct SwipeForm: Content {
        var targetPetId: String?
        var decision: String?
    }

    @Sendable func swipe(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        let form = try req.content.decode(SwipeForm.self)
        guard let target = form.targetPetId.flatMap(Pet.ID.init(string:)) else { throw Problem.notFound }
        let outcome = try await playdates.swipe(webUser.user, pet: petID, target: target,
                                                decision: form.decision == "like" ? .like : .pass, on: req.db)
        let flash: Flash = outcome.match != nil ? .matched : outcome.decision == .like ? .liked : .passed
        return WebPages.redirect(WebPath.deck(petID), flash: flash)
    }

    @Sendable func undo(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        try await playdates.undoLastSwipe(webUser.user, pet: petID, on: req.db)
        return WebPages.redirect(WebPath.deck(petID), flash: .undone)
    }

    // MARK: Preferences

    struct PreferencesForm: Content {
        var maxDistanceKm: String?
        var minAgeMonths: String?
        var maxAgeMonths: String?
        var neuteredOnly: String?
    }

    @Sendable func preferences(_ req: Request) async throws -> Response {
        try await preferencesPage(req, webUser: req.requireWebUser())
    }

    func preferencesPage(_ req: Request, webUser: WebUser, errors: [String] = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let petID = try req.idParameter(Param.pet)
        let pet = try await playdates.actingDog(webUser.user, pet: petID, on: req.db)
        let saved = try await playdates.preferences(webUser.user, pet: petID, on: req.db)
        return WebPages.page(req, title: "\(pet.name)'s preferences", status: status, errors: errors, main:
            .form(.id("preferences-form"), .action(WebPath.deckPreferences(petID)), .method(.post),
                WebPages.csrfField(req),
                WebPages.field("Maximum distance (km)", name: "maxDistanceKm", type: .number,
                               value: String(Int(saved.maxDistanceKm)), autocomplete: "off"),
                WebPages.field("Youngest (months, optional)", name: "minAgeMonths", type: .number,
                               value: saved.minAgeMonths.map(String.init), autocomplete: "off", required: false),
                WebPages.field("Oldest (months, optional)", name: "maxAgeMonths", type: .number,
                               value: saved.maxAgeMonths.map(String.init), autocomplete: "off", required: false),
                .label(.class("check"), .input(.type(.checkbox), .name("neuteredOnly"), .id("neuteredOnly"), .value("on"),
                                               .checked(saved.neuteredOnly)), .text(" Neutered dogs only")),
                WebPages.submit("Save preferences", id: "preferences-submit")
            ))
    }

    @Sendable func savePreferences(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let petID = try req.idParameter(Param.pet)
        let form = try req.content.decode(PreferencesForm.self)
        var preferences = try await playdates.preferences(webUser.user, pet: petID, on: req.db)
        func number(_ text: String?) -> Int? { text.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
        preferences.maxDistanceKm = form.maxDistanceKm.flatMap { Double($0) } ?? -1
        preferences.minAgeMonths = number(form.minAgeMonths)
        preferences.maxAgeMonths = number(form.maxAgeMonths)
        preferences.neuteredOnly = form.neuteredOnly == "on"
        do {
            _ = try await playdates.savePreferences(webUser.user, pet: petID, preferences, on: req.db)
            return WebPages.redirect(WebPath.deck(petID), flash: .preferences)
        } catch let problem as Problem {
            return try await preferencesPage(req, webUser: webUser, errors: WebPages.messages(for: problem),
                                             status: .init(statusCode: problem.status))
        }
    }

    // MARK: Requests and matches

    @Sendable func requests(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let incoming = try await playdates.requests(user, incoming: true, on: req.db)
        let outgoing = try await playdates.requests(user, incoming: false, on: req.db)
        typealias Action = (name: String, title: String, path: (Playdates.MatchRequest.ID) -> String)
        func row(_ request: MatchRequestValue, actions: [Action]) -> Node<HTML.ListContext> {
            .li(.class("request"),
                .text("\(request.fromPet.name) → \(request.toPet.name)"),
                .div(.class("actions"), .forEach(actions) { action in
                    .form(.class("inline"), .action(action.path(request.id)), .method(.post),
                          WebPages.csrfField(req),
                          .button(.type(.submit), .class(action.name == "accept" ? "button" : "button secondary"),
                                  .id("\(action.name)-\(request.id)"), .text(action.title)))
                }))
        }
        return WebPages.page(req, title: "Match requests", main: .group(
            .h2(.text("Waiting for you")),
            .if(incoming.isEmpty, .p(.class("muted"), .text("No requests right now."))),
            .ul(.id("incoming-requests"), .forEach(incoming) {
                row($0, actions: [("accept", "Accept", WebPath.acceptMatchRequest), ("reject", "Decline", WebPath.rejectMatchRequest)])
            }),
            .h2(.text("Sent")),
            .if(outgoing.isEmpty, .p(.class("muted"), .text("Nothing sent and unanswered."))),
            .ul(.id("outgoing-requests"), .forEach(outgoing) { row($0, actions: [("cancel", "Withdraw", WebPath.cancelMatchRequest)]) })
        ))
    }

    enum Answer { case accept, reject, cancel }

    func answer(_ req: Request, _ answer: Answer) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let requestID = try req.idParameter(Param.matchRequest)
        switch answer {
        case .accept:
            _ = try await playdates.accept(user, request: requestID, on: req.db)
            return WebPages.redirect(WebPath.matches, flash: .matched)
        case .reject:
            try await playdates.reject(user, request: requestID, on: req.db)
        case .cancel:
            try await playdates.cancel(user, request: requestID, on: req.db)
        }
        return WebPages.redirect(WebPath.matchRequests)
    }

    @Sendable func matches(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let rows = try await playdates.matches(user, on: req.db)
        return WebPages.page(req, title: "Matches", main: .group(
            .if(rows.isEmpty, .p(.class("muted"), .text("No matches yet. Like some dogs in your deck!"))),
            .ul(.id("match-list"), .forEach(rows) { match in
                .li(.class("match"),
                    .strong(.text(match.myPet.name)), .text(" & "), .strong(.text(match.otherPet.name)),
                    .span(.class("muted"), .text(" · \(match.otherPet.ownerDisplayName)")),
                    .form(.class("inline"), .action(WebPath.unmatch(match.id)), .method(.post),
                          WebPages.csrfField(req), .button(.type(.submit), .class("link"), .text("Unmatch"))))
            })
        ))
    }

    @Sendable func unmatch(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        try await playdates.unmatch(user, match: try req.idParameter(Param.match), on: req.db)
        return WebPages.redirect(WebPath.matches)
    }
}
