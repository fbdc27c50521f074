import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

extension Data {
    func contains(_ text: String) -> Bool { range(of: Data(text.utf8)) != nil }
}

@Suite struct PetsAPITests {
    /// Today is 2026-03-01 in every test server: Biscuit is exactly 20 weeks old.
    static let biscuit: [String: any Sendable] = [
        "name": "Biscuit", "species": "dog", "breed": "Beagle mix",
        "sex": "female", "dateOfBirth": "2025-10-12", "weightKg": 11.4,
    ]

    func createBiscuit(_ server: TestServer, token: String) async throws -> String {
        let reply = try await server.send(.POST, APIPath.pets, object: Self.biscuit, token: token)
        #expect(reply.status == 201, "\(reply.text)")
        return try #require((reply.json["card"] as? [String: Any])?["id"] as? String)
    }

    @Test func anOwnerAddsADogThatStartsInPuppyModeWithBehaviourHeldBack() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let reply = try await server.send(.POST, APIPath.pets, object: Self.biscuit, token: ada.accessToken)
            #expect(reply.status == 201)
            let card = try #require(reply.json["card"] as? [String: Any])
            #expect(card["name"] as? String == "Biscuit")
            #expect(card["ageText"] as? String == "4 months")
            #expect(card["sizeClass"] as? String == "medium")
            #expect(card["mode"] as? String == "puppy")
            #expect(card["ownerDisplayName"] as? String == "Ada")
            #expect(reply.json["role"] as? String == "owner")
            let profile = try #require(reply.json["profile"] as? [String: Any])
            #expect(profile["heldBackFields"] as? [String] == ["environment", "neutered", "playStyles"])

