import Fluent
import PawpackAPI
import PawpackCore

extension Area {
    /// Members: sign-up, sessions, the profile and location, blocks, the export and deletion's root.
    static let accounts = Area(
        name: "Accounts",
        services: { services in
            [
                SessionService(
                    config: services.config, clock: services.dependencies.clock, hasher: services.hasher,
                    realtime: services.realtime, reads: services.hotReads, logger: services.logger),
                AccountService(
                    config: services.config, clock: services.dependencies.clock, mailer: services.dependencies.mailer,
                    hasher: services.hasher, realtime: services.realtime, logger: services.logger,
                    deleteMember: { [unowned services] member, db in try await services.deleteMember(member, on: db) }),
                BlockService(
                    clock: services.dependencies.clock, realtime: services.realtime,
                    ends: { [unowned services] blocker, blocked, tx in
                        try await services.blockEnds(between: blocker, blocked, on: tx)
                    }),
            ]
        },
        migrations: AccountMigrations.all,
        pages: { app, services in AccountPages(accounts: services.accounts, sessions: services.sessions).register(on: app) },
        flashes: [.loggedOut, .deleted, .username, .profile, .password, .email, .passwordReset, .location, .unblocked, .verified],
        export: { document, scope in
            let account = try await scope.services.accounts.export(scope.user, on: scope.db)
            document.exportedAt = account.exportedAt
            document.account = .init(account.account)
            document.sessions = account.sessions.map {
                .init(kind: $0.kind == .web ? .web : .app, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
            }
            // The members this member blocked; who blocked them is the other member's and stays out.
            document.blocks = try await scope.services.blocks.blocks(of: scope.user, newestFirst: false, on: scope.db)
                .map { .init(username: $0.username, displayName: $0.displayName, createdAt: $0.blockedAt) }
        },
        deletion: .init(memberDeleted: { member, services, db in
            await services.realtime.sessionsEnded(of: member, on: db)
        })
    )
}

extension PawpackServices {
    var accounts: AccountService { area(AccountService.self) }
    var sessions: SessionService { area(SessionService.self) }
}

extension Flash {
    static let loggedOut = Flash("logged-out", "You are logged out.")
    static let deleted = Flash("deleted", "Your account was deleted.")
    static let username = Flash("username", "Username changed.")
    static let profile = Flash("profile", "Profile saved.")
    static let password = Flash("password", "Password changed. Your other sessions were signed out.")
    static let email = Flash("email", "Check your new inbox: the change takes effect once you open the link we sent.")
    static let passwordReset = Flash("password-reset", "Your password was reset. Log in with the new one.")
    static let location = Flash("location", "Location saved. Only you can see it.")
    static let unblocked = Flash("unblocked", "Unblocked: you may find each other again.")
    static let verified = Flash("verified", "Your email is verified. Welcome to Pawpack!")
}
