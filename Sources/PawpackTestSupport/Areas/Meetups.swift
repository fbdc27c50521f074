import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIPath {
    package static let meetups = "/v1/meetups"
    package static func meetup(_ meetup: some CustomStringConvertible) -> String { "\(meetups)/\(meetup)" }
    package static func chatMeetups(_ chat: some CustomStringConvertible) -> String { self.chat(chat) + "/meetups" }
    /// `accept`, `reject`, `cancel` or `complete`.
    package static func meetup(_ meetup: some CustomStringConvertible, _ action: some CustomStringConvertible) -> String {
        self.meetup(meetup) + "/\(action)"
    }
}

extension TestServer {
    /// The owner proposes a meet-up in the chat, `hours` from now at a park in Lyon; the reply.
    package func propose(
        _ owner: Owner, in chat: String, hours: Double = 2, place: String = "Parc de la Tête d'Or",
        extra: [String: any Sendable] = [:]
    ) async throws -> Reply {
        var body: [String: any Sendable] = [
            "startsAt": Date(timeInterval: hours * 3_600, since: clock.now()).formatted(Date.ISO8601FormatStyle()),
            "placeName": place, "latitude": 45.7772, "longitude": 4.8554,
        ]
        body.merge(extra) { _, new in new }
        return try await send(.POST, "/v1/chats/\(chat)/meetups", object: body, token: owner.token)
    }
}
