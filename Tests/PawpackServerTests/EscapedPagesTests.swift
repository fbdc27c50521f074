import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// Whatever members type is shown as text: every builder escapes, and every page, rendered
/// with hostile text in every field a member can fill, has exactly the elements and attributes it
/// has with plain text.
@Suite struct EscapedPagesTests {
    @Test func everyPageHasTheSameElementsWithHostileTextInEveryField() async throws {
        // given the same community twice, once with plain names and once with names that try to
        // close an attribute or open a tag, rendered page by page
        let plain = try await Self.everyPage(with: .plain)
        let hostile = try await Self.everyPage(with: .hostile)

        // then each page is made of the same elements with the same attributes
        #expect(plain.keys.sorted() == hostile.keys.sorted())
        #expect(plain.count >= 40, "\(plain.count) pages")
        for (page, html) in hostile.sorted(by: { $0.key < $1.key }) {
            let expected = try #require(plain[page])
            let (want, got) = (HTMLSkeleton.tags(of: expected), HTMLSkeleton.tags(of: html))
            #expect(want == got, "\(page): first difference \(HTMLSkeleton.firstDifference(want, got))")
            #expect(!html.localizedCaseInsensitiveContains("<base") && !html.contains("evil.example/\">"), "\(page)")
            // A form inside a form is dropped by the browser: its button would send the outer one.
            var depth = 0
            for tag in html.matches(of: /<(\/?)form[\s>]/) {
                depth += tag.1.isEmpty ? 1 : -1
                #expect(depth <= 1, "\(page): a form inside a form")
            }
        }
        // and the hostile text is really on the pages, shown as the text it is
        let showing = hostile.filter { $0.value.contains(HTMLEscaping.escape(Texts.hostile.petName)) }
        #expect(showing.count >= 8, "the hostile pet name appears on \(showing.keys.sorted())")
        let inAttributes = hostile.filter { $0.value.contains("=\"" + HTMLEscaping.escape(Texts.hostile.petName)) }
        #expect(!inAttributes.isEmpty, "no page shows the name in an attribute")
    }

    // MARK: The community

    /// What members type: the same fields, plain or hostile.
    struct Texts {
        var displayName, city, email, petName, breed, notes, vaccineName, clinic, token: String
        // The plain city is no town in the bundled list, so that the location page shows the
        // same elements (no suggestions) for both texts.

        static let plain = Texts(
            displayName: "Ada Lovelace", city: "Lyonesse", email: "ada@example.com",
            petName: "Rex", breed: "Beagle", notes: "Loves the park.", vaccineName: "Leish",
            clinic: "Vet du Parc", token: "not-a-token")
        static let hostile = Texts(
            displayName: #""><base href=//evil.example/>"#,
            city: #"'><img src=//evil.example/x.png>"#,
            email: #"a"b'c&d@example.com"#,
            petName: #""><base href=//evil.example/>"#,
            breed: #"</title><script>alert(1)</script>"#,
            notes: #"&lt;b&gt; "onmouseover="alert(1)" <a href="//evil.example/">x</a>"#,
            vaccineName: #"' autofocus onfocus='alert(1)"#,
            clinic: #"</textarea></select><img src=x>"#,
            token: #""><base href=//evil.example/>"#)
    }

