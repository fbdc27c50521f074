import Fluent
import Foundation
import PawpackCore
import SQLKit

/// A playdate proposed in a chat. The proposer brings one of their dogs; the invitee, the
/// chat's other dog. The place's coordinates are for the two participants only.
final class MeetupRecord: Model, @unchecked Sendable {
    static let schema = "meetups"

    @ID(custom: .id) var id: Meetups.Meetup.ID?
    @Parent(key: "chat_id") var chat: ChatRecord
    @Parent(key: "proposer_id") var proposer: UserRecord
    @Parent(key: "proposer_pet_id") var proposerPet: PetRecord
    @Parent(key: "invitee_id") var invitee: UserRecord
    @Parent(key: "invitee_pet_id") var inviteePet: PetRecord
    /// Whole seconds: times compare exactly on both databases.
    @Field(key: "starts_at") var startsAt: Date
    @Field(key: "place_name") var placeName: String
    @Field(key: "latitude") var latitude: Double
    @Field(key: "longitude") var longitude: Double
    @OptionalField(key: "note") var note: String?
    @Field(key: "status") var status: String
    @Field(key: "created_at") var createdAt: Date
    @Field(key: "updated_at") var updatedAt: Date
    /// Who made the last change (nil for the scheduler's expiry).
    @OptionalField(key: "changed_by") var changedBy: User.ID?
    /// When both owners were reminded, an hour before.
    @OptionalField(key: "reminded_at") var remindedAt: Date?

    init() {}

    var meetupStatus: MeetupStatus { MeetupStatus(rawValue: status) ?? .cancelled }

    func isParticipant(_ user: User.ID) -> Bool { $proposer.id == user || $invitee.id == user }

    func other(than user: User.ID) -> User.ID { $proposer.id == user ? $invitee.id : $proposer.id }
}
