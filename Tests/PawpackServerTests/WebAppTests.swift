import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The server-rendered web app, through HTTP with cookies, as a browser without JavaScript.
@Suite struct WebAppTests {
    let signUpForm = [
        "email": "ada@example.com", "username": "ada", "displayName": "Ada",
        "dateOfBirth": "1990-05-17", "city": "", "password": TestServer.password,
    ]

    /// Signs Ada up through the pages; opening the emailed link signs her in.
    func signedInBrowser(_ server: TestServer) async throws -> TestBrowser {
        let browser = TestBrowser(server)
        _ = try await browser.get("/signup")
        _ = try await browser.post("/signup", signUpForm)
        let token = try #require(server.linkToken(to: "ada@example.com"))
        let verified = try await browser.get("/verify?token=\(token)")
        #expect(verified.location == "/home?flash=verified")
        return browser
    }

    @Test func aVisitorSignsUpVerifiesAndLogsInThroughThePages() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            let form = try await browser.get("/signup")
            #expect(form.status == 200)
            #expect(form.html.contains(#"<label for="dateOfBirth">"#))
            #expect(browser.cookies["pawpack_csrf"] != nil)

            let checkInbox = try await browser.post("/signup", signUpForm)
            #expect(checkInbox.status == 200)
            #expect(checkInbox.html.contains("<h1>Check your email</h1>"))

            let token = try #require(server.linkToken(to: "ada@example.com"))
            // opening the link signs this browser in and starts the guided start
            let verified = try await browser.get("/verify?token=\(token)")
            #expect(verified.status == 303)
            #expect(verified.location == "/home?flash=verified")
            let sessionCookie = try #require(browser.lastSetCookies.first { $0.hasPrefix("pawpack_session=") })
            #expect(sessionCookie.contains("HttpOnly"))
            #expect(sessionCookie.contains("SameSite=Lax"))

            let home = try await browser.get("/home?flash=verified")
            #expect(home.status == 200)
            #expect(home.html.contains("Hello, Ada"))
            #expect(home.html.contains("Your email is verified. Welcome to Pawpack!"))
            #expect(home.html.contains(#"id="app-nav""#))
            #expect(home.html.contains(#"<li class="todo" id="step-dog"><span class="tick"></span><a href="/pets/new">Add your dog</a></li>"#))

