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
            return [
                families,
                CareService(pets: services.pets, families: families, notifications: services.notifications, realtime: services.realtime),
            ]
        },
        migrations: CareMigrations.all,
        notificationKinds: [.family, .stock],
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
                                dietaryNotes: $0.dietaryNotes, energyFactor: $0.energyFactor)
                        },
                        foods: try await services.care.foods(scope.user, pet: care.id, on: db).map(Components.Schemas.Food.init),
                        feeds: feeds.map { Components.Schemas.Feed($0, viewer: me) },
                        weights: try await services.care.weights(scope.user, pet: care.id, on: db).map(Components.Schemas.Weight.init)))
            }
            document.feedsLogged = try await services.care.feedsLogged(by: scope.user, on: db).map { Components.Schemas.Feed($0, viewer: me) }
        },
        deletion: .init(mustWait: { member, db in try await FamilyService.refuseDeletionWhileOwning(member, on: db) })
    )
}

extension PawpackServices {
    var care: CareService { area(CareService.self) }
    var families: FamilyService { area(FamilyService.self) }
}
