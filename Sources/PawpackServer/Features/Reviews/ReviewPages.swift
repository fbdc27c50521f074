import Foundation
import PawpackCore
import Plot
import Vapor

/// The review form of a completed meet-up (stars and an optional text), a dog's reviews, and
/// the reviewed member's report of one.
struct ReviewPages {
    let meetups: MeetupService
    let reviews: ReviewService
    static let reviewsPerPage = 30

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.reviewMeetup(Param.meetup).pathComponents) { req in try await reviewPage(req, form: nil) }
        routes.post(WebPath.reviewMeetup(Param.meetup).pathComponents, use: review)
        routes.get(WebPath.petReviews(Param.pet).pathComponents, use: list)
        routes.post(WebPath.reportReview(Param.review).pathComponents, use: report)
    }

    struct ReviewForm: Content {
        var rating: String?
        var text: String?
    }

    func reviewPage(_ req: Request, form: ReviewForm?, errors: FormErrors = [], status: HTTPResponseStatus = .ok) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let meetup = try await meetups.meetup(user, id: try req.idParameter(Param.meetup), on: req.db)
        let (mine, theirs) = meetup.pets(seenBy: me)
        let chosen = form?.rating ?? ""
        // Sent once: the page shows it rather than a form that could only be refused.
        if meetup.reviewers.contains(me), let sent = try await reviews.review(by: me, of: meetup.id, on: req.db) {
            return WebPages.page(
                req, title: "Review \(theirs.name)", status: status, errors: errors, back: (WebPath.meetups, "Meet-ups"),
                main: .group(
                    .p(.class("notice"), .id("review-sent"), Icon.check.node(), .text(" You reviewed this meet-up. Thank you!")),
                    Self.view(req, sent, viewer: me)))
        }
        return WebPages.page(
            req, title: "Review \(theirs.name)", status: status, errors: errors, back: (WebPath.meetups, "Meet-ups"),
            main: .group(
                .p(.class("muted"), .text("How was \(mine.name)'s meet-up with \(theirs.name) and \(theirs.ownerDisplayName)?")),
                .form(
                    .class("card"), .id("review-form"), .action(WebPath.reviewMeetup(meetup.id)), .method(.post),
                    WebPages.csrfField(req),
                    Self.stars(chosen: chosen, errors: errors),
                    FormControls.textarea(
                        "What went well? (optional)", name: "text", id: "review-text", value: form?.text,
                        maxLength: ReviewRules.maximumTextLength, rows: 4, errors: errors),
                    WebPages.submit("Send review", id: "review-submit"))
            ))
    }

    /// Five labelled radios, drawn as stars.
    static func stars(chosen: String, errors: FormErrors) -> Node<HTML.FormContext> {
        let error = errors.claim(field: "rating", id: "rating-1", label: "Rating")
        let choices: [Node<HTML.BodyContext>] = (1...5).map { value in
            let name = value == 1 ? "1 star" : "\(value) stars"
            let input: Node<HTML.LabelContext> = .input(
                .type(.radio), .name("rating"), .value(String(value)), .id("rating-\(value)"),
                .required(true),
                .attribute(named: "checked", value: chosen == String(value) ? "checked" : nil))
            let star: Node<HTML.LabelContext> = .span(Icon.star.node(), .span(.class("visually-hidden"), .text(name)))
            return .label(.class("star-choice"), input, star)
        }
        let legend: Node<HTML.BodyContext> = .element(named: "legend", nodes: [.text("Rating")])
        return .element(
            named: "fieldset",
            nodes: [
                .class("stars"), .attribute(named: "aria-describedby", value: error == nil ? nil : "rating-error"),
                legend, .div(.class("star-choices"), .group(choices)),
                .unwrap(error) { .p(.id("rating-error"), .class("field-error"), .text($0)) },
            ])
    }

    @Sendable func review(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(ReviewForm.self)
        do {
            guard let rating = form.rating.flatMap(Int.init) else { throw Problem.invalidField("rating", "choose from 1 to 5 stars") }
            _ = try await reviews.review(user, meetup: try req.idParameter(Param.meetup), rating: rating, text: form.text, on: req.db)
            return WebPages.redirect(WebPath.meetups, flash: .reviewed)
        } catch let problem as Problem where problem.status == 422 || problem.status == 409 {
            return try await reviewPage(req, form: form, errors: FormErrors(problem), status: .init(statusCode: problem.status))
        }
    }
}

