import Fluent
import PawpackAPI
import PawpackCore
import Plot
import SQLKit
import Vapor

/// What one area of Pawpack (Accounts, Pets, Playdates, Chats, …) brings to the server,
/// declared once in the area's folder (`Features/Meetups/MeetupsArea.swift`) and listed in
/// `Areas.all`. Everything that is the same for every area walks that list: `configure`
/// (migrations, services, pages, upload limits), the tab bar and its badges, the flash
/// messages, the scheduled jobs, account and pet deletion and the export; the guard tests walk
/// the routes and tables the areas register (`WebRoutesTests`, `EscapedPagesTests`,
/// `AccountExportTests`).
struct Area: Sendable {
    /// How the docs and tests name it.
    var name: String
    /// Its services, built once in `Areas.all`'s order: a later area may use an earlier one's
    /// (`services.pets`). Each is reached through a property in the area's folder.
    var services: @Sendable (PawpackServices) -> [any Sendable] = { _ in [] }
    /// Its migrations, in order. Run in `Areas.all`'s order, so a table may refer to tables of
    /// the areas before it; a shipped migration is never edited.
    var migrations: [any Migration] = []
    /// Registers its web pages.
    var pages: @Sendable (Application, PawpackServices) throws -> Void = { _, _ in }
    /// Its page script's module, `Resources/web/<script>.js` (`WebAssets` joins them).
    var script: String?
    /// Its tab in the app's navigation, if it has one.
    var tab: WebPages.Tab?
    /// What of it needs the member now, for Home (a meet-up starting soon, unread chats,
    /// requests waiting): cards ordered across areas by their urgency.
    var home: (@Sendable (Request, PawpackServices) async throws -> [HomeCard])?
    /// Pages of its own that show under another area's tab (a meet-up under Chats).
    var pagesUnderTab: [WebPages.TabPages] = []
    /// Counts the signed-in pages show (on a tab, on the bell), read in one query for all areas.
    var badges: [WebPages.Badge] = []
    /// The confirmations its redirects may show (`?flash=`).
    var flashes: [Flash] = []
    /// API operations whose body is an upload (a photo): allowed `Config.maximumUploadBytes`
    /// and the form around it, instead of `Config.maximumBodyBytes`.
    var uploadOperations: Set<String> = []
    /// The notification kinds it sends (members may mute each).
    var notificationKinds: [NotificationKind] = []
    /// Work due later, run every `Config.jobInterval`, once across instances.
    var jobs: @Sendable (PawpackServices) -> [ScheduledJobs.Job] = { _ in [] }
    /// Its part of the account export.
    var export: (@Sendable (inout Components.Schemas.AccountExport, AccountExportScope) async throws -> Void)?
    /// What it adds to `serve --demo`'s community, once the members and their dogs are in
    /// (Care: the demo member's household), given the members' shared password hash.
    var demo: (@Sendable (PawpackServices, any Database, _ passwordHash: String, _ now: Date) async throws -> Void)?
    /// What it keeps derived from pets (Playdates: the deck's index), told of their changes.
    var followsPets: (@Sendable (PawpackServices) -> PetFollower)?
    /// What it must do when a member or pets are deleted beyond what the database's cascading
    /// foreign keys do: stored files and memory (see `Deletion`).
    var deletion = Deletion()
    /// What members said of pets and their owners, shown on every card and profile (Reviews:
    /// the ratings after meet-ups), by pet; pets without any are left out.
    var petRatings: (@Sendable ([Pet.ID], any Database) async throws -> [Pet.ID: PetRatings])?
    /// Who reviewed each of these meet-ups (Reviews): shown on their cards, and what leaves a
    /// member's "to review" list.
    var meetupReviewers: (@Sendable ([Meetups.Meetup.ID], any Database) async throws -> [Meetups.Meetup.ID: Set<User.ID>])?
    /// What it shows below the inbox (Push: the card that turns notifications on for this
    /// browser); nil where it has nothing to show.
    var inboxPanel: (@Sendable (Request, PawpackServices) async throws -> Node<HTML.BodyContext>?)?
    /// What it adds to an entry of the inbox (Care: "Mark as fed" on a feeding reminder nobody
    /// answered yet); nil where it adds nothing.
    var inboxItem: (@Sendable (Request, NotificationValue, PawpackServices) async throws -> Node<HTML.BodyContext>?)?
    /// What it adds to a pet's page (Playdates: on another member's dog opened from a deck,
    /// the way back to it, and Like and Pass; Reviews: the latest review and the way to all).
    var petPage: (@Sendable (Request, PetPageContext, PawpackServices) async throws -> PetPagePart?)?
    /// Told when chats close (an unmatch, a block), inside the closing transaction (Meetups:
    /// their open meet-ups are cancelled).
    var chatsClosed: (@Sendable ([Chats.Chat.ID], Date, any Database) async throws -> Void)?
    /// What it shows at the top of a chat's page, above the messages (Meetups: the chat's
    /// meet-ups and the button to propose one).
    var chatPanel: (@Sendable (Request, ChatValue, PawpackServices) async throws -> Node<HTML.BodyContext>)?
    /// What a new block between two members ends in it (Chats: their chats close; Playdates:
    /// matches and pending requests), inside the block's transaction: the events to send after.
    var blockEnds:
        (
            @Sendable (_ blocker: User.ID, _ blocked: User.ID, PawpackServices, any Database) async throws
                -> [StoredRealtimeEvent]
        )?
}

