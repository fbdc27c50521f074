import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var reviews: ReviewService { services.reviews }

    func reviewMeetup(_ input: Operations.ReviewMeetup.Input) async throws -> Operations.ReviewMeetup.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let review = try await reviews.review(
            auth.user, meetup: try pathID(input.path.meetupId), rating: body.rating,
            text: body.text, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Review(review, viewer: try auth.user.requireID()))))
    }

    func listPetReviews(_ input: Operations.ListPetReviews.Input) async throws -> Operations.ListPetReviews.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 20
        guard (1...50).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 50") }
        let about = ReviewSubject(rawValue: input.query.about?.rawValue ?? ReviewSubject.pet.rawValue) ?? .pet
        let page = try await reviews.reviews(
            auth.user, pet: try pathID(input.path.petId), about: about, limit: limit,
            cursor: input.query.cursor, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: page.items.map { Components.Schemas.Review($0, viewer: me) }, nextCursor: page.next?.text,
                        averageRating: page.summary.average, reviewCount: page.summary.count))))
    }

    func reportReview(_ input: Operations.ReportReview.Input) async throws -> Operations.ReportReview.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await reviews.report(auth.user, review: try pathID(input.path.reviewId), reason: body.reason, on: auth.request.db)
        return .noContent(.init())
    }

}

// MARK: Mapping

extension Components.Schemas.Review {
    init(_ review: ReviewValue, viewer: User.ID) {
        self.init(
            id: review.id.description, rating: review.rating, text: review.text, authorDisplayName: review.authorDisplayName,
            authorPetName: review.authorPetName, createdAt: review.createdAt, aboutMe: review.subject == viewer)
    }
}
