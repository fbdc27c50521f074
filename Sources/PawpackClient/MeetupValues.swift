import Foundation
import PawpackAPI
import PawpackCore

/// A playdate proposed in a chat, as one of its two participants sees it. Nobody else can see
/// it, its place's coordinates included.
public struct Meetup: Sendable, Equatable, Identifiable {
    public typealias ID = Meetups.Meetup.ID
    public typealias Status = MeetupStatus

    public var id: ID
    public var chatID: Chat.ID
    public var status: Status
    public var proposedByMe: Bool
    public var myPet: PetCard
    public var otherPet: PetCard
    public var startsAt: Date
    public var placeName: String
    public var location: GeoPoint
    public var note: String?
    public var createdAt: Date
    public var updatedAt: Date
    /// Whether you made the last change; nil when the proposal expired unanswered.
    public var changedByMe: Bool?
    public var reviewedByMe: Bool
    public var reviewedByThem: Bool

    init(_ dto: Components.Schemas.Meetup) throws {
        id = try serverID(dto.id)
        chatID = try serverID(dto.chatId)
        status = try same(dto.status, as: Status.self)
        proposedByMe = dto.proposedByMe
        myPet = try PetCard(dto.myPet)
        otherPet = try PetCard(dto.otherPet)
        startsAt = dto.startsAt
        placeName = dto.placeName
        location = GeoPoint(latitude: dto.location.latitude, longitude: dto.location.longitude)
        note = dto.note
        createdAt = dto.createdAt
        updatedAt = dto.updatedAt
        changedByMe = dto.changedByMe
        reviewedByMe = dto.reviewedByMe
        reviewedByThem = dto.reviewedByThem
    }
}

/// What you propose: which of your dogs (your dog of the chat when nil), when, where.
public struct MeetupProposalInput: Sendable, Equatable {
    public var pet: Pet.ID?
    public var startsAt: Date
    public var placeName: String
    public var location: GeoPoint
    public var note: String?

    public init(pet: Pet.ID? = nil, startsAt: Date, placeName: String, location: GeoPoint, note: String? = nil) {
        self.pet = pet
        self.startsAt = startsAt
        self.placeName = placeName
        self.location = location
        self.note = note
    }
}

/// One participant's rating of the other owner and dog after a completed meet-up.
public struct Review: Sendable, Equatable, Identifiable {
    public typealias ID = Meetups.Review.ID

    public var id: ID
    public var rating: Int
    public var text: String?
    public var authorDisplayName: String
    public var authorPetName: String
    public var createdAt: Date
    /// You received it, so you may report it.
    public var isAboutMe: Bool

    init(_ dto: Components.Schemas.Review) throws {
        id = try serverID(dto.id)
        rating = dto.rating
        text = dto.text
        authorDisplayName = dto.authorDisplayName
        authorPetName = dto.authorPetName
        createdAt = dto.createdAt
        isAboutMe = dto.aboutMe
    }
}

/// A page of reviews with the average and count of all of them.
public struct ReviewPage: Sendable, Equatable {
    public var items: [Review]
    public var nextCursor: String?
    public var averageRating: Double?
    public var reviewCount: Int
}

/// One entry of your inbox. (Named so that it never clashes with Foundation's `Notification`.)
public struct InboxNotification: Sendable, Equatable, Identifiable {
    public typealias ID = Notifications.Notification.ID
    public typealias Kind = NotificationKind

    public var id: ID
    public var kind: Kind
    public var title: String
    public var body: String
    public var chatID: Chat.ID?
    public var meetupID: Meetup.ID?
    /// The other member's dog it is about.
    public var petID: Pet.ID?
    /// How many events it stands for: a chat's unread messages share one.
    public var count: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var isRead: Bool

    init(_ dto: Components.Schemas.Notification) throws {
        id = try serverID(dto.id)
        kind = try same(dto.kind, as: Kind.self)
        title = dto.title
        body = dto.body
        chatID = try dto.chatId.map(serverID)
        meetupID = try dto.meetupId.map(serverID)
        petID = try dto.petId.map(serverID)
        count = dto.count
        createdAt = dto.createdAt
        updatedAt = dto.updatedAt
        isRead = dto.read
    }
}

/// A page of the inbox, with how many notifications are unread in all.
public struct InboxPage: Sendable, Equatable {
    public var items: [InboxNotification]
    public var nextCursor: String?
    public var unreadCount: Int
}