    /// Every page of a community where Ada's dog, with a photo and an unusual vaccination, is
    /// liked by Bob's, matched with Cyd's, guarded by an invitation to Bob, and in Dan's deck:
    /// each member's pages, the pages of Ada's dog to the others, the pages anyone sees, and every
    /// form sent back with a mistake, which shows what was typed. Keyed by what was asked.
    static func everyPage(with texts: Texts) async throws -> [String: String] {
        try await TestServer.run(adjust: { $0.environment = .development }) { server in
            let ada = try await server.owner(
                "ada", at: TestServer.Place.lyon,
                dog: [
                    "name": texts.petName, "breed": texts.breed, "notes": texts.notes,
                ], member: server.member("ada", email: texts.email, displayName: texts.displayName, city: texts.city))
            let others = ["bob": TestServer.Place.lyonNear, "cyd": TestServer.Place.lyonNear, "dan": TestServer.Place.lyonNorth]
            var owners = ["ada": ada]
            for (name, place) in others {
                owners[name] = try await server.owner(
                    name, at: place, dog: ["name": texts.petName],
                    member:
                        server.member(name, displayName: texts.displayName, city: texts.city))
            }
            let (bob, cyd) = (owners["bob"]!, owners["cyd"]!)
            _ = try await server.member("fay", displayName: texts.displayName, city: texts.city)
            _ = try await server.send(.POST, APIPath.blocks, object: ["username": "fay"], token: ada.token)
            let photo = try await server.upload(
                APIPath.photos(ada.dogID),
                parts: [
                    .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))
                ], token: ada.token)
            let vaccination = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID),
                object: [
                    "vaccine": "other", "otherName": texts.vaccineName, "clinic": texts.clinic, "givenOn": "2025-06-01",
                ], token: ada.token)
            let invited = try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "bob"], token: ada.token)
            for reply in [photo, vaccination, invited] where reply.status != 201 {
                throw TestFailure("setting up: \(reply.status) \(reply.text)")
            }
            // A second between steps: the inbox lists newest first, and ties would fall to random ids.
            _ = try await server.like(bob, ada)
            server.clock.advance(by: 1)
            _ = try await server.like(cyd, ada)
            server.clock.advance(by: 1)
            let matched = try await server.like(ada, cyd)
            server.clock.advance(by: 1)
            guard let matchID = matched.match?.id else { throw TestFailure("setting up: no match") }
            // their chat, with a message and a meet-up in the same words
            try await server.vaccinate(ada)
            try await server.vaccinate(cyd)
            guard let chat = try await server.get(APIPath.chats, token: ada.token, as: Components.Schemas.ChatPage.self).items.first?.id else {
                throw TestFailure("setting up: no chat")
            }
            try await server.say(texts.notes, from: cyd, in: chat)
            server.clock.advance(by: 1)
            let proposed = try await server.propose(ada, in: chat, place: texts.petName, extra: ["note": texts.notes])
            guard proposed.status == 201 else { throw TestFailure("setting up: \(proposed.status) \(proposed.text)") }
            let meetupID = try proposed.decode(Components.Schemas.Meetup.self).id
            // Ada's family, with Bob in it, shares her dog, which eats a food of the same words;
            // Bob fed it, and it has a weight
            let family = try await server.family(of: ada.token, name: texts.petName)
            try await server.join(family.id, owner: ada.token, member: bob.token)
            try await server.share(ada.dogID, with: family.id, token: ada.token)
            let food = try await server.food(for: ada.dogID, token: ada.token, ["name": texts.petName])
            let fed = try await server.feed(ada.dogID, food: food.id, token: bob.token)
            let weighed = try await server.send(.POST, APIPath.weights(ada.dogID), object: ["kilograms": 14.2], token: ada.token)
            for reply in [fed, weighed] where reply.status != 201 { throw TestFailure("setting up: \(reply.status) \(reply.text)") }
            // Ada's photo of her dog, captioned in the same words, seen by her friend Bob, entered
            // in the week's contest and voted for; Dan asks Ada to be friends
            await server.app.pawpack.jobs.stop()
            try await server.app.pawpack.contests.rotate(on: server.app.db)
            let moment = try await server.moment(pets: [ada.dogID], privacy: "friends", caption: texts.notes, token: ada.token)
            try await server.makeFriends(bob.member, ada.member)
            let contest = try await server.get(APIPath.currentContest, token: ada.token, as: Components.Schemas.Contest.self)
            let entered = try await server.send(
                .POST, APIPath.contestEntries(contest.id), object: ["photoId": moment.id, "makePublic": true], token: ada.token)
            let entry = try entered.decode(Components.Schemas.Entry.self)
            let voted = try await server.request(.PUT, APIPath.entryVote(entry.id), token: bob.token)
            let asked = try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: owners["dan"]!.token)
            for reply in [entered, voted, asked] where reply.status >= 300 { throw TestFailure("setting up: \(reply.status) \(reply.text)") }

            var pages: [String: String] = [:]
            func keep(_ key: String, _ page: TestBrowser.Page) throws {
                guard page.headers.contentType == .html else { return }
                let policy = page.headers.first(name: "Content-Security-Policy") ?? ""
                #expect(policy.contains("base-uri 'none'") && policy.contains("object-src 'none'"), "\(key): \(policy)")
                guard pages.updateValue(page.html, forKey: key) == nil else { throw TestFailure("\(key) twice") }
            }
            let routes = WebRoutesTests.webRoutes(server).filter { $0.method == .GET }
            let skipped: Set<String> = [
                server.app.pawpack.assets.stylesheet.path, server.app.pawpack.assets.script.path, WebPath.accountExport, WebPath.verifyEmail,
                WebPath.resetPassword, WebPath.mediaRoute, WebPath.chatMediaRoute, WebPath.momentMediaRoute,
            ]

            // each member's own pages, and Ada's dog's pages seen by the others
            for name in owners.keys.sorted() {
                let owner = owners[name]!
                let browser = try await TestBrowser.signedIn(server, as: owner.member)
                for route in routes where !skipped.contains("/" + route.path.string) {
                    let path = try WebRoutesTests.path(
                        of: route,
                        values: [
                            "petId": owner.dogID, "matchId": matchID,
                            "chatId": chat, "meetupId": meetupID, "familyId": family.id, "momentId": moment.id,
                            "contestId": contest.id,
                        ])
                    try keep("\(name): GET /\(route.path.string)", try await browser.get(path))
                    if name != "ada", path.contains(owner.dogID) {
                        let theirs = path.replacingOccurrences(of: owner.dogID, with: ada.dogID)
                        try keep("\(name) on Ada's dog: GET /\(route.path.string)", try await browser.get(theirs))
                    }
                }
            }

            // the pages anyone sees, with a link's token as typed
            let visitor = TestBrowser(server)
            for route in routes where route.path.allSatisfy({ if case .constant = $0 { true } else { false } }) {
                try keep("visitor: GET /\(route.path.string)", try await visitor.get("/" + route.path.string))
            }
            let token = texts.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            try keep("visitor: verify link", try await visitor.get(WebPath.verifyEmail + "?token=" + token))
            try keep("visitor: reset link", try await visitor.get(WebPath.resetPassword + "?token=" + token))

            // every form sent back with a mistake, showing what was typed
            let mistakes: [(String, [String: String])] = [
                (
                    WebPath.signUp,
                    [
                        "email": texts.email, "username": "eve", "displayName": texts.displayName,
                        "city": texts.city, "dateOfBirth": "1990-01-01", "password": "short",
                    ]
                ),
                (WebPath.logIn, ["email": texts.email, "password": "not the password"]),
                (WebPath.forgotPassword, ["email": texts.email + "@"]),
                (WebPath.resendVerification, ["email": texts.email + "@"]),
                (WebPath.resetPassword, ["token": texts.token, "newPassword": "short"]),
            ]
            for (path, form) in mistakes {
                _ = try await visitor.get(path == WebPath.resendVerification ? WebPath.logIn : path)
                try keep("visitor: POST \(path)", try await visitor.post(path, form))
            }
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let petForm = [
                "name": texts.petName, "species": "dog", "breed": texts.breed, "notes": texts.notes,
                "weightKg": "-3", "estimatedAgeMonths": "30",
            ]
            let signedInMistakes: [(String, [String: String])] = [
                (WebPath.accountProfile, ["displayName": "", "city": texts.city]),
                (WebPath.accountEmail, ["newEmail": texts.email + "@", "password": "ada's own secret"]),
                (WebPath.accountUsername, ["username": texts.displayName]),
                (WebPath.pets, petForm),
                (WebPath.editPet(ada.dog), petForm),
                (
                    WebPath.vaccinations(ada.dog),
                    [
                        "vaccine": "other", "otherName": texts.vaccineName,
                        "clinic": texts.clinic, "givenOn": "not a date",
                    ]
                ),
                (WebPath.guardians(ada.dog), ["username": texts.displayName]),
                (WebPath.careFeeds(ada.dog), ["id": UUID().uuidString, "food": food.id, "time": texts.notes]),
                (WebPath.careFoods(ada.dog), ["name": texts.petName, "kind": "dry", "kcal": "5000"]),
                (WebPath.families, ["name": texts.petName, "timeZone": texts.city]),
                (WebPath.joinFamily, ["code": texts.notes]),
                (WebPath.momentAction(Moments.Photo.ID(string: moment.id)!, .edit), ["caption": texts.notes, "privacy": texts.petName]),
                (WebPath.contestEntries(Moments.Contest.ID(string: contest.id)!), ["photo": texts.petName]),
            ]
            for (path, form) in signedInMistakes {
                let page = try await browser.post(path, form)
                #expect(page.status >= 400, "\(path) took the mistake: \(page.status)")
                let key = path.replacingOccurrences(of: ada.dogID, with: ":petId").replacingOccurrences(of: moment.id, with: ":momentId")
                    .replacingOccurrences(of: contest.id, with: ":contestId")
                try keep("ada: POST \(key)", page)
            }
            return pages
        }
    }
}

