extension APIPath {
    package static func meetupReviews(_ meetup: some CustomStringConvertible) -> String { self.meetup(meetup) + "/reviews" }
    package static func petReviews(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/reviews" }
    package static func reportReview(_ review: some CustomStringConvertible) -> String { "/v1/reviews/\(review)/report" }
}
