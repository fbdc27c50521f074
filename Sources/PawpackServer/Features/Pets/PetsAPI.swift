import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore
import Vapor

extension APIHandler {
    var pets: PetService { services.pets }

    func setMyLocation(_ input: Operations.SetMyLocation.Input) async throws -> Operations.SetMyLocation.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        guard let point = GeoPoint.validated(latitude: body.latitude, longitude: body.longitude) else {
            throw Problem.invalidField(abs(body.latitude) > 90 ? "latitude" : "longitude", "is outside the globe")
        }
        try await pets.setLocation(of: auth.user, to: point, on: auth.request.db)
        return .ok(.init(body: .json(.init(try auth.user.account))))
    }

    func clearMyLocation(_ input: Operations.ClearMyLocation.Input) async throws -> Operations.ClearMyLocation.Output {
        let auth = try await authenticated()
        try await pets.setLocation(of: auth.user, to: nil, on: auth.request.db)
        return .noContent(.init())
    }

    func listMyPets(_ input: Operations.ListMyPets.Input) async throws -> Operations.ListMyPets.Output {
        let auth = try await authenticated()
        let list = try await pets.listMine(auth.user, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: list.map { Components.Schemas.PetView($0, mapping) }))))
    }

    func createPet(_ input: Operations.CreatePet.Input) async throws -> Operations.CreatePet.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let pet = try await pets.create(auth.user, draft: PetDraft(body), on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.PetView(pet, mapping))))
    }

    func getPet(_ input: Operations.GetPet.Input) async throws -> Operations.GetPet.Output {
        let auth = try await authenticated()
        let pet = try await pets.view(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.PetView(pet, mapping))))
    }

    func updatePet(_ input: Operations.UpdatePet.Input) async throws -> Operations.UpdatePet.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let pet = try await pets.update(auth.user, pet: try pathID(input.path.petId), draft: PetDraft(body), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.PetView(pet, mapping))))
    }

    func deletePet(_ input: Operations.DeletePet.Input) async throws -> Operations.DeletePet.Output {
        let auth = try await authenticated()
        try await pets.delete(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .noContent(.init())
    }

    func uploadPetPhoto(_ input: Operations.UploadPetPhoto.Input) async throws -> Operations.UploadPetPhoto.Output {
        let auth = try await authenticated()
        let petID: Pet.ID = try pathID(input.path.petId)
        guard case .multipartForm(let parts) = input.body else { throw Problem.unsupportedBody }
        let limit = services.config.maximumUploadBytes
        var photo: Data?
        var kind = PetPhotoRecord.Kind.gallery
        try await Self.readForm(parts, parts: "the image in a part named `photo`") { part in
            switch part {
            case .photo(let file):
                photo = try await Self.collect(file.payload.body, upTo: limit)
                return photo == nil ? ImageSanitizerError.tooLarge(limit: limit).problem(limit: limit) : nil
            case .kind(let field):
                let text = try await Self.collect(field.payload.body, upTo: 32).map { String(decoding: $0, as: UTF8.self) }
                guard let parsed = text.flatMap({ PetPhotoRecord.Kind(rawValue: $0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
                    return Problem.invalidField("kind", "must be profile or gallery")
                }
                kind = parsed
                return nil
            case .undocumented(let other):
                _ = try await Self.collect(other.body, upTo: 0)
                return nil
            }
        }
        guard let photo else { throw Problem.invalidField("photo", "is required") }
        let stored = try await pets.uploadPhoto(auth.user, pet: petID, data: photo, kind: kind, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Photo(stored, mapping))))
    }

    func deletePetPhoto(_ input: Operations.DeletePetPhoto.Input) async throws -> Operations.DeletePetPhoto.Output {
        let auth = try await authenticated()
        try await pets.deletePhoto(
            auth.user, pet: try pathID(input.path.petId), photo: try pathID(input.path.photoId),
            on: auth.request.db)
        return .noContent(.init())
    }

    func makeMainPetPhoto(_ input: Operations.MakeMainPetPhoto.Input) async throws -> Operations.MakeMainPetPhoto.Output {
        let auth = try await authenticated()
        try await pets.makeMainPhoto(
            auth.user, pet: try pathID(input.path.petId), photo: try pathID(input.path.photoId),
            on: auth.request.db)
        return .noContent(.init())
    }

    func listVaccinations(_ input: Operations.ListVaccinations.Input) async throws -> Operations.ListVaccinations.Output {
        let auth = try await authenticated()
        let records = try await services.vaccinations.vaccinations(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: records.map(Components.Schemas.Vaccination.init)))))
    }

    func addVaccination(_ input: Operations.AddVaccination.Input) async throws -> Operations.AddVaccination.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let (record, _) = try await services.vaccinations.addVaccination(
            auth.user, pet: try pathID(input.path.petId),
            input: VaccinationInput(
                vaccine: VaccineKind(rawValue: body.vaccine.rawValue) ?? .other,
                otherName: body.otherName, givenOn: body.givenOn,
                nextDueOn: body.nextDueOn, clinic: body.clinic),
            on: auth.request.db)
        return .created(.init(body: .json(.init(record))))
    }

    func deleteVaccination(_ input: Operations.DeleteVaccination.Input) async throws -> Operations.DeleteVaccination.Output {
        let auth = try await authenticated()
        try await services.vaccinations.deleteVaccination(
            auth.user, pet: try pathID(input.path.petId),
            vaccination: try pathID(input.path.vaccinationId), on: auth.request.db)
        return .noContent(.init())
    }

    func getPetMode(_ input: Operations.GetPetMode.Input) async throws -> Operations.GetPetMode.Output {
        let auth = try await authenticated()
        let status = try await services.vaccinations.mode(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(status, dates: DateWords.writer(for: auth.request)))))
    }

    func switchToSocialMode(_ input: Operations.SwitchToSocialMode.Input) async throws -> Operations.SwitchToSocialMode.Output {
        let auth = try await authenticated()
        let dates = DateWords.writer(for: auth.request)
        let status = try await services.vaccinations.switchToSocial(
            auth.user, pet: try pathID(input.path.petId), writingDates: dates,
            on: auth.request.db)
        return .ok(.init(body: .json(.init(status, dates: dates))))
    }

    func listGuardians(_ input: Operations.ListGuardians.Input) async throws -> Operations.ListGuardians.Output {
        let auth = try await authenticated()
        let guardians = try await services.guardians.guardians(auth.user, pet: try pathID(input.path.petId), on: auth.request.db)
        return .ok(.init(body: .json(.init(items: guardians.map(Components.Schemas.Guardian.init)))))
    }

    func inviteGuardian(_ input: Operations.InviteGuardian.Input) async throws -> Operations.InviteGuardian.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let guardian = try await services.guardians.invite(
            auth.user, pet: try pathID(input.path.petId), username: body.username,
            on: auth.request.db)
        return .created(.init(body: .json(.init(guardian))))
    }

    func removeGuardian(_ input: Operations.RemoveGuardian.Input) async throws -> Operations.RemoveGuardian.Output {
        let auth = try await authenticated()
        try await services.guardians.removeGuardian(
            auth.user, pet: try pathID(input.path.petId), guardian: try pathID(input.path.userId),
            on: auth.request.db)
        return .noContent(.init())
    }

    func listGuardianInvitations(_ input: Operations.ListGuardianInvitations.Input) async throws -> Operations.ListGuardianInvitations.Output {
        let auth = try await authenticated()
        let invitations = try await services.guardians.invitations(for: auth.user, on: auth.request.db)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: invitations.map { invitation in
                            .init(
                                id: invitation.id.description, pet: Components.Schemas.PetCard(invitation.pet, mapping),
                                ownerDisplayName: invitation.pet.ownerDisplayName,
                                createdAt: invitation.createdAt)
                        }))))
    }

    func acceptGuardianInvitation(_ input: Operations.AcceptGuardianInvitation.Input) async throws -> Operations.AcceptGuardianInvitation.Output {
        let auth = try await authenticated()
        try await services.guardians.answerInvitation(
            auth.user, invitation: try pathID(input.path.invitationId), accept: true,
            on: auth.request.db)
        return .noContent(.init())
    }

    func rejectGuardianInvitation(_ input: Operations.RejectGuardianInvitation.Input) async throws -> Operations.RejectGuardianInvitation.Output {
        let auth = try await authenticated()
        try await services.guardians.answerInvitation(
            auth.user, invitation: try pathID(input.path.invitationId), accept: false,
            on: auth.request.db)
        return .noContent(.init())
    }
}

