import Foundation
import PawpackCore
import Vapor

/// `GET /media/pets/{petId}/{file}`: pet photos for signed-in members (bearer token or web
/// session); `GET /media/chats/{chatId}/{file}`: chat photos for the chat's two members. A
/// stored object never changes under its key, so it may be cached for a year — privately,
/// since only members may see it.
struct MediaRoutes {
    let services: PawpackServices

    func register(on app: Application) {
        app.get(WebPath.mediaRoute.pathComponents) { req async throws -> Response in
            try await photo(req)
        }
        app.get(WebPath.chatMediaRoute.pathComponents) { req async throws -> Response in
            try await chatPhoto(req)
        }
    }

    func chatPhoto(_ req: Request) async throws -> Response {
        guard let viewer = try await signedInUser(req) else { throw Problem.unauthenticated }
        let chatID = try req.idParameter(Param.chat)
        guard let file = req.parameters.get(Param.file.name), !file.contains("/") else { throw Problem.notFound }
        let stored = try await services.chats.photo(
            key: "chats/\(chatID)/\(file.lowercased())", chat: chatID, viewer: viewer,
            on: req.db)
        return served(stored)
    }

    func photo(_ req: Request) async throws -> Response {
        guard let viewer = try await signedInUser(req) else { throw Problem.unauthenticated }
        let petID = try req.idParameter(Param.pet)
        guard let file = req.parameters.get(Param.file.name), !file.contains("/") else { throw Problem.notFound }
        let stored = try await services.pets.photo(
            key: "pets/\(petID)/\(file.lowercased())", pet: petID, viewer: viewer,
            on: req.db)
        return served(stored)
    }

    /// `cacheFor`: how long a copy may be kept (a moment's file for minutes: its photo may turn
    /// private, its viewer be blocked).
    func served(_ stored: StoredMedia, cacheFor seconds: Int = 31_536_000) -> Response {
        let response = Response(status: .ok, body: .init(data: stored.data))
        response.headers.replaceOrAdd(name: .contentType, value: stored.contentType)
        response.headers.replaceOrAdd(
            name: .cacheControl, value: seconds >= 31_536_000 ? "private, max-age=31536000, immutable" : "private, max-age=\(seconds)")
        return response
    }

    /// The member behind a bearer token or a web session.
    func signedInUser(_ req: Request) async throws -> UserRecord? {
        if let token = req.headers.bearerAuthorization?.token {
            return try await services.sessions.authenticate(accessToken: token, on: req.db).0
        }
        return req.webUser?.user
    }
}
