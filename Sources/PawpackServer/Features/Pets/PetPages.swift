import Foundation
import PawpackCore
import Plot
import Vapor

/// The pet pages of the web app: my pets, add/edit (with photo upload and preview), the pet
/// page (public card or owner view), vaccinations with the welfare mode, and guardians.
/// Every handler calls the services the API calls.
struct PetPages {
    let pets: PetService
    let vaccinations: VaccinationService
    let guardians: GuardianService
    let config: Config

    func register(on routes: any RoutesBuilder) {
        let uploadLimit = ByteCount(value: config.maximumUploadBytes + 256 * 1024)
        routes.get(WebPath.pets.pathComponents, use: list)
        routes.get(WebPath.newPet.pathComponents) { req in try editPage(req, webUser: req.requireWebUser(), pet: nil) }
        routes.on(.POST, WebPath.pets.pathComponents, body: .collect(maxSize: uploadLimit), use: create)
        routes.get(WebPath.pet(Param.pet).pathComponents, use: show)
        routes.get(WebPath.editPet(Param.pet).pathComponents, use: edit)
        routes.post(WebPath.editPet(Param.pet).pathComponents, use: update)
        routes.post(WebPath.deletePet(Param.pet).pathComponents, use: delete)
        routes.on(.POST, WebPath.petPhotos(Param.pet).pathComponents, body: .collect(maxSize: uploadLimit), use: uploadPhoto)
        routes.post(WebPath.deletePetPhoto(Param.pet, Param.photo).pathComponents, use: deletePhoto)
        routes.post(WebPath.makeMainPetPhoto(Param.pet, Param.photo).pathComponents, use: makeMainPhoto)
        routes.get(WebPath.vaccinations(Param.pet).pathComponents, use: vaccinations)
        routes.post(WebPath.vaccinations(Param.pet).pathComponents, use: addVaccination)
        routes.post(WebPath.deleteVaccination(Param.pet, Param.vaccination).pathComponents, use: deleteVaccination)
        routes.get(WebPath.guardians(Param.pet).pathComponents, use: guardians)
        routes.post(WebPath.guardians(Param.pet).pathComponents, use: invite)
        routes.post(WebPath.removeGuardian(Param.pet, Param.member).pathComponents, use: removeGuardian)
        routes.post(WebPath.acceptGuardianInvitation(Param.invitation).pathComponents) { req in try await answer(req, accept: true) }
        routes.post(WebPath.rejectGuardianInvitation(Param.invitation).pathComponents) { req in try await answer(req, accept: false) }
    }

    struct PetForm: Content {
        var name: String?
        var species: String?
        var breed: String?
        var sex: String?
        var dateOfBirth: String?
        var estimatedAgeMonths: String?
        var weightKg: String?
        var sizeClass: String?
        var energy: String?
        var neutered: String?
        var playStyles: [String]?
        var area: String?
        var hasGarden: String?
        var livesWithOtherPets: String?
        var livesWithChildren: String?
        var personality: String?
        var notes: String?
        var photo: File?
        var kind: String?
    }

    // MARK: List

    @Sendable func list(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let mine = try await pets.listMine(user, on: req.db)
        let invitations = try await guardians.invitations(for: user, on: req.db)
        return WebPages.page(
            req, title: "Your pets",
            main: .group(
                .if(
                    mine.isEmpty,
                    .div(
                        .class("empty"), .id("no-pets"), Icon.dog.node(),
                        .p(.text("No pets yet. Add your dog, cat or any other pet: dogs find playmates nearby.")))),
                .ul(
                    .class("dog-list"), .id("pet-list"),
                    .forEach(mine) { pet in
                        DogViews.row(pet.card, today: pets.today, key: keyFact(pet))
                    }),
                .p(.a(.id("add-pet-link"), .class("button block"), .href(WebPath.newPet), .text("Add a pet"))),
                .if(
                    !invitations.isEmpty,
                    .section(
                        .class("card"), .id("invitations"),
                        .h2(.text("Invitations to guard a pet")),
                        Self.invitationList(req, invitations)))
            ))
    }

    /// Each invitation to guard a pet, with Accept and Decline.
    static func invitationList(_ req: Request, _ invitations: [GuardianInvitationValue]) -> Node<HTML.BodyContext> {
        .forEach(invitations) { invitation in
            .div(
                .class("invitation"),
                .p(
                    .strong(.text(invitation.pet.ownerDisplayName)), .text(" invites you to guard "),
                    .strong(.text(invitation.pet.profile.name)), .text(".")),
                .div(
                    .class("actions"),
                    .form(
                        .action(WebPath.acceptGuardianInvitation(invitation.id)), .method(.post),
                        WebPages.csrfField(req), WebPages.submit("Accept", id: "accept-\(invitation.id)")),
                    .form(
                        .action(WebPath.rejectGuardianInvitation(invitation.id)), .method(.post),
                        WebPages.csrfField(req),
                        .button(.type(.submit), .class("button secondary"), .text("Decline")))
                )
            )
        }
    }

