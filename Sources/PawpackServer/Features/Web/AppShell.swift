import Foundation
import PawpackCore
import Plot
import Vapor

/// What makes the web app installable: the manifest, its icons, and a service worker
/// (`Resources/web/sw.js`) that keeps the shell (stylesheet, script, icons, offline page) so a
/// member without a network sees a page that says so rather than the browser's error.
enum AppShell {
    static var manifest: String {
        let icons =
            WebPath.iconSizes.map {
                #"{"src":"\#(WebPath.icon(size: $0))","sizes":"\#($0)x\#($0)","type":"image/png","purpose":"any maskable"}"#
            } + [#"{"src":"\#(WebPath.iconSVG)","sizes":"any","type":"image/svg+xml","purpose":"any"}"#]
        return """
            {"name":"Pawpack","short_name":"Pawpack","description":"Safe playmates for your dog, nearby.",\
            "id":"/home","start_url":"/home","scope":"/","display":"standalone","orientation":"portrait",\
            "background_color":"\(DesignTokens.value(of: "bg", dark: false)!)","theme_color":"\(DesignTokens.themeColour)",\
            "icons":[\(icons.joined(separator: ","))]}
            """
    }

    static var iconSVG: String {
        ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5.5" fill="\##(DesignTokens.themeColour)"/><g fill="#fff" transform="translate(3.2 3.2) scale(.733)">"##
            + #"<ellipse cx="12" cy="16.2" rx="4.6" ry="3.8"/><ellipse cx="5.4" cy="10.6" rx="2.1" ry="2.6"/><ellipse cx="18.6" cy="10.6" rx="2.1" ry="2.6"/><ellipse cx="9.1" cy="6.2" rx="2.1" ry="2.7"/><ellipse cx="14.9" cy="6.2" rx="2.1" ry="2.7"/></g></svg>"#
    }

    /// The dogs on the landing page: drawn as the demo's are, once, when first asked for.
    static let landingDogs: [(name: String, line: String, look: DogPortrait)] = [
        (
            "Biscuit", "Both love chase",
            DogPortrait(
                coat: .init(hex: 0xD9A441), secondary: .init(hex: 0xEFD08A), background: .init(hex: 0xBFD8E6), ears: .floppy,
                muzzleLength: 0.65, size: 0.6, eyePatch: false, tongue: true)
        ),
        (
            "Pixel", "Similar size",
            DogPortrait(
                coat: .init(hex: 0x1F1B1A), secondary: .init(hex: 0xFFFFFF), background: .init(hex: 0xF3D9C4), ears: .folded,
                muzzleLength: 0.7, size: 0.4, eyePatch: false, tongue: false)
        ),
        (
            "Miso", "800 m away",
            DogPortrait(
                coat: .init(hex: 0xB87333), secondary: .init(hex: 0xF5EBDD), background: .init(hex: 0xD6E8CF), ears: .pointed,
                muzzleLength: 0.5, size: 0.25, eyePatch: true, tongue: true)
        ),
    ]
    private static let landingDogPNGs: [Data] = landingDogs.map { $0.look.png(width: 300, height: 400) }

    /// The PNG icons, drawn once.
    static let icons: [Int: Data] = Dictionary(uniqueKeysWithValues: WebPath.iconSizes.map { ($0, DogPortrait.appIcon(size: $0)) })

    static func register(on app: Application, assets: WebAssets) {
        assets.register(on: app)
        func serve(_ path: String, type: HTTPMediaType, maxAge: Int = 3600, _ body: @escaping @Sendable () -> Response.Body) {
            app.get(path.pathComponents) { _ in
                let response = Response(status: .ok, body: body())
                response.headers.contentType = type
                response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=\(maxAge)")
                return response
            }
        }
        let utf8 = ["charset": "utf-8"]
        serve(WebPath.manifest, type: HTTPMediaType(type: "application", subType: "manifest+json", parameters: utf8)) { .init(string: manifest) }
        // The worker is checked for updates on every visit: never cached long.
        serve(WebPath.serviceWorker, type: HTTPMediaType(type: "text", subType: "javascript", parameters: utf8), maxAge: 0) {
            .init(string: assets.serviceWorker)
        }
        serve(WebPath.iconSVG, type: HTTPMediaType(type: "image", subType: "svg+xml")) { .init(string: iconSVG) }
        for size in WebPath.iconSizes {
            serve(WebPath.icon(size: size), type: .png, maxAge: 86400) { .init(data: icons[size] ?? Data()) }
        }
        for index in landingDogs.indices {
            serve(WebPath.landingDog(index + 1), type: .png, maxAge: 86400) { .init(data: landingDogPNGs[index]) }
        }
        app.get(WebPath.offline.pathComponents) { req in
            WebPages.page(
                req, title: "You are offline",
                main: .div(
                    .class("empty"), .id("offline"),
                    Icon.paw.node(),
                    .p(.text("Pawpack needs a connection for this page. Check your network, then try again.")),
                    .a(.class("button"), .href(WebPath.home), .text("Try again"))))
        }
    }
}
