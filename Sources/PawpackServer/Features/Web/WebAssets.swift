import Crypto
import Foundation
import Vapor

/// The web app's own files, kept as files in the server's resources (`Resources/web`) and read
/// once at start: no build step. The stylesheet is the design tokens (`DesignTokens`, which
/// Swift uses too) and `components.css`; the script is `shell.js` and each area's module
/// (`Area.script`), each in a function of its own, then `Pawpack.start()`. Each is served under a
/// name holding a hash of its content, cached for a year: a new build's files have new names, so
/// no cache version is bumped by hand. The service worker keeps its address (a browser checks
/// it on every visit) and names its cache after the files it keeps.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let path: String
        let body: String
        let contentType: HTTPMediaType
    }

    let stylesheet: Asset
    let script: Asset
    /// `/sw.js`'s body.
    let serviceWorker: String

    /// Where the hashed files are served: `staticFiles` skips the session for them.
    static let folder = "/assets/"

    init(areas: [Area]) throws {
        let utf8 = ["charset": "utf-8"]
        let css = DesignTokens.css + (try Self.resource("components.css"))
        stylesheet = Asset(
            path: Self.folder + "styles.\(Self.hash(css)).css", body: css,
            contentType: HTTPMediaType(type: "text", subType: "css", parameters: utf8))
        var modules = [
            try Self.resource("shell.js")
                .replacingOccurrences(of: "{{realtime}}", with: WebPath.realtime)
                .replacingOccurrences(of: "{{serviceWorker}}", with: WebPath.serviceWorker)
        ]
        for name in areas.compactMap(\.script) {
            modules.append(try Self.resource(name + ".js"))
        }
        let js = modules.map { "(function () {\n'use strict';\n\($0)})();\n" }.joined() + "window.Pawpack.start();\n"
        script = Asset(
            path: Self.folder + "app.\(Self.hash(js)).js", body: js,
            contentType: HTTPMediaType(type: "text", subType: "javascript", parameters: utf8))
        let shell = [WebPath.offline, stylesheet.path, script.path, WebPath.iconSVG] + WebPath.iconSizes.map { WebPath.icon(size: $0) }
        let worker = try Self.resource("sw.js")
            .replacingOccurrences(of: "/* {{shell}} */", with: shell.map { "'\($0)'" }.joined(separator: ","))
            .replacingOccurrences(of: "{{offline}}", with: WebPath.offline)
            .replacingOccurrences(of: "{{stylesheet}}", with: stylesheet.path)
            .replacingOccurrences(of: "{{icon}}", with: WebPath.icon(size: 192))
        serviceWorker = worker.replacingOccurrences(of: "{{cache}}", with: "pawpack-" + Self.hash(worker + css + js))
    }

    /// Serves both files for a year: their names change with their content.
    func register(on app: Application) {
        for asset in [stylesheet, script] {
            app.get(asset.path.pathComponents) { _ in
                let response = Response(status: .ok, body: .init(string: asset.body))
                response.headers.contentType = asset.contentType
                response.headers.replaceOrAdd(name: .cacheControl, value: "public, max-age=31536000, immutable")
                return response
            }
        }
    }

    private static func resource(_ name: String) throws -> String {
        let file = name as NSString
        guard
            let url = Bundle.module.url(
                forResource: file.deletingPathExtension, withExtension: file.pathExtension,
                subdirectory: "web")
        else {
            throw Abort(.internalServerError, reason: "the server's resources have no web/\(name)")
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The first 12 hex digits of the content's SHA-256: enough to tell builds apart.
    private static func hash(_ text: String) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
