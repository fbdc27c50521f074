import Foundation

/// Stable machine-readable error codes. Clients switch on these; the wording of messages may
/// change, the codes may not.
public enum ProblemCode: String, Sendable, Codable, CaseIterable {
    case validationFailed = "validation_failed"
    case invalidRequest = "invalid_request"
    case unauthenticated = "unauthenticated"
    case tokenExpired = "token_expired"
    case forbidden = "forbidden"
    case notFound = "not_found"
    case emailTaken = "email_taken"
    case usernameTaken = "username_taken"
    case tooYoung = "too_young"
    case emailNotVerified = "email_not_verified"
    case invalidCredentials = "invalid_credentials"
    case accountLocked = "account_locked"
    case tooManyAttempts = "too_many_attempts"
    case invalidToken = "invalid_token"
    case serverBusy = "server_busy"
    case csrfFailed = "csrf_failed"
    case internalError = "internal_error"
    case unavailable = "unavailable"
    case puppyModeForbidsMeetups = "puppy_mode_forbids_meetups"
    case welfareRulesUnmet = "welfare_rules_unmet"
    case unsupportedMediaType = "unsupported_media_type"
    case payloadTooLarge = "payload_too_large"
    case alreadyInvited = "already_invited"
    case alreadyRequested = "already_requested"
    case alreadySwiped = "already_swiped"
    case locationNeeded = "location_needed"
    case limitReached = "limit_reached"
    case methodNotAllowed = "method_not_allowed"
    case notAcceptable = "not_acceptable"
    case tooManyRequests = "too_many_requests"
    case chatClosed = "chat_closed"
    case messageIDReused = "message_id_reused"
    case upgradeRequired = "upgrade_required"
    case meetupPending = "meetup_pending"
    case meetupStateConflict = "meetup_state_conflict"
    case alreadyReviewed = "already_reviewed"
    /// Another member fed the pet a moment ago: the client asks before logging anyway.
    case recentlyFed = "recently_fed"
    /// The owner of a family leaves it, or deletes their account, without handing it over.
    case familyOwnerMustHandOver = "family_owner_must_hand_over"
    /// A transfer answered where nobody offered one.
    case noOfferWaiting = "no_offer_waiting"
    /// A client-chosen id (an idempotency key) sent again with a different body.
    case idempotencyKeyReused = "idempotency_key_reused"
    /// A friend request to a member who already is a friend.
    case alreadyFriends = "already_friends"
    /// A photo shared with friends only entered in a contest without saying that entering
    /// shows it to everyone while it is entered.
    case entryMakesPublic = "entry_makes_public"
}

/// One field that failed validation, named as the client sent it.
public struct FieldError: Sendable, Equatable, Codable {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

/// A domain failure, rendered by the server as RFC 9457 problem details and surfaced by the
/// SDK as `PawpackError`. Core rules return it; they never know about HTTP beyond the status.
public struct Problem: Error, Sendable, Equatable {
    public var status: Int
    public var code: ProblemCode
    public var title: String
    public var detail: String
    public var errors: [FieldError]
    /// Seconds after which a retry may succeed (429 and 503), sent as `Retry-After`.
    public var retryAfter: Int?
    /// With `recently_fed`: each pet another member fed a moment ago, by whom and when, for an
    /// app to ask in its own words before logging anyway.
    public var recentFeeds: [RecentFeed] = []

    /// A feed another member logged a moment ago (`recently_fed`).
    public struct RecentFeed: Sendable, Equatable {
        public var pet: Pet.ID
        /// Who fed it; nil when their account is gone.
        public var username: String?
        public var displayName: String?
        public var fedAt: Date

        public init(pet: Pet.ID, username: String?, displayName: String?, fedAt: Date) {
            self.pet = pet
            self.username = username
            self.displayName = displayName
            self.fedAt = fedAt
        }
    }

    public init(
        status: Int, code: ProblemCode, title: String, detail: String,
        errors: [FieldError] = [], retryAfter: Int? = nil
    ) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
        self.retryAfter = retryAfter
    }

    /// The first field named, for clients that show one message.
    public var field: String? { errors.first?.field }

    /// The same problem with some fields named as a form calls them (a form asking for years
    /// where the rules speak of months).
    public func renamingFields(_ names: [String: String]) -> Problem {
        var renamed = self
        renamed.errors = errors.map { FieldError(field: names[$0.field] ?? $0.field, message: $0.message) }
        return renamed
    }

    public static func validation(_ errors: [FieldError]) -> Problem {
        let detail = errors.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        return Problem(
            status: 422, code: .validationFailed, title: "Some fields are not valid",
            detail: detail, errors: errors)
    }

    public static func invalidField(_ field: String, _ message: String) -> Problem {
        validation([FieldError(field: field, message: message)])
    }

    public static let unauthenticated = Problem(
        status: 401, code: .unauthenticated, title: "Not signed in",
        detail: "Sign in and send the access token as `Authorization: Bearer <token>`.")

    public static let tokenExpired = Problem(
        status: 401, code: .tokenExpired, title: "Session expired",
        detail: "The access token has expired or was revoked. Refresh it or sign in again.")

    /// A retry is answered as the first request was; the same key with another body is a
    /// mistake of the client's, never silently the first answer (as payment APIs do).
    public static func idempotencyKeyReused(field: String) -> Problem {
        Problem(
            status: 409, code: .idempotencyKeyReused, title: "Id already used",
            detail: "This id was already used for a different request. Choose a new id for each new request.",
            errors: [FieldError(field: field, message: "was already used with a different body")])
    }

    public static let notFound = Problem(
        status: 404, code: .notFound, title: "Not found", detail: "There is nothing here.")

    public static let invalidCredentials = Problem(
        status: 401, code: .invalidCredentials, title: "Wrong email or password",
        detail: "The email or password is not right.")

    public static let emailNotVerified = Problem(
        status: 403, code: .emailNotVerified, title: "Email not verified",
        detail: "Open the link we emailed you to verify your address, then sign in.")

    public static let invalidToken = Problem(
        status: 400, code: .invalidToken, title: "Link not valid",
        detail: "This link is not valid, was already used or has expired. Ask for a new one.")

    public static func accountLocked(retryAfter: Int) -> Problem {
        Problem(
            status: 429, code: .accountLocked, title: "Account locked for a moment",
            detail: "Too many failed sign-ins. Try again in \(retryAfter) seconds.",
            retryAfter: retryAfter)
    }

    public static func tooManyAttempts(retryAfter: Int) -> Problem {
        Problem(
            status: 429, code: .tooManyAttempts, title: "Too many attempts",
            detail: "Too many failed sign-ins from your network. Try again in \(retryAfter) seconds.",
            retryAfter: retryAfter)
    }

    /// Too many of one kind of request from one member: deck reads, location changes, mail.
    public static func tooManyRequests(retryAfter: Int, what: String = "requests") -> Problem {
        Problem(
            status: 429, code: .tooManyRequests, title: "Slow down",
            detail: "Too many \(what) for now. Try again in \(retryAfter) seconds.", retryAfter: retryAfter)
    }

    public static let serverBusy = Problem(
        status: 503, code: .serverBusy, title: "Server busy",
        detail: "The server is busy checking passwords. Try again in a second.", retryAfter: 1)
}
