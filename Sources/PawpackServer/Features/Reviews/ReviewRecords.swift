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