extension PetDraft {
    init(_ body: Components.Schemas.PetInput) {
        self.init(
            name: body.name, species: body.species.flatMap { Species(rawValue: $0.rawValue) }, breed: body.breed,
            sex: body.sex.flatMap { PetSex(rawValue: $0.rawValue) }, neutered: body.neutered,
            dateOfBirth: body.dateOfBirth, estimatedAgeMonths: body.estimatedAgeMonths, weightKg: body.weightKg,
            sizeClass: body.sizeClass.flatMap { SizeClass(rawValue: $0.rawValue) },
            playStyles: body.playStyles?.compactMap { PlayStyle(rawValue: $0.rawValue) },
            energy: body.energy.flatMap { EnergyLevel(rawValue: $0.rawValue) },
            environment: body.environment.flatMap {
                PetEnvironment(
                    areaName: $0.area.rawValue, hasGarden: $0.hasGarden, livesWithOtherPets: $0.livesWithOtherPets,
                    livesWithChildren: $0.livesWithChildren)
            },
            personality: body.personality, notes: body.notes)
    }
}

extension Components.Schemas.Vaccination {
    init(_ record: VaccinationValue) {
        self.init(
            id: record.id.description, vaccine: .init(rawValue: record.vaccine) ?? .other,
            otherName: record.otherName, givenOn: record.givenOn, nextDueOn: record.nextDueOn,
            clinic: record.clinic, createdAt: record.createdAt)
    }
}

