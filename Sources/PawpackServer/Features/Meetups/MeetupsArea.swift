import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Meet-ups proposed in a chat: answers, the reminder, expiry and completion.
    static let meetups = Area(
        name: "Meetups",
        services: { services in
            [
                MeetupService(
                    pets: services.pets, clock: services.dependencies.clock, realtime: services.realtime,
                    notifications: services.notifications,
                    reviewers: { [unowned services] meetups, db in
                        var reviewers: [Meetups.Meetup.ID: Set<User.ID>] = [:]
                        for area in services.areas {
                            if let read = area.meetupReviewers { reviewers.merge(try await read(meetups, db)) { $0.union($1) } }
                        }
                        return reviewers
                    })
            ]
        },
        migrations: MeetupMigrations.all,
        pages: { app, services in
            MeetupPages(meetups: services.meetups, chats: services.chats).register(on: app)
        },
        script: "meetups",
        home: { req, services in try await MeetupPages.home(req, services: services) },
        pagesUnderTab: [.init(tab: "chats") { $0.hasPrefix(WebPath.meetups) }],
        flashes: [.proposed, .meetupAccepted, .meetupRejected, .meetupCancelled, .meetupCompleted],
        notificationKinds: [.meetup],
        jobs: { services in
            [
                .init(name: "meetups") { db in try await services.meetups.runDueJobs(on: db, logger: services.logger) }
            ]
        },
        export: { document, scope in
            document.meetups = try await scope.services.meetups.export(scope.user, on: scope.db)
                .map { Components.Schemas.Meetup($0, viewer: scope.me, scope.handler.mapping) }
        },
        chatsClosed: { chats, now, tx in
            // A closed chat's open meet-ups are off.
            try await MeetupService.cancelOpen(inChats: chats, now: now, on: tx)
        },
        chatPanel: { req, chat, services in try await MeetupPages.chatPanel(req, chat: chat, meetups: services.meetups) }
    )
}

extension PawpackServices {
    var meetups: MeetupService { area(MeetupService.self) }
}

extension Flash {
    static let proposed = Flash("proposed", "Meet-up proposed. You will hear when they answer.")
    static let meetupAccepted = Flash("meetup-accepted", "Meet-up accepted. Have fun!")
    static let meetupRejected = Flash("meetup-rejected", "Meet-up declined.")
    static let meetupCancelled = Flash("meetup-cancelled", "Meet-up cancelled.")
    static let meetupCompleted = Flash("meetup-completed", "Marked as done. How did it go? Leave a review.")
}
