import Foundation
import PawpackCore
import Plot
import Vapor

/// The account pages of the web app: sign-up, verification, log in/out, password reset and
/// account settings. Each POST checks CSRF, calls `AccountService` and either redirects
/// (success) or shows the form again with the problems and the values typed (failure).
struct AccountPages {
    let accounts: AccountService
    let sessions: SessionService

    func register(on routes: any RoutesBuilder) {
        routes.get(WebPath.signUp.pathComponents) { req in signUpPage(req) }
        routes.post(WebPath.signUp.pathComponents, use: signUp)
        routes.get(WebPath.verifyEmail.pathComponents, use: verify)
        routes.post(WebPath.resendVerification.pathComponents, use: resendVerification)
        routes.get(WebPath.logIn.pathComponents) { req in
            if req.webUser != nil { return WebPages.redirect(WebPages.safeNext(req.query[String.self, at: "next"]) ?? WebPath.home) }
            return loginPage(req, next: req.query[String.self, at: "next"])
        }
        routes.post(WebPath.logIn.pathComponents, use: logIn)
        routes.post(WebPath.logOut.pathComponents, use: logOut)
        routes.get(WebPath.forgotPassword.pathComponents) { req in forgotPage(req) }
        routes.post(WebPath.forgotPassword.pathComponents, use: forgotPassword)
        routes.get(WebPath.resetPassword.pathComponents) { req in resetPage(req, token: req.query[String.self, at: "token"] ?? "") }
        routes.post(WebPath.resetPassword.pathComponents, use: resetPassword)
        routes.get(WebPath.account.pathComponents, use: accountPage)
        routes.post(WebPath.accountProfile.pathComponents, use: updateProfile)
        routes.post(WebPath.accountUsername.pathComponents, use: changeUsername)
        routes.post(WebPath.accountEmail.pathComponents, use: changeEmail)
        routes.post(WebPath.accountPassword.pathComponents, use: changePassword)
        routes.post(WebPath.accountDelete.pathComponents, use: deleteAccount)
        LocationPages().register(on: routes)
        routes.post(WebPath.accountUnblock.pathComponents, use: unblock)
        routes.get(WebPath.accountExport.pathComponents, use: export)
    }

    /// Every account form's fields; absent ones are nil.
    struct FormFields: Content {
        var email: String?
        var password: String?
        var username: String?
        var displayName: String?
        var dateOfBirth: String?
        var city: String?
        var timeZone: String?
        var browserTimeZone: String?
        var newEmail: String?
        var currentPassword: String?
        var newPassword: String?
        var token: String?
        var next: String?
    }

    private func fields(_ req: Request) throws -> FormFields {
        try req.checkCSRF()
        return try req.content.decode(FormFields.self)
    }

    // MARK: Sign-up and verification

    func signUpPage(
        _ req: Request, form: FormFields = .init(email: nil), errors: FormErrors = [],
        status: HTTPResponseStatus = .ok
    ) -> Response {
        WebPages.page(
            req, title: "Join Pawpack", status: status, errors: errors,
            main: .group(
                .p(.class("muted"), .text("Find safe playmates for your dog nearby, chat with their owners and plan meet-ups.")),
                .form(
                    .id("signup-form"), .action(WebPath.signUp), .method(.post),
                    WebPages.csrfField(req), WebPages.browserTimeZoneField,
                    WebPages.field("Email", name: "email", type: .email, value: form.email, autocomplete: "email", errors: errors),
                    WebPages.field(
                        "Username", name: "username", value: form.username, autocomplete: "username",
                        hint: "3–30 letters, digits or _, starting with a letter.", errors: errors),
                    WebPages.field("Display name", name: "displayName", value: form.displayName, autocomplete: "name", errors: errors),
                    WebPages.field(
                        "Date of birth", name: "dateOfBirth", type: .date, value: form.dateOfBirth,
                        autocomplete: "bday", hint: "You must be 13 or older.", errors: errors),
                    WebPages.field(
                        "City (optional)", name: "city", value: form.city, autocomplete: "address-level2",
                        required: false, errors: errors),
                    WebPages.field(
                        "Password", name: "password", type: .password, autocomplete: "new-password",
                        hint: "At least 10 characters; not a common password.", errors: errors),
                    WebPages.submit("Create account", id: "signup-submit", busy: "Creating your account…")
                ),
                .p(.text("Already a member? "), .a(.id("login-link"), .href(WebPath.logIn), .text("Log in")))
            ))
    }

