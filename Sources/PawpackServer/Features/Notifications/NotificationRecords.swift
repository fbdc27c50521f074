import Fluent
import Foundation
import PawpackCore

/// One entry of a member's inbox. Its words are written when it is made, as the push that goes
/// with it says them; the ids let an app open the right screen.
final class NotificationRecord: Model, @unchecked Sendable {
    static let schema = "notifications"

    @ID(custom: .id) var id: Notifications.Notification.ID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "kind") var kind: String
    @Field(key: "title") var title: String
    @Field(key: "body") var body: String
    @OptionalField(key: "chat_id") var chatID: Chats.Chat.ID?
    @OptionalField(key: "meetup_id") var meetupID: Meetups.Meetup.ID?
    /// The other member's dog it is about, for its photo.
    @OptionalField(key: "pet_id") var petID: Pet.ID?
    /// How many events it stands for: messages of one chat collapse into one while unread.
    @Field(key: "count") var count: Int
    /// Its last update in microseconds (`ActivityCursor`): the inbox is newest first.
    @Field(key: "activity") var activity: Int64
    @Field(key: "created_at") var createdAt: Date
    @OptionalField(key: "read_at") var readAt: Date?
    /// Added by `AddNotificationSender`: the member whose action caused it (nil: the server's
    /// own, or made before); the flood limits count by it.
    @OptionalField(key: "from_user_id") var fromUserID: User.ID?

    init() {}
}

/// A kind of notification a member does not want.
final class NotificationMuteRecord: Model, @unchecked Sendable {
    static let schema = "notification_mutes"

    @ID(custom: .id) var id: UUID?
    @Parent(key: "user_id") var user: UserRecord
    @Field(key: "kind") var kind: String

    init() {}
}
