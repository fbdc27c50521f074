import PawpackCore

/// Every address of the web app, in one place: links, form actions, redirects, emailed links and
/// the routes the pages register all come from these, never from a string of their own. A path
/// that names a record takes its typed id in a link, and the matching `RouteParameter` (`Param`)
/// where the route is registered; `WebRoutesTests` checks every one is served.
enum WebPath {
    // MARK: Shell

    static let landing = "/"
    static let home = "/home"
    /// The web app manifest, so the app can be added to a home screen.
    static let manifest = "/manifest.webmanifest"
    /// The service worker: it caches the shell and shows `offline` without a network.
    static let serviceWorker = "/sw.js"
    static let offline = "/offline"
    static let iconSVG = "/icon.svg"
    static func icon(size: Int) -> String { "/icon-\(size).png" }
    /// The sizes `icon(size:)` serves.
    static let iconSizes = [192, 512]
    /// The landing's drawn dogs (`AppShell.landingDogs`), from 1.
    static func landingDog(_ number: Int) -> String { "/landing-dog-\(number).png" }
    /// The shell's files: the same for everyone, so no session is looked up for them (nor for
    /// the stylesheet and script, under `WebAssets.folder`).
    static let staticFiles: Set<String> = Set(
        [manifest, serviceWorker, offline, iconSVG] + iconSizes.map { icon(size: $0) }
            + AppShell.landingDogs.indices.map { landingDog($0 + 1) })
    /// The development outbox (development only).
    static let devMail = "/dev/mail"
    /// Pushes the server sent, or would have (development only).
    static let devPush = "/dev/push"
    /// The server's time, and a form to move it forward (development only).
    static let devClock = "/dev/clock"
    /// Development only: every page and its area (`DevPagesList`).
    static let devPages = "/dev/pages"

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
    static let accountUnblock = "/account/unblock"
    static let accountExport = "/account/export"
    static let accountDelete = "/account/delete"

    // MARK: Pets

    static let pets = "/pets"
    static let newPet = "/pets/new"
    static func pet(_ id: some PathID<Pet>) -> String { "/pets/\(id)" }
    static func editPet(_ id: some PathID<Pet>) -> String { pet(id) + "/edit" }
    static func deletePet(_ id: some PathID<Pet>) -> String { pet(id) + "/delete" }
    static func petPhotos(_ id: some PathID<Pet>) -> String { pet(id) + "/photos" }
    static func makeMainPetPhoto(_ id: some PathID<Pet>, _ photo: some PathID<Pet.Photo>) -> String {
        pet(id) + "/photos/\(photo)/main"
    }
    static func deletePetPhoto(_ id: some PathID<Pet>, _ photo: some PathID<Pet.Photo>) -> String {
        petPhotos(id) + "/\(photo)/delete"
    }
    static func vaccinations(_ id: some PathID<Pet>) -> String { pet(id) + "/vaccinations" }
    static func deleteVaccination(_ id: some PathID<Pet>, _ vaccination: some PathID<Pet.Vaccination>) -> String {
        vaccinations(id) + "/\(vaccination)/delete"
    }
    static func guardians(_ id: some PathID<Pet>) -> String { pet(id) + "/guardians" }
    static func removeGuardian(_ id: some PathID<Pet>, _ guardian: some PathID<User>) -> String {
        guardians(id) + "/\(guardian)/remove"
    }
    static func acceptGuardianInvitation(_ id: some PathID<Pet.Guardianship>) -> String { "/guardian-invitations/\(id)/accept" }
    static func rejectGuardianInvitation(_ id: some PathID<Pet.Guardianship>) -> String { "/guardian-invitations/\(id)/reject" }
    /// A stored photo, for signed-in members (`MediaRoutes`); its storage key is `pets/<pet>/<file>`.
    static func media(_ storageKey: String) -> String { "/media/\(storageKey)" }
    /// The route that serves `media(_:)`.
    static let mediaRoute = media("pets/\(Param.pet)/\(Param.file)")
    /// The route that serves chat photos, to the chat's two members.
    static let chatMediaRoute = media("chats/\(Param.chat)/\(Param.file)")
    /// The route that serves a moment's files, to those who may see it (`PhotoVisibility`).
    static let momentMediaRoute = media("moments/\(Param.moment)/\(Param.file)")
    /// The WebSocket of realtime events, for apps and the web app alike.
    static let realtime = "/v1/realtime"

