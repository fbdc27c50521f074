import Foundation
import OpenAPIRuntime
import PawpackAPI
import PawpackCore

/// Moments' operations: the member directory, friends, photos, feeds, votes and reports.
extension APIHandler {
    var friends: FriendService { services.friends }
    var moments: MomentService { services.moments }

    // MARK: Photos

    func postMoment(_ input: Operations.PostMoment.Input) async throws -> Operations.PostMoment.Output {
        let auth = try await authenticated()
        guard case .multipartForm(let parts) = input.body else { throw Problem.unsupportedBody }
        let limit = services.config.maximumUploadBytes
        var upload = MomentUpload(original: Data(), privacy: .friends, pets: [])
        var original: Data?
        func text(_ body: HTTPBody, _ field: String, upTo bound: Int) async throws -> String? {
            try await Self.collect(body, upTo: bound).map { String(decoding: $0, as: UTF8.self) }
        }
        try await Self.readForm(parts, parts: "the image in a part named `photo` and the pets' ids in one named `pets`") { part in
            switch part {
            case .photo(let file):
                original = try await Self.collect(file.payload.body, upTo: limit)
                return original == nil ? ImageSanitizerError.tooLarge(limit: limit).problem(limit: limit) : nil
            case .display(let file):
                upload.display = try await Self.collect(file.payload.body, upTo: 4 << 20)
                return upload.display == nil ? ImageSanitizerError.tooLarge(limit: 4 << 20).problem(limit: 4 << 20, field: "display") : nil
            case .thumbnail(let file):
                upload.thumbnail = try await Self.collect(file.payload.body, upTo: 1 << 20)
                return upload.thumbnail == nil
                    ? ImageSanitizerError.tooLarge(limit: 1 << 20).problem(limit: 1 << 20, field: "thumbnail") : nil
            case .pets(let field):
                let ids = try await text(field.payload.body, "pets", upTo: 400)?.split(separator: ",")
                    .map { Pet.ID(string: $0.trimmingCharacters(in: .whitespaces)) }
                guard let ids, !ids.contains(where: { $0 == nil }) else {
                    return Problem.invalidField("pets", "must be pet ids separated by commas")
                }
                upload.pets = ids.compactMap { $0 }
                return nil
            case .caption(let field):
                upload.caption = try await text(field.payload.body, "caption", upTo: 4_000)
                return upload.caption == nil ? Problem.invalidField("caption", "must be at most 500 characters") : nil
            case .privacy(let field):
                let raw = try await text(field.payload.body, "privacy", upTo: 20)?.trimmingCharacters(in: .whitespaces)
                guard let privacy = raw.flatMap(PhotoPrivacy.init(rawValue:)) else {
                    return Problem.invalidField("privacy", "must be public, friends or private")
                }
                upload.privacy = privacy
                return nil
            case .undocumented(let other):
                _ = try await Self.collect(other.body, upTo: 0)
                return nil
            }
        }
        guard let original else { throw Problem.invalidField("photo", "is required") }
        upload.original = original
        let moment = try await moments.post(auth.user, upload, on: auth.request.db)
        return .created(.init(body: .json(.init(moment, mapping))))
    }

    func getMoment(_ input: Operations.GetMoment.Input) async throws -> Operations.GetMoment.Output {
        let auth = try await authenticated()
        let moment = try await moments.moment(auth.user, id: try pathID(input.path.photoId), on: auth.request.db)
        return .ok(.init(body: .json(.init(moment, mapping))))
    }

