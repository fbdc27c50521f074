import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Moments: friends and the member directory (Pawse's job; photos, feeds, votes and the
    /// weekly contests build on them).
    static let moments = Area(
        name: "Moments",
        services: { services in
            [
                FriendService(
                    blocks: services.blocks, notifications: services.notifications, realtime: services.realtime,
                    clock: services.dependencies.clock)
            ]
        },
        migrations: MomentsMigrations.all,
        notificationKinds: [.friend],
        export: { document, scope in
            let export = try await scope.services.friends.export(scope.user, on: scope.db)
            document.friends = .init(
                findable: export.findable, friends: export.friends.map(Components.Schemas.Friend.init),
                requests: export.requests.map(Components.Schemas.FriendRequest.init))
        },
        blockEnds: { me, them, services, tx in
            try await services.friends.blockEnds(me, them, on: tx)
            return []
        }
    )
}

extension PawpackServices {
    var friends: FriendService { area(FriendService.self) }
}