    /// Pets on Home (`Area.home`): invitations to guard someone's pet wait for an answer.
    static func home(_ req: Request, services: PawpackServices) async throws -> [HomeCard] {
        let invitations = try await services.guardians.invitations(for: try req.requireWebUser().user, on: req.db)
        guard !invitations.isEmpty else { return [] }
        return [
            .section(
                .answerNeeded, id: "home-invitations",
                title: invitations.count == 1 ? "An invitation to guard a pet" : "\(invitations.count) invitations to guard a pet",
                invitationList(req, invitations))
        ]
    }

    /// What "Your pets" is about for each: its welfare mode, and whether the member guards it
    /// for someone ("Social Mode · guardian").
    private func keyFact(_ pet: PetSnapshot) -> String? {
        var parts: [String] = []
        if let mode = pet.mode { parts.append(mode == .puppy ? "Puppy Mode" : "Social Mode") }
        if pet.role == .guardian { parts.append("guardian") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    private func modeBadge<Context: HTML.BodyContext>(_ mode: WelfareMode) -> Node<Context> {
        .span(
            .class("badge mode-\(mode.rawValue)"), .id("mode-badge"),
            .text(mode == .puppy ? "Puppy Mode" : "Social Mode"))
    }

    // MARK: Add and edit

    static let photoTypes = "image/jpeg,image/png,image/webp,image/heic"

    /// One friendly form with everything a deck needs: photo, sex, neutered, size or weight,
    /// play styles, energy, birth date or age.
    func editPage(
        _ req: Request, webUser: WebUser, pet: PetSnapshot?, form: PetForm? = nil, errors: FormErrors = [],
        status: HTTPResponseStatus = .ok
    ) throws -> Response {
        let profile = pet?.profile
        let value = { (field: String?, fallback: String?) in field ?? fallback }
        let action = pet.map { WebPath.editPet($0.profile.id) } ?? WebPath.pets
        let speciesValue = value(form?.species, profile?.species.rawValue) ?? "dog"
        let rules = PetRules()
        let styles = Set(form?.playStyles ?? profile?.playStyles.map(\.rawValue) ?? [])
        let env = profile?.environment
        let heldBack = pet.map { !$0.heldBackFields.isEmpty } ?? true
        let title = pet == nil ? "Add your pet" : "Edit \(profile!.name)"
        return WebPages.page(
            req, title: title, status: status, errors: errors,
            back: pet.map { (WebPath.pet($0.profile.id), $0.profile.name) },
            main:
                .form(
                    .id("pet-form"), .action(action), .method(.post), .enctype(.multipartData),
                    WebPages.csrfField(req),
                    .if(
                        pet == nil,
                        .div(
                            .class("field"),
                            .label(.for("photo"), .text("Photo")),
                            .input(
                                .type(.file), .name("photo"), .id("photo"), .attribute(named: "accept", value: Self.photoTypes),
                                .data(named: "preview", value: "photo-preview"), .attribute(named: "aria-describedby", value: "photo-hint")),
                            .small(
                                .id("photo-hint"), .class("hint"),
                                .text("A clear face makes friends: JPEG, PNG, WebP or HEIC, up to \(config.maximumUploadBytes / 1_048_576) MB.")),
                            .img(.id("photo-preview"), .class("preview"), .alt("Preview of the chosen photo"))
                        )),
                    WebPages.field(
                        "Name", name: "name", value: value(form?.name, profile?.name), autocomplete: "off",
                        limits: .init(maxLength: rules.nameLength.upperBound), errors: errors),
                    .if(
                        pet == nil,
                        FormControls.select(
                            "Species", name: "species", options: Species.allCases.map { ($0.rawValue, $0.rawValue.capitalized) },
                            selected: speciesValue, errors: errors)),
                    WebPages.field(
                        "Breed (optional)", name: "breed", value: value(form?.breed, profile?.breed), autocomplete: "off",
                        required: false, hint: "Mixed breeds welcome: type what you know.",
                        limits: .init(maxLength: rules.maximumBreedLength), errors: errors),
                    FormControls.select(
                        "Sex", name: "sex", options: PetSex.allCases.map { ($0.rawValue, PetWords.sex($0)) },
                        selected: value(form?.sex, profile?.sex.rawValue) ?? "unknown", errors: errors),
                    .fieldset(
                        .element(named: "legend", nodes: [.text("Age")]),
                        WebPages.field(
                            "Date of birth", name: "dateOfBirth", type: .date,
                            value: value(form?.dateOfBirth, profile.flatMap { $0.birthDateIsEstimate ? nil : $0.birthDate.description }),
                            autocomplete: "off", required: false, hint: "If you know it. Otherwise give an age below.",
                            limits: .init(min: pets.today.monthsEarlier(rules.maximumAgeYears * 12).description, max: pets.today.description),
                            errors: errors),
                        WebPages.field(
                            "Or age in months", name: "estimatedAgeMonths", type: .number,
                            value: form?.estimatedAgeMonths, autocomplete: "off", required: false,
                            hint: "An estimate is fine: 36 for a three-year-old.",
                            limits: .init(min: "0", max: String(rules.maximumAgeYears * 12), step: "1"), errors: errors)),
                    WebPages.field(
                        "Weight in kg (optional)", name: "weightKg", type: .number,
                        value: value(form?.weightKg, profile?.weightKg.map { String($0) }), autocomplete: "off",
                        required: false, hint: "The size follows from the weight when you do not choose one.",
                        limits: .init(min: String(rules.weightRange.lowerBound), max: String(Int(rules.weightRange.upperBound))), errors: errors),
                    FormControls.toggle("Neutered", name: "neutered", checked: form.map { $0.neutered == "on" } ?? profile?.neutered ?? false),
                    // What the deck matches dogs on: not asked of a cat or other pet (a new pet's
                    // form shows it until another species is chosen, when the script hides it).
                    .if(
                        speciesValue == "dog" || pet == nil,
                        .fieldset(
                            .id("dog-only"), .data(named: "for-species", value: "dog"),
                            .element(named: "legend", nodes: [.text("For playdates (dogs)")]),
                            .if(
                                heldBack,
                                .p(
                                    .class("notice"), .id("held-back-note"),
                                    .text(
                                        "While a dog is in Puppy Mode, play style, home and neuter status are kept for you but not used for matching or shown to others. They count once it reaches Social Mode."
                                    ))),
                            FormControls.select(
                                "Size", name: "sizeClass",
                                options: [("", "From the weight")] + SizeClass.allCases.map { ($0.rawValue, PetWords.name($0).capitalized) },
                                selected: value(form?.sizeClass, profile?.sizeClass?.rawValue) ?? "", errors: errors),
                            FormControls.select(
                                "Energy", name: "energy",
                                options: [("", "Not sure")] + EnergyLevel.allCases.map { ($0.rawValue, PetWords.energy($0)) },
                                selected: value(form?.energy, profile?.energy?.rawValue) ?? "", errors: errors),
                            FormControls.chips(
                                "Plays (up to \(rules.maximumPlayStyles))", name: "playStyles",
                                options: PlayStyle.allCases.map { ($0.rawValue, PetWords.playStyle($0)) }, selected: styles),
                            FormControls.select(
                                "Home", name: "area",
                                options: [("", "Not given")] + HomeArea.allCases.map { ($0.rawValue, $0.rawValue.capitalized) },
                                selected: form?.area ?? env?.area.rawValue ?? ""),
                            FormControls.toggle("Has a garden", name: "hasGarden", checked: env?.hasGarden ?? false),
                            FormControls.toggle("Lives with other pets", name: "livesWithOtherPets", checked: env?.livesWithOtherPets ?? false),
                            FormControls.toggle("Lives with children", name: "livesWithChildren", checked: env?.livesWithChildren ?? false))),
                    WebPages.field(
                        "Personality (optional)", name: "personality",
                        value: value(form?.personality, profile?.personality.joined(separator: ", ")),
                        autocomplete: "off", required: false, hint: "A few words, separated by commas: curious, cuddly…",
                        limits: .init(maxLength: 250), errors: errors),
                    WebPages.submit(pet == nil ? "Add pet" : "Save", id: "pet-submit", busy: "Saving…")
                ))
    }

    /// The draft a form describes.
    private func draft(_ form: PetForm, creating: Bool) -> PetDraft {
        func text(_ value: String?) -> String? { value.map { $0.trimmingCharacters(in: .whitespaces) } }
        func nonEmpty(_ value: String?) -> String? { text(value).flatMap { $0.isEmpty ? nil : $0 } }
        var draft = PetDraft(
            name: text(form.name), species: creating ? nonEmpty(form.species).flatMap(Species.init(rawValue:)) : nil,
            breed: text(form.breed), sex: nonEmpty(form.sex).flatMap(PetSex.init(rawValue:)),
            dateOfBirth: nonEmpty(form.dateOfBirth),
            estimatedAgeMonths: nonEmpty(form.estimatedAgeMonths).map { Int($0) ?? -1 },
            weightKg: nonEmpty(form.weightKg).map { Double($0.replacingOccurrences(of: ",", with: ".")) ?? -1 },
            energy: nonEmpty(form.energy).flatMap(EnergyLevel.init(rawValue:)),
            personality: form.personality.map {
                $0.split(separator: ",").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            },
            notes: text(form.notes))
        draft.sizeClass = nonEmpty(form.sizeClass).flatMap(SizeClass.init(rawValue:))
        draft.playStyles = (form.playStyles ?? []).compactMap(PlayStyle.init(rawValue:))
        draft.neutered = form.neutered == "on"
        draft.environment = nonEmpty(form.area).flatMap(HomeArea.init(rawValue:)).map {
            PetEnvironment(
                area: $0, hasGarden: form.hasGarden == "on", livesWithOtherPets: form.livesWithOtherPets == "on",
                livesWithChildren: form.livesWithChildren == "on")
        }
        return draft
    }

    @Sendable func create(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let form = try req.content.decode(PetForm.self)
        do {
            let pet = try await pets.create(webUser.user, draft: draft(form, creating: true), on: req.db)
            if let photo = form.photo, photo.data.readableBytes > 0 {
                do {
                    _ = try await pets.uploadPhoto(
                        webUser.user, pet: pet.profile.id, data: Data(buffer: photo.data),
                        kind: .profile, on: req.db)
                } catch let problem as Problem {
                    // The pet exists; say why the photo did not make it, on its page.
                    req.logger.info("photo refused at creation", metadata: ["code": .string(problem.code.rawValue)])
                    return WebPages.redirect(WebPath.pet(pet.profile.id), flash: .photoRefused)
                }
            }
            // The guided start: a first dog, then where you are, then its deck.
            if pet.profile.species == .dog, webUser.user.latitude == nil {
                return WebPages.redirect(WebPath.accountLocation + "?next=" + WebPath.deck(pet.profile.id), flash: .petAdded)
            }
            return WebPages.redirect(WebPath.pet(pet.profile.id), flash: .petAdded)
        } catch let problem as Problem {
            return try editPage(
                req, webUser: webUser, pet: nil, form: form, errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    @Sendable func edit(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        let (pet, role) = try await pets.authorized(webUser.user, pet: try req.idParameter(Param.pet), need: \.canEdit, on: req.db)
        return try editPage(req, webUser: webUser, pet: try await pets.snapshot(of: pet, role: role, on: req.db))
    }

    @Sendable func update(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        let form = try req.content.decode(PetForm.self)
        let (record, role) = try await pets.authorized(webUser.user, pet: id, need: \.canEdit, on: req.db)
        let current = try await pets.snapshot(of: record, role: role, on: req.db)
        do {
            _ = try await pets.update(
                webUser.user, pet: id, draft: draft(form, creating: false),
                on: req.db)
            return WebPages.redirect(WebPath.pet(id), flash: .petSaved)
        } catch let problem as Problem {
            return try editPage(
                req, webUser: webUser, pet: current, form: form, errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    @Sendable func delete(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        try await pets.delete(webUser.user, pet: try req.idParameter(Param.pet), on: req.db)
        return WebPages.redirect(WebPath.pets, flash: .petDeleted)
    }

    // MARK: Pet page

    @Sendable func show(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        let pet = try await pets.view(webUser.user, pet: try req.idParameter(Param.pet), on: req.db)
        let profile = pet.profile
        let id = profile.id
        let canEdit = PetPermissions(role: pet.role).canEdit
        let age = PetAge.text(birthDate: profile.birthDate, estimated: profile.birthDateIsEstimate, today: pets.today)
        // Others see behaviour only once the dog is in Social Mode; the owner always does.
        let showsBehaviour = canEdit || pet.mode != .puppy
        let welfare = canEdit ? pet.welfare : nil
        typealias Fact = (String, String)
        var facts: [Fact] = [
            profile.breed.map { ("Breed", $0) } ?? ("Species", profile.species.rawValue.capitalized), ("Age", age),
            ("Sex", PetWords.sex(profile.sex)),
        ]
        if let size = profile.effectiveSizeClass { facts.append(("Size", PetWords.name(size).capitalized)) }
        if let weight = profile.weightKg { facts.append(("Weight", "\(String(format: "%g", weight)) kg")) }
        if let energy = profile.energy { facts.append(("Energy", PetWords.energy(energy))) }
        if showsBehaviour, !profile.playStyles.isEmpty {
            facts.append(("Plays", profile.playStyles.map(PetWords.playStyle).joined(separator: ", ")))
        }
        if showsBehaviour, let neutered = profile.neutered { facts.append(("Neutered", neutered ? "Yes" : "No")) }
        if canEdit, let env = profile.environment {
            let with = [env.hasGarden ? "garden" : nil, env.livesWithOtherPets ? "other pets" : nil, env.livesWithChildren ? "children" : nil]
            facts.append(("Home", ([env.area.rawValue.capitalized] + with.compactMap { $0 }).joined(separator: ", ")))
        }
        if !profile.personality.isEmpty { facts.append(("Personality", profile.personality.joined(separator: ", "))) }
        var parts: [PetPagePart] = []
        let context = PetPageContext(pet: id, isViewers: canEdit)
        for area in req.pawpack.areas {
            if let add = area.petPage, let part = try await add(req, context, req.pawpack) { parts.append(part) }
        }
        // Another member's dog leads back where the member came from: what an area says (its
        // deck), else the page before it on this site, else Home.
        let cameFrom = WebPages.cameFrom(req)
        let back: (path: String, title: String) =
            canEdit
            ? (WebPath.pets, "Your pets") : parts.lazy.compactMap(\.back).first ?? cameFrom.map { ($0, "Back") } ?? (WebPath.home, "Home")
        return WebPages.page(
            req, title: profile.name, back: back,
            main: .group(
                .if(
                    pet.reachedSocialMode,
                    .p(
                        .class("notice"), .id("social-reached"), .attribute(named: "role", value: "status"),
                        .text("\(profile.name) reached Social Mode by itself: the vaccinations recorded allow meet-ups now."))),
                .div(
                    .class("profile-photos"), .id("pet-photos"),
                    .if(pet.photos.isEmpty, WebPages.noPhoto(profile.name, species: profile.species, class: "profile-photo-none")),
                    .forEach(pet.photos) { photo in
                        .img(
                            .src(WebPath.media(photo.storageKey)),
                            .alt(photo.kind == .profile ? "Photo of \(profile.name)" : "\(profile.name), another photo"))
                    }),
                .forEach(parts) { $0.actions },
                .section(
                    .class("card"), .id("pet-card"),
                    .p(.unwrap(pet.mode) { modeBadge($0) }, .if(!canEdit, .span(.class("muted"), .text(" · with \(pet.ownerDisplayName)")))),
                    .unwrap(pet.ratings.pet.average) { average in
                        .p(
                            .class("rating"), .id("pet-rating"), Icon.star.node(),
                            .text(" \(String(format: "%.1f", average)) · \(pet.ratings.pet.count) review\(pet.ratings.pet.count == 1 ? "" : "s")"),
                            .unwrap(pet.ratings.owner.average) { owner in
                                .span(
                                    .class("muted"),
                                    .text(" · \(pet.ownerDisplayName): \(String(format: "%.1f", owner)) from \(pet.ratings.owner.count)"))
                            })
                    },
                    .element(
                        named: "dl",
                        nodes: [
                            .class("facts"), .id("pet-facts"),
                            .forEach(facts) { fact in
                                .group(.element(named: "dt", nodes: [.text(fact.0)]), .element(named: "dd", nodes: [.text(fact.1)]))
                            },
                        ]),
                    .if(
                        canEdit,
                        .div(
                            .class("actions"),
                            .a(.id("edit-pet-link"), .class("button secondary"), .href(WebPath.editPet(id)), .text("Edit")),
                            .if(
                                profile.species == .dog,
                                .a(.id("vaccinations-link"), .class("button secondary"), .href(WebPath.vaccinations(id)), .text("Vaccinations"))),
                            .a(.id("guardians-link"), .class("button secondary"), .href(WebPath.guardians(id)), .text("Guardians"))))
                ),
                .forEach(parts) { $0.section },
                .unwrap(welfare) { welfare in welfareCard(req, name: profile.name, pet: id, welfare: welfare) },
                .if(
                    canEdit,
                    .group(
                        .if(
                            !pet.photos.isEmpty,
                            .section(
                                .class("card"), .id("photo-manager"),
                                .h2(.text("Photos")),
                                .ul(
                                    .class("photo-grid"),
                                    .forEach(pet.photos) { photo in
                                        .li(
                                            .id("photo-\(photo.id)"),
                                            .img(
                                                .src(WebPath.media(photo.storageKey)), .alt(photo.kind == .profile ? "Main photo" : "Another photo"),
                                                .attribute(named: "width", value: "96"), .attribute(named: "height", value: "96")),
                                            .if(
                                                photo.kind == .profile,
                                                .span(.class("badge"), .text("Main")),
                                                else: .form(
                                                    .action(WebPath.makeMainPetPhoto(id, photo.id)), .method(.post), WebPages.csrfField(req),
                                                    .button(.type(.submit), .class("button quiet"), .id("main-\(photo.id)"), .text("Make main")))),
                                            DogViews.confirm(
                                                req, summary: "Delete", question: "Delete this photo of \(profile.name)?",
                                                action: WebPath.deletePetPhoto(id, photo.id), button: "Yes, delete",
                                                id: "delete-photo-\(photo.id)"))
                                    }))),
                        .section(
                            .class("card"),
                            .h2(.text("Add a photo")),
                            .form(
                                .id("photo-form"), .action(WebPath.petPhotos(id)), .method(.post), .enctype(.multipartData),
                                WebPages.csrfField(req),
                                .div(
                                    .class("field"),
                                    .label(.for("photo"), .text("Photo (JPEG, PNG, WebP or HEIC)")),
                                    .input(
                                        .type(.file), .name("photo"), .id("photo"), .required(true),
                                        .attribute(named: "accept", value: Self.photoTypes),
                                        .data(named: "preview", value: "photo-preview")),
                                    .img(.id("photo-preview"), .class("preview"), .alt("Preview of the chosen photo"))
                                ),
                                FormControls.select(
                                    "Use as", name: "kind", options: [("gallery", "Another photo"), ("profile", "Main photo")],
                                    selected: pet.photos.isEmpty ? "profile" : "gallery"),
                                WebPages.submit("Upload", id: "photo-submit", busy: "Uploading…")
                            )
                        ),
                        .if(
                            pet.role == .owner,
                            .section(
                                .class("card"),
                                .h2(.text("Delete \(profile.name)")),
                                DogViews.confirm(
                                    req, summary: "Delete \(profile.name)…",
                                    question: "Delete \(profile.name) with every photo and record, for good?",
                                    action: WebPath.deletePet(id), button: "Yes, delete", id: "delete-pet-submit")
                            ))
                    ),
                    else: .section(
                        .class("card"),
                        .h2(.text("Not a good fit?")),
                        DogViews.confirm(
                            req, summary: "Block \(pet.ownerDisplayName)",
                            question: "Block \(pet.ownerDisplayName)? Neither of you will see the other's dogs, and any match between you ends.",
                            action: WebPath.blockOwner(id), button: "Yes, block", id: "block-owner")))
            ))
    }

    /// The welfare mode in plain words, with what is missing and where to add it.
    private func welfareCard(_ req: Request, name: String, pet id: Pet.ID, welfare: WelfareStatus) -> Node<HTML.BodyContext> {
        let dates = DateWords.writer(for: req)
        return .section(
            .class("card"), .id("welfare"),
            .h2(.text(welfare.mode == .social ? "Social Mode: meet-ups are open" : "Puppy Mode: matching and chatting, no meet-ups yet")),
            .if(
                welfare.mode == .social,
                .p(.text("\(name)'s vaccinations are recorded and protect \(name) now.")),
                else: .group(
                    .p(.text("Meet-ups unlock once \(name)'s vaccinations are recorded and protect \(name). Here is what is missing:")),
                    .ul(.id("welfare-reasons"), .forEach(welfare.assessment.reasons) { .li(.text($0.message(writingDates: dates))) }),
                    .unwrap(welfare.assessment.earliestSocialDate) {
                        .p(
                            .id("earliest-social"),
                            .text("Earliest day for Social Mode: \(dates($0)). \(name) switches by itself; you will see it here."))
                    },
                    .a(.class("button"), .href(WebPath.vaccinations(id)), .text("Record a vaccination"))
                ))
        )
    }

    @Sendable func uploadPhoto(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        let form = try req.content.decode(PetForm.self)
        guard let file = form.photo, file.data.readableBytes > 0 else {
            throw Problem.invalidField("photo", "choose a photo to upload")
        }
        _ = try await pets.uploadPhoto(
            webUser.user, pet: id, data: Data(buffer: file.data),
            kind: form.kind == "profile" ? .profile : .gallery, on: req.db)
        return WebPages.redirect(WebPath.pet(id), flash: .photoAdded)
    }

    @Sendable func deletePhoto(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        try await pets.deletePhoto(webUser.user, pet: id, photo: try req.idParameter(Param.photo), on: req.db)
        return WebPages.redirect(WebPath.pet(id), flash: .photoDeleted)
    }

    @Sendable func makeMainPhoto(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        try await pets.makeMainPhoto(webUser.user, pet: id, photo: try req.idParameter(Param.photo), on: req.db)
        return WebPages.redirect(WebPath.pet(id), flash: .mainPhoto)
    }

    // MARK: Vaccinations and mode

    struct VaccinationForm: Content {
        var vaccine: String?
        var otherName: String?
        var givenOn: String?
        var nextDueOn: String?
        var clinic: String?
    }

    @Sendable func vaccinations(_ req: Request) async throws -> Response {
        try await vaccinationsPage(req, webUser: req.requireWebUser())
    }

    func vaccinationsPage(
        _ req: Request, webUser: WebUser, errors: FormErrors = [], form: VaccinationForm? = nil,
        status: HTTPResponseStatus = .ok
    ) async throws -> Response {
        let id = try req.idParameter(Param.pet)
        let (pet, _) = try await pets.authorized(webUser.user, pet: id, need: \.canSeePrivateFields, on: req.db)
        let records = try await vaccinations.vaccinations(webUser.user, pet: id, on: req.db)
        let welfare = pet.species == .dog ? try await vaccinations.mode(webUser.user, pet: id, on: req.db) : nil
        let today = pets.today
        return WebPages.page(
            req, title: "\(pet.name): vaccinations", status: status, errors: errors,
            back: (WebPath.pet(id), pet.name),
            main: .group(
                .unwrap(welfare) { welfareCard(req, name: pet.name, pet: id, welfare: $0) },
                .section(
                    .class("card"),
                    .h2(.text("Records")),
                    .if(records.isEmpty, .p(.class("muted"), .text("No vaccinations recorded yet. Your vet's booklet has the dates."))),
                    .ul(
                        .class("dog-list"), .id("vaccination-list"),
                        .forEach(records) { record in
                            let name =
                                VaccineKind(rawValue: record.vaccine).map { $0 == .other ? record.otherName ?? "Other" : $0.label } ?? record.vaccine
                            let given = LocalDate(record.givenOn).map { DateWords.long($0, for: req) } ?? record.givenOn
                            let due = record.nextDueOn.flatMap(LocalDate.init).map { "Next due \(DateWords.long($0, for: req))" }
                            return .li(
                                .class("dog-row"),
                                .div(
                                    .class("who"), .strong(.text(name)),
                                    .span(.text("Given \(given)\(record.clinic.map { " · \($0)" } ?? "")")),
                                    .unwrap(due) { .span(.class("row-key"), .text($0)) }),
                                .div(
                                    .class("row-actions"),
                                    DogViews.confirm(
                                        req, summary: "Remove", question: "Remove this \(name) record?",
                                        action: WebPath.deleteVaccination(id, record.id), button: "Yes, remove",
                                        id: "remove-\(record.id)")))
                        })
                ),
                .section(
                    .class("card"),
                    .h2(.text("Record a vaccination")),
                    .form(
                        .id("vaccination-form"), .action(WebPath.vaccinations(id)), .method(.post),
                        WebPages.csrfField(req),
                        FormControls.select(
                            "Vaccine", name: "vaccine", options: VaccineKind.allCases.map { ($0.rawValue, $0.label) },
                            selected: form?.vaccine ?? "dhpp", hint: "DHPP, DAPP and DA2PP are the combined shot.", errors: errors),
                        WebPages.field(
                            "Name (for other vaccines)", name: "otherName", value: form?.otherName, autocomplete: "off", required: false,
                            limits: .init(maxLength: 60), errors: errors),
                        WebPages.field(
                            "Date given", name: "givenOn", type: .date, value: form?.givenOn, autocomplete: "off",
                            limits: .init(max: today.description), errors: errors),
                        WebPages.field(
                            "Next due (optional)", name: "nextDueOn", type: .date, value: form?.nextDueOn, autocomplete: "off", required: false,
                            errors: errors),
                        WebPages.field(
                            "Vet or clinic (optional)", name: "clinic", value: form?.clinic, autocomplete: "off", required: false,
                            limits: .init(maxLength: 100), errors: errors),
                        WebPages.submit("Save vaccination", id: "vaccination-submit")
                    )
                )
            ))
    }

    @Sendable func addVaccination(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let form = try req.content.decode(VaccinationForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            let added = try await vaccinations.addVaccination(
                webUser.user, pet: id,
                input: VaccinationInput(
                    vaccine: VaccineKind(rawValue: form.vaccine ?? "") ?? .other, otherName: form.otherName,
                    givenOn: form.givenOn ?? "", nextDueOn: form.nextDueOn, clinic: form.clinic), on: req.db)
            return WebPages.redirect(WebPath.vaccinations(id), flash: added.reachedSocialMode ? .socialReached : .vaccinationAdded)
        } catch let problem as Problem {
            return try await vaccinationsPage(
                req, webUser: webUser, errors: FormErrors(problem), form: form,
                status: .init(statusCode: problem.status))
        }
    }

    @Sendable func deleteVaccination(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        try await vaccinations.deleteVaccination(webUser.user, pet: id, vaccination: try req.idParameter(Param.vaccination), on: req.db)
        return WebPages.redirect(WebPath.vaccinations(id))
    }

    // MARK: Guardians

    @Sendable func guardians(_ req: Request) async throws -> Response {
        try await guardiansPage(req, webUser: req.requireWebUser())
    }

    func guardiansPage(_ req: Request, webUser: WebUser, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let id = try req.idParameter(Param.pet)
        let (pet, role) = try await pets.authorized(webUser.user, pet: id, need: \.canSeePrivateFields, on: req.db)
        let guardians = try await guardians.guardians(webUser.user, pet: id, on: req.db)
        let me = try webUser.user.requireID()
        return WebPages.page(
            req, title: "\(pet.name): guardians", status: status, errors: errors,
            back: (WebPath.pet(id), pet.name),
            main: .group(
                .p(.class("muted"), .text("Guardians help care for \(pet.name): they can edit the profile and records, but not delete the pet.")),
                .if(guardians.isEmpty, .p(.text("No guardians yet."))),
                .ul(
                    .class("dog-list"), .id("guardian-list"),
                    .forEach(guardians) { guardian in
                        .li(
                            .class("dog-row"), .id("guardian-\(guardian.userID)"),
                            .div(
                                .class("who"),
                                .span(.class("avatar placeholder row-photo"), Icon.person.node()),
                                .strong(.text(guardian.displayName)), .span(.text("@\(guardian.username)")),
                                .if(guardian.status == .invited, .span(.class("row-key"), .text("Invited: waiting for an answer")))),
                            .div(
                                .class("row-actions"),
                                .if(
                                    role == .owner || guardian.userID == me,
                                    DogViews.confirm(
                                        req, summary: guardian.userID == me ? "Step down" : guardian.status == .invited ? "Withdraw" : "Remove",
                                        question: guardian.userID == me
                                            ? "Stop guarding \(pet.name)?" : "\(guardian.displayName) will no longer guard \(pet.name).",
                                        action: WebPath.removeGuardian(id, guardian.userID), button: "Yes",
                                        id: "remove-guardian-\(guardian.userID)"))))
                    }),
                .if(
                    role == .owner,
                    .section(
                        .class("card"),
                        .h2(.text("Invite a guardian")),
                        .form(
                            .id("guardian-form"), .action(WebPath.guardians(id)), .method(.post),
                            WebPages.csrfField(req),
                            WebPages.field("Their username", name: "username", autocomplete: "off", limits: .init(maxLength: 30), errors: errors),
                            WebPages.submit("Invite", id: "guardian-submit")
                        ))),
            ))
    }

    struct InviteForm: Content { var username: String? }

    @Sendable func invite(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let form = try req.content.decode(InviteForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            _ = try await guardians.invite(webUser.user, pet: id, username: form.username ?? "", on: req.db)
            return WebPages.redirect(WebPath.guardians(id), flash: .invited)
        } catch let problem as Problem {
            return try await guardiansPage(
                req, webUser: webUser, errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    @Sendable func removeGuardian(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        let guardian = try req.idParameter(Param.member)
        try await guardians.removeGuardian(webUser.user, pet: id, guardian: guardian, on: req.db)
        return WebPages.redirect(try guardian == webUser.user.requireID() ? WebPath.pets : WebPath.guardians(id))
    }

    func answer(_ req: Request, accept: Bool) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        try await guardians.answerInvitation(webUser.user, invitation: try req.idParameter(Param.invitation), accept: accept, on: req.db)
        return WebPages.redirect(WebPath.pets, flash: accept ? .guardianAccepted : .guardianDeclined)
    }
}
