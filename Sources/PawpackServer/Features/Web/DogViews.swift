import Foundation
import PawpackCore
import Plot
import Vapor

/// How a dog shows in lists and cards, the same on every page: its photo (or a drawn
/// placeholder), its name, and a line of facts.
enum DogViews {
    static func avatar<Context: HTML.BodyContext>(_ pet: PetCardValue, large: Bool = false) -> Node<Context> {
        .unwrap(
            pet.photos.first,
            { photo in
                .img(
                    .src(WebPath.media(photo.storageKey)), .alt("Photo of \(pet.name)"), .class(large ? "avatar large" : "avatar"),
                    .attribute(named: "width", value: large ? "112" : "56"), .attribute(named: "height", value: large ? "112" : "56"))
            }, else: WebPages.noPhoto(pet.name, species: pet.species, class: large ? "avatar large placeholder" : "avatar placeholder"))
    }

    /// "Beagle · 3 years · medium".
    static func facts(_ pet: PetCardValue, today: LocalDate) -> String {
        ([
            pet.breed ?? pet.species.rawValue.capitalized,
            PetAge.text(birthDate: pet.birthDate, estimated: pet.birthDateIsEstimate, today: today),
        ]
            + [pet.sizeClass.map { PetWords.name($0) }].compactMap { $0 }).joined(separator: " · ")
    }

    /// A row: photo and name linking to the dog's profile, a line below, actions at the end.
    /// On a narrow screen the line is cut with an ellipsis; `key` is the fact the list is
    /// about ("Puppy Mode", "likes Pixel"), on a line of its own that is never cut.
    static func row(
        _ pet: PetCardValue, today: LocalDate, line: String? = nil, key: String? = nil, id: String? = nil,
        actions: Node<HTML.BodyContext> = .empty
    ) -> Node<HTML.ListContext> {
        .li(
            .class("dog-row"), .unwrap(id) { .id($0) },
            .a(
                .class("who"), .href(WebPath.pet(pet.id)),
                .div(.class("row-photo"), avatar(pet)),
                .strong(.text(pet.name)), .span(.text(line ?? facts(pet, today: today))),
                .unwrap(key) { .span(.class("row-key"), .text($0)) }),
            .div(.class("row-actions"), actions))
    }

    /// Unmatch or block behind a second step: a disclosure that needs no script.
    static func confirm(
        _ request: Request, summary: String, question: String, action: String,
        button: String, id: String, hiddenFields: [(String, String)] = []
    ) -> Node<HTML.BodyContext> {
        .element(
            named: "details",
            nodes: [
                .class("confirm"),
                .element(named: "summary", nodes: [.id("\(id)-open"), .text(summary)]),
                .p(.text(question)),
                .form(
                    .action(action), .method(.post), WebPages.csrfField(request),
                    .forEach(hiddenFields) { .input(.type(.hidden), .name($0.0), .value($0.1)) },
                    .button(.type(.submit), .class("button danger"), .id(id), .text(button))),
            ])
    }
}

/// A pet's sizes, energy, play styles and sex as owners say them.
enum PetWords {
    static func name(_ size: SizeClass) -> String {
        switch size {
        case .toy: "toy"
        case .small: "small"
        case .medium: "medium"
        case .large: "large"
        case .giant: "giant"
        }
    }

    static func energy(_ level: EnergyLevel) -> String {
        switch level {
        case .low: "Low"
        case .moderate: "Moderate"
        case .high: "High"
        case .veryHigh: "Very high"
        }
    }

    static func playStyle(_ style: PlayStyle) -> String {
        switch style {
        case .chase: "Chase"
        case .wrestle: "Wrestling"
        case .tug: "Tug"
        case .fetch: "Fetch"
        case .gentle: "Gentle play"
        case .independent: "Plays alone"
        }
    }

    static func sex(_ sex: PetSex) -> String {
        switch sex {
        case .female: "Female"
        case .male: "Male"
        case .unknown: "Not known"
        }
    }
}
