import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A review as every member who may see the dog sees it: who wrote it, never where they met.
struct ReviewValue: Sendable {
    var id: Meetups.Review.ID
    var meetup: Meetups.Meetup.ID
    var author: User.ID
    var authorDisplayName: String
    var authorPetName: String
    var subject: User.ID
    var subjectPet: Pet.ID
    var rating: Int
    var text: String?
    var createdAt: Date
    var activity: Int64

    var cursor: ActivityCursor<Meetups.Review> { .init(activity: activity, id: id) }
}

/// Whose reviews to list for a dog: the dog's own, or its owner's (every dog they brought).
enum ReviewSubject: String, Sendable {
    case pet, owner
}

/// Reviews: after a completed meet-up each participant may rate the other owner and dog once,
/// 1 to 5 with an optional text. The averages show on the dog's card and for its owner; the
/// reviewed member may report a review, which is kept for moderation.
final class ReviewService: Sendable {
    let meetups: MeetupService
    let clock: any AppClock
    let notifications: NotificationService
    private let rules = ReviewRules()
    static let maximumReportLength = 500

    init(meetups: MeetupService, clock: any AppClock, notifications: NotificationService) {
        self.meetups = meetups
        self.clock = clock
        self.notifications = notifications
    }

    var pets: PetService { meetups.pets }

    func review(
        _ user: UserRecord, meetup id: Meetups.Meetup.ID, rating: Int, text: String?,
        on db: any Database
    ) async throws -> ReviewValue {
        // Sent twice at once: the unique index keeps the first, the second is "already reviewed".
        try await answeringRacesAsSequential { try await reviewOnce(user, meetup: id, rating: rating, text: text, on: db) }
    }

    private func reviewOnce(
        _ user: UserRecord, meetup id: Meetups.Meetup.ID, rating: Int, text: String?,
        on db: any Database
    ) async throws -> ReviewValue {
        let me = try user.requireID()
        let meetup = try await meetups.participant(me, meetup: id, on: db)
        try await BlockRecord.requireInteraction(from: me, to: meetup.other(than: me), on: db)
        let review = try rules.review(rating: rating, text: text)
        guard meetup.meetupStatus == .completed else {
            throw Problem(
                status: 409, code: .meetupStateConflict, title: "Not completed yet",
                detail: "Reviews open once the meet-up is marked completed.")
        }
        if try await ReviewRecord.query(on: db).filter(\.$meetup.$id == id).filter(\.$author.$id == me).first() != nil {
            throw Self.alreadyReviewed
        }
        let mineIsProposer = meetup.$proposer.id == me
        let now = clock.now()
        let record = ReviewRecord()
        record.id = .init()
        record.$meetup.id = id
        record.$author.id = me
        record.$authorPet.id = mineIsProposer ? meetup.$proposerPet.id : meetup.$inviteePet.id
        record.$subject.id = meetup.other(than: me)
        record.$subjectPet.id = mineIsProposer ? meetup.$inviteePet.id : meetup.$proposerPet.id
        record.rating = review.rating
        record.text = review.text
        record.createdAt = now
        record.activity = ActivityCursor<Meetups.Review>.activity(at: now)
        let author = try await NotificationService.names(of: record.$authorPet.id, on: db)
        let subjectPet = try await NotificationService.names(of: record.$subjectPet.id, on: db).dog
        let stars = String(repeating: "★", count: review.rating) + String(repeating: "☆", count: 5 - review.rating)
        let draft = NotificationDraft(
            from: me, kind: .review, title: "New review",
            body: "\(author.owner) (\(author.dog)) reviewed the meet-up with \(subjectPet): \(stars)"
                + (review.text.map { " “\(NotificationService.preview($0))”" } ?? ""),
            meetup: id, pet: record.$authorPet.id)
        let events = try await db.transaction { tx in
            try await record.create(on: tx)
            return try await self.notifications.notify(draft, to: record.$subject.id, on: tx)
        }
        await meetups.realtime.deliver(events)
        return try await values([record], on: db)[0]
    }

    static let alreadyReviewed = Problem(
        status: 409, code: .alreadyReviewed, title: "Already reviewed",
        detail: "You already reviewed this meet-up. Thank you! Each participant reviews a meet-up once.")

    /// A dog's reviews (or its owner's), newest first, with the average and count; for every
    /// member who may see the dog.
    func reviews(
        _ viewer: UserRecord, pet id: Pet.ID, about subject: ReviewSubject, limit: Int, cursor: String?,
        on db: any Database
    ) async throws -> (items: [ReviewValue], next: ActivityCursor<Meetups.Review>?, summary: RatingSummary) {
        let pet = try await pets.visiblePet(id, to: viewer, on: db)
        let after = try cursor.map(ActivityCursor<Meetups.Review>.init(text:))
        var query = ReviewRecord.query(on: db)
        switch subject {
        case .pet: query = query.filter(\.$subjectPet.$id == id)
        case .owner: query = query.filter(\.$subject.$id == pet.$owner.id)
        }
        let rows = try await query.newestFirst(after: after, activity: \.$activity).limit(limit + 1).all()
        let items = try await values(Array(rows.prefix(limit)), on: db)
        let ratings = try await Self.ratings(ofPets: [id], on: db)[id] ?? PetRatings()
        let summary = subject == .pet ? ratings.pet : ratings.owner
        return (items, rows.count > limit ? items.last?.cursor : nil, summary)
    }

