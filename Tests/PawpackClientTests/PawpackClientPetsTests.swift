import Foundation
import PawpackClient
import PawpackCore
import PawpackTestSupport
import Testing

/// The SDK's pets and Playdates calls against a live in-process server.
@Suite struct PawpackClientPetsTests {
    @Test func anAppAddsADogFollowsItsWelfareModeAndFindsAPlaymate() async throws {
        try await TestServer.run { server in
            // given Bob and his dog, 2 km north of Lyon's centre
            let bob = try await server.member("bob", password: "bob's own secret")
            _ = try await server.send(.PUT, APIPath.location, object: ["latitude": 45.7820, "longitude": 4.8357], token: bob.accessToken)
            let rex = try await server.send(
                .POST, APIPath.pets, object: ["name": "Rex", "species": "dog", "estimatedAgeMonths": 30], token: bob.accessToken)
            let rexID = try #require((rex.json["card"] as? [String: Any])?["id"] as? String)

            // when Ada's app signs in, sets her location and adds a puppy
            let ada = try await server.member("ada")
            let pawpack = PawpackClient(serverURL: URL(string: server.baseURL)!)
            try await pawpack.logIn(email: ada.email, password: ada.password)
            let account = try await pawpack.setLocation(GeoPoint(latitude: 45.7640, longitude: 4.8357))
            #expect(
                account.location
                    == LocationBlur.matchingPoint(
                        of: GeoPoint(latitude: 45.7640, longitude: 4.8357),
                        offset: TestServer.centredGrid))
            let biscuit = try await pawpack.addPet(PetDraft(name: "Biscuit", species: .dog, dateOfBirth: "2025-10-12", weightKg: 11.4))
            #expect(biscuit.role == .owner)
            #expect(biscuit.card.mode == .puppy)
            #expect(biscuit.heldBackFields == ["environment", "neutered", "playStyles"])
            #expect(biscuit.profile?.ownerID == account.id)
            #expect(try await pawpack.myPets().map(\.card.name) == ["Biscuit"])

            // then the welfare status says what is missing; a play style is kept, held back
            let status = try await pawpack.welfareStatus(of: biscuit.card.id)
            #expect(status.mode == .puppy)
            #expect(!status.reasons.isEmpty)
            #expect(status.heldBackFields == ["environment", "neutered", "playStyles"])
            let chaser = try await pawpack.updatePet(biscuit.card.id, PetDraft(playStyles: [.chase]))
            #expect(chaser.profile?.playStyles == [.chase])
            try await pawpack.addVaccination(to: biscuit.card.id, VaccinationInput(vaccine: .dhpp, givenOn: "2025-12-21"))

            // and the deck finds Rex; a like and Bob's like back make a match
            let page = try await pawpack.deck(for: biscuit.card.id)
            #expect(page.cards.map(\.pet.name) == ["Rex"])
            #expect(page.cards.first?.distance == "2 km")
            let liked = try await pawpack.like(try #require(Pet.ID(string: rexID)), for: biscuit.id)
            #expect(liked.match == nil)
            #expect(liked.request?.toPet.name == "Rex")
            _ = try await server.send(
                .POST, APIPath.swipes(rexID), object: ["targetPetId": biscuit.card.id.description, "decision": "like"], token: bob.accessToken)
            let matches = try await pawpack.matches().items
            #expect(matches.map(\.otherPet.name) == ["Rex"])
            #expect(matches.first?.otherOwnerDisplayName == "Bob")

            try await pawpack.deletePet(biscuit.card.id)
            #expect(try await pawpack.myPets().isEmpty)
        }
    }
}