/// The escaping every page's text and attribute values go through, and the reading of HTML the
/// page test relies on.
@Suite struct SafeHTMLTests {
    @Test func textIsEscapedSoItEndsNoAttributeOpensNoTagAndShowsAsTyped() {
        #expect(HTMLEscaping.escape(#"x"><b a='1'>&amp;"#) == "x&quot;&gt;&lt;b a=&#39;1&#39;&gt;&amp;amp;")
        #expect(HTMLEscaping.escape("Rex & Fido: best friends") == "Rex &amp; Fido: best friends")
        #expect(HTMLEscaping.escape("Élodie's 🐕") == "Élodie&#39;s 🐕")
    }

    @Test func theSkeletonSeesTextThatLeftItsAttribute() {
        #expect(HTMLSkeleton.tags(of: #"<img alt="Rex" src="/a.jpg"><p>Rex &lt;3</p>"#) == ["img alt src", "p", "/p"])
        #expect(
            HTMLSkeleton.tags(of: #"<img alt=""><base href=//evil.example/>" src="/a.jpg">"#)
                == ["img alt", "base href"], "an injected tag, and the rest of the broken attribute left as text")
        #expect(HTMLSkeleton.tags(of: #"<!DOCTYPE html><!-- <b> --><input value='a"b' required>"#) == ["input value required"])
    }
}

