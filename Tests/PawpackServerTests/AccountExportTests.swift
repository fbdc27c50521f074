import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import SQLKit
import Testing

@testable import PawpackServer

/// `GET /v1/me/export` holds everything the account owns. The test finds every column of the
/// schema that refers to a member or a pet (its foreign keys, on SQLite and on PostgreSQL) and
/// requires each to be exported or left out for a stated reason, so a later feature's table
/// cannot be forgotten: it fails this test until the export covers it.
@Suite struct AccountExportTests {
    typealias Export = Components.Schemas.AccountExport

    /// How the export covers a table: the columns that make a row the member's, and how many of
    /// the export's entries stand for those rows.
    struct Coverage: Sendable {
        var owning: [String]
        /// Rows counted some other way than one entry each (tokens: one session per family).
        var countSQL: (@Sendable (_ member: User.ID) -> SQLQueryString)?
        var exported: @Sendable (Export) -> Int
    }

    static let covered: [String: Coverage] = [
        "pets": .init(owning: ["owner_id"]) { $0.pets.count },
        "pet_photos": .init(owning: ["pet_id"]) { $0.pets.map(\.pet.card.photos.count).reduce(0, +) },
        "vaccinations": .init(owning: ["pet_id"]) { $0.pets.map(\.vaccinations.count).reduce(0, +) },
        "pet_guardians": .init(owning: ["pet_id", "user_id"]) {
            $0.pets.map(\.guardians.count).reduce(0, +) + $0.guardianships.count
        },
        "deck_preferences": .init(owning: ["pet_id"]) { $0.pets.filter { $0.preferences != nil }.count },
        "swipes": .init(owning: ["pet_id"]) { $0.swipes.count },
        "match_requests": .init(owning: ["from_pet_id", "to_pet_id", "from_user_id", "to_user_id"]) { $0.matchRequests.count },
        "matches": .init(owning: ["pet_a_id", "pet_b_id", "user_a_id", "user_b_id"]) { $0.matches.count },
        "blocks": .init(owning: ["blocker_id"]) { $0.blocks.count },
        "chats": .init(owning: ["user_a_id", "user_b_id", "pet_a_id", "pet_b_id"]) { $0.chats.count },
        "chat_messages": .init(owning: ["sender_id"]) { $0.chats.flatMap(\.messages).filter(\.fromMe).count },
        "meetups": .init(owning: ["proposer_id", "invitee_id", "proposer_pet_id", "invitee_pet_id"]) { $0.meetups.count },
        "reviews": .init(owning: ["author_id", "subject_id", "author_pet_id", "subject_pet_id"]) {
            $0.reviewsWritten.count + $0.reviewsReceived.count
        },
        "review_reports": .init(owning: ["reporter_id"]) { $0.reviewReports.count },
        "notification_mutes": .init(owning: ["user_id"]) { $0.notificationSettings.muted.count },
        "devices": .init(owning: ["user_id"]) { $0.devices.count },
        "auth_tokens": .init(
            owning: ["user_id"],
            countSQL: { member in
                // An app session is its family's refresh token not yet used.
                "SELECT COUNT(*) AS n FROM auth_tokens WHERE user_id = \(bind: member) AND kind = 'refresh' AND used_at IS NULL"
            }
        ) { $0.sessions.filter { $0.kind == .app }.count },
        "web_sessions": .init(owning: ["user_id"]) { $0.sessions.filter { $0.kind == .web }.count },
        "families": .init(owning: ["owner_id", "pending_owner_id"]) {
            $0.families.filter { $0.myRole == .owner || $0.pendingOwner == "ada" }.count
        },
        "family_members": .init(owning: ["user_id"]) { $0.families.count },
        "family_join_requests": .init(owning: ["user_id"]) { $0.familyJoinRequests.filter { $0.direction == .outgoing }.count },
        "family_pets": .init(owning: ["pet_id"]) { $0.care.filter { $0.familyId != nil }.count },
        "care_settings": .init(owning: ["pet_id"]) { $0.care.filter { $0.settings != nil }.count },
        "foods": .init(owning: ["pet_id"]) { $0.care.map(\.foods.count).reduce(0, +) },
        "feeds": .init(owning: ["pet_id", "fed_by_id"]) { $0.care.map(\.feeds.count).reduce(0, +) + $0.feedsLogged.count },
        "pet_weights": .init(owning: ["pet_id"]) { $0.care.map(\.weights.count).reduce(0, +) },
        "medications": .init(owning: ["pet_id"]) { $0.care.map(\.medications.count).reduce(0, +) },
        "friendships": .init(owning: ["member_id"]) { $0.friends.friends.count },
        "friend_requests": .init(owning: ["from_id", "to_id"]) { $0.friends.requests.count },
        "moments_settings": .init(owning: ["member_id"]) { $0.friends.findable ? 0 : 1 },
        "moment_photos": .init(owning: ["owner_id"]) { $0.moments.photos.count },
        "moment_pets": .init(owning: ["pet_id"]) { $0.moments.photos.map(\.pets.count).reduce(0, +) },
        "moment_votes": .init(owning: ["voter_id"]) { $0.moments.votes.count },
        "moment_reports": .init(owning: ["reporter_id"]) { $0.moments.reports.count },
        "contest_entries": .init(owning: ["member_id"]) { $0.moments.entries.count },
        "contest_votes": .init(owning: ["voter_id"]) { $0.moments.contestVotes.count },
    ]

