import Foundation
import PawpackCore
import Plot
import Vapor

/// The review form of a completed meet-up: stars and an optional text.
struct ReviewPages {
    let meetups: MeetupService
    let reviews: ReviewService

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.reviewMeetup(Param.meetup).pathComponents) { req in try await reviewPage(req, form: nil) }
        routes.post(WebPath.reviewMeetup(Param.meetup).pathComponents, use: review)
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
        return WebPages.page(
            req, title: "Review \(theirs.name)", status: status, errors: errors, back: (WebPath.meetups, "Meet-ups"),
            main: .group(
                .p(.class("muted"), .text("How was \(mine.name)'s playdate with \(theirs.name) and \(theirs.ownerDisplayName)?")),
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
