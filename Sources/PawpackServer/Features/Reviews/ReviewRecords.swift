import Fluent
import Foundation
import PawpackCore

/// One participant's rating of the other owner and their dog after a completed meet-up; one
/// per participant and meet-up.
final class ReviewRecord: Model, @unchecked Sendable {
    static let schema = "reviews"

    @ID(custom: .id) var id: Meetups.Review.ID?
    @Parent(key: "meetup_id") var meetup: MeetupRecord
    @Parent(key: "author_id") var author: UserRecord
    @Parent(key: "author_pet_id") var authorPet: PetRecord
    @Parent(key: "subject_id") var subject: UserRecord
    @Parent(key: "subject_pet_id") var subjectPet: PetRecord
    @Field(key: "rating") var rating: Int
    @OptionalField(key: "text") var text: String?
    @Field(key: "created_at") var createdAt: Date
    /// `createdAt` in microseconds (`ActivityCursor`): lists are newest first.
    @Field(key: "activity") var activity: Int64

    init() {}
}

/// A participant's report of a review they received, kept for moderation.
final class ReviewReportRecord: Model, @unchecked Sendable {
    static let schema = "review_reports"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "review_id") var review: ReviewRecord
    @Parent(key: "reporter_id") var reporter: UserRecord
    @Field(key: "reason") var reason: String
    @Field(key: "created_at") var createdAt: Date

    init() {}
}

// MARK: - Migrations

// Append-only: a change to a shipped table is a new migration type added at the end.

enum ReviewMigrations {
    static let all: [any Migration] = [
        CreateReviews(), CreateReviewReports(),
        AddIndexes(
            name: "ReviewIndexes",
            indexes: [
                // A dog's and an owner's reviews, newest first, and their averages on cards.
                IndexSpec(name: "reviews_by_subject_pet", table: "reviews", columns: ["subject_pet_id", "activity"]),
                IndexSpec(name: "reviews_by_subject", table: "reviews", columns: ["subject_id", "activity"]),
                IndexSpec(name: "reviews_by_author", table: "reviews", columns: ["author_id"]),
            ]),
    ]
}

struct CreateReviews: CreatesTable {
    static let table = ReviewRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("meetup_id", .uuid, .required, .references(MeetupRecord.schema, "id", onDelete: .cascade))
            .field("author_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("author_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("subject_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("subject_pet_id", .uuid, .required, .references(PetRecord.schema, "id", onDelete: .cascade))
            .field("rating", .int, .required)
            .field("text", .string)
            .field("created_at", .datetime, .required)
            .field("activity", .int64, .required)
            .unique(on: "meetup_id", "author_id")
            .create()
    }
}

struct CreateReviewReports: CreatesTable {
    static let table = ReviewReportRecord.schema

    func prepare(on database: any Database) async throws {
        try await database.schema(Self.table)
            .id()
            .field("review_id", .uuid, .required, .references(ReviewRecord.schema, "id", onDelete: .cascade))
            .field("reporter_id", .uuid, .required, .references(UserRecord.schema, "id", onDelete: .cascade))
            .field("reason", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "review_id", "reporter_id")
            .create()
    }
}
