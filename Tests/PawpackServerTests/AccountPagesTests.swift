import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The account pages: sign-up, sign-in and out, the profile, the location, reset, export and deletion. Through HTTP with cookies, as a browser without JavaScript.
@Suite struct AccountPagesTests {
    @Test func aVisitorSignsUpVerifiesAndLogsInThroughThePages() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            let form = try await browser.get("/signup")
            #expect(form.status == 200)
            #expect(form.html.contains(#"<label for="dateOfBirth">"#))
            #expect(browser.cookies["pawpack_csrf"] != nil)

            let checkInbox = try await browser.post("/signup", TestBrowser.adaSignUp)
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

    @Test func signUpProblemsAreShownBesideTheTypedValues() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            _ = try await browser.get("/signup")
            var form = TestBrowser.adaSignUp
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

    @Test func aWebSessionEndsAfterAnIdleHour() async throws {
        try await TestServer.run { server in
            let browser = try await TestBrowser.signedUpAda(server)
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
            let browser = try await TestBrowser.signedUpAda(server)
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

    @Test func aNewMembersTimeZoneIsTheirBrowsersAndTheAccountPageChangesIt() async throws {
        try await TestServer.run { server in
            // given a browser in Lisbon signing up (the shell's script fills in its time zone)
            let browser = TestBrowser(server)
            let form = try await browser.get("/signup")
            #expect(form.html.contains(#"<input type="hidden" name="browserTimeZone" data-browser-time-zone="fill"/>"#))
            var fields = TestBrowser.adaSignUp
            fields["browserTimeZone"] = "Europe/Lisbon"
            #expect(try await browser.post("/signup", fields).status == 200)
            let token = try #require(server.linkToken(to: "ada@example.com"))
            _ = try await browser.get("/verify?token=\(token)")
            var account = try await browser.get("/account")
            #expect(account.html.contains(#"id="timeZone" value="Europe/Lisbon""#))

            // when she types one that is no time zone, it is named and nothing changes
            let bad = try await browser.post("/account/profile", ["displayName": "Ada", "timeZone": "Lisbon"])
            #expect(bad.status == 422)
            #expect(
                bad.html.contains(
                    #"<p id="timeZone-error" class="field-error">Time zone is not a time zone&#39;s IANA name, such as Europe/Oslo.</p>"#))
            account = try await browser.get("/account")
            #expect(account.html.contains(#"id="timeZone" value="Europe/Lisbon""#))

            // and a real one is kept
            let saved = try await browser.post("/account/profile", ["displayName": "Ada", "timeZone": "America/Toronto"])
            #expect(saved.location == "/account?flash=profile")
            account = try await browser.get("/account")
            #expect(account.html.contains(#"id="timeZone" value="America/Toronto""#))

            // a member who has none (one who joined before there was one) gets the browser's
            // at their next log-in; one who has one keeps it
            _ = try await server.member("cyd")
            let cyd = TestBrowser(server)
            _ = try await cyd.get("/login")
            let login = try await cyd.post(
                "/login", ["email": "cyd@example.com", "password": TestServer.password, "browserTimeZone": "Asia/Seoul"])
            #expect(login.location == "/home")
            #expect(try await cyd.get("/account").html.contains(#"id="timeZone" value="Asia/Seoul""#))
            let again = TestBrowser(server)
            _ = try await again.get("/login")
            _ = try await again.post("/login", ["email": "ada@example.com", "password": TestServer.password, "browserTimeZone": "Asia/Seoul"])
            #expect(try await again.get("/account").html.contains(#"id="timeZone" value="America/Toronto""#))

            // a browser sending something else signs up without one, and is not refused for it
            let other = TestBrowser(server)
            _ = try await other.get("/signup")
            var bob = TestBrowser.adaSignUp
            (bob["email"], bob["username"], bob["browserTimeZone"]) = ("bob@example.com", "bob", "Mars/Olympus")
            #expect(try await other.post("/signup", bob).status == 200)
            let users = try await UserRecord.query(on: server.app.db).filter(\.$username == "bob").all()
            #expect(users.count == 1 && users.first?.timeZone == nil)
        }
    }

    @Test func logOutEndsTheSessionOnTheServer() async throws {
        try await TestServer.run { server in
            let browser = try await TestBrowser.signedUpAda(server)
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
            let browser = try await TestBrowser.signedUpAda(server)
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
            let browser = try await TestBrowser.signedUpAda(server)
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
            let token = try await server.request(.POST, APIPath.logIn, json: ["email": "ada@example.com", "password": TestServer.password])
                .decode(Components.Schemas.Session.self).accessToken
            let me = try await server.request(.GET, APIPath.me, token: token)
            let centre = LocationBlur.matchingPoint(of: GeoPoint(latitude: 45.748, longitude: 4.847), offset: TestServer.centredGrid)
            #expect((me.json["location"] as? [String: Any])?["latitude"] as? Double == centre.latitude)
            _ = try await browser.post("/account/location", ["clear": "1"])
            #expect(try await server.request(.GET, APIPath.me, token: token).json["location"] == nil)
        }
    }

    @Test func theChosenPlaceIsOfferedAgainAndNamedOnTheAccount() async throws {
        try await TestServer.run { server in
            // given Ada, who said Lyon at sign-up
            let browser = try await TestBrowser.signedUpAda(server)
            _ = try await browser.post("/account/profile", ["displayName": "Ada", "city": "Lyon"])

            // when she chooses Villeurbanne from the search
            let found = try await browser.get("/account/location?q=Villeurbanne")
            let field = try #require(found.html.range(of: #"name="placeId" value=""#))
            let id = String(found.html[field.upperBound...].prefix { $0 != "\"" })
            #expect(try await browser.post("/account/location", ["placeId": id]).location == "/account?flash=location")

            // then the page offers Villeurbanne next time, and her account names it
            let again = try await browser.get("/account/location")
            #expect(again.html.contains("<strong>Villeurbanne</strong>") && again.html.contains(#"value="Villeurbanne""#))
            #expect(try await browser.get("/account").html.contains("In or near Villeurbanne."))

            // and where the browser says she is, the nearest town is named
            _ = try await browser.post("/account/location", ["latitude": "70.6634", "longitude": "23.6821"])
            #expect(try await browser.get("/account").html.contains("In or near Hammerfest."))
        }
    }

    @Test func theLocationCanBeChosenByPostcode() async throws {
        try await TestServer.run { server in
            let browser = try await TestBrowser.signedUpAda(server)
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
            let token = try await server.request(.POST, APIPath.logIn, json: ["email": "ada@example.com", "password": TestServer.password])
                .decode(Components.Schemas.Session.self).accessToken
            let location = try #require(try await server.request(.GET, APIPath.me, token: token).json["location"] as? [String: Any])
            let paris13 = try #require(LocationPages.places.place(.postcode(country: "FR", code: "75013")))
            let centre = LocationBlur.matchingPoint(of: paris13.centre, offset: TestServer.centredGrid)
            #expect(location["latitude"] as? Double == centre.latitude)
            #expect(location["longitude"] as? Double == centre.longitude)
        }
    }

    @Test func theExportDownloadsAsJSON() async throws {
        try await TestServer.run { server in
            let browser = try await TestBrowser.signedUpAda(server)
            let export = try await browser.get("/account/export")
            #expect(export.status == 200)
            #expect(export.headers.first(name: "Content-Disposition")?.contains("attachment") == true)
            #expect(export.html.contains(#""email" : "ada@example.com""#))
            #expect(export.html.contains(#""kind" : "web""#))
        }
    }

    @Test func aPasswordResetWorksFromTheEmailedLink() async throws {
        try await TestServer.run { server in
            _ = try await TestBrowser.signedUpAda(server)
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
}
