import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Pets: profiles, photos, vaccinations, welfare modes and guardians. Every call needs a
// signed-in session.

extension PawpackClient {
    /// Your pets and the pets you guard, owned first.
    public func myPets() async throws -> [PetDetails] {
        try await signedIn {
            try await client.listMyPets().ok.body.json.items.map(PetDetails.init)
        }
    }

    /// Adds a pet; name, species and a birth date or estimated age are required. A new dog
    /// starts in Puppy Mode: its play styles, environment and neuter status are kept but held
    /// back from matching and from other members until it reaches Social Mode by itself.
    @discardableResult
    public func addPet(_ draft: PetDraft) async throws -> PetDetails {
        try await signedIn {
            let created = try await client.createPet(body: .json(.init(draft))).created
            return try PetDetails(try created.body.json)
        }
    }

    /// A pet: its profile for owners and guardians, its public card for everyone else.
    public func pet(_ id: Pet.ID) async throws -> PetDetails {
        try await signedIn {
            try PetDetails(try await client.getPet(path: .init(petId: id.description)).ok.body.json)
        }
    }

    /// Changes a pet (owner or guardian); `nil` fields stay as they are.
    @discardableResult
    public func updatePet(_ id: Pet.ID, _ draft: PetDraft) async throws -> PetDetails {
        try await signedIn {
            try PetDetails(try await client.updatePet(path: .init(petId: id.description), body: .json(.init(draft))).ok.body.json)
        }
    }

    /// Deletes a pet with its photos and records (owner only).
    public func deletePet(_ id: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.deletePet(path: .init(petId: id.description)).noContent
        }
    }

    // MARK: Photos

    /// Uploads a photo of a pet (owner or guardian): JPEG, PNG, WebP or HEIC, at most the
    /// server's limit (10 MB unless its operator set another). The server removes its metadata,
    /// the location included, before anyone sees it. A new profile photo moves the previous one
    /// to the gallery.
    @discardableResult
    public func uploadPhoto(_ image: Data, of pet: Pet.ID, as kind: Photo.Kind = .gallery) async throws -> Photo {
        try await signedIn {
            let parts: MultipartBody<Operations.UploadPetPhoto.Input.Body.MultipartFormPayload> = [
                .photo(.init(payload: .init(body: HTTPBody(image)), filename: "photo")),
                .kind(.init(payload: .init(body: HTTPBody(kind.rawValue)))),
            ]
            let created = try await client.uploadPetPhoto(path: .init(petId: pet.description), body: .multipartForm(parts)).created
            return try Photo(try created.body.json)
        }
    }

    /// Removes a photo of a pet (owner or guardian).
    public func deletePhoto(_ photo: Pet.Photo.ID, of pet: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.deletePetPhoto(path: .init(petId: pet.description, photoId: photo.description)).noContent
        }
    }

    /// Makes a photo the pet's main one, shown first everywhere; the previous one joins the others.
    public func makeMainPhoto(_ photo: Pet.Photo.ID, of pet: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.makeMainPetPhoto(path: .init(petId: pet.description, photoId: photo.description)).noContent
        }
    }

    // MARK: Vaccinations and welfare

    /// A pet's vaccination records, newest first (owner or guardian).
    public func vaccinations(of pet: Pet.ID) async throws -> [Vaccination] {
        try await signedIn {
            try await client.listVaccinations(path: .init(petId: pet.description)).ok.body.json.items.map(Vaccination.init)
        }
    }

    /// Records a vaccination; dates in the future or before birth are refused.
    @discardableResult
    public func addVaccination(to pet: Pet.ID, _ vaccination: VaccinationInput) async throws -> Vaccination {
        try await signedIn {
            let body = Components.Schemas.VaccinationInput(
                vaccine: try same(vaccination.vaccine, as: Components.Schemas.Vaccine.self), otherName: vaccination.otherName,
                givenOn: vaccination.givenOn, nextDueOn: vaccination.nextDueOn, clinic: vaccination.clinic)
            let created = try await client.addVaccination(path: .init(petId: pet.description), body: .json(body)).created
            return try Vaccination(try created.body.json)
        }
    }

    /// Removes a vaccination entered by mistake.
    public func deleteVaccination(_ vaccination: Pet.Vaccination.ID, of pet: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.deleteVaccination(path: .init(petId: pet.description, vaccinationId: vaccination.description)).noContent
        }
    }

    /// The dog's welfare mode, what is still needed, and from when Social Mode is possible.
    public func welfareStatus(of pet: Pet.ID) async throws -> WelfareStatus {
        try await signedIn {
            try WelfareStatus(try await client.getPetMode(path: .init(petId: pet.description)).ok.body.json)
        }
    }

    /// Asks for Social Mode now (dogs reach it by themselves); fails with `welfare_rules_unmet`
    /// while the rules say no.
    @discardableResult
    public func switchToSocialMode(_ pet: Pet.ID) async throws -> WelfareStatus {
        try await signedIn {
            try WelfareStatus(try await client.switchToSocialMode(path: .init(petId: pet.description)).ok.body.json)
        }
    }

    // MARK: Guardians

    /// The members guarding a pet and those invited to (owner or guardian).
    public func guardians(of pet: Pet.ID) async throws -> [Guardian] {
        try await signedIn {
            try await client.listGuardians(path: .init(petId: pet.description)).ok.body.json.items.map(Guardian.init)
        }
    }

    /// Invites a member, by username, to guard a pet (owner only); they accept or decline.
    @discardableResult
    public func inviteGuardian(username: String, to pet: Pet.ID) async throws -> Guardian {
        try await signedIn {
            let created = try await client.inviteGuardian(path: .init(petId: pet.description), body: .json(.init(username: username))).created
            return try Guardian(try created.body.json)
        }
    }

    /// Removes a guardian or withdraws an invitation (owner), or steps down (the guardian, with
    /// their own id).
    public func removeGuardian(_ member: User.ID, from pet: Pet.ID) async throws {
        try await signedIn {
            _ = try await client.removeGuardian(path: .init(petId: pet.description, userId: member.description)).noContent
        }
    }

    /// Invitations to guard other members' pets, waiting for your answer.
    public func guardianInvitations() async throws -> [GuardianInvitation] {
        try await signedIn {
            try await client.listGuardianInvitations().ok.body.json.items.map(GuardianInvitation.init)
        }
    }

    /// Accepts an invitation: you guard the pet from now on.
    public func acceptGuardianInvitation(_ invitation: Pet.Guardianship.ID) async throws {
        try await signedIn {
            _ = try await client.acceptGuardianInvitation(path: .init(invitationId: invitation.description)).noContent
        }
    }

    /// Declines an invitation.
    public func declineGuardianInvitation(_ invitation: Pet.Guardianship.ID) async throws {
        try await signedIn {
            _ = try await client.rejectGuardianInvitation(path: .init(invitationId: invitation.description)).noContent
        }
    }
}
