import Foundation
import PawpackCore
import Plot
import Vapor

/// The pet pages of the web app: my pets, add/edit (with photo upload and preview), the pet
/// page (public card or owner view), vaccinations with the welfare mode, and guardians.
/// Every handler calls `PetService`, the same as the API.
struct PetPages {
    let pets: PetService
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
        routes.get(WebPath.vaccinations(Param.pet).pathComponents, use: vaccinations)
        routes.post(WebPath.vaccinations(Param.pet).pathComponents, use: addVaccination)
        routes.post(WebPath.deleteVaccination(Param.pet, Param.vaccination).pathComponents, use: deleteVaccination)
        routes.post(WebPath.switchToSocialMode(Param.pet).pathComponents, use: switchToSocial)
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
        let invitations = try await pets.invitations(for: user, on: req.db)
        return WebPages.page(req, title: "Your pets", main: .group(
            .p(.a(.id("add-pet-link"), .class("button"), .href(WebPath.newPet), .text("Add a pet"))),
            .if(mine.isEmpty, .p(.class("muted"), .text("No pets yet. Add your first one!"))),
            .ul(.class("pet-list"), .forEach(mine) { pet in .li(petSummary(pet)) }),
            .if(!invitations.isEmpty, .section(.class("card"), .id("invitations"),
                .h2(.text("Invitations to guard a pet")),
                .forEach(invitations) { invitation in
                    .div(.class("invitation"),
                        .p(.strong(.text(invitation.pet.ownerDisplayName)), .text(" invites you to guard "),
                           .strong(.text(invitation.pet.profile.name)), .text(".")),
                        .div(.class("actions"),
                            .form(.action(WebPath.acceptGuardianInvitation(invitation.id)), .method(.post),
                                  WebPages.csrfField(req), WebPages.submit("Accept", id: "accept-\(invitation.id)")),
                            .form(.action(WebPath.rejectGuardianInvitation(invitation.id)), .method(.post),
                                  WebPages.csrfField(req),
                                  .button(.type(.submit), .class("button secondary"), .text("Decline")))
                        )
                    )
                }))
        ))
    }

    private func petSummary(_ pet: PetSnapshot) -> Node<HTML.BodyContext> {
        .a(.class("pet-summary"), .href(WebPath.pet(pet.profile.id)),
            photoThumb(pet),
            .span(.class("pet-name"), .text(pet.profile.name)),
            .span(.class("muted"), .text(" · \(pet.profile.species.rawValue)")),
            .unwrap(pet.mode) { modeBadge($0) },
            .if(pet.role == .guardian, .span(.class("badge"), .text("guardian")))
        )
    }

    private func photoThumb<Context: HTML.BodyContext>(_ pet: PetSnapshot) -> Node<Context> {
        .unwrap(pet.photos.first, { photo in
            .img(.src(WebPath.media(photo.storageKey)), .alt("Photo of \(pet.profile.name)"), .class("thumb"))
        }, else: .span(.class("thumb placeholder"), .attribute(named: "aria-hidden", value: "true"), .text(String(pet.profile.name.prefix(1)))))
    }

    private func modeBadge<Context: HTML.BodyContext>(_ mode: WelfareMode) -> Node<Context> {
        .span(.class("badge mode-\(mode.rawValue)"), .id("mode-badge"),
              .text(mode == .puppy ? "Puppy Mode" : "Social Mode"))
    }

    // MARK: Add and edit

    func editPage(_ req: Request, webUser: WebUser, pet: PetSnapshot?, form: PetForm? = nil, errors: [String] = [],
                  status: HTTPResponseStatus = .ok) throws -> Response {
        let profile = pet?.profile
        let value = { (field: String?, fallback: String?) in field ?? fallback }
        let heldBack = pet.map { !$0.heldBackFields.isEmpty } ?? true
        let action = pet.map { WebPath.editPet($0.profile.id) } ?? WebPath.pets
        let speciesValue = value(form?.species, profile?.species.rawValue) ?? "dog"
        return WebPages.page(req, title: pet == nil ? "Add a pet" : "Edit \(profile!.name)", status: status, errors: errors, main:
            .form(.id("pet-form"), .action(action), .method(.post), .enctype(.multipartData),
                WebPages.csrfField(req),
                WebPages.field("Name", name: "name", value: value(form?.name, profile?.name), autocomplete: "off"),
                .if(pet == nil, select("Species", name: "species", options: Species.allCases.map { ($0.rawValue, $0.rawValue.capitalized) },
                                       selected: speciesValue)),
                WebPages.field("Breed (optional)", name: "breed", value: value(form?.breed, profile?.breed), autocomplete: "off",
                               required: false, hint: "Mixed breeds welcome: type what you know."),
                select("Sex", name: "sex", options: PetSex.allCases.map { ($0.rawValue, $0.rawValue.capitalized) },
                       selected: value(form?.sex, profile?.sex.rawValue) ?? "unknown"),
                WebPages.field("Date of birth", name: "dateOfBirth", type: .date,
                               value: value(form?.dateOfBirth, profile.flatMap { $0.birthDateIsEstimate ? nil : $0.birthDate.description }),
                               autocomplete: "off", required: false, hint: "Or give an estimated age below."),
                WebPages.field("Estimated age in months", name: "estimatedAgeMonths", type: .number,
                               value: form?.estimatedAgeMonths, autocomplete: "off", required: false),
                WebPages.field("Weight in kg (optional)", name: "weightKg", type: .number,
                               value: value(form?.weightKg, profile?.weightKg.map { String($0) }), autocomplete: "off",
                               required: false, hint: "The size class follows from the weight."),
                select("Energy", name: "energy", options: [("", "Not sure")] + EnergyLevel.allCases.map { ($0.rawValue, energyLabel($0)) },
                       selected: value(form?.energy, profile?.energy?.rawValue) ?? ""),
                WebPages.field("Personality (optional)", name: "personality",
                               value: value(form?.personality, profile?.personality.joined(separator: ", ")),
                               autocomplete: "off", required: false, hint: "A few words, separated by commas: curious, cuddly…"),
                .if(heldBack && speciesValue == "dog",
                    .p(.class("hint"), .id("held-back-note"),
                       .text("While a dog is in Puppy Mode, play style, home and neuter status are kept for you but not used for matching or shown to others. They count once it reaches Social Mode."))),
                behaviourFields(profile: profile, form: form),
                .if(pet == nil, .div(.class("field"),
                    .label(.for("photo"), .text("Profile photo (optional)")),
                    .input(.type(.file), .name("photo"), .id("photo"),
                           .attribute(named: "accept", value: "image/jpeg,image/png,image/webp,image/heic"),
                           .data(named: "preview", value: "photo-preview")),
                    .img(.id("photo-preview"), .class("preview"), .alt("Preview of the chosen photo"), .src(""))
                )),
                WebPages.submit(pet == nil ? "Add pet" : "Save", id: "pet-submit")
            ))
    }

    private func behaviourFields(profile: PetProfile?, form: PetForm?) -> Node<HTML.FormContext> {
        let styles = form?.playStyles ?? profile?.playStyles.map(\.rawValue) ?? []
        let env = profile?.environment
        return .group(
            .fieldset(
                .element(named: "legend", text: "Play style (up to 3)"),
                .forEach(PlayStyle.allCases) { style in
                    .label(.class("check"),
                        .input(.type(.checkbox), .name("playStyles[]"), .value(style.rawValue),
                               .checked(styles.contains(style.rawValue))),
                        .text(" \(style.rawValue)"))
                }
            ),
            select("Home", name: "area", options: [("", "Not given")] + HomeArea.allCases.map { ($0.rawValue, $0.rawValue.capitalized) },
                   selected: form?.area ?? env?.area.rawValue ?? ""),
            checkbox("Has a garden", name: "hasGarden", checked: env?.hasGarden ?? false),
            checkbox("Lives with other pets", name: "livesWithOtherPets", checked: env?.livesWithOtherPets ?? false),
            checkbox("Lives with children", name: "livesWithChildren", checked: env?.livesWithChildren ?? false),
            checkbox("Neutered", name: "neutered", checked: profile?.neutered ?? false)
        )
    }

    private func checkbox(_ label: String, name: String, checked: Bool) -> Node<HTML.FormContext> {
        .label(.class("check"), .input(.type(.checkbox), .name(name), .id(name), .value("on"), .checked(checked)),
               .text(" \(label)"))
    }

    private func select(_ label: String, name: String, options: [(String, String)], selected: String) -> Node<HTML.FormContext> {
        .div(.class("field"),
            .label(.for(name), .text(label)),
            .element(named: "select", nodes: [
                .attribute(named: "name", value: name), .attribute(named: "id", value: name),
                .forEach(options) { value, title in
                    .element(named: "option", nodes: [
                        .attribute(named: "value", value: value, ignoreIfValueIsEmpty: false),
                        .if(value == selected, .attribute(named: "selected", value: "selected")),
                        .text(title),
                    ])
                },
            ])
        )
    }

    private func energyLabel(_ level: EnergyLevel) -> String {
        switch level {
        case .low: "Low"
        case .moderate: "Moderate"
        case .high: "High"
        case .veryHigh: "Very high"
        }
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
            personality: form.personality.map { $0.split(separator: ",").map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty } },
            notes: text(form.notes))
        draft.playStyles = (form.playStyles ?? []).compactMap(PlayStyle.init(rawValue:))
        draft.neutered = form.neutered == "on"
        draft.environment = nonEmpty(form.area).flatMap(HomeArea.init(rawValue:)).map {
            PetEnvironment(area: $0, hasGarden: form.hasGarden == "on", livesWithOtherPets: form.livesWithOtherPets == "on",
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
                    _ = try await pets.uploadPhoto(webUser.user, pet: pet.profile.id, data: Data(buffer: photo.data),
                                                   kind: .profile, on: req.db)
                } catch let problem as Problem {
                    // The pet exists; say why the photo did not make it, on its page.
                    req.logger.info("photo refused at creation", metadata: ["code": .string(problem.code.rawValue)])
                    return WebPages.redirect(WebPath.pet(pet.profile.id), flash: .photoRefused)
                }
            }
            return WebPages.redirect(WebPath.pet(pet.profile.id), flash: .petAdded)
        } catch let problem as Problem {
            return try editPage(req, webUser: webUser, pet: nil, form: form, errors: WebPages.messages(for: problem),
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
            _ = try await pets.update(webUser.user, pet: id, draft: draft(form, creating: false),
                                      on: req.db)
            return WebPages.redirect(WebPath.pet(id), flash: .petSaved)
        } catch let problem as Problem {
            return try editPage(req, webUser: webUser, pet: current, form: form, errors: WebPages.messages(for: problem),
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
        return WebPages.page(req, title: profile.name, main: .group(
            .section(.class("card pet-card"), .id("pet-card"),
                .div(.class("gallery"), .forEach(pet.photos) { photo in
                    .img(.src(WebPath.media(photo.storageKey)), .alt(photo.kind == .profile ? "\(profile.name)" : "\(profile.name), gallery photo"),
                         .class(photo.kind == .profile ? "photo profile" : "photo"))
                }),
                .p(.strong(.text(profile.breed ?? profile.species.rawValue.capitalized)), .text(" · \(age)"),
                   .unwrap(profile.effectiveSizeClass) { .text(" · \($0.rawValue)") }),
                .unwrap(pet.mode) { modeBadge($0) },
                .p(.class("muted"), .text("Owner: \(pet.ownerDisplayName)"))
            ),
            .if(canEdit, .group(
                .section(.class("card"), .id("owner-view"),
                    .h2(.text("Profile")),
                    .ul(
                        .li(.text("Sex: \(profile.sex.rawValue)")),
                        .li(.text("Born: \(profile.birthDate)\(profile.birthDateIsEstimate ? " (estimated)" : "")")),
                        .unwrap(profile.weightKg) { .li(.text("Weight: \($0) kg")) },
                        .unwrap(profile.energy) { .li(.text("Energy: \(energyLabel($0))")) },
                        .if(!profile.playStyles.isEmpty, .li(.text("Plays: \(profile.playStyles.map(\.rawValue).joined(separator: ", "))"))),
                        .unwrap(profile.neutered) { .li(.text("Neutered: \($0 ? "yes" : "no")")) },
                        .unwrap(profile.environment) { env in .li(.text("Home: \(env.area.rawValue)\(env.hasGarden ? ", garden" : "")\(env.livesWithOtherPets ? ", other pets" : "")\(env.livesWithChildren ? ", children" : "")")) },
                        .if(!profile.personality.isEmpty, .li(.text("Personality: \(profile.personality.joined(separator: ", "))")))
                    ),
                    .div(.class("actions"),
                        .a(.id("edit-pet-link"), .class("button secondary"), .href(WebPath.editPet(id)), .text("Edit")),
                        .if(profile.species == .dog, .a(.id("vaccinations-link"), .class("button secondary"), .href(WebPath.vaccinations(id)), .text("Vaccinations & mode"))),
                        .a(.id("guardians-link"), .class("button secondary"), .href(WebPath.guardians(id)), .text("Guardians"))
                    )
                ),
                .section(.class("card"),
                    .h2(.text("Add a photo")),
                    .form(.id("photo-form"), .action(WebPath.petPhotos(id)), .method(.post), .enctype(.multipartData),
                        WebPages.csrfField(req),
                        .div(.class("field"),
                            .label(.for("photo"), .text("Photo (JPEG, PNG, WebP or HEIC)")),
                            .input(.type(.file), .name("photo"), .id("photo"), .required(true),
                                   .attribute(named: "accept", value: "image/jpeg,image/png,image/webp,image/heic"),
                                   .data(named: "preview", value: "photo-preview")),
                            .img(.id("photo-preview"), .class("preview"), .alt("Preview of the chosen photo"), .src(""))
                        ),
                        select("Use as", name: "kind", options: [("gallery", "Gallery photo"), ("profile", "Profile photo")], selected: "gallery"),
                        WebPages.submit("Upload", id: "photo-submit")
                    )
                ),
                .if(pet.role == .owner, .section(.class("card"),
                    .h2(.text("Delete \(profile.name)")),
                    .form(.id("delete-pet-form"), .action(WebPath.deletePet(id)), .method(.post),
                          WebPages.csrfField(req), WebPages.submit("Delete this pet", id: "delete-pet-submit", danger: true))
                ))
            ))
        ))
    }

    @Sendable func uploadPhoto(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        let form = try req.content.decode(PetForm.self)
        guard let file = form.photo, file.data.readableBytes > 0 else {
            throw Problem.invalidField("photo", "choose a photo to upload")
        }
        _ = try await pets.uploadPhoto(webUser.user, pet: id, data: Data(buffer: file.data),
                                       kind: form.kind == "profile" ? .profile : .gallery, on: req.db)
        return WebPages.redirect(WebPath.pet(id), flash: .photoAdded)
    }

    @Sendable func deletePhoto(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        try await pets.deletePhoto(webUser.user, pet: id, photo: try req.idParameter(Param.photo), on: req.db)
        return WebPages.redirect(WebPath.pet(id))
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

    func vaccinationsPage(_ req: Request, webUser: WebUser, errors: [String] = [], form: VaccinationForm? = nil,
                          status: HTTPResponseStatus = .ok) async throws -> Response {
        let id = try req.idParameter(Param.pet)
        let (pet, _) = try await pets.authorized(webUser.user, pet: id, need: \.canSeePrivateFields, on: req.db)
        let records = try await pets.vaccinations(webUser.user, pet: id, on: req.db)
        let welfare = try await pets.welfareStatus(of: pet, on: req.db)
        return WebPages.page(req, title: "\(pet.name): vaccinations", status: status, errors: errors, main: .group(
            .unwrap(welfare) { welfare in
                .section(.class("card"), .id("welfare"),
                    .p(modeBadge(welfare.mode)),
                    .if(welfare.mode == .social,
                        .p(.text("\(pet.name) may meet other dogs.")),
                        else: .group(
                            .p(.text("In Puppy Mode \(pet.name) can match and chat, but not meet up yet.")),
                            .if(!welfare.assessment.reasons.isEmpty, .group(
                                .h2(.text("Still needed")),
                                .ul(.id("welfare-reasons"), .forEach(welfare.assessment.reasons) { .li(.text($0.message)) })
                            )),
                            .unwrap(welfare.assessment.earliestSocialDate) {
                                .p(.id("earliest-social"), .text("Earliest date for Social Mode: \($0)"))
                            },
                            .if(welfare.assessment.mode == .social,
                                .form(.id("social-form"), .action(WebPath.switchToSocialMode(id)), .method(.post),
                                      WebPages.csrfField(req), WebPages.submit("Switch to Social Mode", id: "social-submit")))
                        ))
                )
            },
            .section(.class("card"),
                .h2(.text("Records")),
                .if(records.isEmpty, .p(.class("muted"), .text("No vaccinations recorded yet."))),
                .ul(.id("vaccination-list"), .forEach(records) { record in
                    .li(.text("\(record.givenOn): \(VaccineKind(rawValue: record.vaccine).map { $0 == .other ? record.otherName ?? "Other" : $0.label } ?? record.vaccine)"),
                        .unwrap(record.nextDueOn) { .text(" · next due \($0)") },
                        .unwrap(record.clinic) { .text(" · \($0)") },
                        .form(.class("inline"), .action(WebPath.deleteVaccination(id, record.id)), .method(.post),
                              WebPages.csrfField(req), .button(.type(.submit), .class("link"), .text("Remove"))))
                })
            ),
            .section(.class("card"),
                .h2(.text("Record a vaccination")),
                .form(.id("vaccination-form"), .action(WebPath.vaccinations(id)), .method(.post),
                    WebPages.csrfField(req),
                    select("Vaccine", name: "vaccine", options: VaccineKind.allCases.map { ($0.rawValue, $0.label) },
                           selected: form?.vaccine ?? "dhpp"),
                    WebPages.field("Name (for other vaccines)", name: "otherName", value: form?.otherName, autocomplete: "off", required: false),
                    WebPages.field("Date given", name: "givenOn", type: .date, value: form?.givenOn, autocomplete: "off"),
                    WebPages.field("Next due (optional)", name: "nextDueOn", type: .date, value: form?.nextDueOn, autocomplete: "off", required: false),
                    WebPages.field("Vet or clinic (optional)", name: "clinic", value: form?.clinic, autocomplete: "off", required: false),
                    WebPages.submit("Save vaccination", id: "vaccination-submit")
                )
            ),
            .p(.a(.href(WebPath.pet(id)), .text("Back to \(pet.name)")))
        ))
    }

    @Sendable func addVaccination(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let form = try req.content.decode(VaccinationForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            _ = try await pets.addVaccination(webUser.user, pet: id, input: VaccinationInput(
                vaccine: VaccineKind(rawValue: form.vaccine ?? "") ?? .other, otherName: form.otherName,
                givenOn: form.givenOn ?? "", nextDueOn: form.nextDueOn, clinic: form.clinic), on: req.db)
            return WebPages.redirect(WebPath.vaccinations(id), flash: .vaccinationAdded)
        } catch let problem as Problem {
            return try await vaccinationsPage(req, webUser: webUser, errors: WebPages.messages(for: problem), form: form,
                                              status: .init(statusCode: problem.status))
        }
    }

    @Sendable func deleteVaccination(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        try await pets.deleteVaccination(webUser.user, pet: id, vaccination: try req.idParameter(Param.vaccination), on: req.db)
        return WebPages.redirect(WebPath.vaccinations(id))
    }

    @Sendable func switchToSocial(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        do {
            _ = try await pets.switchToSocial(webUser.user, pet: id, on: req.db)
            return WebPages.redirect(WebPath.vaccinations(id), flash: .social)
        } catch let problem as Problem {
            return try await vaccinationsPage(req, webUser: webUser, errors: [problem.title],
                                              status: .init(statusCode: problem.status))
        }
    }

    // MARK: Guardians

    @Sendable func guardians(_ req: Request) async throws -> Response {
        try await guardiansPage(req, webUser: req.requireWebUser())
    }

    func guardiansPage(_ req: Request, webUser: WebUser, errors: [String] = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let id = try req.idParameter(Param.pet)
        let (pet, role) = try await pets.authorized(webUser.user, pet: id, need: \.canSeePrivateFields, on: req.db)
        let guardians = try await pets.guardians(webUser.user, pet: id, on: req.db)
        let me = try webUser.user.requireID()
        return WebPages.page(req, title: "\(pet.name): guardians", status: status, errors: errors, main: .group(
            .p(.class("muted"), .text("Guardians help care for \(pet.name): they can edit the profile and records, but not delete the pet.")),
            .if(guardians.isEmpty, .p(.text("No guardians yet."))),
            .ul(.id("guardian-list"), .forEach(guardians) { guardian in
                .li(.text("\(guardian.displayName) (@\(guardian.username))"),
                    .if(guardian.status == .invited, .span(.class("badge"), .text("invited"))),
                    .if(role == .owner || guardian.userID == me,
                        .form(.class("inline"), .action(WebPath.removeGuardian(id, guardian.userID)), .method(.post),
                              WebPages.csrfField(req),
                              .button(.type(.submit), .class("link"), .text(guardian.userID == me ? "Step down" : "Remove")))))
            }),
            .if(role == .owner, .section(.class("card"),
                .h2(.text("Invite a guardian")),
                .form(.id("guardian-form"), .action(WebPath.guardians(id)), .method(.post),
                    WebPages.csrfField(req),
                    WebPages.field("Their username", name: "username", autocomplete: "off"),
                    WebPages.submit("Invite", id: "guardian-submit")
                ))),
            .p(.a(.href(WebPath.pet(id)), .text("Back to \(pet.name)")))
        ))
    }

    struct InviteForm: Content { var username: String? }

    @Sendable func invite(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let form = try req.content.decode(InviteForm.self)
        let id = try req.idParameter(Param.pet)
        do {
            _ = try await pets.invite(webUser.user, pet: id, username: form.username ?? "", on: req.db)
            return WebPages.redirect(WebPath.guardians(id), flash: .invited)
        } catch let problem as Problem {
            return try await guardiansPage(req, webUser: webUser, errors: WebPages.messages(for: problem),
                                           status: .init(statusCode: problem.status))
        }
    }

    @Sendable func removeGuardian(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        let id = try req.idParameter(Param.pet)
        let guardian = try req.idParameter(Param.member)
        try await pets.removeGuardian(webUser.user, pet: id, guardian: guardian, on: req.db)
        return WebPages.redirect(try guardian == webUser.user.requireID() ? WebPath.pets : WebPath.guardians(id))
    }

    func answer(_ req: Request, accept: Bool) async throws -> Response {
        let webUser = try req.requireWebUser()
        try req.checkCSRF()
        try await pets.answerInvitation(webUser.user, invitation: try req.idParameter(Param.invitation), accept: accept, on: req.db)
        return WebPages.redirect(WebPath.pets, flash: accept ? .guardianAccepted : .guardianDeclined)
    }
}
