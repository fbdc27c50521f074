import PawpackCore

/// Every address of the web app, in one place: links, form actions, redirects and emailed
/// links name a page through these, never through a string of their own. Each feature's pages
/// register the matching routes; `WebPathTests` checks that every path here is served.
enum WebPath {
    // MARK: Shell

    static let landing = "/"
    static let home = "/home"
    static let stylesheet = "/styles.css"
    static let script = "/app.js"
    /// The development outbox (development only).
    static let devMail = "/dev/mail"

    // MARK: Accounts

    static let signUp = "/signup"
    /// Where an emailed verification link lands (`?token=`).
    static let verifyEmail = "/verify"
    static let resendVerification = "/verify/resend"
    static let logIn = "/login"
    static let logOut = "/logout"
    static let forgotPassword = "/forgot-password"
    /// Where an emailed reset link lands (`?token=`).
    static let resetPassword = "/reset-password"
    static let account = "/account"
    static let accountProfile = "/account/profile"
    static let accountUsername = "/account/username"
    static let accountEmail = "/account/email"
    static let accountPassword = "/account/password"
    static let accountLocation = "/account/location"
    static let accountExport = "/account/export"
    static let accountDelete = "/account/delete"

    // MARK: Pets

    static let pets = "/pets"
    static let newPet = "/pets/new"
    static func pet(_ id: Pet.ID) -> String { "/pets/\(id)" }
    static func editPet(_ id: Pet.ID) -> String { pet(id) + "/edit" }
    static func deletePet(_ id: Pet.ID) -> String { pet(id) + "/delete" }
    static func petPhotos(_ id: Pet.ID) -> String { pet(id) + "/photos" }
    static func deletePetPhoto(_ id: Pet.ID, _ photo: Pet.Photo.ID) -> String { petPhotos(id) + "/\(photo)/delete" }
    static func vaccinations(_ id: Pet.ID) -> String { pet(id) + "/vaccinations" }
    static func deleteVaccination(_ id: Pet.ID, _ vaccination: Pet.Vaccination.ID) -> String {
        vaccinations(id) + "/\(vaccination)/delete"
    }
    static func switchToSocialMode(_ id: Pet.ID) -> String { pet(id) + "/mode/social" }
    static func guardians(_ id: Pet.ID) -> String { pet(id) + "/guardians" }
    static func removeGuardian(_ id: Pet.ID, _ guardian: User.ID) -> String { guardians(id) + "/\(guardian)/remove" }
    static func acceptGuardianInvitation(_ id: Pet.Guardianship.ID) -> String { "/guardian-invitations/\(id)/accept" }
    static func rejectGuardianInvitation(_ id: Pet.Guardianship.ID) -> String { "/guardian-invitations/\(id)/reject" }
    /// A stored photo, for signed-in members (`MediaRoutes`).
    static func media(_ storageKey: String) -> String { "/media/\(storageKey)" }

    // MARK: Playdates

    static let playdates = "/playdates"
    static func deck(_ id: Pet.ID) -> String { pet(id) + "/deck" }
    static func swipes(_ id: Pet.ID) -> String { pet(id) + "/swipes" }
    static func undoSwipe(_ id: Pet.ID) -> String { swipes(id) + "/undo" }
    static func deckPreferences(_ id: Pet.ID) -> String { pet(id) + "/preferences" }
    static let matchRequests = "/playdates/requests"
    static func acceptMatchRequest(_ id: Playdates.MatchRequest.ID) -> String { matchRequests + "/\(id)/accept" }
    static func rejectMatchRequest(_ id: Playdates.MatchRequest.ID) -> String { matchRequests + "/\(id)/reject" }
    static func cancelMatchRequest(_ id: Playdates.MatchRequest.ID) -> String { matchRequests + "/\(id)/cancel" }
    static let matches = "/playdates/matches"
    static func unmatch(_ id: Playdates.Match.ID) -> String { matches + "/\(id)/unmatch" }
}

/// The one-line confirmations a redirect can ask the next page to show (`?flash=`): named here,
/// so a page never echoes text from the address.
enum Flash: String, CaseIterable {
    case loggedOut = "logged-out"
    case deleted
    case username
    case profile
    case password
    case email
    case passwordReset = "password-reset"
    case location
    case petAdded = "pet-added"
    case petSaved = "pet-saved"
    case petDeleted = "pet-deleted"
    case photoAdded = "photo-added"
    case photoRefused = "photo-refused"
    case vaccinationAdded = "vaccination-added"
    case social
    case invited
    case guardianAccepted = "guardian-accepted"
    case guardianDeclined = "guardian-declined"
    case liked
    case passed
    case matched
    case undone
    case preferences

    var message: String {
        switch self {
        case .loggedOut: "You are logged out."
        case .deleted: "Your account was deleted."
        case .username: "Username changed."
        case .profile: "Profile saved."
        case .password: "Password changed. Your other sessions were signed out."
        case .email: "Check your new inbox: the change takes effect once you open the link we sent."
        case .passwordReset: "Your password was reset. Log in with the new one."
        case .location: "Location saved. Only you can see it."
        case .petAdded: "Pet added."
        case .petSaved: "Saved."
        case .petDeleted: "Pet deleted."
        case .photoAdded: "Photo added."
        case .photoRefused: "The pet was added, but the photo was refused: upload a JPEG, PNG, WebP or HEIC of at most 10 MB."
        case .vaccinationAdded: "Vaccination recorded."
        case .social: "Social Mode is on: meet-ups are open."
        case .invited: "Invitation sent."
        case .guardianAccepted: "You now guard this pet."
        case .guardianDeclined: "Invitation declined."
        case .liked: "Liked! Their owner will be asked."
        case .passed: "Passed."
        case .matched: "It's a match!"
        case .undone: "Last swipe undone."
        case .preferences: "Preferences saved."
        }
    }
}
