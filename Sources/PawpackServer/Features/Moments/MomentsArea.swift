import Fluent
import PawpackAPI
import PawpackCore
import Vapor

extension Area {
    /// Moments: friends and the member directory, pet photos with their privacy, the feeds,
    /// votes and reports, and the weekly themed contests (Pawse's job).
    static let moments = Area(
        name: "Moments",
        services: { services in
            let friends = FriendService(
                blocks: services.blocks, notifications: services.notifications, realtime: services.realtime,
                clock: services.dependencies.clock)
            let moments = MomentService(
                pets: services.pets, friends: friends, blocks: services.blocks, photos: services.photos, clock: services.dependencies.clock,
                writes: services.writes)
            let contests = ContestService(
                moments: moments, notifications: services.notifications, realtime: services.realtime, clock: services.dependencies.clock)
            return [friends, moments, contests]
        },
        migrations: MomentsMigrations.all,
        pages: { app, services in
            // A moment's files, to whoever may see the photo (anyone, for a public one).
            let media = MediaRoutes(services: services)
            app.get(WebPath.momentMediaRoute.pathComponents) { req async throws -> Response in
                let photo = try req.idParameter(Param.moment)
                guard let file = req.parameters.get(Param.file.name), !file.contains("/") else { throw Problem.notFound }
                let viewer = try await media.signedInUser(req)
                return media.served(
                    try await services.moments.file(viewer, photo: photo, key: "moments/\(photo)/\(file.lowercased())", on: req.db),
                    cacheFor: 300)
            }
            MomentsPages(moments: services.moments, contests: services.contests, uploadLimit: services.config.maximumUploadBytes)
                .register(on: app)
            ContestPages(contests: services.contests).register(on: app)
            FriendPages(friends: services.friends).register(on: app)
        },
        script: "moments",
        tab: .init(
            id: "moments", title: "Moments", path: WebPath.moments, icon: .camera, position: 30, badge: WebPages.Badge.friendRequests
        ) { path in
            path == WebPath.moments || path.hasPrefix(WebPath.moments + "/")
        },
        home: { req, services in
            let me = try req.requireWebUser().user
            // The five newest and how many there are: any number of members may ask.
            let page = try await services.friends.requests(me, incoming: true, limit: 5, on: req.db)
            let requests = page.items
            guard !requests.isEmpty else { return [] }
            let count = page.next == nil ? requests.count : try await services.friends.incomingCount(me, on: req.db)
            return [
                .section(
                    .answerNeeded, id: "home-friend-requests",
                    title: count == 1 ? "\(requests[0].member.displayName) wants to be friends" : "\(count) friend requests",
                    .ul(.class("plain-list member-list"), .forEach(requests) { FriendPages.requestItem(req, $0) }))
            ]
        },
        badges: [
            .init(id: WebPages.Badge.friendRequests, one: " friend request", many: " friend requests") { me in
                #"SELECT COUNT(*) FROM "friend_requests" WHERE "to_id" = \#(bind: me)"#
            }
        ],
        flashes: [
            .momentPosted, .momentSaved, .momentDeleted, .momentReported, .entered, .withdrawn, .friendAsked, .friendsNow,
            .friendRejected, .friendCancelled, .friendRemoved,
        ],
        uploadOperations: [Operations.PostMoment.id],
        notificationKinds: [.friend, .contest],
        // The weekly contest: the one that ended made final, the next started.
        jobs: { services in [.init(name: "contest-rotation") { db in try await services.contests.rotate(on: db) }] },
        export: { document, scope in
            let export = try await scope.services.friends.export(scope.user, on: scope.db)
            document.friends = .init(
                findable: export.findable, friends: export.friends.map(Components.Schemas.Friend.init),
                requests: export.requests.map(Components.Schemas.FriendRequest.init))
            let moments = try await scope.services.moments.export(scope.user, on: scope.db)
            document.moments = .init(
                entries: [], contestVotes: [], photos: moments.photos.map { .init($0, scope.handler.mapping) },
                votes: moments.votes.map { .init(photoId: $0.photo.description, votedAt: $0.at) },
                reports: moments.reports.map { .init(photoId: $0.photo.description, reason: $0.reason, text: $0.text, createdAt: $0.at) })
            let (entries, votes) = try await scope.services.contests.export(scope.user, on: scope.db)
            document.moments.entries = try entries.map {
                .init(
                    entryId: try $0.requireID().description, contestId: $0.$contest.id.description, photoId: $0.$photo.id.description,
                    enteredAt: $0.enteredAt)
            }
            document.moments.contestVotes = votes.map { .init(entryId: $0.$entry.id.description, votedAt: $0.createdAt) }
        },
        demo: { services, db, _, now in try await MomentsDemo.seed(services, on: db, now: now) },
        deletion: .init(filesOfMember: { member, db in
            try await MomentPhotoRecord.query(on: db).filter(\.$owner.$id == member).all().flatMap(\.keys)
        }),
        petPage: { req, context, services in try await MomentsPages.petSection(req, context, services: services) },
        blockEnds: { me, them, services, tx in
            try await services.friends.blockEnds(me, them, on: tx)
            return []
        }
    )
}

extension PawpackServices {
    var friends: FriendService { area(FriendService.self) }
    var moments: MomentService { area(MomentService.self) }
    var contests: ContestService { area(ContestService.self) }
}

extension WebPages.Badge {
    /// Friend requests waiting for the member's answer.
    static let friendRequests = "moments-count"
}

extension Flash {
    static let momentPosted = Flash("moment-posted", "Posted.")
    static let momentSaved = Flash("moment-saved", "Saved.")
    static let momentDeleted = Flash("moment-deleted", "Photo deleted.")
    static let momentReported = Flash("moment-reported", "Reported. Thank you: the moderators look at it.")
    static let entered = Flash("entered", "Entered. It is public while it is in the contest.")
    static let withdrawn = Flash("withdrawn", "Withdrawn from the contest.")
    static let friendAsked = Flash("friend-asked", "Asked. You are friends once they accept.")
    static let friendsNow = Flash("friends-now", "You are friends now.")
    static let friendRejected = Flash("friend-rejected", "Request rejected. They are not told.")
    static let friendCancelled = Flash("friend-cancelled", "Request cancelled.")
    static let friendRemoved = Flash("friend-removed", "No longer friends.")
}