    /// The review `author` wrote of the meet-up, if any.
    func review(by author: User.ID, of meetup: Meetups.Meetup.ID, on db: any Database) async throws -> ReviewValue? {
        guard let row = try await ReviewRecord.query(on: db).filter(\.$meetup.$id == meetup).filter(\.$author.$id == author).first() else {
            return nil
        }
        return try await values([row], on: db).first
    }

    /// The dog a review is about.
    func subjectPet(of review: Meetups.Review.ID, on db: any Database) async throws -> Pet.ID {
        guard let row = try await ReviewRecord.find(review, on: db) else { throw Problem.notFound }
        return row.$subjectPet.id
    }

    /// The reviewed member reports a review; kept once per member for moderation. Anyone else
    /// gets the 404 of a review that does not exist.
    func report(_ user: UserRecord, review id: Meetups.Review.ID, reason raw: String, on db: any Database) async throws {
        let me = try user.requireID()
        guard let review = try await ReviewRecord.find(id, on: db), review.$subject.id == me else { throw Problem.notFound }
        let reason = try TextRule.paragraphs(max: Self.maximumReportLength, required: true).validate(raw, field: "reason")
        // Reported twice at once: kept once, as it would be one after the other.
        try await answeringRacesAsSequential {
            guard
                try await ReviewReportRecord.query(on: db).filter(\.$review.$id == id).filter(\.$reporter.$id == me)
                    .first() == nil
            else { return }
            let report = ReviewReportRecord()
            report.$review.id = id
            report.$reporter.id = me
            report.reason = reason
            report.createdAt = clock.now()
            try await report.create(on: db)
        }
    }

    /// The member's reviews both ways and their reports, newest first, for the export.
    func export(_ user: UserRecord, on db: any Database) async throws
        -> (written: [ReviewValue], received: [ReviewValue], reports: [(review: Meetups.Review.ID, reason: String, createdAt: Date)])
    {
        let me = try user.requireID()
        let written = try await values(ReviewRecord.query(on: db).filter(\.$author.$id == me).sort(\.$activity, .descending).all(), on: db)
        let received = try await values(ReviewRecord.query(on: db).filter(\.$subject.$id == me).sort(\.$activity, .descending).all(), on: db)
        let reports = try await ReviewReportRecord.query(on: db).filter(\.$reporter.$id == me).sort(\.$createdAt, .descending).all()
            .map { ($0.$review.id, $0.reason, $0.createdAt) }
        return (written, received, reports)
    }

    private func values(_ rows: [ReviewRecord], on db: any Database) async throws -> [ReviewValue] {
        guard !rows.isEmpty else { return [] }
        let cards = try await pets.cards(ofPets: Array(Set(rows.map(\.$authorPet.id))), on: db)
        return try rows.map { row in
            let card = cards[row.$authorPet.id]
            return ReviewValue(
                id: try row.requireID(), meetup: row.$meetup.id, author: row.$author.id,
                authorDisplayName: card?.ownerDisplayName ?? "", authorPetName: card?.name ?? "",
                subject: row.$subject.id, subjectPet: row.$subjectPet.id, rating: row.rating,
                text: row.text, createdAt: row.createdAt, activity: row.activity)
        }
    }

}

/// A dog's average rating and its owner's, as cards show them.
extension ReviewService {
    /// The ratings of these dogs and of their owners, in one statement; dogs nobody reviewed
    /// are left out.
    static func ratings(ofPets ids: [Pet.ID], on db: any Database) async throws -> [Pet.ID: PetRatings] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await db.sql.raw(
            """
            SELECT 'pet' AS "about", "subject_pet_id" AS "pet_id", COUNT(*) AS "count", CAST(SUM("rating") AS BIGINT) AS "sum"
            FROM "reviews" WHERE "subject_pet_id" IN (\(binds: ids)) GROUP BY "subject_pet_id"
            UNION ALL
            SELECT 'owner', "pets"."id", COUNT(*), CAST(SUM("reviews"."rating") AS BIGINT)
            FROM "pets" JOIN "reviews" ON "reviews"."subject_id" = "pets"."owner_id"
            WHERE "pets"."id" IN (\(binds: ids)) GROUP BY "pets"."id"
            """
        ).all()
        var ratings: [Pet.ID: PetRatings] = [:]
        for row in rows {
            let pet = Pet.ID(try row.decode(column: "pet_id", as: UUID.self))
            let summary = RatingSummary(
                count: try row.decode(column: "count", as: Int.self),
                sum: try row.decode(column: "sum", as: Int.self))
            if try row.decode(column: "about", as: String.self) == "pet" {
                ratings[pet, default: PetRatings()].pet = summary
            } else {
                ratings[pet, default: PetRatings()].owner = summary
            }
        }
        return ratings
    }
}
