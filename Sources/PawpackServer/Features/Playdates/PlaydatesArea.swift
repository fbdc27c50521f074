import Fluent
import PawpackAPI
import PawpackCore
import SQLKit

extension Area {
    /// The deck, swipes, match requests and matches.
    static let playdates = Area(
        name: "Playdates",
        services: { services in
            let deck = DeckService(
                pets: services.pets, clock: services.dependencies.clock, source: services.dependencies.deckSource,
                deckIndex: DeckIndex(rowsInMemory: services.deckRowsInMemory), logger: services.logger)
            return [
                deck,
                PlaydateService(
                    pets: services.pets, deck: deck, chats: services.chats, blocks: services.blocks, clock: services.dependencies.clock,
                    realtime: services.realtime, notifications: services.notifications),
            ]
        },
        migrations: PlaydateMigrations.all,
        pages: { app, services in PlaydatePages(playdates: services.playdates).register(on: app) },
        script: "playdates",
        tab: .init(
            id: "playdates", title: "Playdates", path: WebPath.playdates, icon: .paw, position: 10,
            badge: WebPages.Badge.waitingRequests
        ) { path in
            // A dog's deck, preferences and passes live under /pets/<id>/.
            path.hasPrefix(WebPath.playdates) || path.hasSuffix("/deck") || path.hasSuffix("/preferences")
                || path.hasSuffix("/passes")
        },
        home: { req, services in try await PlaydatePages.home(req, services: services) },
        badges: [
            .init(id: WebPages.Badge.waitingRequests, one: " request waiting", many: " requests waiting") { me in
                """
                SELECT COUNT(*) FROM "match_requests" WHERE "to_user_id" = \(bind: me) AND "status" = \(bind: MatchRequestRecord.Status.pending.rawValue)
                """
            }
        ],
        flashes: [.liked, .passed, .matched, .undone, .preferences, .blocked, .unmatched],
        notificationKinds: [.matchRequest, .match],
        export: { document, scope in
            let playdates = try await scope.services.playdates.export(scope.user, on: scope.db)
            for index in document.pets.indices {
                guard let pet = Pet.ID(string: document.pets[index].pet.card.id) else { continue }
                document.pets[index].preferences = playdates.preferences[pet].map(Components.Schemas.DeckPreferences.init)
            }
            document.swipes = playdates.swipes.map {
                .init(
                    petId: $0.pet.description, targetPetId: $0.target.description, targetPetName: $0.targetName,
                    decision: $0.decision == .like ? .like : .pass, createdAt: $0.createdAt)
            }
            document.matchRequests = playdates.requests.map(Components.Schemas.MatchRequestExport.init)
            document.matches = playdates.matches.map {
                .init(
                    id: $0.id.description, myPetId: $0.myPet.description, myPetName: $0.myPetName,
                    otherPetId: $0.otherPet.description, otherPetName: $0.otherPetName,
                    otherOwnerDisplayName: $0.otherOwnerDisplayName, createdAt: $0.createdAt)
            }
        },
        followsPets: { services in
            let index = services.deck.deckIndex
            return PetFollower(
                changed: { pets, tx in try await index.refresh(pets, on: tx) },
                ownerMoved: { owner, tx in try await index.refresh(dogsOf: owner, on: tx) },
                committed: { pets, db in await index.committed(pets, on: db) })
        },
        deletion: .init(petsDeleted: { pets, services, db in
            // The deck's rows went with the pets; the ones held in memory follow.
            await services.deck.deckIndex.committed(pets, on: db)
        }),
        petPage: { req, page, services in try await PlaydatePages.petPage(req, page, services: services) },
        blockEnds: { me, them, _, tx in
            // Matches end; pending requests either way are cancelled.
            try await MatchRecord.query(on: tx).between(\.$userA.$id, \.$userB.$id, me, them).delete()
            try await MatchRequestRecord.query(on: tx).filter(\.$status == .pending).between(\.$fromUser.$id, \.$toUser.$id, me, them).set(
                \.$status, to: .cancelled
            ).update()
            return []
        }
    )
}

extension PawpackServices {
    var playdates: PlaydateService { area(PlaydateService.self) }
    var deck: DeckService { area(DeckService.self) }
}

extension WebPages.Badge {
    static let waitingRequests = "requests-count"
}

extension Flash {
    static let liked = Flash("liked", "Liked! Their owner will be asked.")
    static let passed = Flash("passed", "Passed.")
    static let matched = Flash("matched", "It's a match!")
    static let undone = Flash("undone", "Last swipe undone.")
    static let preferences = Flash("preferences", "Preferences saved.")
    static let blocked = Flash("blocked", "Blocked. You will not see each other's dogs any more.")
    static let unmatched = Flash("unmatched", "Unmatched.")
}