    @Sendable func signUp(_ req: Request) async throws -> Response {
        let form = try fields(req)
        do {
            let user = try await accounts.signUp(
                SignUpForm(
                    email: form.email ?? "", password: form.password ?? "", username: form.username ?? "",
                    displayName: form.displayName ?? "", dateOfBirth: form.dateOfBirth ?? "", city: form.city,
                    timeZone: WebPages.browserTimeZone(form.browserTimeZone)),
                client: req.clientAddress, on: req.db)
            return checkInboxPage(req, email: user.email)
        } catch let problem as Problem {
            return signUpPage(
                req, form: form, errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    private func checkInboxPage(_ req: Request, email: String) -> Response {
        WebPages.page(
            req, title: "Check your email",
            main: .group(
                .p(.text("We sent a link to "), .strong(.text(email)), .text(". Open it to verify your address, then log in.")),
                .if(
                    accounts.config.isDevelopment,
                    .p(
                        .class("muted"), .text("Development server: read the message in the "),
                        .a(.href(WebPath.devMail), .text("development outbox")), .text("."))),
                resendForm(req, email: email)
            ))
    }

    private func resendForm(_ req: Request, email: String?, errors: FormErrors = []) -> Node<HTML.BodyContext> {
        .form(
            .id("resend-form"), .action(WebPath.resendVerification), .method(.post),
            WebPages.csrfField(req),
            WebPages.field("Email", name: "email", type: .email, value: email, autocomplete: "email", idPrefix: "resend", errors: errors),
            .button(.id("resend-submit"), .type(.submit), .class("button secondary"), .text("Send the link again"))
        )
    }

    @Sendable func verify(_ req: Request) async throws -> Response {
        let token = req.query[String.self, at: "token"] ?? ""
        do {
            let user = try await accounts.verifyEmail(token: token, on: req.db)
            // Opening the link proves the mailbox: it signs this browser in, straight into the
            // guided start, unless someone is signed in here already.
            if req.webUser != nil { return WebPages.redirect(WebPath.home, flash: .verified) }
            let session = try await sessions.startWebSession(for: user, on: req.db)
            let response = WebPages.redirect(WebPath.home, flash: .verified)
            response.cookies[WebCookie.session] = WebCookies.session(session, secure: accounts.config.secureCookies)
            return response
        } catch let problem as Problem {
            return WebPages.page(
                req, title: "This link does not work", status: .init(statusCode: problem.status),
                errors: FormErrors(problem), main: resendForm(req, email: nil))
        }
    }

    @Sendable func resendVerification(_ req: Request) async throws -> Response {
        let form = try fields(req)
        do {
            try await accounts.resendVerification(email: form.email ?? "", client: req.clientAddress, on: req.db)
            return WebPages.page(
                req, title: "Check your email",
                main:
                    .p(.text("If that address is waiting for verification, a new link is on its way. You can ask again after a minute.")))
        } catch let problem as Problem {
            let errors = FormErrors(problem, ids: ["resend-email"])
            return WebPages.page(
                req, title: "Send the link again", status: .init(statusCode: problem.status),
                errors: errors, main: resendForm(req, email: form.email, errors: errors))
        }
    }

    // MARK: Log in and out

    func loginPage(
        _ req: Request, email: String? = nil, errors: FormErrors = [], status: HTTPResponseStatus = .ok,
        unverified: Bool = false, lockedMinutes: Int? = nil, next: String? = nil
    ) -> Response {
        WebPages.page(
            req, title: "Log in", status: status, errors: errors,
            main: .group(
                .unwrap(lockedMinutes) { minutes in
                    .p(
                        .class("notice"), .id("locked-out"),
                        .text(
                            "For your safety, logging in is paused for \(minutes == 1 ? "1 minute" : "\(minutes) minutes"). Forgot your password? "),
                        .a(.href(WebPath.forgotPassword), .text("Reset it by email")), .text("."))
                },
                .form(
                    .id("login-form"), .action(WebPath.logIn), .method(.post),
                    WebPages.csrfField(req), WebPages.browserTimeZoneField,
                    .unwrap(WebPages.safeNext(next)) { .input(.type(.hidden), .name("next"), .value($0)) },
                    WebPages.field("Email", name: "email", type: .email, value: email, autocomplete: "email", errors: errors),
                    WebPages.field("Password", name: "password", type: .password, autocomplete: "current-password", errors: errors),
                    WebPages.submit("Log in", id: "login-submit", busy: "Logging in…")
                ),
                .if(unverified, resendForm(req, email: email)),
                .p(.a(.class("button quiet"), .id("forgot-link"), .href(WebPath.forgotPassword), .text("Forgot your password?"))),
                .p(.text("New here? "), .a(.id("signup-link"), .href(WebPath.signUp), .text("Create an account")))
            ))
    }

    @Sendable func logIn(_ req: Request) async throws -> Response {
        let form = try fields(req)
        do {
            let user = try await sessions.logIn(
                email: form.email ?? "", password: form.password ?? "",
                address: req.clientAddress, on: req.db)
            // A member without a time zone of their own (one who joined before there was one)
            // gets this browser's: their pets' days in Care follow it, as a new member's do.
            if user.timeZone == nil, let zone = WebPages.browserTimeZone(form.browserTimeZone) {
                _ = try await accounts.updateProfile(user, change: ProfileChange(timeZone: zone), on: req.db)
            }
            let token = try await sessions.startWebSession(for: user, on: req.db)
            let response = WebPages.redirect(WebPages.safeNext(form.next) ?? WebPath.home)
            response.cookies[WebCookie.session] = WebCookies.session(token, secure: accounts.config.secureCookies)
            return response
        } catch let problem as Problem {
            let locked = [.accountLocked, .tooManyAttempts].contains(problem.code)
            let response = loginPage(
                req, email: form.email, errors: locked ? [] : FormErrors(problem),
                status: .init(statusCode: problem.status),
                unverified: problem.code == .emailNotVerified,
                lockedMinutes: locked ? max(1, Int(((Double(problem.retryAfter ?? 60)) / 60).rounded(.up))) : nil,
                next: form.next)
            if let retry = problem.retryAfter { response.headers.replaceOrAdd(name: .retryAfter, value: String(retry)) }
            return response
        }
    }

    @Sendable func logOut(_ req: Request) async throws -> Response {
        try req.checkCSRF()
        if let token = req.cookies[WebCookie.session]?.string {
            try await sessions.endWebSession(token: token, on: req.db)
        }
        req.webUser = nil
        let response = WebPages.redirect(WebPath.landing, flash: .loggedOut)
        response.cookies[WebCookie.session] = WebCookies.expired
        return response
    }

    // MARK: Password reset

    func forgotPage(
        _ req: Request, email: String? = nil, errors: FormErrors = [],
        status: HTTPResponseStatus = .ok
    ) -> Response {
        WebPages.page(
            req, title: "Reset your password", status: status, errors: errors,
            main: .group(
                .p(.text("Enter your email and we will send you a link to choose a new password.")),
                .form(
                    .id("forgot-form"), .action(WebPath.forgotPassword), .method(.post),
                    WebPages.csrfField(req),
                    WebPages.field("Email", name: "email", type: .email, value: email, autocomplete: "email", errors: errors),
                    WebPages.submit("Send reset link", id: "forgot-submit")
                )
            ))
    }

    @Sendable func forgotPassword(_ req: Request) async throws -> Response {
        let form = try fields(req)
        do {
            try await accounts.requestPasswordReset(email: form.email ?? "", client: req.clientAddress, on: req.db)
            return WebPages.page(
                req, title: "Check your email",
                main:
                    .p(.text("If that address has a Pawpack account, a reset link is on its way. It works once, for one hour.")))
        } catch let problem as Problem {
            return forgotPage(
                req, email: form.email, errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    func resetPage(_ req: Request, token: String, errors: FormErrors = [], status: HTTPResponseStatus = .ok) -> Response {
        WebPages.page(
            req, title: "Choose a new password", status: status, errors: errors,
            main:
                .form(
                    .id("reset-form"), .action(WebPath.resetPassword), .method(.post),
                    WebPages.csrfField(req),
                    .input(.type(.hidden), .name("token"), .value(token)),
                    WebPages.field(
                        "New password", name: "newPassword", type: .password, autocomplete: "new-password",
                        hint: "At least 10 characters; not a common password.", errors: errors),
                    WebPages.submit("Save new password", id: "reset-submit")
                ))
    }

    @Sendable func resetPassword(_ req: Request) async throws -> Response {
        let form = try fields(req)
        do {
            try await accounts.confirmPasswordReset(token: form.token ?? "", newPassword: form.newPassword ?? "", on: req.db)
            return WebPages.redirect(WebPath.logIn, flash: .passwordReset)
        } catch let problem as Problem {
            return resetPage(
                req, token: form.token ?? "", errors: FormErrors(problem),
                status: .init(statusCode: problem.status))
        }
    }

    // MARK: Account settings

    @Sendable func accountPage(_ req: Request) async throws -> Response {
        try await settingsPage(req, webUser: req.requireWebUser())
    }

    func settingsPage(
        _ req: Request, webUser: WebUser, errors: FormErrors = [],
        status: HTTPResponseStatus = .ok
    ) async throws -> Response {
        let user = webUser.user
        let blocked = try await req.pawpack.blocks.blocks(of: user, on: req.db)
        return WebPages.page(
            req, title: "Your account", status: status, errors: errors,
            main: .group(
                .section(
                    .class("card"),
                    .h2(.text("Profile")),
                    .p(
                        .text("Signed in as "), .strong(.id("current-username"), .text(user.username)),
                        .text(" · "), .span(.id("current-email"), .text(user.email))),
                    .form(
                        .id("profile-form"), .action(WebPath.accountProfile), .method(.post),
                        WebPages.csrfField(req),
                        WebPages.field("Display name", name: "displayName", value: user.displayName, autocomplete: "name", errors: errors),
                        WebPages.field("City", name: "city", value: user.city, autocomplete: "address-level2", required: false, errors: errors),
                        WebPages.field(
                            "Time zone", name: "timeZone", value: user.timeZone, autocomplete: "off", required: false,
                            hint:
                                "Such as Europe/Oslo: your pets' days in Care begin at its midnight, unless a family or the pet's own setting says otherwise. Empty: UTC.",
                            limits: .init(maxLength: 64), errors: errors),
                        WebPages.submit("Save profile", id: "profile-submit")
                    )
                ),
                .section(
                    .class("card"),
                    .h2(.text("Username")),
                    .form(
                        .id("username-form"), .action(WebPath.accountUsername), .method(.post),
                        WebPages.csrfField(req),
                        WebPages.field(
                            "New username", name: "username", value: user.username, autocomplete: "username",
                            hint: "3–30 letters, digits or _, starting with a letter.", errors: errors),
                        WebPages.submit("Change username", id: "username-submit")
                    )
                ),
                .section(
                    .class("card"),
                    .h2(.text("Email")),
                    .form(
                        .id("email-form"), .action(WebPath.accountEmail), .method(.post),
                        WebPages.csrfField(req),
                        WebPages.field("New email", name: "newEmail", type: .email, autocomplete: "email", errors: errors),
                        WebPages.field(
                            "Password", name: "password", type: .password, autocomplete: "current-password",
                            idPrefix: "email", errors: errors),
                        WebPages.submit("Change email", id: "email-submit")
                    )
                ),
                .section(
                    .class("card"),
                    .h2(.text("Password")),
                    .form(
                        .id("password-form"), .action(WebPath.accountPassword), .method(.post),
                        WebPages.csrfField(req),
                        WebPages.field(
                            "Current password", name: "currentPassword", type: .password,
                            autocomplete: "current-password", errors: errors),
                        WebPages.field(
                            "New password", name: "newPassword", type: .password, autocomplete: "new-password",
                            hint: "At least 10 characters; not a common password.", errors: errors),
                        WebPages.submit("Change password", id: "password-submit")
                    )
                ),
                .section(
                    .class("card"), .id("location-card"),
                    .h2(.text("Where you are")),
                    .p(
                        .class("muted"),
                        .text(
                            user.latitude == nil
                                ? "Not set yet: your dogs' decks need it to find dogs nearby."
                                : "\(user.city.map { "In or near \($0)." } ?? "Set.") Pawpack keeps only the centre of the 500 m square you are in; others see a rounded distance."
                        )),
                    .a(
                        .class("button secondary"), .id("location-link"), .href(WebPath.accountLocation),
                        .text(user.latitude == nil ? "Set where you are" : "Change where you are"))
                ),
                .section(
                    .class("card"),
                    .h2(.text("Blocked members")),
                    .if(
                        blocked.isEmpty,
                        .p(.class("muted"), .text("You have blocked no one. A member you block no longer sees your dogs, nor you theirs."))),
                    .ul(
                        .id("blocked-list"),
                        .forEach(blocked) { member in
                            .li(
                                .span(.text("\(member.displayName) (@\(member.username))")),
                                .form(
                                    .class("inline"), .action(WebPath.accountUnblock), .method(.post),
                                    WebPages.csrfField(req),
                                    .input(.type(.hidden), .name("username"), .value(member.username)),
                                    .button(
                                        .type(.submit), .class("button secondary"), .ariaLabel("Unblock \(member.displayName)"),
                                        .text("Unblock"))))
                        })
                ),
                .section(
                    .class("card"),
                    .h2(.text("Session")),
                    .form(
                        .id("logout-form"), .action(WebPath.logOut), .method(.post),
                        WebPages.csrfField(req),
                        .button(.id("logout-button"), .type(.submit), .class("button secondary"), .text("Log out")))
                ),
                .section(
                    .class("card"),
                    .h2(.text("Your data")),
                    .p(.a(.class("button secondary"), .id("export-link"), .href(WebPath.accountExport), .text("Download everything as JSON")))
                ),
                .section(
                    .class("card"),
                    .h2(.text("Delete account")),
                    .p(.text("This deletes your account and everything it owns, for good.")),
                    .form(
                        .id("delete-form"), .action(WebPath.accountDelete), .method(.post),
                        WebPages.csrfField(req),
                        WebPages.field(
                            "Password", name: "password", type: .password, autocomplete: "current-password",
                            idPrefix: "delete", errors: errors),
                        WebPages.submit("Delete my account", id: "delete-submit", danger: true)
                    )
                )
            ))
    }

    /// Runs an account change from a settings form: redirect with a flash on success, the
    /// settings page with the problems otherwise.
    private func settingsAction(
        _ req: Request, flash: Flash, fields formFields: Set<String>,
        _ change: (WebUser, FormFields) async throws -> Void
    ) async throws -> Response {
        let webUser = try req.requireWebUser()
        let form = try fields(req)
        do {
            try await change(webUser, form)
            return WebPages.redirect(WebPath.account, flash: flash)
        } catch let problem as Problem {
            return try await settingsPage(
                req, webUser: webUser, errors: FormErrors(problem, ids: formFields),
                status: .init(statusCode: problem.status))
        }
    }

    @Sendable func updateProfile(_ req: Request) async throws -> Response {
        try await settingsAction(req, flash: .profile, fields: ["displayName", "city", "timeZone"]) { webUser, form in
            _ = try await accounts.updateProfile(
                webUser.user,
                change: ProfileChange(
                    displayName: form.displayName ?? "", city: form.city ?? "", timeZone: form.timeZone ?? ""), on: req.db)
        }
    }

    @Sendable func unblock(_ req: Request) async throws -> Response {
        try await settingsAction(req, flash: .unblocked, fields: []) { webUser, form in
            try await req.pawpack.blocks.unblock(webUser.user, username: form.username ?? "", on: req.db)
        }
    }

    @Sendable func changeUsername(_ req: Request) async throws -> Response {
        try await settingsAction(req, flash: .username, fields: ["username"]) { webUser, form in
            _ = try await accounts.updateProfile(
                webUser.user, change: ProfileChange(username: form.username ?? ""),
                on: req.db)
        }
    }

    @Sendable func changeEmail(_ req: Request) async throws -> Response {
        try await settingsAction(req, flash: .email, fields: ["newEmail", "email-password"]) { webUser, form in
            try await accounts.changeEmail(
                webUser.user, newEmail: form.newEmail ?? "", password: form.password ?? "",
                on: req.db)
        }
    }

    @Sendable func changePassword(_ req: Request) async throws -> Response {
        try await settingsAction(req, flash: .password, fields: ["currentPassword", "newPassword"]) { webUser, form in
            try await accounts.changePassword(
                webUser.user, current: form.currentPassword ?? "",
                new: form.newPassword ?? "", keepingWebSession: webUser.session.id,
                on: req.db)
        }
    }

    @Sendable func deleteAccount(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        let form = try fields(req)
        do {
            try await accounts.deleteAccount(webUser.user, password: form.password ?? "", on: req.db)
        } catch let problem as Problem {
            return try await settingsPage(
                req, webUser: webUser, errors: FormErrors(problem, ids: ["delete-password"]),
                status: .init(statusCode: problem.status))
        }
        req.webUser = nil
        let response = WebPages.redirect(WebPath.landing, flash: .deleted)
        response.cookies[WebCookie.session] = WebCookies.expired
        return response
    }

    @Sendable func export(_ req: Request) async throws -> Response {
        let webUser = try req.requireWebUser()
        // The same document as `GET /v1/me/export`, built by the same code.
        let document = try await APIHandler(services: req.pawpack).exportDocument(for: webUser.user, on: req.db)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(document)
        let response = Response(status: .ok, body: .init(data: data))
        response.headers.contentType = .json
        response.headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"pawpack-export.json\"")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }
}
