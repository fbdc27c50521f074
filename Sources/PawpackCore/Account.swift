import Foundation

/// An account as its owner sees it.
public struct Account: Sendable, Equatable, Codable, Identifiable {
    public var id: User.ID
    public var email: String
    public var username: String
    public var displayName: String
    public var dateOfBirth: LocalDate
    public var city: String?
    /// Where the owner is, for discovery; only ever shown to the owner.
    public var location: GeoPoint?
    /// The member's own time zone (an IANA name): the days of their pets that no family or
    /// setting of the pet's places elsewhere.
    public var timeZone: String?
    public var emailVerified: Bool
    public var createdAt: Date

    public init(
        id: User.ID, email: String, username: String, displayName: String,
        dateOfBirth: LocalDate, city: String?, location: GeoPoint? = nil, timeZone: String? = nil,
        emailVerified: Bool, createdAt: Date
    ) {
        self.id = id
        self.email = email
        self.username = username
        self.displayName = displayName
        self.dateOfBirth = dateOfBirth
        self.city = city
        self.location = location
        self.timeZone = timeZone
        self.emailVerified = emailVerified
        self.createdAt = createdAt
    }
}

/// What a new member types on the sign-up form, as typed.
public struct SignUpForm: Sendable, Equatable {
    public var email: String
    public var password: String
    public var username: String
    public var displayName: String
    public var dateOfBirth: String
    public var city: String?
    /// An IANA name, such as the app's or the browser's own.
    public var timeZone: String?

    public init(
        email: String, password: String, username: String, displayName: String,
        dateOfBirth: String, city: String? = nil, timeZone: String? = nil
    ) {
        self.email = email
        self.password = password
        self.username = username
        self.displayName = displayName
        self.dateOfBirth = dateOfBirth
        self.city = city
        self.timeZone = timeZone
    }
}

/// A sign-up that passed every rule, normalised for storage.
public struct ValidSignUp: Sendable, Equatable {
    public init(
        email: String, password: String, username: String, displayName: String,
        dateOfBirth: LocalDate, city: String?, timeZone: String? = nil
    ) {
        self.email = email
        self.password = password
        self.username = username
        self.displayName = displayName
        self.dateOfBirth = dateOfBirth
        self.city = city
        self.timeZone = timeZone
    }

    public var email: String
    public var password: String
    public var username: String
    public var displayName: String
    public var dateOfBirth: LocalDate
    public var city: String?
    public var timeZone: String?
}

/// Profile fields an owner may change; `nil` leaves a field as it is, an empty city clears it.
public struct ProfileChange: Sendable, Equatable {
    public var displayName: String?
    public var city: String?
    public var username: String?
    /// An IANA name; an empty one clears it (the member's pets' days then follow UTC where
    /// nothing else places them).
    public var timeZone: String?

    public init(displayName: String? = nil, city: String? = nil, username: String? = nil, timeZone: String? = nil) {
        self.displayName = displayName
        self.city = city
        self.username = username
        self.timeZone = timeZone
    }
}
