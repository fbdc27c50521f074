import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Care: families sharing pets, foods and their stock, feeds, weights, calories and the
    /// insight (Pawfolio's job).
    static let care = Area(
        name: "Care",
        services: { services in
            let families = FamilyService(pets: services.pets, notifications: services.notifications, realtime: services.realtime)
            let care = CareService(
                pets: services.pets, families: families, notifications: services.notifications, realtime: services.realtime,
                writes: services.writes)
            return [families, care, MedicationService(care: care)]
        },
        migrations: CareMigrations.all,
        pages: { app, services in
            CarePages(care: services.care, medications: services.medications).register(on: app)
            FamilyPages(families: services.families).register(on: app)
        },
        script: "care",
        // Pets' place in the bar, and its pages: a pet's profile, photos and records are part
        // of its care (`WebShell` gives a later area's tab the place and pages of an earlier one).
        tab: .init(id: "care", title: "Care", path: WebPath.care, icon: .bowl, position: 20, badge: WebPages.Badge.careWaiting) { path in
            path.hasPrefix(WebPath.care) || path.hasPrefix("/care/")
        },
        home: { req, services in
            try await CarePages.home(req, services: services) + CarePages.dosesDue(req, services: services)
        },
        badges: [
            .init(id: WebPages.Badge.careWaiting, one: " answer waiting", many: " answers waiting") { me in
                """
                (SELECT COUNT(*) FROM "family_join_requests" JOIN "families" ON "families"."id" = "family_join_requests"."family_id"
                    WHERE "families"."owner_id" = \(bind: me))
                + (SELECT COUNT(*) FROM "pet_guardians" WHERE "user_id" = \(bind: me) AND "status" = \(bind: GuardianRecord.Status.invited.rawValue))
                """
            }
        ],
        flashes: [
            .fed, .feedDeleted, .weightLogged, .careSaved, .foodAdded, .stockSaved, .shared, .unshared, .familyCreated, .joinAsked,
            .familyDeleted, .familyLeft, .familyOffered, .joinAccepted, .medicationAdded, .doseGiven, .medicationDeleted,
        ],
        notificationKinds: [.family, .stock, .feeding, .fed, .health],
        // Feeds falling due, doses and vaccinations: rows moved by what the household does.
        jobs: { services in
            [.init(name: "care-reminders") { db in try await services.care.reminders.runDue(on: db, logger: services.logger) }]
        },
        export: { document, scope in
            let (services, db, me) = (scope.services, scope.db, scope.me)
            document.families = try await services.families.families(of: scope.user, on: db).map(Components.Schemas.Family.init)
            document.familyJoinRequests = try await services.families.joinRequests(for: scope.user, on: db)
                .map(Components.Schemas.FamilyJoinRequest.init)
            for pet in try await services.pets.owned(by: scope.user, on: db) {
                let care = try await services.care.context(scope.user, pet: try pet.requireID(), need: \.canView, on: db)
                let (_, feeds) = try await services.care.log(scope.user, pet: care.id, on: db)
                document.care.append(
                    .init(
                        petId: care.id.description, familyId: care.family?.id?.description,
                        settings: care.settings.map {
                            .init(
                                feedingGapHours: Double($0.feedingGapMinutes) / 60, timeZone: $0.timeZone,
                                dietaryNotes: $0.dietaryNotes, energyFactor: $0.energyFactor,
                                vaccinationReminderDays: $0.vaccinationLeadDays)
                        },
                        foods: try await services.care.foods(scope.user, pet: care.id, on: db).map(Components.Schemas.Food.init),
                        feeds: feeds.map { Components.Schemas.Feed($0, viewer: me) },
                        weights: try await services.care.weights(scope.user, pet: care.id, on: db).map(Components.Schemas.Weight.init),
                        medications: try await services.medications.values(of: care, allDoses: true, on: db).map {
                            Components.Schemas.Medication($0, viewer: me)
                        }))
            }
            document.feedsLogged = try await services.care.feedsLogged(by: scope.user, on: db).map { Components.Schemas.Feed($0, viewer: me) }
        },
        demo: { services, db, hash, now in try await CareDemo.seed(services, on: db, passwordHash: hash, now: now) },
        deletion: .init(mustWait: { member, db in try await FamilyService.refuseDeletionWhileOwning(member, on: db) }),
        inboxItem: { req, item, services in try await CarePages.inboxItem(req, item, services: services) },
        blockEnds: { me, them, services, tx in
            try await services.families.blockEnds(me, them, on: tx)
            return []
        }
    )
}

extension PawpackServices {
    var care: CareService { area(CareService.self) }
    var families: FamilyService { area(FamilyService.self) }
    var medications: MedicationService { area(MedicationService.self) }
}

extension WebPages.Badge {
    /// Requests to join the member's families and invitations to guard a pet.
    static let careWaiting = "care-count"
}

extension Flash {
    static let fed = Flash("fed", "Feed logged. The household sees it.")
    static let medicationAdded = Flash("medication-added", "Medication added. The household is reminded of each dose.")
    static let doseGiven = Flash("dose-given", "Dose marked given. The next one is reminded of in time.")
    static let medicationDeleted = Flash("medication-deleted", "Medication deleted with its doses.")
    static let feedDeleted = Flash("feed-deleted", "Feed deleted; its portion went back to the stock.")
    static let weightLogged = Flash("weight-logged", "Weight logged.")
    static let careSaved = Flash("care-saved", "Saved.")
    static let foodAdded = Flash("food-added", "Food added.")
    static let stockSaved = Flash("stock-saved", "Stock saved.")
    static let shared = Flash("shared", "Shared: the family sees and logs its care.")
    static let unshared = Flash("unshared", "No longer shared.")
    static let familyCreated = Flash("family-created", "Family made. Make a code to invite your household.")
    static let joinAsked = Flash("join-asked", "Asked. The family's owner answers.")
    static let familyDeleted = Flash("family-deleted", "Family deleted.")
    static let familyLeft = Flash("family-left", "You left the family.")
    static let familyOffered = Flash("family-offered", "Offered. They take it over when they accept.")
    static let joinAccepted = Flash("join-accepted", "Accepted: they now share the family's pets.")
}
