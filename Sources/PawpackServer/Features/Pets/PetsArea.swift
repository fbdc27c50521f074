import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Pets: profiles, photos, vaccinations and welfare modes, guardians.
    static let pets = Area(
        name: "Pets",
        services: { services in
            let pets = PetService(
                config: services.config, clock: services.dependencies.clock, photos: services.photos,
                locationOffsets: services.dependencies.locationOffsets, reads: services.hotReads,
                followers: services.petFollowers, logger: services.logger,
                deletePets: { [unowned services] pets, db in try await services.deletePets(pets, on: db) },
                ratings: { [unowned services] pets, db in
                    var ratings: [Pet.ID: PetRatings] = [:]
                    for area in services.areas { if let read = area.petRatings { ratings.merge(try await read(pets, db)) { $1 } } }
                    return ratings
                })
            return [
                pets, VaccinationService(pets: pets), GuardianService(pets: pets, notifications: services.notifications, realtime: services.realtime),
            ]
        },
        migrations: PetMigrations.all,
        pages: { app, services in
            PetPages(
                pets: services.pets, vaccinations: services.vaccinations, guardians: services.guardians,
                config: services.config
            ).register(on: app)
            MediaRoutes(services: services).register(on: app)
        },
        tab: .init(id: "pets", title: "Pets", path: WebPath.pets, icon: .dog, position: 20, badge: WebPages.Badge.guardianInvitations) { path in
            path.hasPrefix(WebPath.pets) || path.hasPrefix("/guardian-invitations")
        },
        home: { req, services in try await PetPages.home(req, services: services) },
        badges: [
            .init(id: WebPages.Badge.guardianInvitations, one: " invitation waiting", many: " invitations waiting") { me in
                """
                SELECT COUNT(*) FROM "pet_guardians" WHERE "user_id" = \(bind: me) AND "status" = \(bind: GuardianRecord.Status.invited.rawValue)
                """
            }
        ],
        flashes: [
            .petAdded, .petSaved, .petDeleted, .photoAdded, .photoDeleted, .mainPhoto, .photoRefused, .vaccinationAdded, .invited,
            .guardianAccepted, .guardianDeclined, .socialReached,
        ],
        uploadOperations: [Operations.UploadPetPhoto.id],
        notificationKinds: [.guardianInvitation],
        export: { document, scope in
            // The member's own pets with their records and guardians, and the other members'
            // pets they guard or are invited to guard.
            let (services, db) = (scope.services, scope.db)
            document.pets = []
            for pet in try await services.pets.owned(by: scope.user, on: db) {
                document.pets.append(
                    .init(
                        pet: Components.Schemas.PetView(try await services.pets.snapshot(of: pet, role: .owner, on: db), scope.handler.mapping),
                        vaccinations: try await services.pets.welfare.records(of: pet, on: db).map {
                            Components.Schemas.Vaccination(try VaccinationValue($0))
                        },
                        preferences: nil,
                        guardians: try await services.guardians.guardians(of: pet.requireID(), on: db).map(Components.Schemas.Guardian.init)))
            }
            document.guardianships = try await services.guardians.guardianships(of: scope.user, on: db).map {
                .init(
                    id: $0.id.description, petId: $0.pet.id.description, petName: $0.pet.name,
                    ownerDisplayName: $0.pet.ownerDisplayName, status: $0.status == .active ? .active : .invited,
                    createdAt: $0.createdAt)
            }
        },
        deletion: .init(filesOfPets: { pets, db in
            try await PetPhotoRecord.query(on: db).filter(\.$pet.$id ~~ pets).all().map(\.storageKey)
        })
    )
}

extension PawpackServices {
    var pets: PetService { area(PetService.self) }
    var vaccinations: VaccinationService { area(VaccinationService.self) }
    var guardians: GuardianService { area(GuardianService.self) }
}

extension WebPages.Badge {
    static let guardianInvitations = "pets-count"
}

extension Flash {
    static let petAdded = Flash("pet-added", "Pet added.")
    static let petSaved = Flash("pet-saved", "Saved.")
    static let petDeleted = Flash("pet-deleted", "Pet deleted.")
    static let photoAdded = Flash("photo-added", "Photo added.")
    static let photoDeleted = Flash("photo-deleted", "Photo deleted.")
    static let mainPhoto = Flash("main-photo", "That photo now comes first.")
    static let photoRefused = Flash(
        "photo-refused", "The pet was added, but the photo was refused: upload a JPEG, PNG, WebP or HEIC of at most 10 MB.")
    static let vaccinationAdded = Flash("vaccination-added", "Vaccination recorded.")
    static let invited = Flash("invited", "Invitation sent.")
    static let guardianAccepted = Flash("guardian-accepted", "You now guard this pet.")
    static let guardianDeclined = Flash("guardian-declined", "Invitation declined.")
    static let socialReached = Flash("social-reached", "Good news: your dog's vaccinations allow Social Mode now, so meet-ups are open.")
}
