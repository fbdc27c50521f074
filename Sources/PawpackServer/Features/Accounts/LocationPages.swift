import Foundation
import PawpackCore
import Plot
import Vapor

/// "Where are you?": a member picks their town from the bundled list of places (prefilled
/// from the city they gave at sign-up), or lets the browser tell; no coordinates to type. The
/// place's centre is stored, as a point, through `PetService.setLocation` and its blur.
struct LocationPages {
    /// The bundled towns and postcodes (`scripts/derive-places.py`, `scripts/derive-postcodes.py`),
    /// read on first use; `WebRoutes` starts that in the background when the server starts.
    static let places = PlaceDirectory(tsv: resource("places"), postcodes: resource("postcodes"))

    private static func resource(_ name: String) -> String {
        guard let url = Bundle.module.url(forResource: name, withExtension: "tsv"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "" }
        return text
    }

    static let attribution = "Towns and postcodes from GeoNames (geonames.org), CC BY 4.0."

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.accountLocation.pathComponents, use: page)
        routes.post(WebPath.accountLocation.pathComponents, use: save)
    }

    struct LocationForm: Content {
        var placeId: String?
        var latitude: String?
        var longitude: String?
        var clear: String?
        var next: String?
    }

    @Sendable func page(_ req: Request) async throws -> Response {
        try render(req, user: req.requireWebUser().user)
    }

    func render(_ req: Request, user: UserRecord, errors: FormErrors = [], status: HTTPResponseStatus = .ok) throws -> Response {
        let next = WebPages.safeNext(req.query[String.self, at: "next"])
        let typed = req.query[String.self, at: "q"].map { String($0.prefix(PlaceDirectory.maximumQueryLength)) }
        let query = typed ?? user.city ?? ""
        let results = query.trimmingCharacters(in: .whitespaces).isEmpty ? [] : Self.places.search(query)
        let guided = next?.hasSuffix("/deck") == true
        return WebPages.page(
            req, title: "Where are you?", status: status, errors: errors,
            back: guided ? nil : (WebPath.account, "Your account"),
            main: .group(
                .if(
                    guided,
                    .ol(
                        .class("steps"), .attribute(named: "aria-label", value: "Getting started"),
                        .li(.class("done"), .text("Your dog")), .li(.attribute(named: "aria-current", value: "step"), .text("Where you are")),
                        .li(.text("Your deck")))),
                .p(
                    .class("muted"),
                    .text(
                        "Your deck shows dogs near you. Pawpack keeps only the centre of the 500 m square you are in; other members see a rounded distance, never where you live."
                    )),
                .form(
                    .id("place-search"), .action(WebPath.accountLocation), .method(.get), .attribute(named: "role", value: "search"),
                    .unwrap(next) { .input(.type(.hidden), .name("next"), .value($0)) },
                    WebPages.field(
                        "Town, city or postcode", name: "q", type: .search, value: query, autocomplete: "address-level2",
                        hint: "Add the country to narrow it down: “Springfield, Illinois” or “1000, Belgium”.",
                        limits: .init(maxLength: PlaceDirectory.maximumQueryLength), errors: errors),
                    .button(.type(.submit), .class("button secondary"), .id("place-search-submit"), .text("Search"))),
                .if(
                    !query.isEmpty && results.isEmpty && typed != nil,
                    .p(
                        .id("no-places"),
                        .text(
                            query.contains(where: \.isNumber)
                                ? "No postcode “\(query)” in Pawpack's list. Check it, add the country after a comma, or search for your town."
                                : "No town called “\(query)” in Pawpack's list of towns of 5,000 people or more. Try the nearest bigger town, a postcode, or your current location."
                        ))),
                .if(
                    !results.isEmpty,
                    .group(
                        .h2(.id("places-heading"), .text(typed == nil ? "Is it one of these?" : "Choose your place")),
                        .ul(
                            .class("place-list"), .id("places"), .attribute(named: "aria-labelledby", value: "places-heading"),
                            .forEach(results) { place in
                                .li(
                                    .form(
                                        .action(WebPath.accountLocation), .method(.post), WebPages.csrfField(req),
                                        .input(.type(.hidden), .name("placeId"), .value(place.id.description)),
                                        .unwrap(next) { .input(.type(.hidden), .name("next"), .value($0)) },
                                        .button(
                                            .type(.submit), .id("place-\(place.id)"), Icon.pin.node(),
                                            .strong(.text(place.postcode.map { "\($0) \(place.name)" } ?? place.name)),
                                            .span(.text([place.region, place.countryName].compactMap { $0 }.joined(separator: ", "))))))
                            }))),
                .form(
                    .id("geo-form"), .action(WebPath.accountLocation), .method(.post),
                    WebPages.csrfField(req),
                    .input(.type(.hidden), .name("latitude"), .value("")),
                    .input(.type(.hidden), .name("longitude"), .value("")),
                    .unwrap(next) { .input(.type(.hidden), .name("next"), .value($0)) },
                    .button(
                        .type(.button), .id("locate-button"), .class("button block"), .attribute(named: "hidden"),
                        .data(named: "locate", value: "submit"), .data(named: "locate-status", value: "locate-status"),
                        .data(
                            named: "denied",
                            value:
                                "Your browser did not allow Pawpack to know your location. Search for your town instead, or allow location for this site in your browser settings."
                        ),
                        .data(named: "unavailable", value: "Your location could not be found just now. Search for your town instead."),
                        Icon.pin.node(), .text("Use my current location")),
                    .p(.id("locate-status"), .class("hint"), .attribute(named: "role", value: "status"))),
                .if(
                    user.latitude != nil,
                    .form(
                        .id("forget-location-form"), .action(WebPath.accountLocation), .method(.post), WebPages.csrfField(req),
                        .button(.type(.submit), .name("clear"), .value("1"), .class("link"), .id("forget-location"), .text("Forget my location")))),
                .p(.class("hint"), .id("places-attribution"), .text(Self.attribution))
            ))
    }

    @Sendable func save(_ req: Request) async throws -> Response {
        let user = try req.requireWebUser().user
        try req.checkCSRF()
        let form = try req.content.decode(LocationForm.self)
        var point: GeoPoint?
        // The member's town becomes the place chosen (or the town nearest to where the browser
        // said): the account names it, and this page offers it next time. Only they see it.
        var town: String?
        do {
            if form.clear != "1" {
                if let id = form.placeId {
                    guard let place = Place.ID(id).flatMap(Self.places.place) else {
                        throw Problem.invalidField("place", "is not a place Pawpack knows; search again")
                    }
                    point = place.centre
                    town = place.postcode.map { "\($0) \(place.name)" } ?? place.name
                } else {
                    guard let latitude = Double(form.latitude ?? ""), let longitude = Double(form.longitude ?? ""),
                        let valid = GeoPoint.validated(latitude: latitude, longitude: longitude)
                    else {
                        throw Problem.invalidField("place", "could not be read from your browser; search for your town instead")
                    }
                    point = valid
                    town = Self.places.nearestTown(to: valid)?.name
                }
            }
            if let town { user.city = String(town.prefix(AccountRules().maximumCityLength)) }
            try await req.pawpack.pets.setLocation(of: user, to: point, on: req.db)
        } catch let problem as Problem {
            return try render(req, user: user, errors: FormErrors(problem), status: .init(statusCode: problem.status))
        }
        return WebPages.redirect(WebPages.safeNext(form.next) ?? WebPath.account, flash: .location)
    }
}