            let listed = try await server.request(.GET, APIPath.pets, token: ada.accessToken)
            #expect((listed.json["items"] as? [Any])?.count == 1)
        }
    }

    @Test func otherMembersSeeOnlyThePublicCard() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.send(.PUT, APIPath.location, object: ["latitude": 45.764, "longitude": 4.8357], token: ada.accessToken)
            let bob = try await server.member("bob", password: "bob's own secret")
            let id = try await createBiscuit(server, token: ada.accessToken)

            let seen = try await server.request(.GET, APIPath.pet(id), token: bob.accessToken)
            #expect(seen.status == 200)
            #expect(seen.json["profile"] == nil)
            #expect(seen.json["role"] == nil)
            #expect((seen.json["card"] as? [String: Any])?["name"] as? String == "Biscuit")
            for secret in [ada.email, "45.764", "4.8357", "2025-10-12", "female"] {
                #expect(!seen.text.contains(secret), "leaked \(secret)")
            }
            #expect(try await server.request(.GET, APIPath.pet(id)).status == 401)
            #expect(try await server.request(.GET, APIPath.pet(UUID()), token: bob.accessToken).status == 404)
            #expect(try await server.request(.GET, "/v1/pets/not-a-uuid", token: bob.accessToken).status == 404)
        }
    }

    @Test func aStrangerCanNeitherChangeNorDeleteAPet() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let id = try await createBiscuit(server, token: ada.accessToken)
            let before = try await server.rowCounts()
            let patch = try await server.send(.PATCH, APIPath.pet(id), object: ["name": "Stolen"], token: bob.accessToken)
            #expect(patch.status == 403)
            #expect(try await server.request(.DELETE, APIPath.pet(id), token: bob.accessToken).status == 403)
            let vaccination = try await server.send(
                .POST, APIPath.vaccinations(id),
                object: ["vaccine": "rabies", "givenOn": "2026-02-01"], token: bob.accessToken)
            #expect(vaccination.status == 403)
            #expect(try await server.request(.GET, APIPath.vaccinations(id), token: bob.accessToken).status == 403)
            #expect(try await server.request(.GET, APIPath.mode(id), token: bob.accessToken).status == 403)
            let photo = try await server.upload(
                APIPath.photos(id), parts: [.init(name: "photo", filename: "a.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))],
                token: bob.accessToken)
            #expect(photo.status == 403)
            #expect(try await server.rowCounts() == before)
            #expect(server.storedMediaFiles().isEmpty)
        }
    }

    @Test func badPetInputNamesTheFieldsAndWritesNothing() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let missing = try await server.send(.POST, APIPath.pets, object: ["breed": "Poodle"], token: ada.accessToken)
            #expect(missing.status == 422)
            let fields = (missing.json["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String }
            #expect(Set(fields ?? []) == ["name", "species", "dateOfBirth"])
            let future = try await server.send(
                .POST, APIPath.pets, object: ["name": "Rex", "species": "dog", "dateOfBirth": "2027-01-01"], token: ada.accessToken)
            #expect(future.json["field"] as? String == "dateOfBirth")
            let heavy = try await server.send(
                .POST, APIPath.pets, object: ["name": "Rex", "species": "dog", "estimatedAgeMonths": 30, "weightKg": 900], token: ada.accessToken)
            #expect(heavy.json["field"] as? String == "weightKg")
            let dragon = try await server.send(
                .POST, APIPath.pets, object: ["name": "Rex", "species": "dragon", "estimatedAgeMonths": 3], token: ada.accessToken)
            #expect(dragon.status == 400)
            #expect(dragon.json["field"] as? String == "species")
            #expect(try await server.rowCounts()["pets"] == 0)
            #expect(try await server.send(.POST, APIPath.pets, object: Self.biscuit, token: nil).status == 401)
        }
    }

    // Welfare rules a user can live with: every fact is taken; in Puppy Mode the behavioural
    // ones are kept for the owner but neither matched on nor shown to others.

    static let behaviour: [String: any Sendable] = [
        "neutered": true, "playStyles": ["chase"],
        "environment": ["area": "suburb", "hasGarden": true] as [String: any Sendable],
    ]

    /// Bob, 2 km away, whose adult dog is in Social Mode, neutered and loves chase games.
    func bobsSocialChaser(_ server: TestServer) async throws -> TestServer.Owner {
        var dog = Self.behaviour
        dog["estimatedAgeMonths"] = 36
        let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth, dog: dog)
        let dose = try await server.send(
            .POST, APIPath.vaccinations(bob.dogID), object: ["vaccine": "dhpp", "givenOn": "2026-02-01"], token: bob.token)
        #expect(dose.status == 201)
        return bob
    }

    /// Ada, 2 km from Bob, with a dog of this age that is neutered, loves chase games and has a garden.
    func adasDog(_ server: TestServer, months: Int) async throws -> TestServer.Owner {
        var dog = Self.behaviour
        dog["estimatedAgeMonths"] = months
        return try await server.owner("ada", at: TestServer.Place.lyon, dog: dog)
    }

    /// What Bob's deck says about Ada's dog.
    func reasons(in server: TestServer, deckOf bob: TestServer.Owner, about dogID: String) async throws -> [String] {
        let page = try await server.deck(bob)
        return try #require(page.items.first { $0.pet.id == dogID }).reasons
    }

    @Test func aPuppysBehaviourIsKeptForItsOwnerButNeverMatchedOnNorShown() async throws {
        try await TestServer.run { server in
            let bob = try await bobsSocialChaser(server)
            let ada = try await adasDog(server, months: 4)

            let mine = try await server.request(.GET, APIPath.pet(ada.dogID), token: ada.token)
            let profile = try #require(mine.json["profile"] as? [String: Any])
            #expect(profile["neutered"] as? Bool == true)
            #expect(profile["playStyles"] as? [String] == ["chase"])
            #expect((profile["environment"] as? [String: Any])?["area"] as? String == "suburb")
            #expect(profile["heldBackFields"] as? [String] == ["environment", "neutered", "playStyles"])
            #expect((mine.json["card"] as? [String: Any])?["mode"] as? String == "puppy")

            let seen = try await server.request(.GET, APIPath.pet(ada.dogID), token: bob.token)
            #expect(seen.status == 200)
            #expect(seen.json["profile"] == nil)
            #expect(!seen.text.contains("chase") && !seen.text.contains("suburb") && !seen.text.contains("neutered"))
            let said = try await reasons(in: server, deckOf: bob, about: ada.dogID)
            #expect(!said.contains("both love chase games") && !said.contains("both neutered") && !said.contains("both have a garden"))
            // Neither side's neutered-only preference applies to a pair with a puppy.
            let saved = try await server.send(
                .PUT, APIPath.preferences(bob.dogID), object: ["maxDistanceKm": 25, "neuteredOnly": true], token: bob.token)
            #expect(saved.status == 200)
            #expect(try await server.deck(bob).items.map(\.pet.id).contains(ada.dogID))
        }
    }

    @Test func anUnvaccinatedAdultSaysItIsNeuteredAndWaitsForItsVaccinations() async throws {
        try await TestServer.run { server in
            let bob = try await bobsSocialChaser(server)
            let ada = try await adasDog(server, months: 36)

            let status = try await server.get(APIPath.mode(ada.dogID), token: ada.token, as: Components.Schemas.WelfareStatus.self)
            #expect(status.mode == .puppy)
            #expect(status.reasons.map(\.code) == ["missing_doses", "missing_doses", "missing_doses"])
            #expect(status.heldBackFields == ["environment", "neutered", "playStyles"])
            let changed = try await server.send(
                .PATCH, APIPath.pet(ada.dogID), object: ["neutered": false, "playStyles": ["wrestle", "chase"]], token: ada.token)
            #expect(changed.status == 200)
            #expect((changed.json["profile"] as? [String: Any])?["playStyles"] as? [String] == ["wrestle", "chase"])
            #expect(!(try await reasons(in: server, deckOf: bob, about: ada.dogID)).contains("both love chase games"))
        }
    }

    @Test func theWelfareReasonsWriteDatesInTheMembersLanguage() async throws {
        try await TestServer.run { server in
            let ada = try await adasDog(server, months: 36)
            let american = #/^[A-Z][a-z]+ [0-9]{1,2}, 20[0-9]{2}$/#
            let british = #/^[0-9]{1,2} [A-Z][a-z]+ 20[0-9]{2}$/#
            // "Give a rabies dose on or after June 12, 2026." — the date is the sentence's last words
            func dates(_ messages: [String]) -> [Substring] {
                messages.compactMap { $0.firstMatch(of: #/after (.+?)\.$/#)?.output.1 }
            }
            let path = APIPath.mode(ada.dogID)
            let inAmerican = try await server.request(.GET, path, token: ada.token, headers: [("Accept-Language", "en-US,en;q=0.8")])
                .decode(Components.Schemas.WelfareStatus.self).reasons.map(\.message)
            let inBritish = try await server.request(.GET, path, token: ada.token)
                .decode(Components.Schemas.WelfareStatus.self).reasons.map(\.message)
            #expect(dates(inAmerican).count == 3 && dates(inBritish).count == 3)
            #expect(dates(inAmerican).allSatisfy { $0.wholeMatch(of: american) != nil })
            #expect(dates(inBritish).allSatisfy { $0.wholeMatch(of: british) != nil })

            // the dog's page says the same sentences, in the browser's language
            let browser = try await TestBrowser.signedIn(server, as: ada.member)
            let page = try await browser.get("/pets/\(ada.dogID)", headers: [("Accept-Language", "en-US")])
            #expect(inAmerican.allSatisfy { page.html.contains("<li>\($0)</li>") })
        }
    }

    @Test func aVaccinatedAdultReachesSocialModeByItselfAndItsBehaviourCountsAtOnce() async throws {
        try await TestServer.run { server in
            let bob = try await bobsSocialChaser(server)
            let ada = try await adasDog(server, months: 36)
            #expect(!(try await reasons(in: server, deckOf: bob, about: ada.dogID)).contains("both love chase games"))

            // a dose three weeks ago: the buffer has passed, no button to press
            let dose = try await server.send(
                .POST, APIPath.vaccinations(ada.dogID), object: ["vaccine": "dhpp", "givenOn": "2026-02-08"], token: ada.token)
            #expect(dose.status == 201)
            let mine = try await server.request(.GET, APIPath.pet(ada.dogID), token: ada.token)
            #expect((mine.json["card"] as? [String: Any])?["mode"] as? String == "social")
            #expect((mine.json["profile"] as? [String: Any])?["heldBackFields"] as? [String] == [])
            let said = try await reasons(in: server, deckOf: bob, about: ada.dogID)
            #expect(said.contains("both love chase games"))
            #expect(said.contains("both neutered"))
        }
    }

    @Test func aCatHasNoWelfareMode() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let cat = try await server.send(
                .POST, APIPath.pets,
                object: [
                    "name": "Miso", "species": "cat", "estimatedAgeMonths": 30,
                    "neutered": true, "playStyles": ["gentle"],
                ], token: ada.accessToken)
            #expect(cat.status == 201)
            #expect((cat.json["card"] as? [String: Any])?["mode"] == nil)
            #expect((cat.json["card"] as? [String: Any])?["ageText"] as? String == "about 2 years")
            #expect((cat.json["profile"] as? [String: Any])?["heldBackFields"] as? [String] == [])
        }
    }

    @Test func anUploadedJPEGComesBackWithoutItsGPSPosition() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let id = try await createBiscuit(server, token: ada.accessToken)
            let original = try fixture("gps.jpg")
            #expect(original.contains("Exif"))

            let reply = try await server.upload(
                APIPath.photos(id),
                parts: [
                    .init(name: "photo", filename: "biscuit.jpg", contentType: "image/jpeg", data: original),
                    .init(name: "kind", contentType: "text/plain", data: Data("profile".utf8)),
                ], token: ada.accessToken)
            #expect(reply.status == 201, "\(reply.text)")
            #expect(reply.json["kind"] as? String == "profile")
            let url = try #require(reply.json["url"] as? String)
            let path = String(url.dropFirst(server.config.publicBaseURL.count))

            // any member may see it, with long private caching, and no metadata is left
            let served = try await server.request(.GET, path, token: bob.accessToken)
            #expect(served.status == 200)
            #expect(served.headers.first(name: "Content-Type") == "image/jpeg")
            #expect(served.headers.first(name: "Cache-Control") == "private, max-age=31536000, immutable")
            #expect(!served.body.contains("Exif"))
            #expect(!served.body.contains("GPS"))
            #expect(served.body.count < original.count)
            #expect(try await server.request(.GET, path).status == 401)

            let card = try await server.request(.GET, APIPath.pet(id), token: bob.accessToken).json["card"] as? [String: Any]
            #expect((card?["photos"] as? [[String: Any]])?.first?["url"] as? String == url)
        }
    }

    @Test func aFileThatIsNotAPhotoOrTooLargeIsRefusedAndNothingIsStored() async throws {
        try await TestServer.run(adjust: { $0.maximumUploadBytes = 40_000 }) { server in
            let ada = try await server.member("ada")
            let id = try await createBiscuit(server, token: ada.accessToken)
            let before = try await server.rowCounts()
            let gif = try await server.upload(
                APIPath.photos(id),
                parts: [
                    .init(name: "photo", filename: "dog.jpg", contentType: "image/jpeg", data: try fixture("not-an-image.gif"))
                ], token: ada.accessToken)
            #expect(gif.status == 415)
            #expect(gif.code == "unsupported_media_type")
            let big = try await server.upload(
                APIPath.photos(id),
                parts: [
                    .init(name: "photo", filename: "big.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg") + Data(count: 50_000))
                ], token: ada.accessToken)
            #expect(big.status == 413)
            let huge = try await server.upload(
                APIPath.photos(id),
                parts: [
                    .init(name: "photo", filename: "huge.png", contentType: "image/png", data: TestImages.png(width: 20_000, height: 20_000))
                ], token: ada.accessToken)
            #expect(huge.status == 422)
            #expect(try huge.decode(Components.Schemas.Problem.self).field == "photo")
            #expect(huge.text.contains("20000 × 20000 pixels"))
            let none = try await server.upload(
                APIPath.photos(id),
                parts: [
                    .init(name: "kind", contentType: "text/plain", data: Data("gallery".utf8))
                ], token: ada.accessToken)
            #expect(none.status == 400)
            #expect(none.json["field"] as? String == "photo")
            #expect(try await server.rowCounts() == before)
            #expect(server.storedMediaFiles().isEmpty)
        }
    }

    @Test func vaccinationDatesInTheFutureOrBeforeBirthAreRefused() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let id = try await createBiscuit(server, token: ada.accessToken)
            let future = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": "2026-03-02"], token: ada.accessToken)
            #expect(future.status == 422)
            #expect(future.json["field"] as? String == "givenOn")
            let unborn = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": "2025-10-11"], token: ada.accessToken)
            #expect(unborn.json["field"] as? String == "givenOn")
            let unnamed = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "other", "givenOn": "2026-01-01"], token: ada.accessToken)
            #expect(unnamed.json["field"] as? String == "otherName")
            #expect(try await server.rowCounts()["vaccinations"] == 0)
            let ok = try await server.send(
                .POST, APIPath.vaccinations(id),
                object: ["vaccine": "dhpp", "givenOn": "2025-12-21", "nextDueOn": "2026-01-18", "clinic": "Vet Lyon"],
                token: ada.accessToken)
            #expect(ok.status == 201)
            let list = try await server.request(.GET, APIPath.vaccinations(id), token: ada.accessToken)
            #expect((list.json["items"] as? [[String: Any]])?.first?["clinic"] as? String == "Vet Lyon")
        }
    }

    @Test func aDogReachesSocialModeOnlyWhenItsVaccinationsAllow() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let id = try await createBiscuit(server, token: ada.accessToken)
            for date in ["2025-12-21", "2026-01-18"] { // 10 and 14 weeks old
                _ = try await server.send(.POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": date], token: ada.accessToken)
            }
            let puppy = try await server.get(APIPath.mode(id), token: ada.accessToken, as: Components.Schemas.WelfareStatus.self)
            #expect(puppy.mode == .puppy)
            #expect(!puppy.eligibleForSocial)
            #expect(!puppy.reasons.isEmpty)
            #expect(puppy.earliestSocialDate == "2026-03-08")

            let refused = try await server.request(.POST, APIPath.socialMode(id), token: ada.accessToken)
            #expect(refused.status == 409)
            #expect(refused.code == "welfare_rules_unmet")

            // a dose at 17 weeks, three weeks ago: the buffer has passed
            _ = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": "2026-02-08"], token: ada.accessToken)
            let social = try await server.request(.POST, APIPath.socialMode(id), token: ada.accessToken)
            #expect(social.status == 200)
            #expect(social.json["mode"] as? String == "social")
            #expect(social.json["heldBackFields"] as? [String] == [])

            let unlocked = try await server.send(
                .PATCH, APIPath.pet(id),
                object: [
                    "playStyles": ["chase", "wrestle"], "neutered": true,
                    "environment": ["area": "suburb", "hasGarden": true] as [String: any Sendable],
                ], token: ada.accessToken)
            #expect(unlocked.status == 200)
            #expect((unlocked.json["profile"] as? [String: Any])?["playStyles"] as? [String] == ["chase", "wrestle"])
            #expect((unlocked.json["card"] as? [String: Any])?["mode"] as? String == "social")
        }
    }

    @Test func aGuardianEditsThePetButCannotDeleteItOrInviteOthers() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            _ = try await server.member("cyd", password: "cyd's own secret")
            let id = try await createBiscuit(server, token: ada.accessToken)

            let unknown = try await server.send(.POST, APIPath.guardians(id), object: ["username": "nobody"], token: ada.accessToken)
            #expect(unknown.status == 404)
            #expect(unknown.json["field"] as? String == "username")
            let invited = try await server.send(.POST, APIPath.guardians(id), object: ["username": "bob"], token: ada.accessToken)
            #expect(invited.status == 201)
            #expect(invited.json["status"] as? String == "invited")
            let again = try await server.send(.POST, APIPath.guardians(id), object: ["username": "bob"], token: ada.accessToken)
            #expect(again.status == 409)

            // before accepting, Bob is a stranger
            #expect(try await server.send(.PATCH, APIPath.pet(id), object: ["name": "Bis"], token: bob.accessToken).status == 403)
            let invitations = try await server.request(.GET, APIPath.guardianInvitations, token: bob.accessToken)
            let invitation = try #require((invitations.json["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await server.request(.POST, APIPath.acceptInvitation(invitation), token: ada.accessToken).status == 404)
            #expect(try await server.request(.POST, APIPath.acceptInvitation(invitation), token: bob.accessToken).status == 204)

            let mine = try await server.request(.GET, APIPath.pets, token: bob.accessToken)
            #expect(((mine.json["items"] as? [[String: Any]])?.first?["role"] as? String) == "guardian")
            #expect(try await server.send(.PATCH, APIPath.pet(id), object: ["name": "Bis"], token: bob.accessToken).status == 200)
            #expect(
                try await server.send(
                    .POST, APIPath.vaccinations(id), object: ["vaccine": "rabies", "givenOn": "2026-02-20"], token: bob.accessToken
                ).status == 201)
            #expect(try await server.request(.DELETE, APIPath.pet(id), token: bob.accessToken).status == 403)
            #expect(try await server.send(.POST, APIPath.guardians(id), object: ["username": "cyd"], token: bob.accessToken).status == 403)

            // the owner removes Bob: he is a stranger again
            let bobID = bob.id
            #expect(try await server.request(.DELETE, APIPath.guardian(id, bobID), token: ada.accessToken).status == 204)
            #expect(try await server.request(.GET, APIPath.pet(id), token: bob.accessToken).json["profile"] == nil)
        }
    }

    @Test func theLocationIsTheOwnersAloneAndMustBeOnTheGlobe() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bad = try await server.send(.PUT, APIPath.location, object: ["latitude": 91, "longitude": 0], token: ada.accessToken)
            #expect(bad.status == 422)
            #expect(bad.json["field"] as? String == "latitude")
            let set = try await server.send(.PUT, APIPath.location, object: ["latitude": 45.764, "longitude": 4.8357], token: ada.accessToken)
            #expect(set.status == 200)
            // kept and shown to her as the centre of its cell, never as given
            let centre = LocationBlur.matchingPoint(of: GeoPoint(latitude: 45.764, longitude: 4.8357), offset: TestServer.centredGrid)
            #expect(centre.latitude != 45.764)
            let kept = try #require(set.json["location"] as? [String: Any])
            #expect(abs(try #require(kept["latitude"] as? Double) - centre.latitude) < 1e-9)
            #expect(abs(try #require(kept["longitude"] as? Double) - centre.longitude) < 1e-9)
            #expect(try await server.request(.DELETE, APIPath.location, token: ada.accessToken).status == 204)
            #expect(try await server.request(.GET, APIPath.me, token: ada.accessToken).json["location"] == nil)
            #expect(try await server.send(.PUT, APIPath.location, object: ["latitude": 1, "longitude": 1], token: nil).status == 401)
        }
    }

    @Test func deletingAnAccountRemovesItsPetsRecordsAndStoredPhotos() async throws {
        try await TestServer.run { server in
            let bob = try await server.member("bob", password: "bob's own secret")
            let before = try await server.rowCounts()
            let ada = try await server.member("ada")
            let id = try await createBiscuit(server, token: ada.accessToken)
            _ = try await server.upload(
                APIPath.photos(id), parts: [.init(name: "photo", filename: "b.jpg", data: try fixture("gps.jpg"))], token: ada.accessToken)
            _ = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": "2026-01-18"], token: ada.accessToken)
            _ = try await server.send(.POST, APIPath.guardians(id), object: ["username": "bob"], token: ada.accessToken)
            #expect(server.storedMediaFiles().count == 1)

            let export = try await server.request(.GET, APIPath.export, token: ada.accessToken)
            let pets = try #require(export.json["pets"] as? [[String: Any]])
            #expect(pets.count == 1)
            #expect((pets.first?["vaccinations"] as? [Any])?.count == 1)

            let deleted = try await server.request(.DELETE, APIPath.me, json: ["password": ada.password], token: ada.accessToken)
            #expect(deleted.status == 204)
            // Every row is back as before, but Bob's realtime stream: the event that told him of
            // the invitation stays its retention period there, as any event (his inbox lost it).
            let stream = { (counts: [String: Int]) in counts.filter { !$0.key.hasPrefix("realtime_") } }
            #expect(stream(try await server.rowCounts()) == stream(before))
            #expect(server.storedMediaFiles().isEmpty)
            // Bob's invitation to guard Ada's pet went with it
            let invitations = try await server.request(.GET, APIPath.guardianInvitations, token: bob.accessToken)
            #expect((invitations.json["items"] as? [Any])?.isEmpty == true)
        }
    }
}

