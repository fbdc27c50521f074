import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    var meetups: MeetupService { services.meetups }

    func proposeMeetup(_ input: Operations.ProposeMeetup.Input) async throws -> Operations.ProposeMeetup.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let chatID: Chats.Chat.ID = try pathID(input.path.chatId)
        var pet: Pet.ID?
        if let text = body.petId {
            guard let id = Pet.ID(string: text) else { throw Problem.invalidField("petId", "is not one of your dogs") }
            pet = id
        }
        let meetup = try await meetups.propose(
            auth.user, chat: chatID,
            .init(
                pet: pet, startsAt: body.startsAt, placeName: body.placeName, latitude: body.latitude,
                longitude: body.longitude, note: body.note),
            writingDates: DateWords.writer(for: auth.request), on: auth.request.db)
        return .created(.init(body: .json(Components.Schemas.Meetup(meetup, viewer: try auth.user.requireID(), mapping))))
    }

    func listChatMeetups(_ input: Operations.ListChatMeetups.Input) async throws -> Operations.ListChatMeetups.Output {
        let auth = try await authenticated()
        let items = try await meetups.meetups(auth.user, chat: try pathID(input.path.chatId), limit: 50, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(.init(body: .json(.init(items: items.map { Components.Schemas.Meetup($0, viewer: me, mapping) }))))
    }

    func listMeetups(_ input: Operations.ListMeetups.Input) async throws -> Operations.ListMeetups.Output {
        let auth = try await authenticated()
        let limit = input.query.limit ?? 20
        guard (1...50).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to 50") }
        let filter = MeetupFilter(rawValue: input.query.filter?.rawValue ?? MeetupFilter.upcoming.rawValue) ?? .upcoming
        let items = try await meetups.meetups(auth.user, filter: filter, limit: limit, on: auth.request.db)
        let me = try auth.user.requireID()
        return .ok(.init(body: .json(.init(items: items.map { Components.Schemas.Meetup($0, viewer: me, mapping) }))))
    }

    func getMeetup(_ input: Operations.GetMeetup.Input) async throws -> Operations.GetMeetup.Output {
        let auth = try await authenticated()
        let meetup = try await meetups.meetup(auth.user, id: try pathID(input.path.meetupId), on: auth.request.db)
        return .ok(.init(body: .json(Components.Schemas.Meetup(meetup, viewer: try auth.user.requireID(), mapping))))
    }

    func acceptMeetup(_ input: Operations.AcceptMeetup.Input) async throws -> Operations.AcceptMeetup.Output {
        .ok(.init(body: .json(try await act(.accept, input.path.meetupId))))
    }

    func rejectMeetup(_ input: Operations.RejectMeetup.Input) async throws -> Operations.RejectMeetup.Output {
        .ok(.init(body: .json(try await act(.reject, input.path.meetupId))))
    }

    func cancelMeetup(_ input: Operations.CancelMeetup.Input) async throws -> Operations.CancelMeetup.Output {
        .ok(.init(body: .json(try await act(.cancel, input.path.meetupId))))
    }

    func completeMeetup(_ input: Operations.CompleteMeetup.Input) async throws -> Operations.CompleteMeetup.Output {
        .ok(.init(body: .json(try await act(.complete, input.path.meetupId))))
    }

    private func act(_ action: MeetupAction, _ meetupID: String) async throws -> Components.Schemas.Meetup {
        let auth = try await authenticated()
        let meetup = try await meetups.act(
            action, auth.user, meetup: try pathID(meetupID),
            writingDates: DateWords.writer(for: auth.request), on: auth.request.db)
        return Components.Schemas.Meetup(meetup, viewer: try auth.user.requireID(), mapping)
    }

}

// MARK: Mapping

extension Components.Schemas.Meetup {
    init(_ meetup: MeetupValue, viewer: User.ID, _ mapping: APIMapping) {
        let (mine, theirs) = meetup.pets(seenBy: viewer)
        let other = viewer == meetup.proposer ? meetup.invitee : meetup.proposer
        self.init(
            id: meetup.id.description, chatId: meetup.chat.description, status: .init(rawValue: meetup.status.rawValue)!,
            proposedByMe: meetup.proposer == viewer, myPet: Components.Schemas.PetCard(mine, mapping),
            otherPet: Components.Schemas.PetCard(theirs, mapping),
            startsAt: meetup.startsAt, placeName: meetup.placeName,
            location: .init(latitude: meetup.place.latitude, longitude: meetup.place.longitude),
            note: meetup.note, createdAt: meetup.createdAt, updatedAt: meetup.updatedAt,
            changedByMe: meetup.changedBy.map { $0 == viewer },
            reviewedByMe: meetup.reviewers.contains(viewer), reviewedByThem: meetup.reviewers.contains(other))
    }
}

// MARK: Realtime events

extension RealtimeEventValue {
    /// A meet-up proposed or changed, for both participants.
    static func meetup(_ meetup: MeetupValue) -> Self {
        Self(kind: "meetup") { recipient, mapping in Components.Schemas.Meetup(meetup, viewer: recipient, mapping) }
    }
}
