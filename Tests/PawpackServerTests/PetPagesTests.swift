import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The pet pages. Through HTTP with cookies, as a browser without JavaScript.
@Suite struct PetPagesTests {
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

    @Test func listRowsKeepTheFactTheyAreAboutOnALineOfItsOwn() async throws {
        try await TestServer.run { server in
            // given Ada's puppy, which Bob's dog asked to meet, and a dose due again next year
            let ada = try await server.owner("ada", at: TestServer.Place.lyon, dog: ["name": "Pixel", "estimatedAgeMonths": 4])
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth, dog: ["name": "Rex"])
            _ = try await server.like(bob, ada)
            let dose = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID), object: ["vaccine": "dhpp", "givenOn": "2026-02-01", "nextDueOn": "2027-02-01"],
                token: ada.token)
            #expect(dose.status == 201)
            let browser = try await TestBrowser.signedIn(server, as: ada.member)

            // then "Your pets" keeps the welfare mode, Requests whom the dog likes, and the
            // vaccinations the next due date, each apart from the facts a phone may cut
            #expect(try await browser.get("/pets").html.contains(#"<span class="row-key">Puppy Mode</span>"#))
            #expect(try await browser.get("/playdates/requests").html.contains(#"<span class="row-key">likes Pixel</span>"#))
            #expect(try await browser.get("/pets/\(ada.dogID)/vaccinations").html.contains(#"<span class="row-key">Next due 1 February 2027</span>"#))
        }
    }

    @Test func aCatIsAskedNothingOnlyADogNeedsAndCalledACat() async throws {
        try await TestServer.run { server in
            // given Ada's cat, with no breed given
            let ada = try await server.owner("ada", at: TestServer.Place.lyon, dog: ["name": "Miso", "species": "cat"])
            let browser = try await TestBrowser.signedIn(server, as: ada.member)

            // then its page says what it is, not a breed it lacks
            let page = try await browser.get("/pets/\(ada.dogID)")
            #expect(page.html.contains("<dt>Species</dt><dd>Cat</dd>") && !page.html.contains("<dt>Breed</dt>"))
            // and its form asks nothing the deck needs of a dog
            let edit = try await browser.get("/pets/\(ada.dogID)/edit")
            #expect(edit.status == 200)
            #expect(!edit.html.contains(#"id="dog-only""#) && !edit.html.contains("Plays (up to"))
            // while a new pet's form asks it only for a dog, and says "Add pet"
            let new = try await browser.get("/pets/new")
            #expect(new.html.contains(#"<fieldset id="dog-only" data-for-species="dog">"#))
            #expect(new.html.contains(">Add pet</button>") && !new.html.contains("Add dog"))
        }
    }

    @Test func theOwnerChoosesTheMainPhotoAndDeletesOthersFromTheWeb() async throws {
        try await TestServer.run { server in
            // given Ada's dog with a main photo and another
            let (ada, bob) = try await server.adaAndBob()
            var photos: [String] = []
            for kind in ["profile", "gallery"] {
                let reply = try await server.upload(
                    APIPath.photos(ada.dogID),
                    parts: [
                        .init(name: "photo", filename: "dog.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg")),
                        .init(name: "kind", data: Data(kind.utf8)),
                    ], token: ada.token)
                photos.append(try reply.decode(Components.Schemas.Photo.self).id)
            }
            let (main, other) = (photos[0], photos[1])
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let page = try await browser.get("/pets/\(ada.dogID)")
            #expect(page.html.contains(#"id="photo-manager""#) && page.html.contains(#"id="main-\#(other)""#))
            #expect(!page.html.contains(#"id="main-\#(main)""#), "the main photo is marked, not offered")

            // when another member tries either, nothing changes
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)
            #expect(try await bobs.post("/pets/\(ada.dogID)/photos/\(other)/main", [:]).status == 403)
            #expect(try await bobs.post("/pets/\(ada.dogID)/photos/\(other)/delete", [:]).status == 403)

            // when Ada makes the other one main, it comes first
            let made = try await browser.post("/pets/\(ada.dogID)/photos/\(other)/main", [:])
            #expect(made.location == "/pets/\(ada.dogID)?flash=main-photo")
            let card = try await server.get(APIPath.pet(ada.dogID), token: ada.token, as: Components.Schemas.PetView.self).card
            #expect(card.photos.map(\.id) == [other, main])

            // and deleting one removes it and its file
            let files = server.storedMediaFiles().count
            let deleted = try await browser.post("/pets/\(ada.dogID)/photos/\(main)/delete", [:])
            #expect(deleted.location == "/pets/\(ada.dogID)?flash=photo-deleted")
            let after = try await server.get(APIPath.pet(ada.dogID), token: ada.token, as: Components.Schemas.PetView.self).card
            #expect(after.photos.map(\.id) == [other])
            #expect(server.storedMediaFiles().count == files - 1)
        }
    }

    @Test func anInvitationToGuardIsANotificationAndCountedOnTheCareTab() async throws {
        try await TestServer.run { server in
            // given Ada's dog and Bob
            let (ada, bob) = try await server.adaAndBob()

            // when Ada invites Bob to guard it
            #expect(try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "bob"], token: ada.token).status == 201)

            // then Bob's inbox says so, it opens his pets, and his Care tab (which holds the pets) counts it
            let inbox = try await server.get(APIPath.notifications, token: bob.token, as: Components.Schemas.NotificationPage.self)
            let told = try #require(inbox.items.first { $0.kind == .guardianInvitation })
            #expect(told.title == "Help look after Ada's dog?" && told.body.hasPrefix("Ada invites you to guard Ada's dog"))
            let bobs = try await TestBrowser.signedIn(server, as: bob.member)
            let home = try await bobs.get("/home")
            #expect(ChatPagesTests.count("care-count", in: home.html) == 1)
            #expect(home.html.contains(#"id="home-invitations""#))
            #expect(try await bobs.post("/notifications/\(told.id)/open", [:]).location == "/pets")

            // and once he accepts, nothing is waiting; the list shows him as a row
            let invitation = try #require(
                try await server.get(
                    APIPath.guardianInvitations, token: bob.token, as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self
                ).items.first)
            #expect(try await bobs.post("/guardian-invitations/\(invitation.id)/accept", [:]).status == 303)
            #expect(ChatPagesTests.count("pets-count", in: try await bobs.get("/home").html) == nil)
            let list = try await TestBrowser.signedIn(server, as: ada.member).get("/pets/\(ada.dogID)/guardians")
            #expect(list.html.contains(#"<li class="dog-row" id="guardian-\#(bob.member.id)">"#))
        }
    }
}