            // a password log-in works too, elsewhere
            let other = TestBrowser(server)
            _ = try await other.get("/login")
            let login = try await other.post("/login", ["email": "ada@example.com", "password": TestServer.password])
            #expect(login.status == 303)
            #expect(login.location == "/home")
        }
    }

    @Test func aFormWithoutTheCSRFTokenIsRefusedAndChangesNothing() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            _ = try await browser.get("/signup")
            let forged = try await browser.post("/signup", signUpForm, csrf: .value("forged-token"))
            #expect(forged.status == 403)
            #expect(forged.html.contains("This form has expired"))
            #expect(try await server.rowCounts()["users"] == 0)
        }
    }

    @Test func aSignedInFormNeedsItsSessionsTokenAndOurOrigin() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let browser = try await TestBrowser.signedIn(server, as: ada)
            let change = ["displayName": "Mallory's pick", "city": "Nowhere"]
            // a cookie and field an attacker chose together (a sibling domain can set cookies)
            browser.setCookie("pawpack_csrf", "chosen-by-mallory")
            let chosen = try await browser.post("/account/profile", change, csrf: .value("chosen-by-mallory"))
            #expect(chosen.status == 403)
            // the token of an earlier session
            let earlier = try await browser.get("/account").html
            let oldToken = try #require(earlier.range(of: #"name="_csrf" value="[^"]*""#, options: .regularExpression).map { String(earlier[$0]) })
            let again = try await TestBrowser.signedIn(server, as: ada)
            let stale = try await again.post("/account/profile", change, csrf: .value(String(oldToken.dropFirst(20).dropLast())))
            #expect(stale.status == 403)
            // the right token, sent from another site's page
            _ = try await again.get("/account")
            let crossSite = try await again.post("/account/profile", change, headers: [("Origin", "https://evil.example")])
            #expect(crossSite.status == 403)
            #expect(try await server.request(.GET, "/v1/me", token: ada.accessToken).json["displayName"] as? String != "Mallory's pick")
            // and from this server's own page, it goes through
            let ours = try await again.post("/account/profile", change, headers: [("Origin", server.baseURL)])
            #expect(ours.status == 303)
        }
    }

    @Test func signUpProblemsAreShownBesideTheTypedValues() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            _ = try await browser.get("/signup")
            var form = signUpForm
            form["password"] = "short"
            let page = try await browser.post("/signup", form)
            #expect(page.status == 422)
            #expect(page.html.contains(#"<p id="password-error" class="field-error">Password must be at least 10 characters.</p>"#))
            #expect(page.html.contains(#"aria-invalid="true" autofocus="autofocus" aria-describedby="password-hint password-error""#))
            #expect(page.html.contains("Please check the field marked below."))
            #expect(page.html.contains(#"value="ada@example.com""#))
            #expect(!page.html.contains(#"value="short""#))
            #expect(try await server.rowCounts()["users"] == 0)
        }
    }

    @Test func signedOutVisitorsAreSentToLogIn() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            for path in ["/home", "/account", "/account/export"] {
                let page = try await browser.get(path)
                #expect(page.status == 303, "\(path)")
                #expect(page.location == "/login?next=" + path.replacingOccurrences(of: "/", with: "%2F"), "\(path)")
            }
            // and come back there once logged in; never to another site
            _ = try await server.member("ada")
            let form = try await browser.get("/login?next=%2Faccount")
            #expect(form.html.contains(#"<input type="hidden" name="next" value="/account"/>"#))
            let back = try await browser.post("/login", ["email": "ada@example.com", "password": TestServer.password, "next": "/account"])
            #expect(back.location == "/account")
            let elsewhere = TestBrowser(server)
            _ = try await elsewhere.get("/login")
            let offsite = try await elsewhere.post(
                "/login", ["email": "ada@example.com", "password": TestServer.password, "next": "//evil.example/"])
            #expect(offsite.location == "/home")
        }
    }

    @Test func aWebSessionEndsAfterAnIdleHour() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            server.clock.advance(by: 59 * 60)
            #expect(try await browser.get("/home").status == 200) // activity renews the hour
            server.clock.advance(by: 59 * 60)
            #expect(try await browser.get("/home").status == 200)
            server.clock.advance(by: 60 * 60)
            let expired = try await browser.get("/home")
            #expect(expired.location == "/login?next=%2Fhome")
            #expect(browser.cookies["pawpack_session"] == nil, "\(browser.lastSetCookies)")
        }
    }

    @Test func changingTheUsernameShowsItAndABadOneChangesNothing() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            let bad = try await browser.post("/account/username", ["username": "no spaces"])
            #expect(bad.status == 422)
            #expect(bad.html.contains(#"<p id="username-error" class="field-error">New username may use only letters"#))
            #expect(bad.html.contains(#"<strong id="current-username">ada</strong>"#))

            let changed = try await browser.post("/account/username", ["username": "ada_lovelace"])
            #expect(changed.location == "/account?flash=username")
            let account = try await browser.get("/account?flash=username")
            #expect(account.html.contains("Username changed."))
            #expect(account.html.contains(#"<strong id="current-username">ada_lovelace</strong>"#))
        }
    }

    @Test func logOutEndsTheSessionOnTheServer() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            let stolenCookie = try #require(browser.cookies["pawpack_session"])
            let out = try await browser.post("/logout", [:])
            #expect(out.location == "/?flash=logged-out")
            #expect(try await browser.get("/home").location == "/login?next=%2Fhome")

            let thief = TestBrowser(server)
            _ = try await thief.get("/")
            let replay = try await server.request(.GET, "/home", headers: [("Cookie", "pawpack_session=\(stolenCookie)")])
            #expect(replay.status == 303)
        }
    }

    @Test func deletingFromTheWebNeedsThePasswordAndEndsEverything() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            let wrong = try await browser.post("/account/delete", ["password": "not my password"])
            #expect(wrong.status == 403)
            #expect(try await server.rowCounts()["users"] == 1)
            let deleted = try await browser.post("/account/delete", ["password": TestServer.password])
            #expect(deleted.location == "/?flash=deleted")
            #expect(try await server.rowCounts()["users"] == 0)
            #expect(try await server.rowCounts()["web_sessions"] == 0)
        }
    }

    @Test func theLocationIsChosenByTownWithoutCoordinatesAndKeptAsItsCell() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            // the page offers the town given at sign-up, searched in the bundled places
            _ = try await browser.post("/account/profile", ["displayName": "Ada", "city": "Lyon"])
            let page = try await browser.get("/account/location")
            #expect(page.status == 200)
            #expect(!page.html.contains(#"name="latitude" id="#))
            #expect(page.html.contains("Is it one of these?"))
            #expect(page.html.contains("<strong>Lyon</strong><span>France</span>"))
            #expect(page.html.contains("Towns and postcodes from GeoNames (geonames.org), CC BY 4.0."))
            let springfield = try await browser.get("/account/location?q=springfield%2C%20illinois")
            #expect(springfield.html.contains("<strong>Springfield</strong><span>Illinois, United States</span>"))
            #expect(!springfield.html.contains("Missouri"))
            let nowhere = try await browser.get("/account/location?q=Qqqxz")
            #expect(nowhere.html.contains(#"id="no-places""#))

            // a place that does not exist changes nothing
            let bad = try await browser.post("/account/location", ["placeId": "999999999"])
            #expect(bad.status == 422)
            #expect(bad.html.contains("Place is not a place Pawpack knows; search again."))
            let badPostcode = try await browser.post("/account/location", ["placeId": "FR-00000"])
            #expect(badPostcode.status == 422)
            let unreadable = try await browser.post("/account/location", ["latitude": "123", "longitude": "4.8"])
            #expect(unreadable.status == 422)

            // Lyon (GeoNames 2996944) is kept as the centre of its cell, and the deck comes next
            let saved = try await browser.post("/account/location", ["placeId": "2996944", "next": "/playdates"])
            #expect(saved.location == "/playdates?flash=location")
            let token = try await server.request(.POST, "/v1/auth/login", json: ["email": "ada@example.com", "password": TestServer.password])
                .decode(Components.Schemas.Session.self).accessToken
            let me = try await server.request(.GET, "/v1/me", token: token)
            let centre = LocationBlur.matchingPoint(of: GeoPoint(latitude: 45.748, longitude: 4.847), offset: TestServer.centredGrid)
            #expect((me.json["location"] as? [String: Any])?["latitude"] as? Double == centre.latitude)
            _ = try await browser.post("/account/location", ["clear": "1"])
            #expect(try await server.request(.GET, "/v1/me", token: token).json["location"] == nil)
        }
    }

    @Test func theLocationCanBeChosenByPostcode() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            // a full British postcode finds its district; Paris's 13th by its code, narrowed to France
            let london = try await browser.get("/account/location?q=SW1A%201AA")
            #expect(london.html.contains(#"<button type="submit" id="place-GB-SW1A">"#))
            #expect(london.html.contains("<strong>SW1A… Westminster Abbey</strong><span>United Kingdom</span>"))
            let paris = try await browser.get("/account/location?q=75013%2C%20france")
            #expect(paris.html.contains("<strong>75013 Paris</strong><span>France</span>"))
            #expect(!paris.html.contains("<span>Germany</span>"))
            let nowhere = try await browser.get("/account/location?q=ZZ99%209ZZ%2C%20france")
            #expect(nowhere.html.contains(#"id="no-places""#) && nowhere.html.contains("No postcode “ZZ99 9ZZ, france”"))

            let saved = try await browser.post("/account/location", ["placeId": "FR-75013", "next": "/playdates"])
            #expect(saved.location == "/playdates?flash=location")
            let token = try await server.request(.POST, "/v1/auth/login", json: ["email": "ada@example.com", "password": TestServer.password])
                .decode(Components.Schemas.Session.self).accessToken
            let location = try #require(try await server.request(.GET, "/v1/me", token: token).json["location"] as? [String: Any])
            let paris13 = try #require(LocationPages.places.place(.postcode(country: "FR", code: "75013")))
            let centre = LocationBlur.matchingPoint(of: paris13.centre, offset: TestServer.centredGrid)
            #expect(location["latitude"] as? Double == centre.latitude)
            #expect(location["longitude"] as? Double == centre.longitude)
        }
    }

    @Test func anEmptyDeckSaysSoAndAFullOneShowsPhotoCardsWithChipsButNoScore() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let empty = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(empty.status == 200)
            #expect(empty.html.contains(#"id="deck-empty""#))
            #expect(empty.html.contains(#"<form id="undo-form" action="/pets/\#(ada.dogID)/swipes/undo" method="post" hidden="hidden">"#))

            _ = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let full = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(full.html.contains(#"<h2 id="deck-name">Bob&#39;s dog<span>, about 2 years</span></h2>"#))
            #expect(full.html.contains(#"<ul class="chips" id="deck-reasons">"#))
            #expect(!full.html.lowercased().contains("score"))
            #expect(full.html.contains(#"aria-label="Like Bob&#39;s dog""#))

            // a swipe from the deck's script gets JSON; from a form, a redirect
            let liked = try await browser.post(
                "/pets/\(ada.dogID)/swipes", ["targetPetId": try await server.deck(ada).items[0].pet.id, "decision": "like"],
                headers: [("Accept", "application/json")])
            #expect(liked.status == 200)
            #expect(liked.html == "{}")
            let again = try await browser.get("/pets/\(ada.dogID)/deck")
            #expect(again.html.contains(#"id="deck-empty""#))
            #expect(again.html.contains(#"<form id="undo-form" action="/pets/\#(ada.dogID)/swipes/undo" method="post">"#))
        }
    }

    @Test func webPreferencesTakeAgesInYearsAndMonthsAndPlaceTheirErrorsThere() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let path = "/pets/\(ada.dogID)/preferences"
            let bad = try await browser.post(path, ["maxDistanceKm": "10", "minAgeYears": "1", "minAgeMonths": "14"])
            #expect(bad.status == 422)
            #expect(bad.html.contains(#"<p id="minAgeYears-error" class="field-error">"#))
            #expect(
                try await server.get(
                    path.replacingOccurrences(of: "/pets", with: "/v1/pets"), token: ada.token,
                    as: Components.Schemas.DeckPreferences.self
                ).maxDistanceKm == 25)

            let saved = try await browser.post(
                path,
                [
                    "maxDistanceKm": "10", "minAgeYears": "1", "minAgeMonths": "6",
                    "maxAgeYears": "4", "sexes[]": "female", "sizes[]": "medium",
                    "playStyles[]": "chase", "neuteredOnly": "on", "maxWeightKg": "20,5",
                ])
            #expect(saved.location == "/pets/\(ada.dogID)/deck?flash=preferences")
            let stored = try await server.get("/v1/pets/\(ada.dogID)/preferences", token: ada.token, as: Components.Schemas.DeckPreferences.self)
            #expect(stored.maxDistanceKm == 10 && stored.minAgeMonths == 18 && stored.maxAgeMonths == 48)
            #expect(stored.sexes == [.female] && stored.sizes == [.medium] && stored.playStyles == [.chase])
            #expect(stored.neuteredOnly == true && stored.maxWeightKg == 20.5)
            let page = try await browser.get(path)
            #expect(page.html.contains(#"name="minAgeYears" id="minAgeYears" value="1""#))
            #expect(page.html.contains(#"name="minAgeMonths" id="minAgeMonths" value="6""#))
            #expect(page.html.contains(#"value="female" id="sexes-female" checked"#))
        }
    }

    @Test func aPuppysProfileShowsItsBehaviourToItsOwnerOnly() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner(
                "ada", at: TestServer.Place.lyon, dog: ["estimatedAgeMonths": 4, "playStyles": ["chase"], "neutered": true])
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let own = try await TestBrowser.signedIn(server, as: ada.member).get("/pets/\(ada.dogID)")
            #expect(own.html.contains("<dt>Plays</dt><dd>Chase</dd>") && own.html.contains("<dt>Neutered</dt><dd>Yes</dd>"))
            #expect(own.html.contains("Meet-ups unlock once"))
            let theirs = try await TestBrowser.signedIn(server, as: bob.member).get("/pets/\(ada.dogID)")
            #expect(theirs.status == 200)
            #expect(!theirs.html.contains("<dt>Plays</dt>") && !theirs.html.contains("<dt>Neutered</dt>"))
            #expect(!theirs.html.contains(#"id="welfare""#))
        }
    }

    @Test func anErrorPageLeadsBackToOurPageItCameFromAndALockoutSaysForHowLong() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let host = String(server.baseURL.dropFirst("http://".count))
            let missing = "/pets/\(Pet.ID())"
            let fromDeck = try await browser.get(missing, headers: [("Referer", "http://\(host)/pets/\(ada.dogID)/deck")])
            #expect(fromDeck.status == 404)
            #expect(fromDeck.html.contains(#"<a class="button" id="error-back" href="/pets/\#(ada.dogID)/deck">Go back</a>"#))
            let fromElsewhere = try await browser.get(missing, headers: [("Referer", "https://evil.example/pets/\(ada.dogID)/deck")])
            #expect(fromElsewhere.html.contains(#"<a class="button" id="error-back" href="/home">Back to Pawpack</a>"#))

            let guesser = TestBrowser(server)
            _ = try await guesser.get("/login")
            for _ in 1...5 { _ = try await guesser.post("/login", ["email": ada.member.email, "password": "not the password"]) }
            let locked = try await guesser.post("/login", ["email": ada.member.email, "password": ada.member.password])
            #expect(locked.status == 429)
            #expect(
                locked.html.contains(
                    #"<p class="notice" id="locked-out">For your safety, logging in is paused for 5 minutes. Forgot your password? <a href="/forgot-password">Reset it by email</a>.</p>"#
                ))
        }
    }

    @Test func datesReadInTheMembersLanguage() async throws {
        try await TestServer.run { server in
            let day = try #require(LocalDate("2026-03-12"))
            func long(_ language: String?) -> String {
                let request = Request(application: server.app, on: server.app.eventLoopGroup.next())
                if let language { request.headers.replaceOrAdd(name: .acceptLanguage, value: language) }
                return DateWords.long(day, for: request)
            }
            #expect(long("en-US,en;q=0.9") == "March 12, 2026")
            #expect(long("en-GB") == "12 March 2026")
            #expect(long("fr-FR") == "12 mars 2026")
            #expect(long(nil) == "12 March 2026")
        }
    }

    @Test func theExportDownloadsAsJSON() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            let export = try await browser.get("/account/export")
            #expect(export.status == 200)
            #expect(export.headers.first(name: "Content-Disposition")?.contains("attachment") == true)
            #expect(export.html.contains(#""email" : "ada@example.com""#))
            #expect(export.html.contains(#""kind" : "web""#))
        }
    }

    @Test func aPasswordResetWorksFromTheEmailedLink() async throws {
        try await TestServer.run { server in
            _ = try await signedInBrowser(server)
            let browser = TestBrowser(server)
            _ = try await browser.get("/forgot-password")
            let sent = try await browser.post("/forgot-password", ["email": "ada@example.com"])
            #expect(sent.html.contains("Check your email"))
            let token = try #require(server.linkToken(to: "ada@example.com", path: "/reset-password"))
            let form = try await browser.get("/reset-password?token=\(token)")
            #expect(form.html.contains(#"id="reset-form""#))
            let done = try await browser.post("/reset-password", ["token": token, "newPassword": "a whole new leash"])
            #expect(done.location == "/login?flash=password-reset")
            let login = try await browser.post("/login", ["email": "ada@example.com", "password": "a whole new leash"])
            #expect(login.location == "/home")
        }
    }

    @Test func theDevelopmentOutboxIsServedOnlyInDevelopment() async throws {
        try await TestServer.run { server in
            let reply = try await server.request(.GET, "/dev/mail")
            #expect(reply.status == 404)
        }
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            try await server.signUp(email: "ada@example.com", username: "ada")
            let page = try await server.request(.GET, "/dev/mail", headers: [("Accept", "text/html")])
            #expect(page.status == 200)
            #expect(page.text.contains(#"<a class="mail-link" href="http://pawpack.test/verify?token="#))
        }
    }

    @Test func pagesAreReadableOnAPhoneAndEveryInputIsLabelled() async throws {
        try await TestServer.run { server in
            let browser = try await signedInBrowser(server)
            let account = try await browser.get("/account")
            #expect(account.html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover"/>"#))
            // every visible input has a label pointing at its id
            let ids = account.html.components(separatedBy: "<input ").dropFirst()
                .filter { !$0.hasPrefix(#"type="hidden""#) }
                .compactMap { $0.components(separatedBy: #"id=""#).dropFirst().first?.components(separatedBy: "\"").first }
            #expect(ids.count >= 8)
            for id in ids { #expect(account.html.contains(#"<label for="\#(id)">"#), "\(id)") }
            // the stylesheet the page links, named by its content and so kept a year
            let href = try #require(account.html.firstMatch(of: /<link rel="stylesheet" href="(\/assets\/styles\.[0-9a-f]{12}\.css)"\/>/)?.output.1)
            let css = try await server.request(.GET, String(href))
            #expect(css.text.contains(":focus-visible"))
            #expect(css.headers.first(name: .cacheControl) == "public, max-age=31536000, immutable")
        }
    }

    @Test func theDevelopmentClockMovesOnlyForwardAndOnlyInDevelopment() async throws {
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            let browser = try await signedInBrowser(server)
            let before = server.clock.now()
            // a nonsense or backward move is refused and moves nothing
            for minutes in ["0", "-5", "99999", "soon"] {
                let refused = try await browser.post("/dev/clock", ["minutes": minutes])
                #expect(refused.status == 422 || refused.status == 400, "\(minutes): \(refused.status)")
            }
            #expect(server.clock.now() == before)
            // three minutes forward: what is due then can be tried now
            let moved = try await browser.post("/dev/clock", ["minutes": "3"])
            #expect(moved.location == "/dev/clock")
            #expect(server.clock.now() == before.addingTimeInterval(180))
            #expect(try await browser.get("/dev/clock").html.contains(ISO8601DateFormatter().string(from: before.addingTimeInterval(180))))
        }
        try await TestServer.run { server in
            let page = try await signedInBrowser(server).get("/dev/clock")
            #expect(page.status == 404)
        }
    }
}
