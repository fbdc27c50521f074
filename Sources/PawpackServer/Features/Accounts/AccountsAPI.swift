import Fluent
import Foundation
import PawpackAPI
import PawpackCore
import Vapor

extension APIHandler {
    func signUp(_ input: Operations.SignUp.Input) async throws -> Operations.SignUp.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let request = try currentRequest()
        let form = SignUpForm(
            email: body.email, password: body.password, username: body.username,
            displayName: body.displayName, dateOfBirth: body.dateOfBirth, city: body.city,
            timeZone: body.timeZone)
        let user = try await accounts.signUp(form, client: request.clientAddress, on: request.db)
        return .created(.init(body: .json(.init(try user.account))))
    }

    func verifyEmail(_ input: Operations.VerifyEmail.Input) async throws -> Operations.VerifyEmail.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let user = try await accounts.verifyEmail(token: body.token, on: try currentRequest().db)
        return .ok(.init(body: .json(.init(try user.account))))
    }

    func resendVerification(_ input: Operations.ResendVerification.Input) async throws -> Operations.ResendVerification.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let request = try currentRequest()
        try await accounts.resendVerification(email: body.email, client: request.clientAddress, on: request.db)
        return .accepted(.init())
    }

    func logIn(_ input: Operations.LogIn.Input) async throws -> Operations.LogIn.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let request = try currentRequest()
        let user = try await sessions.logIn(
            email: body.email, password: body.password,
            address: request.clientAddress, on: request.db)
        let session = try await sessions.issueAppSession(for: user, on: request.db)
        return .ok(.init(body: .json(.init(session))))
    }

    func refreshSession(_ input: Operations.RefreshSession.Input) async throws -> Operations.RefreshSession.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let session = try await sessions.refresh(refreshToken: body.refreshToken, on: try currentRequest().db)
        return .ok(.init(body: .json(.init(session))))
    }

    func logOut(_ input: Operations.LogOut.Input) async throws -> Operations.LogOut.Output {
        let auth = try await authenticated()
        try await sessions.revokeFamily(auth.token.family, of: auth.user.requireID(), on: auth.request.db)
        return .noContent(.init())
    }

    func requestPasswordReset(_ input: Operations.RequestPasswordReset.Input) async throws -> Operations.RequestPasswordReset.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let request = try currentRequest()
        try await accounts.requestPasswordReset(email: body.email, client: request.clientAddress, on: request.db)
        return .accepted(.init())
    }

    func confirmPasswordReset(_ input: Operations.ConfirmPasswordReset.Input) async throws -> Operations.ConfirmPasswordReset.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        try await accounts.confirmPasswordReset(
            token: body.token, newPassword: body.newPassword,
            on: try currentRequest().db)
        return .noContent(.init())
    }

    func getMe(_ input: Operations.GetMe.Input) async throws -> Operations.GetMe.Output {
        let auth = try await authenticated()
        return .ok(.init(body: .json(.init(try auth.user.account))))
    }

    func updateMe(_ input: Operations.UpdateMe.Input) async throws -> Operations.UpdateMe.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        let change = ProfileChange(
            displayName: body.displayName, city: body.city, username: body.username, timeZone: body.timeZone)
        let user = try await accounts.updateProfile(auth.user, change: change, on: auth.request.db)
        return .ok(.init(body: .json(.init(try user.account))))
    }

    func deleteMe(_ input: Operations.DeleteMe.Input) async throws -> Operations.DeleteMe.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await accounts.deleteAccount(auth.user, password: body.password, on: auth.request.db)
        return .noContent(.init())
    }

    func exportMe(_ input: Operations.ExportMe.Input) async throws -> Operations.ExportMe.Output {
        let auth = try await authenticated()
        return .ok(.init(body: .json(try await exportDocument(for: auth.user, on: auth.request.db))))
    }

    /// Everything the account owns, in the contract's shape; the web download uses it too. Each
    /// area fills its own part (`Area.export`); `AccountExportTests` finds every table that
    /// refers to a member or their pets and checks the export covers it.
    func exportDocument(for user: UserRecord, on db: any Database) async throws -> Components.Schemas.AccountExport {
        let scope = AccountExportScope(user: user, me: try user.requireID(), db: db, handler: self)
        var document = Components.Schemas.AccountExport(
            exportedAt: services.dependencies.clock.now(), account: .init(try user.account), sessions: [], pets: [],
            guardianships: [], swipes: [], matchRequests: [], matches: [], blocks: [], chats: [], meetups: [],
            reviewsWritten: [], reviewsReceived: [], reviewReports: [], notificationSettings: .init(muted: []), devices: [],
            families: [], familyJoinRequests: [], care: [], feedsLogged: [],
            friends: .init(findable: true, friends: [], requests: []),
            moments: .init(entries: [], contestVotes: [], photos: [], votes: [], reports: []))
        for area in services.areas {
            try await area.export?(&document, scope)
        }
        return document
    }

    func changeEmail(_ input: Operations.ChangeEmail.Input) async throws -> Operations.ChangeEmail.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await accounts.changeEmail(auth.user, newEmail: body.newEmail, password: body.password, on: auth.request.db)
        return .accepted(.init())
    }

    func changePassword(_ input: Operations.ChangePassword.Input) async throws -> Operations.ChangePassword.Output {
        guard case .json(let body) = input.body else { throw Problem.unsupportedBody }
        let auth = try await authenticated()
        try await accounts.changePassword(
            auth.user, current: body.currentPassword, new: body.newPassword,
            keepingFamily: auth.token.family, on: auth.request.db)
        return .noContent(.init())
    }
}

extension Problem {
    static let unsupportedBody = Problem(
        status: 415, code: .invalidRequest, title: "Unsupported body",
        detail: "Send the body as application/json.")
}

// MARK: DTO mapping

extension Components.Schemas.Account {
    init(_ account: Account) {
        self.init(
            id: account.id.description, email: account.email, username: account.username,
            displayName: account.displayName, dateOfBirth: account.dateOfBirth.description,
            city: account.city,
            location: account.location.map { .init(latitude: $0.latitude, longitude: $0.longitude) },
            timeZone: account.timeZone, emailVerified: account.emailVerified, createdAt: account.createdAt)
    }
}

extension Components.Schemas.Session {
    init(_ session: IssuedSession) {
        self.init(
            accessToken: session.accessToken, accessTokenExpiresAt: session.accessTokenExpiresAt,
            refreshToken: session.refreshToken, refreshTokenExpiresAt: session.refreshTokenExpiresAt,
            account: .init(session.account))
    }
}
