import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

// Accounts: sign-up and verification, sessions, the profile, password and email, export and
// deletion.

extension PawpackClient {
    /// This device's time zone by its IANA name, when it has one the server accepts (a device
    /// set to a bare offset has none): what `signUp` sends unless told otherwise.
    public static var deviceTimeZone: String? {
        let name = TimeZone.current.identifier
        return HouseholdDays.timeZone(named: name) == nil ? nil : name
    }

    /// Creates an account. The server emails a verification link; ``logIn(email:password:)``
    /// answers `email_not_verified` until it is opened.
    @discardableResult
    public func signUp(
        email: String, password: String, username: String, displayName: String,
        dateOfBirth: LocalDate, city: String? = nil, timeZone: String? = PawpackClient.deviceTimeZone
    ) async throws -> Account {
        try await send {
            let created = try await client.signUp(
                body: .json(
                    .init(
                        email: email, password: password, username: username, displayName: displayName,
                        dateOfBirth: dateOfBirth.description, city: city, timeZone: timeZone))
            ).created
            return try Account(try created.body.json)
        }
    }

    /// Confirms an email address with the token from the emailed link.
    @discardableResult
    public func verifyEmail(token: String) async throws -> Account {
        try await send {
            try Account(try await client.verifyEmail(body: .json(.init(token: token))).ok.body.json)
        }
    }

    /// Sends the verification link again (the server sends at most one a minute, and answers
    /// the same whether or not the address has an account waiting).
    public func resendVerification(email: String) async throws {
        try await send {
            _ = try await client.resendVerification(body: .json(.init(email: email))).accepted
        }
    }

    /// Signs in and keeps the session for later calls.
    @discardableResult
    public func logIn(email: String, password: String) async throws -> Account {
        let session = try await send {
            try Session(try await client.logIn(body: .json(.init(email: email, password: password))).ok.body.json)
        }
        await start(session)
        return session.account
    }

    /// Signs out on the server and forgets the session, also when the server cannot be told.
    public func logOut() async throws {
        do {
            try await signedIn {
                _ = try await client.logOut().noContent
            }
        } catch {
            await forgetSession()
            throw error
        }
        await forgetSession()
    }

    /// The signed-in account.
    public func me() async throws -> Account {
        try await signedIn {
            try Account(try await client.getMe().ok.body.json)
        }
    }

    /// Changes profile fields; `nil` leaves a field as it is and an empty `city` or `timeZone`
    /// clears it. The time zone (an IANA name, `TimeZone.current.identifier` for the device's)
    /// places the days of the member's pets in Care that no family places.
    @discardableResult
    public func updateProfile(
        displayName: String? = nil, city: String? = nil, username: String? = nil, timeZone: String? = nil
    ) async throws -> Account {
        try await signedIn {
            try Account(
                try await client.updateMe(
                    body: .json(.init(displayName: displayName, city: city, username: username, timeZone: timeZone))
                ).ok.body.json)
        }
    }

    /// Changes the password; the server signs out every other session.
    public func changePassword(current: String, new: String) async throws {
        try await signedIn {
            _ = try await client.changePassword(body: .json(.init(currentPassword: current, newPassword: new))).noContent
        }
    }

    /// Starts a change of email; it takes effect when the link sent to `newEmail` is opened.
    public func changeEmail(to newEmail: String, password: String) async throws {
        try await signedIn {
            _ = try await client.changeEmail(body: .json(.init(newEmail: newEmail, password: password))).accepted
        }
    }

    /// Emails a password reset link if the address has an account (the answer is the same
    /// either way).
    public func requestPasswordReset(email: String) async throws {
        try await send {
            _ = try await client.requestPasswordReset(body: .json(.init(email: email))).accepted
        }
    }

    /// Sets a new password with the token from the reset link; every session is signed out.
    public func resetPassword(token: String, newPassword: String) async throws {
        try await send {
            _ = try await client.confirmPasswordReset(body: .json(.init(token: token, newPassword: newPassword))).noContent
        }
        await forgetSession()
    }

    /// Sets where you are, for the deck. Nobody else ever sees it; others see rounded distances.
    @discardableResult
    public func setLocation(_ point: GeoPoint) async throws -> Account {
        try await signedIn {
            try Account(try await client.setMyLocation(body: .json(.init(latitude: point.latitude, longitude: point.longitude))).ok.body.json)
        }
    }

    /// Forgets your location; your dogs leave other members' decks until you set it again.
    public func clearLocation() async throws {
        try await signedIn {
            _ = try await client.clearMyLocation().noContent
        }
    }

    /// Deletes the account and everything it owns, for good.
    public func deleteAccount(password: String) async throws {
        try await signedIn {
            _ = try await client.deleteMe(body: .json(.init(password: password))).noContent
        }
        await forgetSession()
    }

    /// Everything the account owns.
    public func exportData() async throws -> AccountExport {
        try await signedIn {
            try AccountExport(try await client.exportMe().ok.body.json)
        }
    }
}