    // MARK: Playdates

    static let playdates = "/playdates"
    static func deck(_ id: some PathID<Pet>) -> String { pet(id) + "/deck" }
    /// Another dog's page opened from `seeker`'s deck: it leads back there, with Like and Pass.
    static func pet(_ id: some PathID<Pet>, fromDeckOf seeker: some PathID<Pet>) -> String { pet(id) + "?deck=\(seeker)" }
    /// The dogs this dog passed on; each can still be liked.
    static func passes(_ id: some PathID<Pet>) -> String { pet(id) + "/passes" }
    static func likeFromPasses(_ id: some PathID<Pet>) -> String { passes(id) + "/like" }
    static func swipes(_ id: some PathID<Pet>) -> String { pet(id) + "/swipes" }
    static func undoSwipe(_ id: some PathID<Pet>) -> String { swipes(id) + "/undo" }
    static func deckPreferences(_ id: some PathID<Pet>) -> String { pet(id) + "/preferences" }
    static let matchRequests = "/playdates/requests"
    static func acceptMatchRequest(_ id: some PathID<Playdates.MatchRequest>) -> String { matchRequests + "/\(id)/accept" }
    static func rejectMatchRequest(_ id: some PathID<Playdates.MatchRequest>) -> String { matchRequests + "/\(id)/reject" }
    static func cancelMatchRequest(_ id: some PathID<Playdates.MatchRequest>) -> String { matchRequests + "/\(id)/cancel" }
    static let matches = "/playdates/matches"
    /// A match, full screen: both dogs and what to do next.
    static func match(_ id: some PathID<Playdates.Match>) -> String { matches + "/\(id)" }
    static func unmatch(_ id: some PathID<Playdates.Match>) -> String { matches + "/\(id)/unmatch" }
    /// Blocks the owner of a dog (from its profile, a request or a match).
    static func blockOwner(_ id: some PathID<Pet>) -> String { pet(id) + "/block-owner" }

    // MARK: Chats, meet-ups and the inbox

    static let chats = "/chats"
    static func chat(_ id: some PathID<Chats.Chat>) -> String { chats + "/\(id)" }
    static func chatMessages(_ id: some PathID<Chats.Chat>) -> String { chat(id) + "/messages" }
    /// Marks the chat read up to a message (the page's script, as messages arrive).
    static func chatRead(_ id: some PathID<Chats.Chat>) -> String { chat(id) + "/read" }
    static func newMeetup(_ id: some PathID<Chats.Chat>) -> String { chat(id) + "/meetups/new" }
    static func chatMeetups(_ id: some PathID<Chats.Chat>) -> String { chat(id) + "/meetups" }
    static let meetups = "/meetups"
    static func meetupAction(_ id: some PathID<Meetups.Meetup>, _ action: MeetupAction) -> String {
        meetups + "/\(id)/\(action.rawValue)"
    }
    static func reviewMeetup(_ id: some PathID<Meetups.Meetup>) -> String { meetups + "/\(id)/review" }
    /// A dog's reviews, newest first.
    static func petReviews(_ id: some PathID<Pet>) -> String { pet(id) + "/reviews" }
    /// The reviewed member reports a review, for moderation.
    static func reportReview(_ id: some PathID<Meetups.Review>) -> String { "/reviews/\(id)/report" }
    static let notifications = "/notifications"
    /// Marks a notification read and goes where it leads.
    static func openNotification(_ id: some PathID<Notifications.Notification>) -> String { notifications + "/\(id)/open" }
    /// Which kinds of notifications the member hears about.
    static let notificationSettings = "/notifications/settings"
    /// The browser's Web Push subscription (the page's script).
    static let pushSubscription = "/notifications/push"
    static let pushUnsubscription = "/notifications/push/off"