/// What one member can create is bounded (`CreationLimits`), and a card shows a few photos.
@Suite struct CreationLimitTests {
    @Test func aMemberHasAtMostTwentyPetsAPetTwentyFourPhotosAndACardShowsSix() async throws {
        try await TestServer.run { server in
            // given Bob with one dog and eight photos of it, and Ada nearby
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            for number in 0..<8 {
                let photo = try await server.upload(
                    APIPath.photos(bob.dogID),
                    parts: [
                        .init(
                            name: "photo", filename: "\(number).png", contentType: "image/png",
                            data: TestImages.png(width: 1 + number, height: 1)),
                        .init(name: "kind", data: Data((number == 5 ? "profile" : "gallery").utf8)),
                    ], token: bob.token)
                #expect(photo.status == 201, "\(photo.text)")
            }
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)

            // then Ada's deck shows his dog with six photos, the profile photo first
            let card = try #require(try await server.deck(ada).items.first).pet
            #expect(card.photos.count == 6)
            #expect(card.photos.first?.kind == .profile)
            // while Bob's own page of it shows all eight
            let own = try await server.get(APIPath.pet(bob.dogID), token: bob.token, as: Components.Schemas.PetView.self)
            #expect(own.card.photos.count == 8)

            // and Bob may add photos up to 24, not one more
            for number in 8..<24 {
                let photo = try await server.upload(
                    APIPath.photos(bob.dogID),
                    parts: [
                        .init(name: "photo", filename: "\(number).png", contentType: "image/png", data: TestImages.png(width: 1, height: 1))
                    ], token: bob.token)
                #expect(photo.status == 201)
            }
            let tooMany = try await server.upload(
                APIPath.photos(bob.dogID),
                parts: [
                    .init(name: "photo", filename: "more.png", contentType: "image/png", data: TestImages.png(width: 1, height: 1))
                ], token: bob.token)
            #expect(tooMany.status == 409)
            #expect(tooMany.code == "limit_reached")
            #expect(server.storedMediaFiles().count == 24)

            // and pets up to 20 (he has one), not one more
            for number in 1..<20 {
                let pet = try await server.send(
                    .POST, APIPath.pets, object: ["name": "Cat \(number)", "species": "cat", "estimatedAgeMonths": 12],
                    token: bob.token)
                #expect(pet.status == 201)
            }
            let twentyFirst = try await server.send(
                .POST, APIPath.pets, object: ["name": "One more", "species": "cat", "estimatedAgeMonths": 12],
                token: bob.token)
            #expect(twentyFirst.status == 409)
            #expect(twentyFirst.code == "limit_reached")
        }
    }
}
