import Foundation
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// The design system's promises that a test can keep: contrast, one source of colour, an
/// installable shell, and the bundled places.
@Suite struct DesignSystemTests {
    @Test func everyColourPairMeetsWCAGAAInBothThemes() throws {
        #expect(DesignTokens.contrastPairs.count >= 20)
        for dark in [false, true] {
            for pair in DesignTokens.contrastPairs {
                let foreground = try #require(DesignTokens.value(of: pair.foreground, dark: dark), "\(pair.foreground)")
                let background = try #require(DesignTokens.value(of: pair.background, dark: dark), "\(pair.background)")
                let ratio = try #require(DesignTokens.contrast(foreground, background))
                let needed = pair.use == .text ? 4.5 : 3.0
                #expect(ratio >= needed, "\(dark ? "dark" : "light"): \(pair.foreground) on \(pair.background) is \(ratio)")
            }
        }
        // the formula itself: black on white is 21:1, a colour on itself 1:1
        #expect(DesignTokens.contrast("#000000", "#ffffff") == 21)
        #expect(DesignTokens.contrast("#a8400c", "#a8400c") == 1)
    }

    @Test func theStylesheetTakesEveryColourFromTheTokens() throws {
        let css = try WebAssets(areas: Areas.all.list).stylesheet.body
        for colour in DesignTokens.colours {
            #expect(css.contains("--\(colour.name):\(colour.light)"))
            #expect(css.contains("--\(colour.name):\(colour.dark)"))
        }
        #expect(css.contains("@media (prefers-color-scheme:dark)"))
        // after the tokens, components name no colour of their own, except white and black in
        // the stamps over photos and the shades mixed into the match screen's gradient
        let components = css.components(separatedBy: "}}\n").last ?? ""
        let hexes = components.matches(of: /#[0-9a-fA-F]{3,6}\b/).map { String($0.output) }
        #expect(Set(hexes).isSubset(of: ["#fff", "#000", "#7dffb6", "#ffb3ab"]), "\(Set(hexes))")
    }

    @Test func theShellIsInstallableAndWorksOffline() async throws {
        try await TestServer.run { server in
            let manifest = try await server.request(.GET, "/manifest.webmanifest")
            #expect(manifest.status == 200)
            #expect(manifest.headers.first(name: .contentType)?.hasPrefix("application/manifest+json") == true)
            #expect(manifest.json["display"] as? String == "standalone")
            #expect(manifest.json["start_url"] as? String == "/home")
            let icons = try #require(manifest.json["icons"] as? [[String: Any]])
            #expect(Set(icons.compactMap { $0["sizes"] as? String }).isSuperset(of: ["192x192", "512x512"]))
            for size in [192, 512] {
                let icon = try await server.request(.GET, "/icon-\(size).png")
                #expect(icon.status == 200)
                // a real PNG of that size: the sanitizer checks every chunk, zlib inflates it
                #expect(try ImageSanitizer().sanitize(icon.body).format == .png)
                #expect(try Self.inflatedPNG(icon.body) == "\(size)x\(size) ok")
            }
            let worker = try await server.request(.GET, "/sw.js")
            #expect(worker.text.contains("'/offline'") && worker.text.contains("caches.open"))
            let offline = try await server.request(.GET, "/offline", headers: [("Accept", "text/html")])
            #expect(offline.status == 200)
            #expect(offline.text.contains("You are offline"))
            let page = try await server.request(.GET, "/", headers: [("Accept", "text/html")])
            #expect(page.text.contains(#"<link rel="manifest" href="/manifest.webmanifest"/>"#))
            #expect(page.text.contains(#"<meta name="theme-color""#))
        }
    }

    @Test func drawnPortraitsArePNGsThatZlibInflates() throws {
        let portrait = DogPortrait(
            coat: .init(hex: 0xC8863F), secondary: .init(hex: 0xF4E6D0), background: .init(hex: 0x9CC5A1),
            ears: .floppy, muzzleLength: 0.6, size: 0.5, eyePatch: true, tongue: true
        ).png()
        #expect(try ImageSanitizer().sanitize(portrait).format == .png)
        #expect(try Self.inflatedPNG(portrait) == "360x450 ok")
        // flat drawings compress: far below the 486,000 bytes of the raw pixels
        #expect(portrait.count < 120_000, "\(portrait.count) bytes")
    }

    /// Reads a PNG with Python's zlib (a decoder other than ours): "WxH ok" when the pixels
    /// inflate to exactly the rows the header promises.
    static func inflatedPNG(_ png: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pawpack-\(UUID()).png")
        try png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            pos, idat, size = 8, b'', None
            while pos < len(data):
                length, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + length]
                if zlib.crc32(kind + body) != struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])[0]: sys.exit('bad crc')
                if kind == b'IHDR': size = struct.unpack('>II', body[:8])
                if kind == b'IDAT': idat += body
                pos += 12 + length
            raw = zlib.decompress(idat)
            print('%dx%d %s' % (size[0], size[1], 'ok' if len(raw) == (size[0] * 3 + 1) * size[1] else 'wrong length'))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func placesAreFoundByTheStartOfTheirNameWithoutAccentsAndNarrowedByCountry() throws {
        let places = LocationPages.places
        #expect(places.count > 50_000)
        #expect(places.search("lyon").first?.label == "Lyon, France")
        #expect(places.search("Zürich").first?.countryCode == "CH")
        #expect(places.search("zurich").first?.countryCode == "CH")
        #expect(places.search("st etienne").first?.name == "Saint-Étienne")
        #expect(places.search("springfield, ill").map(\.region) == ["Illinois"])
        #expect(places.search("springfield").count == 8)
        #expect(places.search("").isEmpty && places.search(", France").isEmpty)
        #expect(places.search(String(repeating: "a", count: 10_000)).isEmpty)
        let lyon = try #require(places.place(.town(2_996_944)))
        #expect(lyon.centre == GeoPoint(latitude: 45.748, longitude: 4.847))
    }

    @Test func postcodesAreFoundWhetherTypedWholeOrInPart() throws {
        let places = LocationPages.places
        #expect(places.postcodeCount > 300_000)
        // typed whole, however spaced or cased: the area that holds it
        #expect(places.search("90210").first?.label == "90210 Beverly Hills, United States")
        #expect(places.search("90210, united states").count == 1)
        #expect(places.search("sw1a 1aa").first?.label == "SW1A… Westminster Abbey, United Kingdom")
        #expect(places.search("K1A 0B1").first?.postcode == "K1A…")
        #expect(places.search("K1A 0B1").first?.countryName == "Canada")
        // Portugal's seven-digit codes are kept under their shared beginning in Lisbon
        let lisbon = try #require(places.search("1000-001, portugal").first)
        #expect(lisbon.name == "Lisboa" && lisbon.postcode?.hasSuffix("…") == true)
        // a code many countries use: the country narrows it, and each result says its country
        let belgium = places.search("1000, belgium")
        #expect(belgium.count == 1 && belgium.first?.label == "1000 Bruxelles, Belgium")
        #expect(Set(places.search("1000").map(\.countryCode)).count > 3)
        // typed in part: the areas it begins
        let paris = places.search("7501, france")
        #expect(paris.count == 8 && paris.allSatisfy { $0.postcode?.hasPrefix("7501") == true && $0.countryCode == "FR" })
        #expect(places.search("7").isEmpty && places.search("zz99 9zz, france").isEmpty)
        // an id read back from a form finds the same place, and a made-up one nothing
        let id = try #require(Place.ID("FR-75013"))
        #expect(places.place(id)?.label == "75013 Paris, France")
        #expect(Place.ID("FR-7501 3") == nil && Place.ID("fr-75013") == nil && Place.ID("0") == nil)
        #expect(places.place(.postcode(country: "FR", code: "00000")) == nil)
    }
}