    // MARK: Care

    /// Every pet whose care the member sees, a card each.
    static let care = "/care"
    static func carePet(_ id: some PathID<Pet>) -> String { care + "/pets/\(id)" }
    static func careFeeds(_ id: some PathID<Pet>) -> String { carePet(id) + "/feeds" }
    static func careHistory(_ id: some PathID<Pet>) -> String { carePet(id) + "/history" }
    static func careHealth(_ id: some PathID<Pet>) -> String { carePet(id) + "/health" }
    static func careWeights(_ id: some PathID<Pet>) -> String { carePet(id) + "/weights" }
    static func careSettings(_ id: some PathID<Pet>) -> String { carePet(id) + "/settings" }
    static func careFoods(_ id: some PathID<Pet>) -> String { carePet(id) + "/foods" }
    static func careShare(_ id: some PathID<Pet>) -> String { carePet(id) + "/share" }
    static func careMedications(_ id: some PathID<Pet>) -> String { carePet(id) + "/medications" }
    static func medicationDoses(_ id: some PathID<Care.Medication>) -> String { care + "/medications/\(id)/doses" }
    static func deleteMedication(_ id: some PathID<Care.Medication>) -> String { care + "/medications/\(id)/delete" }
    static func careLogCSV(_ id: some PathID<Pet>) -> String { carePet(id) + "/feeds.csv" }
    static func deleteFeed(_ id: some PathID<Care.Feed>) -> String { care + "/feeds/\(id)/delete" }
    static func foodStock(_ id: some PathID<Care.Food>) -> String { care + "/foods/\(id)/stock" }
    static func foodLowAlert(_ id: some PathID<Care.Food>) -> String { care + "/foods/\(id)/low" }
    static func deleteFood(_ id: some PathID<Care.Food>) -> String { care + "/foods/\(id)/delete" }
    static func editFood(_ id: some PathID<Care.Food>) -> String { care + "/foods/\(id)/edit" }
    /// The member's families, joining one, making one.
    static let families = "/care/family"
    static let joinFamily = "/care/family/join"
    static func family(_ id: some PathID<Care.Family>) -> String { "/care/families/\(id)" }
    static func familyAction(_ id: some PathID<Care.Family>, _ action: FamilyAction) -> String { family(id) + "/\(action.rawValue)" }
    static func familyMember(_ id: some PathID<Care.Family>, _ member: some PathID<User>, _ action: FamilyAction) -> String {
        family(id) + "/members/\(member)/\(action.rawValue)"
    }
    static func answerJoinRequest(_ id: some PathID<Care.JoinRequest>, accept: Bool) -> String {
        "/care/join-requests/\(id)/" + (accept ? "accept" : "decline")
    }

    // MARK: Moments

    /// The friends feed: my photos and my friends'.
    static let moments = "/moments"
    /// Everyone's public photos.
    static let momentsEveryone = "/moments/everyone"
    static let myMoments = "/moments/mine"
    /// The form to post a photo, and where it is posted.
    static let newMoment = "/moments/new"
    static func moment(_ id: some PathID<Moments.Photo>) -> String { "/moments/photos/\(id)" }
    static func momentAction(_ id: some PathID<Moments.Photo>, _ action: MomentAction) -> String { moment(id) + "/\(action.rawValue)" }
    /// The contest running now.
    static let contest = "/moments/contest"
    /// Past contests with their winners.
    static let contests = "/moments/contests"
    static func contest(_ id: some PathID<Moments.Contest>) -> String { contests + "/\(id)" }
    /// A contest's leaderboard alone: the contest page's script reads it again to keep it live.
    static func leaderboard(_ id: some PathID<Moments.Contest>) -> String { contest(id) + "/leaderboard" }
    /// Enters one of my photos (the form's `photo`) in a contest.
    static func contestEntries(_ id: some PathID<Moments.Contest>) -> String { contest(id) + "/entries" }
    static func entryVote(_ id: some PathID<Moments.Entry>) -> String { "/moments/entries/\(id)/vote" }
    static func withdrawEntry(_ id: some PathID<Moments.Entry>) -> String { "/moments/entries/\(id)/withdraw" }
    /// Friends, requests both ways and the member search (`?query=`).
    static let friends = "/moments/friends"
    static let friendRequests = "/moments/friends/requests"
    static func answerFriendRequest(_ id: some PathID<Moments.FriendRequest>, _ answer: FriendAnswer) -> String {
        friendRequests + "/\(id)/\(answer.rawValue)"
    }
    static let removeFriend = "/moments/friends/remove"
    static let findable = "/moments/friends/findable"
}