    /// Columns that refer to the member or their pets and are not exported, with why.
    static let leftOut: [String: String] = [
        "swipes.target_pet_id": "another dog's swipe on one of yours is its owner's: a pass stays private",
        "blocks.blocked_id": "who blocked a member is kept from them",
        "email_tokens.user_id": "links in flight: single-use secrets that expire within hours",
        "deck_index.pet_id": "derived from the pets and the owner's location, both exported",
        "deck_index.owner_id": "derived from the pets and the owner's location, both exported",
        "realtime_events.user_id": "copies, for apps catching up, of changes the export holds (messages, requests, matches), kept 7 days",
        "realtime_counters.user_id": "the number of the member's last realtime event",
        "notifications.user_id": "the inbox: words about changes the export holds (requests, matches, messages, meet-ups, reviews)",
        "push_outbox.user_id": "pushes waiting to go: copies of notifications, kept seconds to a day",
        "notifications.from_user_id": "who caused a notification in another member's inbox: words of that inbox, gone with the sender",
        "notifications.pet_id": "the dog a notification in someone's inbox speaks of: words of that inbox, gone with the dog",
        "medications.created_by_id": "who set up a schedule: it is the pet's record, in `care[].medications` of its owner's export",
        "medication_doses.given_by_id":
            "who marked a dose given: the pet's record, with every dose in `care[].medications` of its owner's export",
        "care_reminders.pet_id": "reminders waiting for their time: derived from feeds, medications and vaccinations, all exported",
        "care_pushes.pet_id": "when the member last got a Care push about a pet: the cooldown's clock, a minute long",
        "care_pushes.user_id": "when the member last got a Care push about a pet: the cooldown's clock, a minute long",
        "push_outbox.pet_id": "pushes waiting to go: copies of notifications, kept seconds to a day",
        "friendships.friend_id": "the other side of a friendship: the same friendship, once in `friends.friends`",
    ]