/// The tags of an HTML document, each as its name and attribute names, read the way a browser
/// tokenizes them, so text that escaped its place shows up as another tag or attribute.
enum HTMLSkeleton {
    static func tags(of html: String) -> [String] {
        let characters = Array(html)
        var tags: [String] = []
        var index = 0
        func at(_ offset: Int) -> Character? { index + offset < characters.count ? characters[index + offset] : nil }
        while index < characters.count {
            guard characters[index] == "<", let next = at(1), next.isLetter || next == "/" || next == "!" else {
                index += 1
                continue
            }
            if next == "!" {
                let terminator: [Character] = at(2) == "-" ? ["-", "-", ">"] : [">"]
                index += 2
                while index < characters.count, !Array(characters[index...].prefix(terminator.count)).elementsEqual(terminator) { index += 1 }
                index += terminator.count
                continue
            }
            index += 1
            var name = next == "/" ? "/" : ""
            if next == "/" { index += 1 }
            while let c = at(0), !c.isWhitespace, c != ">", c != "/" || name.isEmpty {
                name.append(c)
                index += 1
            }
            var attributes: [String] = []
            while let c = at(0), c != ">" {
                if c.isWhitespace || c == "/" {
                    index += 1
                    continue
                }
                var attribute = ""
                while let c = at(0), !c.isWhitespace, c != "=", c != ">", c != "/" {
                    attribute.append(c)
                    index += 1
                }
                while let c = at(0), c.isWhitespace { index += 1 }
                if at(0) == "=" {
                    index += 1
                    while let c = at(0), c.isWhitespace { index += 1 }
                    if let quote = at(0), quote == "\"" || quote == "'" {
                        index += 1
                        while let c = at(0), c != quote { index += 1 }
                        index += 1
                    } else {
                        while let c = at(0), !c.isWhitespace, c != ">" { index += 1 }
                    }
                }
                if !attribute.isEmpty { attributes.append(attribute.lowercased()) }
            }
            index += 1
            tags.append(([name.lowercased()] + attributes).joined(separator: " "))
        }
        return tags
    }

    static func firstDifference(_ expected: [String], _ actual: [String]) -> String {
        guard let index = expected.indices.first(where: { $0 >= actual.count || expected[$0] != actual[$0] }) else {
            return "\(expected.count) tags expected, \(actual.count) found"
        }
        return "tag \(index): expected <\(expected[index])>, found <\(index < actual.count ? actual[index] : "nothing")>"
    }
}