extension Components.Schemas.WelfareStatus {
    /// `dates` writes the dates in the reasons' sentences, in the member's language.
    init(_ status: WelfareStatus, dates: (LocalDate) -> String) {
        self.init(
            mode: .init(rawValue: status.mode.rawValue)!,
            eligibleForSocial: status.assessment.mode == .social,
            reasons: status.assessment.reasons.map { .init(code: $0.code, message: $0.message(writingDates: dates)) },
            earliestSocialDate: status.assessment.earliestSocialDate?.description,
            heldBackFields: status.heldBackFields)
    }
}

extension Components.Schemas.Guardian {
    init(_ guardian: GuardianValue) {
        self.init(
            userId: guardian.userID.description, username: guardian.username, displayName: guardian.displayName,
            status: guardian.status == .active ? .active : .invited)
    }
}

// MARK: Mapping

extension Components.Schemas.Photo {
    init(_ photo: PetPhotoRecordValue, _ mapping: APIMapping) {
        self.init(
            id: photo.id.description, url: mapping.baseURL + WebPath.media(photo.storageKey),
            kind: photo.kind == .profile ? .profile : .gallery, contentType: photo.contentType,
            createdAt: photo.createdAt)
    }
}

extension Components.Schemas.PetCard {
    init(_ pet: PetSnapshot, _ mapping: APIMapping) {
        self.init(pet.card, mapping)
    }
}

extension Components.Schemas.PetCard {
    init(_ pet: PetCardValue, _ mapping: APIMapping) {
        self.init(
            id: pet.id.description, name: pet.name,
            species: .init(rawValue: pet.species.rawValue)!, breed: pet.breed,
            ageText: PetAge.text(birthDate: pet.birthDate, estimated: pet.birthDateIsEstimate, today: mapping.today),
            sizeClass: pet.sizeClass.flatMap { .init(rawValue: $0.rawValue) },
            photos: pet.photos.map { Components.Schemas.Photo($0, mapping) }, mode: pet.mode.flatMap { .init(rawValue: $0.rawValue) },
            ownerDisplayName: pet.ownerDisplayName, averageRating: pet.ratings.pet.average,
            reviewCount: pet.ratings.pet.count, ownerAverageRating: pet.ratings.owner.average,
            ownerReviewCount: pet.ratings.owner.count)
    }
}

extension Components.Schemas.PetView {
    init(_ pet: PetSnapshot, _ mapping: APIMapping) {
        let profile = pet.profile
        var details: Components.Schemas.PetProfile?
        if PetPermissions(role: pet.role).canSeePrivateFields {
            details = .init(
                ownerId: profile.ownerID.description,
                sex: .init(rawValue: profile.sex.rawValue)!, neutered: profile.neutered,
                dateOfBirth: profile.birthDate.description, birthDateIsEstimate: profile.birthDateIsEstimate,
                weightKg: profile.weightKg, sizeClass: profile.sizeClass.flatMap { .init(rawValue: $0.rawValue) },
                playStyles: profile.playStyles.compactMap { .init(rawValue: $0.rawValue) },
                energy: profile.energy.flatMap { .init(rawValue: $0.rawValue) },
                environment: profile.environment.map {
                    .init(
                        area: .init(rawValue: $0.area.rawValue)!, hasGarden: $0.hasGarden,
                        livesWithOtherPets: $0.livesWithOtherPets, livesWithChildren: $0.livesWithChildren)
                },
                personality: profile.personality, notes: profile.notes, heldBackFields: pet.heldBackFields)
        }
        self.init(card: Components.Schemas.PetCard(pet, mapping), role: pet.role.flatMap { .init(rawValue: $0.rawValue) }, profile: details)
    }
}
