import Foundation
import PawpackAPI
import PawpackCore

extension APIPath {
    package static let care = "/v1/care"
    package static func petCare(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/care" }
    package static func foods(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/foods" }
    package static func food(_ food: some CustomStringConvertible) -> String { "/v1/foods/\(food)" }
    package static func stock(_ food: some CustomStringConvertible) -> String { self.food(food) + "/stock" }
    package static func feeds(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/feeds" }
    package static func feedsCSV(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/feeds.csv" }
    package static let feedBatch = "/v1/feeds"
    package static func feed(_ feed: some CustomStringConvertible) -> String { "/v1/feeds/\(feed)" }
    package static func weights(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/weights" }
    package static func medications(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/medications" }
    package static func medication(_ medication: some CustomStringConvertible) -> String { "/v1/medications/\(medication)" }
    package static func doses(_ medication: some CustomStringConvertible) -> String { self.medication(medication) + "/doses" }
    package static let families = "/v1/families"
    package static func family(_ family: some CustomStringConvertible) -> String { "\(families)/\(family)" }
    package static func inviteCode(_ family: some CustomStringConvertible) -> String { self.family(family) + "/invite-code" }
    package static let joinFamily = "/v1/families/join"
    package static let familyJoinRequests = "/v1/family-join-requests"
    package static func familyJoinRequest(_ request: some CustomStringConvertible, _ answer: String) -> String {
        "\(familyJoinRequests)/\(request)/\(answer)"
    }
    package static func familyMember(_ family: some CustomStringConvertible, _ username: String) -> String {
        self.family(family) + "/members/\(username)"
    }
    package static func familyTransfer(_ family: some CustomStringConvertible, _ answer: String? = nil) -> String {
        self.family(family) + "/transfer" + (answer.map { "/\($0)" } ?? "")
    }
    package static func familyPet(_ family: some CustomStringConvertible, _ pet: some CustomStringConvertible) -> String {
        self.family(family) + "/pets/\(pet)"
    }
}

// Care's steps: a family with its members, a pet shared with it, a food, feeds.
extension TestServer {
    /// A family created by `owner`, in `timeZone`.
    package func family(of owner: String, name: String = "Home", timeZone: String = "Europe/Oslo") async throws -> Components.Schemas.Family {
        let created = try await send(.POST, APIPath.families, object: ["name": name, "timeZone": timeZone], token: owner)
        guard created.status == 201 else { throw TestFailure("family: \(created.status) \(created.text)") }
        return try created.decode(Components.Schemas.Family.self)
    }

    /// `member` joins the family with a fresh code, and its owner accepts them in `role`.
    package func join(_ family: String, owner: String, member: String, role: String = "member") async throws {
        let code = try await send(.POST, APIPath.inviteCode(family), object: [:], token: owner)
        guard code.status == 200 else { throw TestFailure("code: \(code.status) \(code.text)") }
        let asked = try await send(
            .POST, APIPath.joinFamily, object: ["code": try code.decode(Components.Schemas.FamilyInviteCode.self).code], token: member)
        guard asked.status == 202 else { throw TestFailure("join: \(asked.status) \(asked.text)") }
        let joinRequest = try asked.decode(Components.Schemas.FamilyJoinRequest.self)
        let accepted = try await request(.POST, APIPath.familyJoinRequest(joinRequest.id, "accept") + "?role=\(role)", token: owner)
        guard accepted.status == 204 else { throw TestFailure("accept: \(accepted.status) \(accepted.text)") }
    }

    /// Shares the pet with the family (the pet's owner).
    package func share(_ pet: String, with family: String, token: String) async throws {
        let shared = try await request(.PUT, APIPath.familyPet(family, pet), token: token)
        guard shared.status == 204 else { throw TestFailure("share: \(shared.status) \(shared.text)") }
    }

    /// A food for the pet: wet, 80 kcal a packet, unless `fields` say otherwise.
    package func food(for pet: String, token: String, _ fields: [String: any Sendable] = [:]) async throws -> Components.Schemas.Food {
        var object: [String: any Sendable] = ["name": "Salmon pouches", "kind": "wet", "kcal": 80.0]
        object.merge(fields) { _, new in new }
        let added = try await send(.POST, APIPath.foods(pet), object: object, token: token)
        guard added.status == 201 else { throw TestFailure("food: \(added.status) \(added.text)") }
        return try added.decode(Components.Schemas.Food.self)
    }

    /// Logs a feed of `food` to `pet` (the food's usual portion unless `fields` give one).
    package func feed(
        _ pet: String, food: String, token: String, id: String = UUID().uuidString, _ fields: [String: any Sendable] = [:]
    ) async throws -> Reply {
        var object: [String: any Sendable] = ["id": id, "foodId": food]
        object.merge(fields) { _, new in new }
        return try await send(.POST, APIPath.feeds(pet), object: object, token: token)
    }
}

extension TestServer {
    /// A medication for `pet`, every `every` `unit`, its first dose at `startsAt` (now by default).
    package func medication(
        for pet: some CustomStringConvertible, name: String = "Metacam", dose: String = "0.5 ml", every: Int = 12, unit: String = "hours",
        startsAt: Date? = nil, token: String
    ) async throws -> Components.Schemas.Medication {
        var object: [String: any Sendable] = ["name": name, "dose": dose, "every": every, "unit": unit]
        if let startsAt { object["startsAt"] = startsAt.formatted(.iso8601) }
        let created = try await send(.POST, APIPath.medications(pet), object: object, token: token)
        guard created.status == 201 else { throw TestFailure("medication: \(created.status) \(created.text)") }
        return try created.decode(Components.Schemas.Medication.self)
    }
}
