import Foundation
import Plot
import Vapor

/// Registers every web page: the shell here, each feature's pages from its own folder.
struct WebRoutes {
    let services: PawpackServices

    func register(on app: Application) throws {
        app.get(WebPath.stylesheet.pathComponents) { _ in
            let response = Response(status: .ok, body: .init(string: Stylesheet.css))
            response.headers.contentType = HTTPMediaType(type: "text", subType: "css", parameters: ["charset": "utf-8"])
            response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=3600")
            return response
        }
        app.get(WebPath.script.pathComponents) { _ in
            let response = Response(status: .ok, body: .init(string: Script.js))
            response.headers.contentType = HTTPMediaType(type: "text", subType: "javascript", parameters: ["charset": "utf-8"])
            response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=3600")
            return response
        }
        app.get(WebPath.landing.pathComponents) { req in landing(req) }
        app.get(WebPath.home.pathComponents) { req in try home(req) }
        AccountPages(accounts: services.accounts).register(on: app)
        PetPages(pets: services.pets, config: services.config).register(on: app)
        PlaydatePages(playdates: services.playdates).register(on: app)
        if services.config.isDevelopment, let outbox = services.outbox {
            DevMailPage(outbox: outbox).register(on: app)
        }
    }

    func landing(_ req: Request) -> Response {
        WebPages.page(req, title: "Welcome to Pawpack", main: .group(
            .p(.text("Safe playmates for your dog nearby, shared feeding and health care for your family, and the best pet photos of the week — in one place.")),
            .if(req.webUser == nil,
                .div(.class("actions"),
                    .a(.id("signup-link"), .class("button"), .href(WebPath.signUp), .text("Create an account")),
                    .a(.id("login-link"), .class("button secondary"), .href(WebPath.logIn), .text("Log in"))
                ),
                else: .p(.a(.class("button"), .href(WebPath.home), .text("Go to your home")))
            )
        ))
    }

    func home(_ req: Request) throws -> Response {
        let user = try req.requireWebUser().user
        return WebPages.page(req, title: "Hello, \(user.displayName)", main: .group(
            .p(.text("You are signed in as "), .strong(.id("current-username"), .text(user.username)), .text(".")),
            .section(.class("card"),
                .h2(.text("Your pets")),
                .p(.text("Add your pets with their photos and vaccinations; a dog reaches Social Mode when its vaccinations allow.")),
                .p(.a(.class("button"), .href(WebPath.pets), .text("Go to your pets")))
            ),
            .section(.class("card"),
                .h2(.text("What is coming")),
                .p(.text("Playdates, chats, care and moments arrive here as Pawpack grows."))
            )
        ))
    }
}

/// `/dev/mail`: the development outbox, newest first, with every link clickable. Registered
/// only when `PAWPACK_ENV=development`.
struct DevMailPage {
    let outbox: DevelopmentOutbox

    func register(on app: Application) {
        app.get(WebPath.devMail.pathComponents) { req in page(req) }
    }

    func page(_ req: Request) -> Response {
        let messages = Array(outbox.all.reversed())
        return WebPages.page(req, title: "Development outbox", main: .group(
            .p(.class("muted"), .text("Mail the server would have sent. This page exists only in development.")),
            .if(messages.isEmpty, .p(.text("No mail yet."))),
            .forEach(messages) { message in
                .article(.class("mail"),
                    .p(.class("mail-to"), .text(message.to)),
                    .h2(.class("mail-subject"), .text(message.subject)),
                    .pre(.class("mail-body"), .text(message.text)),
                    .forEach(Self.links(in: message.text)) { link in
                        .p(.a(.class("mail-link"), .href(link), .text(link)))
                    }
                )
            }
        ))
    }

    static func links(in text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
            .filter { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
    }
}