    func updateMoment(_ input: Operations.UpdateMoment.Input) async throws -> Operations.UpdateMoment.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let moment = try await moments.update(
            auth.user, id: try pathID(input.path.photoId), caption: body.caption,
            privacy: body.privacy.flatMap { PhotoPrivacy(rawValue: $0.rawValue) }, on: auth.request.db)
        return .ok(.init(body: .json(.init(moment, mapping))))
    }

    func deleteMoment(_ input: Operations.DeleteMoment.Input) async throws -> Operations.DeleteMoment.Output {
        let auth = try await authenticated()
        try await moments.delete(auth.user, id: try pathID(input.path.photoId), on: auth.request.db)
        return .noContent(.init())
    }

    func voteForMoment(_ input: Operations.VoteForMoment.Input) async throws -> Operations.VoteForMoment.Output {
        let auth = try await authenticated()
        let moment = try await moments.vote(auth.user, photo: try pathID(input.path.photoId), on: auth.request.db)
        return .ok(.init(body: .json(.init(moment, mapping))))
    }

    func unvoteMoment(_ input: Operations.UnvoteMoment.Input) async throws -> Operations.UnvoteMoment.Output {
        let auth = try await authenticated()
        let moment = try await moments.unvote(auth.user, photo: try pathID(input.path.photoId), on: auth.request.db)
        return .ok(.init(body: .json(.init(moment, mapping))))
    }

    func friendsFeed(_ input: Operations.FriendsFeed.Input) async throws -> Operations.FriendsFeed.Output {
        let auth = try await authenticated()
        let page = try await moments.friendsFeed(
            auth.user, limit: try Self.pageLimit(input.query.limit, default: 20, most: 50), after: try Self.momentCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(page, mapping))))
    }

    func globalFeed(_ input: Operations.GlobalFeed.Input) async throws -> Operations.GlobalFeed.Output {
        let auth = try await authenticated()
        let page = try await moments.globalFeed(
            auth.user, limit: try Self.pageLimit(input.query.limit, default: 20, most: 50), after: try Self.momentCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(page, mapping))))
    }

    func petMoments(_ input: Operations.PetMoments.Input) async throws -> Operations.PetMoments.Output {
        let auth = try await authenticated()
        let page = try await moments.petMoments(
            auth.user, pet: try pathID(input.path.petId), limit: try Self.pageLimit(input.query.limit, default: 20, most: 50),
            after: try Self.momentCursor(input.query.cursor), on: auth.request.db)
        return .ok(.init(body: .json(.init(page, mapping))))
    }

    func reportContent(_ input: Operations.ReportContent.Input) async throws -> Operations.ReportContent.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        guard let photo = Moments.Photo.ID(string: body.photoId) else { throw Problem.invalidField("photoId", "is not a photo id") }
        guard let reason = MomentReportReason(rawValue: body.reason.rawValue) else {
            throw Problem.invalidField("reason", "is not a reason on the list")
        }
        try await moments.report(auth.user, photo: photo, reason: reason, text: body.text, on: auth.request.db)
        return .noContent(.init())
    }

    /// A page's size as asked, within what the contract allows.
    static func pageLimit(_ given: Int?, default: Int, most: Int) throws -> Int {
        let limit = given ?? `default`
        guard (1...most).contains(limit) else { throw Problem.invalidField("limit", "must be from 1 to \(most)") }
        return limit
    }

    static func momentCursor(_ text: String?) throws -> ActivityCursor<Moments.Photo>? {
        try text.map { try ActivityCursor<Moments.Photo>(text: $0) }
    }

    // MARK: Friends

    func searchMembers(_ input: Operations.SearchMembers.Input) async throws -> Operations.SearchMembers.Output {
        let auth = try await authenticated()
        let page = try await friends.search(
            auth.user, query: input.query.query, limit: try Self.pageLimit(input.query.limit, default: 20, most: 50),
            after: try Self.usernameCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map(Components.Schemas.MemberResult.init), nextCursor: page.next))))
    }

    func getMomentsSettings(_ input: Operations.GetMomentsSettings.Input) async throws -> Operations.GetMomentsSettings.Output {
        let auth = try await authenticated()
        return .ok(.init(body: .json(.init(findable: try await friends.findable(auth.user, on: auth.request.db)))))
    }

    func updateMomentsSettings(_ input: Operations.UpdateMomentsSettings.Input) async throws -> Operations.UpdateMomentsSettings.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        if let findable = body.findable { try await friends.setFindable(auth.user, findable, on: auth.request.db) }
        return .ok(.init(body: .json(.init(findable: try await friends.findable(auth.user, on: auth.request.db)))))
    }

    func listFriends(_ input: Operations.ListFriends.Input) async throws -> Operations.ListFriends.Output {
        let auth = try await authenticated()
        let page = try await friends.friends(
            auth.user, limit: try Self.pageLimit(input.query.limit, default: 50, most: 100), after: try Self.usernameCursor(input.query.cursor),
            on: auth.request.db)
        return .ok(.init(body: .json(.init(items: page.items.map(Components.Schemas.Friend.init), nextCursor: page.next))))
    }

    func removeFriend(_ input: Operations.RemoveFriend.Input) async throws -> Operations.RemoveFriend.Output {
        let auth = try await authenticated()
        try await friends.remove(auth.user, username: input.path.username, on: auth.request.db)
        return .noContent(.init())
    }

    func listFriendRequests(_ input: Operations.ListFriendRequests.Input) async throws -> Operations.ListFriendRequests.Output {
        let auth = try await authenticated()
        let page = try await friends.requests(
            auth.user, incoming: input.query.direction != .outgoing, limit: try Self.pageLimit(input.query.limit, default: 50, most: 100),
            after: try input.query.cursor.map { try ActivityCursor<Moments.FriendRequest>(text: $0) }, on: auth.request.db)
        return .ok(
            .init(body: .json(.init(items: page.items.map(Components.Schemas.FriendRequest.init), nextCursor: page.next?.text))))
    }

    func sendFriendRequest(_ input: Operations.SendFriendRequest.Input) async throws -> Operations.SendFriendRequest.Output {
        let auth = try await authenticated()
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        switch try await friends.send(auth.user, to: body.username, on: auth.request.db) {
        case .requested(let request): return .created(.init(body: .json(.init(request))))
        case .friends(let friend): return .ok(.init(body: .json(.init(friend))))
        }
    }

    func acceptFriendRequest(_ input: Operations.AcceptFriendRequest.Input) async throws -> Operations.AcceptFriendRequest.Output {
        let auth = try await authenticated()
        let friend = try await friends.accept(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .ok(.init(body: .json(.init(friend))))
    }

    func rejectFriendRequest(_ input: Operations.RejectFriendRequest.Input) async throws -> Operations.RejectFriendRequest.Output {
        let auth = try await authenticated()
        try await friends.reject(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    func cancelFriendRequest(_ input: Operations.CancelFriendRequest.Input) async throws -> Operations.CancelFriendRequest.Output {
        let auth = try await authenticated()
        try await friends.cancel(auth.user, request: try pathID(input.path.requestId), on: auth.request.db)
        return .noContent(.init())
    }

    /// A list's cursor by username: the last username of the page before. Usernames are
    /// public, so the cursor is the name itself; one no username could be is refused.
    static func usernameCursor(_ cursor: String?) throws -> String? {
        guard let cursor else { return nil }
        guard cursor.utf8.count <= 100, AccountRules().usernameProblem(cursor) == nil else {
            throw Problem.invalidField("cursor", "is not a cursor this list gave")
        }
        return cursor
    }
}

extension Components.Schemas.MemberName {
    init(_ member: MemberNameValue) {
        self.init(username: member.username, displayName: member.displayName)
    }
}

extension Components.Schemas.MemberResult {
    init(_ result: MemberSearchValue) {
        self.init(
            username: result.member.username, displayName: result.member.displayName,
            friendship: Components.Schemas.Friendship(rawValue: result.friendship.rawValue) ?? Components.Schemas.Friendship.none)
    }
}

extension Components.Schemas.Friend {
    init(_ friend: FriendValue) {
        self.init(username: friend.member.username, displayName: friend.member.displayName, since: friend.since)
    }
}

extension Components.Schemas.FriendRequest {
    init(_ request: FriendRequestValue) {
        self.init(
            id: request.id.description, direction: request.incoming ? .incoming : .outgoing, member: .init(request.member),
            createdAt: request.createdAt)
    }
}

extension Components.Schemas.Moment {
    init(_ moment: MomentValue, _ mapping: APIMapping) {
        let original = mapping.baseURL + WebPath.media(moment.originalKey)
        let display = moment.displayKey.map { mapping.baseURL + WebPath.media($0) } ?? original
        self.init(
            id: moment.id.description, owner: .init(moment.owner), mine: moment.mine, byFriend: moment.byFriend,
            pets: moment.pets.map { .init(id: $0.id.description, name: $0.name, species: .init(rawValue: $0.species.rawValue) ?? .other) },
            caption: moment.caption, privacy: .init(rawValue: moment.privacy.rawValue) ?? ._private, width: moment.width,
            height: moment.height, originalUrl: original, displayUrl: display,
            thumbnailUrl: moment.thumbnailKey.map { mapping.baseURL + WebPath.media($0) } ?? display, votes: moment.votes,
            votedByMe: moment.votedByMe, createdAt: moment.createdAt, contestEntryId: moment.entry?.description)
    }
}

extension Components.Schemas.MomentPage {
    init(_ page: MomentPage, _ mapping: APIMapping) {
        self.init(items: page.items.map { .init($0, mapping) }, nextCursor: page.next?.text)
    }
}
