import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Meet-ups, reviews and the inbox. A meet-up is proposed in a chat, answered by the other
// owner, and reviewed by both once completed; only its two participants can see it.

extension PawpackClient {
    // MARK: Meet-ups

    /// Proposes a meet-up in a chat. Fails with `puppy_mode_forbids_meetups` while either dog
    /// is in Puppy Mode (the problem names it and the date it may meet), `chat_closed`, or
    /// `meetup_pending` while a proposal waits in the chat.
    public func proposeMeetup(in chat: Chat.ID, _ proposal: MeetupProposalInput) async throws -> Meetup {
        try await signedIn {
            let body = Components.Schemas.MeetupInput(
                petId: proposal.pet?.description, startsAt: proposal.startsAt, placeName: proposal.placeName,
                latitude: proposal.location.latitude, longitude: proposal.location.longitude, note: proposal.note)
            let created = try await client.proposeMeetup(path: .init(chatId: chat.description), body: .json(body)).created
            return try Meetup(try created.body.json)
        }
    }

    /// Which of your meet-ups ``meetups(_:limit:)`` lists.
    public enum MeetupList: String, Sendable {
        /// Pending and accepted, soonest first.
        case upcoming
        /// Rejected, cancelled, completed and expired, latest first.
        case past
        /// Completed and not reviewed by you yet.
        case toReview = "to_review"
    }

    public func meetups(_ list: MeetupList = .upcoming, limit: Int = 20) async throws -> [Meetup] {
        try await signedIn {
            try await client.listMeetups(query: .init(filter: .init(rawValue: list.rawValue), limit: limit)).ok.body.json.items.map(Meetup.init)
        }
    }

    /// A chat's meet-ups, latest start first.
    public func meetups(in chat: Chat.ID) async throws -> [Meetup] {
        try await signedIn {
            try await client.listChatMeetups(path: .init(chatId: chat.description)).ok.body.json.items.map(Meetup.init)
        }
    }

    public func meetup(_ id: Meetup.ID) async throws -> Meetup {
        try await signedIn {
            try Meetup(try await client.getMeetup(path: .init(meetupId: id.description)).ok.body.json)
        }
    }

    /// The invited owner accepts a pending proposal before its start.
    @discardableResult
    public func acceptMeetup(_ id: Meetup.ID) async throws -> Meetup {
        try await signedIn {
            try Meetup(try await client.acceptMeetup(path: .init(meetupId: id.description)).ok.body.json)
        }
    }

    /// The invited owner declines a pending proposal.
    @discardableResult
    public func rejectMeetup(_ id: Meetup.ID) async throws -> Meetup {
        try await signedIn {
            try Meetup(try await client.rejectMeetup(path: .init(meetupId: id.description)).ok.body.json)
        }
    }

    /// Either owner cancels a pending or accepted meet-up before its start.
    @discardableResult
    public func cancelMeetup(_ id: Meetup.ID) async throws -> Meetup {
        try await signedIn {
            try Meetup(try await client.cancelMeetup(path: .init(meetupId: id.description)).ok.body.json)
        }
    }

    /// Either owner marks an accepted meet-up completed once its start time has come.
    @discardableResult
    public func completeMeetup(_ id: Meetup.ID) async throws -> Meetup {
        try await signedIn {
            try Meetup(try await client.completeMeetup(path: .init(meetupId: id.description)).ok.body.json)
        }
    }

    // MARK: Reviews

    /// Reviews the other owner and dog of a completed meet-up: 1 to 5, once (`already_reviewed`
    /// the second time).
    @discardableResult
    public func review(_ meetup: Meetup.ID, rating: Int, text: String? = nil) async throws -> Review {
        try await signedIn {
            let created = try await client.reviewMeetup(
                path: .init(meetupId: meetup.description),
                body: .json(.init(rating: rating, text: text))
            ).created
            return try Review(try created.body.json)
        }
    }

    /// A dog's reviews, or its owner's (`aboutOwner`), newest first.
    public func reviews(of pet: Pet.ID, aboutOwner: Bool = false, limit: Int = 20, cursor: String? = nil) async throws -> ReviewPage {
        try await signedIn {
            switch try await client.listPetReviews(
                path: .init(petId: pet.description),
                query: .init(about: aboutOwner ? .owner : .pet, limit: limit, cursor: cursor))
            {
            case .ok(let ok):
                let page = try ok.body.json
                return ReviewPage(
                    items: try page.items.map(Review.init), nextCursor: page.nextCursor,
                    averageRating: page.averageRating, reviewCount: page.reviewCount)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    /// Reports a review you received; kept for moderation.
    public func report(_ review: Review.ID, reason: String) async throws {
        try await signedIn {
            _ = try await client.reportReview(path: .init(reviewId: review.description), body: .json(.init(reason: reason))).noContent
        }
    }

    // MARK: Inbox

    /// Your notifications, newest first, with how many are unread.
    public func notifications(limit: Int = 20, cursor: String? = nil) async throws -> InboxPage {
        try await signedIn {
            switch try await client.listNotifications(query: .init(limit: limit, cursor: cursor)) {
            case .ok(let ok):
                let page = try ok.body.json
                return InboxPage(
                    items: try page.items.map(InboxNotification.init), nextCursor: page.nextCursor,
                    unreadCount: page.unreadCount)
            case .default(let status, _): throw PawpackError.unexpectedResponse("HTTP \(status)")
            }
        }
    }

    public func markRead(_ notification: InboxNotification.ID) async throws {
        try await signedIn {
            _ = try await client.markNotificationRead(path: .init(notificationId: notification.description)).noContent
        }
    }

    public func markAllNotificationsRead() async throws {
        try await signedIn {
            _ = try await client.markAllNotificationsRead().noContent
        }
    }

    /// The kinds of notification you muted.
    public func mutedNotificationKinds() async throws -> Set<NotificationKind> {
        try await signedIn {
            let ok = try await client.getNotificationSettings().ok
            return Set(try ok.body.json.muted.map { try same($0, as: NotificationKind.self) })
        }
    }

    /// Replaces the kinds you muted: they make no notification and no push; realtime events
    /// still come.
    public func muteNotifications(_ kinds: Set<NotificationKind>) async throws {
        try await signedIn {
            let muted = kinds.sorted { $0.rawValue < $1.rawValue }.compactMap { Components.Schemas.NotificationKind(rawValue: $0.rawValue) }
            _ = try await client.updateNotificationSettings(body: .json(.init(muted: muted))).ok
        }
    }
}
