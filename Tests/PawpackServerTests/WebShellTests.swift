import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// What every page shares: the frame, forms' protection, errors, dates, the development tools.
/// Through HTTP with cookies, as a browser without JavaScript.
@Suite struct WebShellTests {
    @Test func aFormWithoutTheCSRFTokenIsRefusedAndChangesNothing() async throws {
        try await TestServer.run { server in
            let browser = TestBrowser(server)
            _ = try await browser.get("/signup")
            let forged = try await browser.post("/signup", TestBrowser.adaSignUp, csrf: .value("forged-token"))
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
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).json["displayName"] as? String != "Mallory's pick")
            // and from this server's own page, it goes through
            let ours = try await again.post("/account/profile", change, headers: [("Origin", server.baseURL)])
            #expect(ours.status == 303)
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
            let browser = try await TestBrowser.signedUpAda(server)
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
            let browser = try await TestBrowser.signedUpAda(server)
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
            let page = try await TestBrowser.signedUpAda(server).get("/dev/clock")
            #expect(page.status == 404)
        }
    }

    @Test func theDevelopmentPageListNamesEachAreasPagesAndTheirTabs() async throws {
        struct Listed: Decodable, Equatable {
            var area: String
            var path: String
            var tab: String?
        }
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            let reply = try await server.request(.GET, "/dev/pages")
            #expect(reply.status == 200)
            let pages = try reply.decode([Listed].self)
            // each area's pages, under the tab it declares; nothing of the API
            #expect(pages.contains(Listed(area: "Pets", path: "/pets/:petId/vaccinations", tab: "care")))
            #expect(pages.contains(Listed(area: "Playdates", path: "/pets/:petId/deck", tab: "playdates")))
            #expect(pages.contains(Listed(area: "Meetups", path: "/chats/:chatId/meetups/new", tab: "chats")))
            #expect(pages.contains(Listed(area: "Notifications", path: "/notifications", tab: nil)))
            #expect(pages.contains(Listed(area: "Shell", path: "/home", tab: "home")))
            #expect(pages.contains(Listed(area: "Care", path: "/care/pets/:petId/health", tab: "care")))
            #expect(!pages.contains { $0.path.hasPrefix("/v1/") && $0.path != "/v1/realtime" })
            #expect(Set(pages.map(\.area)).isSuperset(of: Areas.all.list.filter { $0.tab != nil }.map(\.name)))
        }
        try await TestServer.run { server in
            let production = try await server.request(.GET, "/dev/pages")
            #expect(production.status == 404)
        }
    }
}
