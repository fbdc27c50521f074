import Foundation

// SoPup's consent-first playdates: after a match, one owner proposes a time and a place, the
// other accepts or rejects, either may cancel, and once the time has come either may mark the
// meet-up completed and then review the other. Pure rules: the server and its tests share them.

/// Where a meet-up is in its life. Only `pending` and `accepted` can still change.
public enum MeetupStatus: String, Sendable, Codable, CaseIterable {
    case pending, accepted, rejected, cancelled, completed, expired
}

/// What a participant does to a meet-up.
public enum MeetupAction: String, Sendable, CaseIterable {
    case accept, reject, cancel, complete
}

/// A meet-up's proposal as the rules accept it: trimmed, bounded, in the allowed window.
public struct MeetupProposal: Sendable, Equatable {
    public var startsAt: Date
    public var placeName: String
    public var place: GeoPoint
    public var note: String?
}

public struct MeetupRules: Sendable {
    /// How far ahead a meet-up may be proposed.
    public static let maximumDaysAhead = 90
    public static let maximumPlaceNameLength = 120
    public static let maximumNoteLength = 500
    /// How long before an accepted meet-up both owners are reminded.
    public static let reminderLead: TimeInterval = 3_600

    public init() {}

    /// The proposal to keep, or a problem naming each field that is wrong.
    public func proposal(
        startsAt: Date, placeName rawPlace: String, latitude: Double, longitude: Double,
        note rawNote: String?, now: Date
    ) throws -> MeetupProposal {
        var errors: [FieldError] = []
        if startsAt <= now {
            errors.append(FieldError(field: "startsAt", message: "must be in the future"))
        } else if startsAt > now.addingTimeInterval(Double(Self.maximumDaysAhead) * 86_400) {
            errors.append(FieldError(field: "startsAt", message: "must be within \(Self.maximumDaysAhead) days"))
        }
        var placeName = ""
        switch TextRule.line(max: Self.maximumPlaceNameLength, required: true).check(rawPlace) {
        case .success(let text): placeName = text
        case .failure(let refusal): errors.append(FieldError(field: "placeName", message: refusal.message))
        }
        if !(-90...90).contains(latitude) || !latitude.isFinite {
            errors.append(FieldError(field: "latitude", message: "must be from -90 to 90"))
        }
        if !(-180...180).contains(longitude) || !longitude.isFinite {
            errors.append(FieldError(field: "longitude", message: "must be from -180 to 180"))
        }
        var note: String?
        switch rawNote.map(TextRule.paragraphs(max: Self.maximumNoteLength).check) {
        case .success(let text)?: note = text
        case .failure(let refusal)?: errors.append(FieldError(field: "note", message: refusal.message))
        case nil: break
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        return MeetupProposal(
            startsAt: startsAt, placeName: placeName,
            place: GeoPoint(latitude: latitude, longitude: longitude),
            note: note?.isEmpty == false ? note : nil)
    }

    /// The status after `action`, or a 409 saying why it cannot be done now. The proposer may
    /// not answer their own proposal; nobody answers once the time has come (it expires);
    /// completing waits for the start time.
    public func status(
        after action: MeetupAction, from status: MeetupStatus, byProposer: Bool,
        startsAt: Date, now: Date
    ) throws -> MeetupStatus {
        switch (action, status) {
        case (.accept, .pending), (.reject, .pending):
            guard !byProposer else {
                throw Self.conflict("Waiting for the other owner", "Only the other owner can answer your proposal.")
            }
            guard now < startsAt else {
                throw Self.conflict("This proposal has expired", "Its time has passed. Propose a new meet-up instead.")
            }
            return action == .accept ? .accepted : .rejected
        case (.cancel, .pending), (.cancel, .accepted):
            guard now < startsAt else {
                throw Self.conflict("This meet-up has started", "A meet-up can be cancelled until its start time.")
            }
            return .cancelled
        case (.complete, .accepted):
            guard now >= startsAt else {
                throw Self.conflict("Not yet", "A meet-up can be marked completed once its start time has come.")
            }
            return .completed
        default:
            throw Self.conflict(
                "This meet-up is \(status.rawValue)",
                "A \(status.rawValue) meet-up cannot be \(action.pastTense) any more.")
        }
    }

    public static func conflict(_ title: String, _ detail: String) -> Problem {
        Problem(status: 409, code: .meetupStateConflict, title: title, detail: detail)
    }
}

extension MeetupAction {
    var pastTense: String {
        switch self {
        case .accept: "accepted"
        case .reject: "rejected"
        case .cancel: "cancelled"
        case .complete: "completed"
        }
    }
}

/// What a review may hold.
public struct ReviewRules: Sendable {
    public static let maximumTextLength = 1_000

    public init() {}

    public func review(rating: Int, text rawText: String?) throws -> (rating: Int, text: String?) {
        var errors: [FieldError] = []
        if !(1...5).contains(rating) { errors.append(FieldError(field: "rating", message: "must be from 1 to 5")) }
        var text: String?
        switch rawText.map(TextRule.paragraphs(max: Self.maximumTextLength).check) {
        case .success(let checked)?: text = checked
        case .failure(let refusal)?: errors.append(FieldError(field: "text", message: refusal.message))
        case nil: break
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        return (rating, text?.isEmpty == false ? text : nil)
    }
}
