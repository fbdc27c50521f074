import Foundation
import PawpackAPI
import PawpackCore

extension APIHandler {
    func blockUser(_ input: Operations.BlockUser.Input) async throws -> Operations.BlockUser.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await services.blocks.block(auth.user, username: body.username, on: auth.request.db)
        return .noContent(.init())
    }

    func listBlocks(_ input: Operations.ListBlocks.Input) async throws -> Operations.ListBlocks.Output {
        let auth = try await authenticated()
        let blocks = try await services.blocks.blocks(of: auth.user, on: auth.request.db)
        return .ok(
            .init(
                body: .json(
                    .init(
                        items: blocks.map {
                            .init(username: $0.username, displayName: $0.displayName, blockedAt: $0.blockedAt)
                        }))))
    }

    func unblockUser(_ input: Operations.UnblockUser.Input) async throws -> Operations.UnblockUser.Output {
        let auth = try await authenticated()
        try await services.blocks.unblock(auth.user, username: input.path.username, on: auth.request.db)
        return .noContent(.init())
    }
}