// MARK: A dog's reviews

extension ReviewPages {
    /// One review: its stars, its words, who wrote it and when; to the reviewed member, the
    /// form that reports it.
    static func view(_ req: Request, _ review: ReviewValue, viewer: User.ID, reportable: Bool = false) -> Node<HTML.BodyContext> {
        let stars = String(repeating: "★", count: review.rating) + String(repeating: "☆", count: 5 - review.rating)
        return .article(
            .class("review"), .id("review-\(review.id)"),
            .p(
                .class("review-stars"), .attribute(named: "role", value: "img"),
                .attribute(named: "aria-label", value: review.rating == 1 ? "1 star of 5" : "\(review.rating) stars of 5"), .text(stars)),
            .unwrap(review.text) { .p(.class("review-text"), .text("“\($0)”")) },
            .p(
                .class("review-by muted"), .text("\(review.authorDisplayName), with \(review.authorPetName) · "),
                TimeViews.time(review.createdAt, style: .short)),
            .if(
                reportable && review.subject == viewer,
                .element(
                    named: "details",
                    nodes: [
                        .class("confirm"),
                        .element(named: "summary", nodes: [.id("report-\(review.id)-open"), .text("Report")]),
                        .form(
                            .action(WebPath.reportReview(review.id)), .method(.post), WebPages.csrfField(req),
                            FormControls.textarea(
                                "What is wrong with this review?", name: "reason", id: "reason-\(review.id)", value: nil,
                                maxLength: ReviewService.maximumReportLength),
                            .button(.type(.submit), .class("button danger"), .id("report-\(review.id)"), .text("Report it"))),
                    ])))
    }

    /// A dog's page (`Area.petPage`): its newest review and the way to all of them.
    static func petPage(_ req: Request, _ page: PetPageContext, services: PawpackServices) async throws -> PetPagePart? {
        let user = try req.requireWebUser().user
        let found = try await services.reviews.reviews(user, pet: page.pet, about: .pet, limit: 1, cursor: nil, on: req.db)
        guard let latest = found.items.first else { return nil }
        let count = found.summary.count
        return PetPagePart(
            section: .section(
                .class("card"), .id("pet-reviews"),
                .h2(.text("Reviews")),
                view(req, latest, viewer: try user.requireID()),
                .a(
                    .class("button secondary"), .id("all-reviews"), .href(WebPath.petReviews(page.pet)),
                    .text(count == 1 ? "See the review" : "See all \(count) reviews"))))
    }

    @Sendable func list(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        let me = try user.requireID()
        let id = try req.idParameter(Param.pet)
        let pet = try await reviews.pets.visiblePet(id, to: user, on: req.db)
        let found = try await reviews.reviews(
            user, pet: id, about: .pet, limit: Self.reviewsPerPage, cursor: req.query[String.self, at: "cursor"], on: req.db)
        return WebPages.page(
            req, title: "Reviews of \(pet.name)", back: (WebPath.pet(id), pet.name),
            main: .group(
                .if(found.items.isEmpty, .div(.class("empty"), .id("reviews-empty"), Icon.star.node(), .p(.text("No reviews yet.")))),
                .forEach(found.items) { .div(.class("card"), Self.view(req, $0, viewer: me, reportable: true)) },
                .unwrap(found.next) { next in
                    .p(
                        .class("older"),
                        .a(
                            .class("button quiet"), .id("older-reviews"), .href(WebPath.petReviews(id) + "?cursor=" + next.text),
                            .text("Older reviews")))
                }))
    }

    struct ReportForm: Content {
        var reason: String?
    }

    /// The reviewed member reports a review; back to the dog's reviews, saying it is noted.
    @Sendable func report(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let id = try req.idParameter(Param.review)
        let form = try req.content.decode(ReportForm.self)
        try await reviews.report(user, review: id, reason: form.reason ?? "", on: req.db)
        let pet = try await reviews.subjectPet(of: id, on: req.db)
        return WebPages.redirect(WebPath.petReviews(pet), flash: .reviewReported)
    }
}
