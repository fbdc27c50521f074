import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Reviews after a completed meet-up, the ratings cards show, and reports of reviews.
    static let reviews = Area(
        name: "Reviews",
        services: { services in
            [
                ReviewService(meetups: services.meetups, clock: services.dependencies.clock, notifications: services.notifications)
            ]
        },
        migrations: ReviewMigrations.all,
        pages: { app, services in ReviewPages(meetups: services.meetups, reviews: services.reviews).register(on: app) },
        flashes: [.reviewed, .reviewReported],
        notificationKinds: [.review],
        export: { document, scope in
            let reviews = try await scope.services.reviews.export(scope.user, on: scope.db)
            document.reviewsWritten = reviews.written.map { Components.Schemas.Review($0, viewer: scope.me) }
            document.reviewsReceived = reviews.received.map { Components.Schemas.Review($0, viewer: scope.me) }
            document.reviewReports = reviews.reports.map {
                .init(reviewId: $0.review.description, reason: $0.reason, createdAt: $0.createdAt)
            }
        },
        petRatings: { pets, db in try await ReviewService.ratings(ofPets: pets, on: db) },
        meetupReviewers: { meetups, db in
            Dictionary(grouping: try await ReviewRecord.query(on: db).filter(\.$meetup.$id ~~ meetups).all(), by: \.$meetup.id)
                .mapValues { Set($0.map(\.$author.id)) }
        },
        petPage: { req, page, services in try await ReviewPages.petPage(req, page, services: services) }
    )
}

extension PawpackServices {
    var reviews: ReviewService { area(ReviewService.self) }
}

extension Flash {
    static let reviewed = Flash("reviewed", "Thank you for your review!")
    static let reviewReported = Flash("review-reported", "Reported. Thank you: it is kept for a moderator to read.")
}
