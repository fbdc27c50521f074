import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static let pets = "/v1/pets"
    package static func pet(_ pet: some CustomStringConvertible) -> String { "\(pets)/\(pet)" }
    package static func photos(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/photos" }
    package static func photo(_ pet: some CustomStringConvertible, _ photo: some CustomStringConvertible) -> String {
        photos(pet) + "/\(photo)"
    }
    package static func vaccinations(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/vaccinations" }
    package static func vaccination(_ pet: some CustomStringConvertible, _ vaccination: some CustomStringConvertible) -> String {
        vaccinations(pet) + "/\(vaccination)"
    }
    package static func mode(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/mode" }
    package static func socialMode(_ pet: some CustomStringConvertible) -> String { mode(pet) + "/social" }
    package static func guardians(_ pet: some CustomStringConvertible) -> String { self.pet(pet) + "/guardians" }
    package static func guardian(_ pet: some CustomStringConvertible, _ member: some CustomStringConvertible) -> String {
        guardians(pet) + "/\(member)"
    }
    package static let guardianInvitations = "/v1/guardian-invitations"
    package static func acceptInvitation(_ invitation: some CustomStringConvertible) -> String {
        "\(guardianInvitations)/\(invitation)/accept"
    }
    package static func rejectInvitation(_ invitation: some CustomStringConvertible) -> String {
        "\(guardianInvitations)/\(invitation)/reject"
    }
}

// Pets' steps: an owner with a dog somewhere, its vaccinations.
extension TestServer {
    /// A member with one dog.
    package struct Owner: Sendable {
        package var member: Member
        package var dogID: String

        package init(member: Member, dogID: String) {
            self.member = member
            self.dogID = dogID
        }

        package var dog: Pet.ID { Pet.ID(string: dogID)! }
        package var token: String { member.accessToken }
    }

    /// Places the tests put owners at.
    package enum Place {
        /// Lyon's centre.
        package static let lyon = GeoPoint(latitude: 45.7640, longitude: 4.8357)
        /// 2 km north of Lyon's centre.
        package static let lyonNorth = GeoPoint(latitude: 45.7820, longitude: 4.8357)
        /// 700 m north of Lyon's centre.
        package static let lyonNear = GeoPoint(latitude: 45.7700, longitude: 4.8357)
        package static let paris = GeoPoint(latitude: 48.8566, longitude: 2.3522)
    }

    /// A verified member living at `place` (`member`, or a new one named `name`) with one dog,
    /// "Name's dog", 30 months old and 14 kg; `dog` adds to or replaces fields of its profile.
    package func owner(
        _ name: String, at place: GeoPoint, dog: [String: any Sendable] = [:],
        member existing: Member? = nil
    ) async throws -> Owner {
        let member: Member
        if let existing { member = existing } else { member = try await self.member(name, password: "\(name)'s own secret") }
        let located = try await send(
            .PUT, "/v1/me/location", object: ["latitude": place.latitude, "longitude": place.longitude],
            token: member.accessToken)
        guard located.status == 200 else { throw TestFailure("location of \(name): \(located.text)") }
        var profile: [String: any Sendable] = [
            "name": "\(name.capitalized)'s dog", "species": "dog",
            "estimatedAgeMonths": 30, "weightKg": 14.0,
        ]
        profile.merge(dog) { _, new in new }
        let created = try await send(.POST, "/v1/pets", object: profile, token: member.accessToken)
        guard created.status == 201 else { throw TestFailure("dog of \(name): \(created.text)") }
        return Owner(member: member, dogID: try created.decode(Components.Schemas.PetView.self).card.id)
    }

    /// Records a combined core dose a month before the tests' start, which puts an adult dog
    /// (the owners' dogs are 30 months old) in Social Mode by itself.
    package func vaccinate(_ owner: Owner, dog: String? = nil) async throws {
        let dose = try await send(
            .POST, "/v1/pets/\(dog ?? owner.dogID)/vaccinations",
            object: ["vaccine": "dhpp", "givenOn": "2026-02-01"], token: owner.token)
        guard dose.status == 201 else { throw TestFailure("dose: \(dose.status) \(dose.text)") }
    }
}