    @Test func theExportCoversEveryTableThatRefersToAMemberOrTheirPets() async throws {
        try await TestServer.run { server in
            // given Ada with everything a member can own, among others' rows
            let (ada, browser) = try await Self.memberWithEverything(server)

            // when she exports
            let reply = try await server.request(.GET, APIPath.export, token: ada.token)
            #expect(reply.status == 200, "\(reply.text)")
            let export = try reply.decode(Export.self)
            #expect(export.account.id == ada.member.id)

            // then every column referring to a member or a pet is covered or left out on purpose
            let references = try await Self.referencesToMembersAndPets(server)
            #expect(!references.isEmpty)
            for reference in references {
                let key = "\(reference.table).\(reference.column)"
                let isCovered = Self.covered[reference.table]?.owning.contains(reference.column) == true
                #expect(
                    isCovered || Self.leftOut[key] != nil,
                    "\(key) refers to \(reference.referenced): export it (AccountsAPI.exportDocument) and cover it here")
            }
            for table in Self.covered.keys {
                #expect(references.contains { $0.table == table }, "\(table) is covered but refers to no member or pet")
            }

            // and the export has one entry per row Ada owns in each covered table, never none
            let sql = try #require(server.app.db as? any SQLDatabase)
            let member = ada.member.userID
            let pets = try await PetRecord.query(on: server.app.db).filter(\.$owner.$id == member).all()
                .map { try $0.requireID() }
            for (table, coverage) in Self.covered.sorted(by: { $0.key < $1.key }) {
                let owning = coverage.owning.map { column -> SQLQueryString in
                    references.first { $0.table == table && $0.column == column }?.referenced == "users"
                        ? "\(ident: column) = \(bind: member)" : "\(ident: column) IN (\(binds: pets))"
                }
                let query =
                    coverage.countSQL?(member)
                    ?? "SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(owning.joined(separator: " OR "))"
                let owned = try #require(try await sql.raw(query).first()).decode(column: "n", as: Int.self)
                #expect(owned > 0, "the member owns no row of \(table): the test must give her one")
                #expect(coverage.exported(export) == owned, "\(table): \(owned) rows, \(coverage.exported(export)) exported")
            }

            // and nothing secret is in it
            #expect(!reply.text.contains(ada.token))
            #expect(!reply.text.contains(ada.member.refreshToken))
            #expect(!reply.text.contains("password"))
            _ = browser
        }
    }

    @Test func theExportIsTheOwnersAlone() async throws {
        try await TestServer.run { server in
            #expect(try await server.request(.GET, APIPath.export).status == 401)
            let (ada, bob) = try await server.adaAndBob()
            _ = try await server.like(ada, bob)
            let bobs = try await server.get(APIPath.export, token: bob.token, as: Export.self)
            #expect(bobs.swipes.isEmpty, "Ada's like is hers; Bob sees the request it sent")
            #expect(bobs.matchRequests.count == 1)
            #expect(bobs.pets.map(\.pet.card.name) == ["Bob's dog"])
        }
    }

    // MARK: Helpers

    /// Ada with two dogs, a photo, a vaccination, saved preferences, a guardian invited, a pet
    /// she guards and an invitation to guard another, likes, a pass, requests both ways, a
    /// match with its chat, a meet-up reviewed both ways with a report, a muted kind of
    /// notification, a block each way, app and web sessions and a pending change of email; a
    /// family, a shared pet's care and a request to join another family.
    static func memberWithEverything(_ server: TestServer) async throws -> (TestServer.Owner, TestBrowser) {
        var ada = try await server.owner("ada", at: TestServer.Place.lyon)
        let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
        let cyd = try await server.owner("cyd", at: TestServer.Place.lyonNear)
        let dee = try await server.owner("dee", at: TestServer.Place.lyonNear)
        let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
        let gus = try await server.member("gus", password: "gus's own secret")
        let second = try await server.send(
            .POST, APIPath.pets, object: ["name": "Ada's second", "species": "dog", "estimatedAgeMonths": 14],
            token: ada.token)
        try check(second, 201)

        let photo = try await server.upload(
            APIPath.photos(ada.dogID),
            parts: [
                .init(name: "photo", filename: "rex.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg"))
            ], token: ada.token)
        try check(photo, 201)
        try check(
            try await server.send(
                .POST, APIPath.vaccinations(ada.dogID), object: ["vaccine": "rabies", "givenOn": "2025-06-01"],
                token: ada.token), 201)
        try check(try await server.send(.PUT, APIPath.preferences(ada.dogID), object: ["maxDistanceKm": 12], token: ada.token), 200)
        try check(try await server.send(.POST, APIPath.guardians(ada.dogID), object: ["username": "bob"], token: ada.token), 201)

        // Cyd's dog is Ada's to guard; Dee has invited her to guard hers.
        try check(try await server.send(.POST, APIPath.guardians(cyd.dogID), object: ["username": "ada"], token: cyd.token), 201)
        try check(try await server.send(.POST, APIPath.guardians(dee.dogID), object: ["username": "ada"], token: dee.token), 201)
        let invitations = try await server.get(
            APIPath.guardianInvitations, token: ada.token,
            as: Operations.ListGuardianInvitations.Output.Ok.Body.JsonPayload.self)
        let fromCyd = try #require(invitations.items.first { $0.pet.name == "Cyd's dog" })
        try check(try await server.request(.POST, APIPath.acceptInvitation(fromCyd.id), token: ada.token), 204)

        // Ada's dog likes Bob's (a request) and Eve's, which liked it first (a match); passes on
        // Dee's; Cyd's dog asks Ada's. Bob's dog passes on Ada's: Bob's own, not exported.
        _ = try await server.like(ada, bob)
        _ = try await server.like(eve, ada)
        _ = try await server.like(ada, eve)
        try check(try await server.swipe(ada, on: dee, decision: "pass"), 201)
        _ = try await server.like(cyd, ada)
        try check(try await server.swipe(bob, on: ada, decision: "pass"), 201)

        // The match with Eve opened a chat: Ada writes, Eve answers.
        let chat = try #require(try await server.get(APIPath.chats, token: ada.token, as: Components.Schemas.ChatPage.self).items.first)
        try await server.say("Hello Eve", from: ada, in: chat.id)
        try await server.say("Hello Ada", from: eve, in: chat.id)

        try check(try await server.send(.POST, APIPath.blocks, object: ["username": "gus"], token: ada.token), 204)
        try check(try await server.send(.POST, APIPath.blocks, object: ["username": "ada"], token: gus.accessToken), 204)
        try check(
            try await server.send(
                .POST, APIPath.email, object: ["newEmail": "ada.new@example.com", "password": ada.member.password],
                token: ada.token), 202)

        // They meet: both dogs vaccinated, Ada proposes, Eve accepts; two hours later it is
        // done and each reviews the other. Ada reports Eve's review and mutes review notices.
        try await server.vaccinate(ada)
        try await server.vaccinate(eve)
        let proposed = try await server.propose(ada, in: chat.id)
        try check(proposed, 201)
        let meetup = try proposed.decode(Components.Schemas.Meetup.self).id
        try check(try await server.request(.POST, APIPath.meetup(meetup, "accept"), token: eve.token), 200)
        server.clock.advance(by: 2 * 3_600 + 60)
        let adaAgain = try await server.signedInAgain(ada)
        let eveAgain = try await server.signedInAgain(eve)
        try check(try await server.request(.POST, APIPath.meetup(meetup, "complete"), token: adaAgain.token), 200)
        try check(
            try await server.send(
                .POST, APIPath.meetupReviews(meetup), object: ["rating": 5, "text": "Lovely"],
                token: adaAgain.token), 201)
        let received = try await server.send(.POST, APIPath.meetupReviews(meetup), object: ["rating": 2], token: eveAgain.token)
        try check(received, 201)
        try check(
            try await server.send(
                .POST, APIPath.reportReview(try received.decode(Components.Schemas.Review.self).id),
                object: ["reason": "Unfair"], token: adaAgain.token), 204)
        try check(try await server.send(.PUT, APIPath.notificationSettings, object: ["muted": ["review"]], token: adaAgain.token), 200)
        try check(
            try await server.send(
                .POST, APIPath.devices,
                object: [
                    "platform": "apns", "token": String(repeating: "ab", count: 32), "appId": "org.pawpack.app",
                ], token: adaAgain.token), 201)
        ada = adaAgain

        // Care: Ada's family shares her dog, which has settings, a food, a feed and a weight;
        // she feeds Cyd's dog, which she guards, and asks to join Bob's family.
        let family = try await server.family(of: ada.token)
        try await server.share(ada.dogID, with: family.id, token: ada.token)
        try check(try await server.send(.PATCH, APIPath.petCare(ada.dogID), object: ["feedingGapHours": 8], token: ada.token), 200)
        let food = try await server.food(for: ada.dogID, token: ada.token)
        try check(try await server.feed(ada.dogID, food: food.id, token: ada.token), 201)
        try check(try await server.send(.POST, APIPath.weights(ada.dogID), object: ["kilograms": 14.2], token: ada.token), 201)
        let medication = try await server.medication(for: ada.dogID, token: ada.token)
        try check(try await server.send(.POST, APIPath.doses(medication.id), object: ["id": UUID().uuidString], token: ada.token), 201)
        let cydAgain = try await server.signedInAgain(cyd)
        let cydsFood = try await server.food(for: cyd.dogID, token: cydAgain.token)
        try check(try await server.feed(cyd.dogID, food: cydsFood.id, token: ada.token), 201)
        let bobAgain = try await server.signedInAgain(bob)
        let bobs = try await server.family(of: bobAgain.token)
        let code = try await server.send(.POST, APIPath.inviteCode(bobs.id), object: [:], token: bobAgain.token)
            .decode(Components.Schemas.FamilyInviteCode.self)
        try check(try await server.send(.POST, APIPath.joinFamily, object: ["code": code.code], token: ada.token), 202)

        // Moments: Ada and Bob are friends; she asks Cyd, Fay asks her; she cannot be found.
        try await server.makeFriends(ada.member, bobAgain.member)
        try check(try await server.send(.POST, APIPath.friendRequests, object: ["username": "cyd"], token: ada.token), 201)
        let fay = try await server.member("fay")
        try check(try await server.send(.POST, APIPath.friendRequests, object: ["username": "ada"], token: fay.accessToken), 201)
        try check(try await server.send(.PATCH, APIPath.momentsSettings, object: ["findable": false], token: ada.token), 200)
        // She posts a photo of her two dogs; she votes for and reports Fay's.
        let dogs = [ada.dogID, try second.decode(Components.Schemas.PetView.self).card.id]
        try check(try await server.postMoment(pets: dogs, privacy: "public", token: ada.token), 201)
        let fays = try await server.owner("fay2", at: TestServer.Place.lyonNear)
        let faysMoment = try await server.moment(pets: [fays.dogID], privacy: "public", token: fays.token)
        try check(try await server.request(.PUT, APIPath.momentVote(faysMoment.id), token: ada.token), 200)
        try check(try await server.send(.POST, APIPath.reports, object: ["photoId": faysMoment.id, "reason": "spam"], token: ada.token), 204)
        // Both enter the week's contest; Ada votes for Fay's entry.
        await server.app.pawpack.jobs.runAll(on: server.app.db, logger: server.app.logger)
        let contest = try await server.get(APIPath.currentContest, token: ada.token, as: Components.Schemas.Contest.self)
        let adasPhoto = try await server.moment(pets: [ada.dogID], privacy: "public", token: ada.token)
        try check(try await server.send(.POST, APIPath.contestEntries(contest.id), object: ["photoId": adasPhoto.id], token: ada.token), 201)
        let faysEntry = try await server.send(.POST, APIPath.contestEntries(contest.id), object: ["photoId": faysMoment.id], token: fays.token)
        try check(faysEntry, 201)
        try check(
            try await server.request(.PUT, APIPath.entryVote(try faysEntry.decode(Components.Schemas.Entry.self).id), token: ada.token), 200)

        let browser = TestBrowser(server)
        _ = try await browser.get("/login")
        let login = try await browser.post("/login", ["email": ada.member.email, "password": ada.member.password])
        #expect(login.status == 303, "\(login.html)")
        return (ada, browser)
    }

    /// Every column with a foreign key to `users` or `pets`, from the database's own catalogue.
    static func referencesToMembersAndPets(_ server: TestServer) async throws -> [(table: String, column: String, referenced: String)] {
        let sql = try #require(server.app.db as? any SQLDatabase)
        var found: [(table: String, column: String, referenced: String)] = []
        if TestServer.postgresURL != nil {
            let rows = try await sql.raw(
                """
                SELECT source.table_name AS "table", source.column_name AS "column", target.table_name AS "referenced"
                FROM information_schema.referential_constraints AS constraints
                JOIN information_schema.key_column_usage AS source
                    ON source.constraint_name = constraints.constraint_name AND source.constraint_schema = constraints.constraint_schema
                JOIN information_schema.constraint_column_usage AS target
                    ON target.constraint_name = constraints.unique_constraint_name
                    AND target.constraint_schema = constraints.unique_constraint_schema
                WHERE constraints.constraint_schema = current_schema()
                """
            ).all()
            for row in rows {
                found.append(
                    (
                        try row.decode(column: "table", as: String.self), try row.decode(column: "column", as: String.self),
                        try row.decode(column: "referenced", as: String.self)
                    ))
            }
        } else {
            let tables = try await sql.raw("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()
                .map { try $0.decode(column: "name", as: String.self) }
            for table in tables {
                for key in try await sql.raw("SELECT \"table\", \"from\" FROM pragma_foreign_key_list(\(bind: table))").all() {
                    found.append((table, try key.decode(column: "from", as: String.self), try key.decode(column: "table", as: String.self)))
                }
            }
        }
        return found.filter { $0.referenced == "users" || $0.referenced == "pets" }
    }

    /// A step of the set-up that must answer `status`.
    private static func check(_ reply: TestServer.Reply, _ status: Int) throws {
        guard reply.status == status else { throw TestFailure("expected \(status), got \(reply.status): \(reply.text)") }
    }
}