/// What a moment's page may do, each a form posted to `WebPath.momentAction`.
enum MomentAction: String, CaseIterable, Sendable {
    case vote, edit, delete, report
}

/// A friend request's answers, each a form posted to `WebPath.answerFriendRequest`.
enum FriendAnswer: String, CaseIterable, Sendable {
    case accept, reject, cancel
}

/// What a family's page may do, each a form posted to `WebPath.familyAction`.
enum FamilyAction: String, CaseIterable, Sendable {
    case code, rename, delete, leave, offer
    case takeOver = "take-over"
    case declineOffer = "decline-offer"
    /// A member's: make them a viewer or a member again, remove them.
    case viewer, member, remove
}

/// A path segment naming a record of `Owner`: its id in a link (`Identifier`), or the route's
/// parameter where a page registers the route (`RouteParameter`).
protocol PathID<Owner>: CustomStringConvertible {
    associatedtype Owner
}

extension Identifier: PathID {}

/// A route's parameter, written `:name` in the route and read back with
/// `Request.idParameter(_:)`.
struct RouteParameter<Owner>: PathID, Sendable {
    let name: String

    var description: String { ":" + name }
}

/// The parameters of the web routes.
enum Param {
    static let pet = RouteParameter<Pet>(name: "petId")
    static let photo = RouteParameter<Pet.Photo>(name: "photoId")
    static let vaccination = RouteParameter<Pet.Vaccination>(name: "vaccinationId")
    static let member = RouteParameter<User>(name: "userId")
    static let invitation = RouteParameter<Pet.Guardianship>(name: "invitationId")
    static let matchRequest = RouteParameter<Playdates.MatchRequest>(name: "requestId")
    static let match = RouteParameter<Playdates.Match>(name: "matchId")
    static let chat = RouteParameter<Chats.Chat>(name: "chatId")
    static let meetup = RouteParameter<Meetups.Meetup>(name: "meetupId")
    static let review = RouteParameter<Meetups.Review>(name: "reviewId")
    static let notification = RouteParameter<Notifications.Notification>(name: "notificationId")
    static let feed = RouteParameter<Care.Feed>(name: "feedId")
    static let food = RouteParameter<Care.Food>(name: "foodId")
    static let medication = RouteParameter<Care.Medication>(name: "medicationId")
    static let family = RouteParameter<Care.Family>(name: "familyId")
    static let joinRequest = RouteParameter<Care.JoinRequest>(name: "requestId")
    static let moment = RouteParameter<Moments.Photo>(name: "momentId")
    static let contest = RouteParameter<Moments.Contest>(name: "contestId")
    static let entry = RouteParameter<Moments.Entry>(name: "entryId")
    static let friendRequest = RouteParameter<Moments.FriendRequest>(name: "friendRequestId")
    /// A stored file's name under its pet (`MediaRoutes`).
    static let file = RouteParameter<MediaFile>(name: "file")

    /// What `file` names: a photo's stored file, `<photo>.<ext>`.
    enum MediaFile {}
}

/// A one-line confirmation a redirect can ask the next page to show (`?flash=<name>`): each
/// area declares its own (`Area.flashes`), so a page never echoes text from the address.
struct Flash: Sendable {
    let name: String
    let message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }
}