/// The pet page an area adds to (`Area.petPage`).
struct PetPageContext {
    var pet: Pet.ID
    /// The viewer may edit the pet (its owner or a guardian).
    var isViewers: Bool
}

/// What an area adds to a pet's page (`Area.petPage`).
struct PetPagePart {
    /// The way back, in place of the page's default (another member's dog only).
    var back: (path: String, title: String)?
    /// Below the photos: what the viewer may do with the dog.
    var actions: Node<HTML.BodyContext> = .empty
    /// Below the dog's facts.
    var section: Node<HTML.BodyContext> = .empty
}

/// Data an area keeps derived from pets and their owners' locations, kept in step by Pets, which
/// knows nothing of it: told of every change inside the change's transaction (returning the
/// pets whose derived rows changed), and again once it has committed.
struct PetFollower: Sendable {
    /// These pets, as saved.
    var changed: @Sendable ([PetRecord], any Database) async throws -> [Pet.ID]
    /// Every pet of this owner, whose location changed.
    var ownerMoved: @Sendable (UserRecord, any Database) async throws -> [Pet.ID]
    /// After the commit: the pets `changed` or `ownerMoved` named, or deleted ones.
    var committed: @Sendable ([Pet.ID], any Database) async -> Void
}

/// Every area's `PetFollower`, as one.
struct PetFollowers: Sendable {
    let all: @Sendable () -> [PetFollower]

    func changed(_ pets: [PetRecord], on tx: any Database) async throws -> [Pet.ID] {
        var ids: [Pet.ID] = []
        for follower in all() { ids += try await follower.changed(pets, tx) }
        return ids
    }

    func ownerMoved(_ owner: UserRecord, on tx: any Database) async throws -> [Pet.ID] {
        var ids: [Pet.ID] = []
        for follower in all() { ids += try await follower.ownerMoved(owner, tx) }
        return ids
    }

    func committed(_ pets: [Pet.ID], on db: any Database) async {
        guard !pets.isEmpty else { return }
        for follower in all() { await follower.committed(Array(Set(pets)), db) }
    }
}

/// What an area adds to a deletion. The rows go through the database: every table that belongs
/// to a member or a pet refers to it with `ON DELETE CASCADE`, so deleting the member's row or
/// the pets' rows deletes everything below them in one statement, whatever areas exist. What
/// the database cannot reach is listed here: files in the media store (read before the rows go,
/// removed once the deletion committed) and state held in memory.
struct Deletion: Sendable {
    /// Before a member is deleted: throws what they must do first (Care: hand over or delete a
    /// family they own), so that nothing of other members goes with them.
    var mustWait: (@Sendable (User.ID, any Database) async throws -> Void)?
    /// The stored files of what deleting these pets removes.
    var filesOfPets: (@Sendable ([Pet.ID], any Database) async throws -> [String])?
    /// The stored files of what deleting this member removes, beyond their pets'.
    var filesOfMember: (@Sendable (User.ID, any Database) async throws -> [String])?
    /// After the deletion committed: memory that held these pets.
    var petsDeleted: (@Sendable ([Pet.ID], PawpackServices, any Database) async -> Void)?
    /// After the deletion committed: memory that held this member (their sockets).
    var memberDeleted: (@Sendable (User.ID, PawpackServices, any Database) async -> Void)?
}

/// What an area's export reads: whose, from where, and the API's mapping.
struct AccountExportScope: Sendable {
    let user: UserRecord
    let me: User.ID
    let db: any Database
    let handler: APIHandler
    var services: PawpackServices { handler.services }
}
