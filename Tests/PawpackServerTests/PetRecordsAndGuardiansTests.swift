import Foundation
import PawpackTestSupport
import Testing

/// The remaining pet operations: removing photos, records and pets; declining, listing and
/// stepping down as guardian — each with a stranger's token too.
@Suite struct PetRecordsAndGuardiansTests {
    func dog(_ server: TestServer, token: String) async throws -> String {
        let reply = try await server.send(.POST, APIPath.pets, object: ["name": "Pip", "species": "dog", "estimatedAgeMonths": 30], token: token)
        return try #require((reply.json["card"] as? [String: Any])?["id"] as? String)
    }

    @Test func removingAPhotoDeletesItsFileAndOnlyTheOwnerSideMay() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let id = try await dog(server, token: ada.accessToken)
            let photo = try await server.upload(
                APIPath.photos(id), parts: [.init(name: "photo", filename: "p.png", contentType: "image/png", data: try fixture("gps.png"))],
                token: ada.accessToken)
            #expect(photo.status == 201)
            #expect(photo.json["contentType"] as? String == "image/png")
            let photoID = try #require(photo.json["id"] as? String)
            #expect(server.storedMediaFiles().count == 1)

            #expect(try await server.request(.DELETE, APIPath.photo(id, photoID), token: bob.accessToken).status == 403)
            #expect(try await server.request(.DELETE, APIPath.photo(id, UUID()), token: ada.accessToken).status == 404)
            #expect(server.storedMediaFiles().count == 1)
            #expect(try await server.request(.DELETE, APIPath.photo(id, photoID), token: ada.accessToken).status == 204)
            #expect(server.storedMediaFiles().isEmpty)
            #expect(try await server.rowCounts()["pet_photos"] == 0)
        }
    }

    @Test func aVaccinationEnteredByMistakeCanBeRemovedByTheOwnerSideOnly() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let id = try await dog(server, token: ada.accessToken)
            let added = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "rabies", "givenOn": "2026-02-01"], token: ada.accessToken)
            let vaccinationID = try #require(added.json["id"] as? String)
            #expect(try await server.request(.DELETE, APIPath.vaccination(id, vaccinationID), token: bob.accessToken).status == 403)
            #expect(try await server.request(.DELETE, APIPath.vaccination(id, vaccinationID)).status == 401)
            #expect(try await server.request(.DELETE, APIPath.vaccination(id, vaccinationID), token: ada.accessToken).status == 204)
            #expect(try await server.request(.DELETE, APIPath.vaccination(id, vaccinationID), token: ada.accessToken).status == 404)
            #expect(try await server.rowCounts()["vaccinations"] == 0)
        }
    }

    @Test func deletingAPetRemovesItsRecordsAndPhotos() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let before = try await server.rowCounts()
            let id = try await dog(server, token: ada.accessToken)
            _ = try await server.upload(
                APIPath.photos(id), parts: [.init(name: "photo", filename: "p.webp", data: try fixture("gps.webp"))], token: ada.accessToken)
            _ = try await server.send(
                .POST, APIPath.vaccinations(id), object: ["vaccine": "dhpp", "givenOn": "2026-02-01"], token: ada.accessToken)
            #expect(try await server.request(.DELETE, APIPath.pet(id), token: ada.accessToken).status == 204)
            #expect(try await server.rowCounts() == before)
            #expect(server.storedMediaFiles().isEmpty)
            #expect(try await server.request(.GET, APIPath.pet(id), token: ada.accessToken).status == 404)
        }
    }

    @Test func guardiansAreListedToOwnerAndGuardiansOnlyAndCanStepDown() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let bob = try await server.member("bob", password: "bob's own secret")
            let cyd = try await server.member("cyd", password: "cyd's own secret")
            let id = try await dog(server, token: ada.accessToken)
            _ = try await server.send(.POST, APIPath.guardians(id), object: ["username": "bob"], token: ada.accessToken)
            _ = try await server.send(.POST, APIPath.guardians(id), object: ["username": "cyd"], token: ada.accessToken)

            // Cyd declines; a stranger cannot answer or list
            let cydInvitation = try #require(
                ((try await server.request(.GET, APIPath.guardianInvitations, token: cyd.accessToken)).json["items"] as? [[String: Any]])?.first?[
                    "id"]
                    as? String)
            #expect(try await server.request(.POST, APIPath.rejectInvitation(cydInvitation), token: bob.accessToken).status == 404)
            #expect(try await server.request(.POST, APIPath.rejectInvitation(cydInvitation), token: cyd.accessToken).status == 204)
            #expect(try await server.request(.GET, APIPath.guardians(id), token: cyd.accessToken).status == 403)

            let bobInvitation = try #require(
                ((try await server.request(.GET, APIPath.guardianInvitations, token: bob.accessToken)).json["items"] as? [[String: Any]])?.first?[
                    "id"]
                    as? String)
            _ = try await server.request(.POST, APIPath.acceptInvitation(bobInvitation), token: bob.accessToken)
            let listed = try await server.request(.GET, APIPath.guardians(id), token: bob.accessToken)
            let guardians = listed.json["items"] as? [[String: Any]]
            #expect(guardians?.map { $0["username"] as? String } == ["bob"])
            #expect(guardians?.first?["status"] as? String == "active")

            // Bob cannot remove others, but may step down himself
            #expect(try await server.request(.DELETE, APIPath.guardian(id, cyd.id), token: bob.accessToken).status == 403)
            #expect(try await server.request(.DELETE, APIPath.guardian(id, bob.id), token: bob.accessToken).status == 204)
            let bobsPets = try await server.request(.GET, APIPath.pets, token: bob.accessToken)
            #expect((bobsPets.json["items"] as? [Any])?.isEmpty == true)
            #expect(try await server.rowCounts()["pet_guardians"] == 0)
        }
    }

    @Test func aStrangerGetsAnErrorPageForAnotherMembersPetForms() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            let id = try await dog(server, token: ada.accessToken)
            let browser = TestBrowser(server)
            _ = try await browser.get("/signup")
            _ = try await browser.post(
                "/signup",
                [
                    "email": "bob@example.com", "username": "bob", "displayName": "Bob",
                    "dateOfBirth": "1990-01-01", "password": "bob's own secret",
                ])
            _ = try await browser.get("/verify?token=\(try #require(server.linkToken(to: "bob@example.com")))")
            _ = try await browser.post("/login", ["email": "bob@example.com", "password": "bob's own secret"])
            let card = try await browser.get("/pets/\(id)")
            #expect(card.status == 200)
            #expect(!card.html.contains("owner-view"))
            #expect(try await browser.get("/pets/\(id)/edit").status == 403)
            #expect(try await browser.get("/pets/\(id)/vaccinations").status == 403)
            let rename = try await browser.post("/pets/\(id)/edit", ["name": "Stolen"])
            #expect(rename.status == 403)
            #expect(
                try await server.request(.GET, APIPath.pet(id), token: ada.accessToken).json["card"].flatMap {
                    ($0 as? [String: Any])?["name"] as? String
                } == "Pip")
        }
    }
}
