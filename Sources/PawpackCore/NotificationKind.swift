/// The kinds of notifications, each of which a member can mute. Each area lists the kinds it
/// sends (`Area.notificationKinds` in the server); a new kind is a case here and in the contract.
public enum NotificationKind: String, Sendable, Codable, CaseIterable {
    case matchRequest = "match_request"
    case match
    /// Collapsed per chat while unread: one notification counts the messages.
    case message
    /// A proposal, its answer, a cancellation, completion, expiry or the reminder.
    case meetup
    case review
    /// An invitation to guard another member's pet.
    case guardianInvitation = "guardian_invitation"
    /// A request to join a family, its answer, an offer to take one over.
    case family
    /// A pet's food running low (where a threshold was set) or out.
    case stock
    /// A pet's next feed is due (to its household's members who may log feeds).
    case feeding
    /// Another member fed a pet ("Sam fed Miso").
    case fed
    /// A medication dose or a vaccination falling due.
    case health
    /// A friend request received, or accepted (Moments).
    case friend
    /// A contest's result for a member whose photo placed (Moments).
    case contest
}

extension NotificationKind {
    /// What a member hears about with this kind, as the mute choices say it.
    public var title: String {
        switch self {
        case .matchRequest: "Requests to play"
        case .match: "Matches"
        case .message: "Messages"
        case .meetup: "Meet-ups and their reminders"
        case .review: "Reviews of your dogs"
        case .guardianInvitation: "Invitations to guard a pet"
        case .family: "Family requests"
        case .stock: "Food running low or out"
        case .feeding: "Feeding reminders"
        case .fed: "Feeds others log"
        case .health: "Medication and vaccination reminders"
        case .friend: "Friend requests and new friends"
        case .contest: "Contest results"
        }
    }
}
