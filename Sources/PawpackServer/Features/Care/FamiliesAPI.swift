import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var families: FamilyService { services.families }

    func listFamilies(_ input: Operations.ListFamilies.Input) async throws -> Operations.ListFamilies.Output {
        let auth = try await authenticated()
        let families = try await families.families(of: auth.user, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: families.map(Components.Schemas.Family.init)))))
    }

    func createFamily(_ input: Operations.CreateFamily.Input) async throws -> Operations.CreateFamily.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let family = try await families.create(auth.user, name: body.name, timeZone: body.timeZone, on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Family(family))))
    }

    func getFamily(_ input: Operations.GetFamily.Input) async throws -> Operations.GetFamily.Output {
        let auth = try await authenticated()
        let family = try await families.family(auth.user, id: try pathID(input.path.familyId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Family(family))))
    }

    func updateFamily(_ input: Operations.UpdateFamily.Input) async throws -> Operations.UpdateFamily.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let family = try await families.update(
            auth.user, family: try pathID(input.path.familyId), name: body.name, timeZone: body.timeZone, on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Family(family))))
    }

    func deleteFamily(_ input: Operations.DeleteFamily.Input) async throws -> Operations.DeleteFamily.Output {
        let auth = try await authenticated()
        try await families.delete(auth.user, family: try pathID(input.path.familyId), on: auth.request.db)
        return .noContent(.init())
    }

    func newFamilyInviteCode(_ input: Operations.NewFamilyInviteCode.Input) async throws -> Operations.NewFamilyInviteCode.Output {
        let auth = try await authenticated()
        let code = try await families.newInviteCode(auth.user, family: try pathID(input.path.familyId), on: auth.request.db)
        return .ok(.init(body: .json(.init(code: code.code, expiresAt: code.expiresAt))))
    }

    func joinFamily(_ input: Operations.JoinFamily.Input) async throws -> Operations.JoinFamily.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let request = try await families.askToJoin(
            auth.user, code: body.code, address: auth.request.clientAddress, on: auth.request.db)
        return .accepted(.init(body: .json(Components.Schemas.FamilyJoinRequest(request))))
    }

    func listFamilyJoinRequests(_ input: Operations.ListFamilyJoinRequests.Input) async throws
        -> Operations.ListFamilyJoinRequests.Output
    {
        let auth = try await authenticated()
        let requests = try await families.joinRequests(for: auth.user, on: auth.request.db)
        return .ok(.init(body: .json(.init(items: requests.map(Components.Schemas.FamilyJoinRequest.init)))))
    }

    func acceptFamilyJoinRequest(_ input: Operations.AcceptFamilyJoinRequest.Input) async throws
        -> Operations.AcceptFamilyJoinRequest.Output
    {
        let role = input.query.role.flatMap { FamilyRole(rawValue: $0.rawValue) } ?? .member
        let auth = try await authenticated()
        try await families.answer(auth.user, request: try pathID(input.path.requestId), accept: true, role: role, on: auth.request.db)
        return .noContent(.init())
    }

    func declineFamilyJoinRequest(_ input: Operations.DeclineFamilyJoinRequest.Input) async throws
        -> Operations.DeclineFamilyJoinRequest.Output
    {
        let auth = try await authenticated()
        try await families.answer(auth.user, request: try pathID(input.path.requestId), accept: false, on: auth.request.db)
        return .noContent(.init())
    }

    func changeFamilyRole(_ input: Operations.ChangeFamilyRole.Input) async throws -> Operations.ChangeFamilyRole.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await families.setRole(
            auth.user, family: try pathID(input.path.familyId), username: input.path.username,
            role: FamilyRole(rawValue: body.role.rawValue) ?? .member, on: auth.request.db)
        return .noContent(.init())
    }

    func removeFamilyMember(_ input: Operations.RemoveFamilyMember.Input) async throws -> Operations.RemoveFamilyMember.Output {
        let auth = try await authenticated()
        try await families.remove(auth.user, family: try pathID(input.path.familyId), username: input.path.username, on: auth.request.db)
        return .noContent(.init())
    }

    func offerFamily(_ input: Operations.OfferFamily.Input) async throws -> Operations.OfferFamily.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await families.offer(auth.user, family: try pathID(input.path.familyId), to: body.username, on: auth.request.db)
        return .noContent(.init())
    }

    func acceptFamily(_ input: Operations.AcceptFamily.Input) async throws -> Operations.AcceptFamily.Output {
        let auth = try await authenticated()
        try await families.answerTransfer(auth.user, family: try pathID(input.path.familyId), accept: true, on: auth.request.db)
        return .noContent(.init())
    }

    func declineFamily(_ input: Operations.DeclineFamily.Input) async throws -> Operations.DeclineFamily.Output {
        let auth = try await authenticated()
        try await families.answerTransfer(auth.user, family: try pathID(input.path.familyId), accept: false, on: auth.request.db)
        return .noContent(.init())
    }

    func shareWithFamily(_ input: Operations.ShareWithFamily.Input) async throws -> Operations.ShareWithFamily.Output {
        let auth = try await authenticated()
        try await families.share(
            auth.user, pet: try pathID(input.path.petId), with: try pathID(input.path.familyId), on: auth.request.db)
        return .noContent(.init())
    }

    func unshareFromFamily(_ input: Operations.UnshareFromFamily.Input) async throws -> Operations.UnshareFromFamily.Output {
        let auth = try await authenticated()
        try await families.unshare(
            auth.user, pet: try pathID(input.path.petId), from: try pathID(input.path.familyId), on: auth.request.db)
        return .noContent(.init())
    }
}

// MARK: Mapping

extension Components.Schemas.Family {
    init(_ family: FamilyValue) {
        self.init(
            id: family.id.description, name: family.name, timeZone: family.timeZone, myRole: .init(family.myRole),
            inviteCode: family.inviteCode, inviteExpiresAt: family.inviteExpiresAt, pendingOwner: family.pendingOwnerUsername,
            members: family.members.map {
                .init(username: $0.username, displayName: $0.displayName, role: .init($0.role), joinedAt: $0.joinedAt)
            },
            pets: family.pets.map {
                .init(
                    petId: $0.pet.description, name: $0.name, species: .init(rawValue: $0.species.rawValue) ?? .other,
                    ownerDisplayName: $0.ownerDisplayName)
            },
            createdAt: family.createdAt)
    }
}

extension Components.Schemas.FamilyRole {
    init(_ role: FamilyRole) {
        switch role {
        case .owner: self = .owner
        case .member: self = .member
        case .viewer: self = .viewer
        }
    }
}

extension Components.Schemas.FamilyJoinRequest {
    init(_ request: FamilyJoinRequestValue) {
        self.init(
            id: request.id.description, familyId: request.family.description, familyName: request.familyName,
            username: request.username, displayName: request.displayName, direction: request.incoming ? .incoming : .outgoing,
            createdAt: request.createdAt)
    }
}
