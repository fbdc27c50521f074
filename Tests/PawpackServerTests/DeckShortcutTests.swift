import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime
import PawpackAPI
@testable import PawpackServer
import PawpackTestSupport
import Testing

/// The deck's shortcut (`DeckShortcut`) answers as the generated code would, byte for byte:
/// its writer against the runtime's encoder, its reading of the query against the contract's,
/// and whole answers over HTTP against the generated code's.
@Suite struct DeckShortcutTests {
    // MARK: The writer

    /// The page as the generated code's runtime encodes it.
    func generatedJSON(_ page: Components.Schemas.DeckPage) async throws -> [UInt8] {
        var fields = HTTPFields()
        let body = try Converter(configuration: .pawpack)
            .setResponseBodyAsJSON(page, headerFields: &fields, contentType: DeckShortcut.contentType)
        #expect(fields[.contentType] == DeckShortcut.contentType)
        return try await [UInt8](collecting: body, upTo: 1 << 20)
    }

    func shortcutJSON(_ page: Components.Schemas.DeckPage) throws -> [UInt8] {
        var json = JSONBytes()
        try json.write(page)
        return json.bytes
    }

    /// Every character JSON may escape, and some it must not.
    static let awkwardText = String(String.UnicodeScalarView((0..<0x80).map { Unicode.Scalar(UInt8($0)) }))
        + "Zoë's \"best\" friend / Лайка / 犬 / 🐶\u{2028}"

    /// A page with every optional property set, and one with none.
    static func pages() throws -> [Components.Schemas.DeckPage] {
        let photo = Components.Schemas.Photo(
            id: "0b6c3e9e-1d54-4a3a-9d2e-51b1a1c5c2aa", url: "http://127.0.0.1:8080/media/pets/ab/cd.jpg",
            kind: .profile, contentType: "image/jpeg", createdAt: Date(timeIntervalSince1970: 1_790_000_000.75))
        let full = Components.Schemas.PetCard(
            id: "5a0e0c1e-5b7e-4a8e-8f3c-0d6b8e1f2a3b", name: awkwardText, species: .dog, breed: "Border Collie / Lab",
            ageText: "3 years", sizeClass: .medium, photos: [photo, photo], mode: .social, ownerDisplayName: "Ada \"A\" Lovelace",
            averageRating: 4.25)
        let bare = Components.Schemas.PetCard(id: "7c1d2e3f-0000-4000-8000-000000000001", name: "Rex", species: .dog,
                                              ageText: "4 months", photos: [], ownerDisplayName: "Bob")
        let rounded = Components.Schemas.PetCard(id: "x", name: "", species: .cat, ageText: "", photos: [],
                                                 ownerDisplayName: "", averageRating: 4)
        return [
            .init(items: [.init(pet: full, score: 87, distance: "< 1 km", reasons: ["similar energy", awkwardText, "3 km away"]),
                          .init(pet: bare, score: 0, distance: "12 km", reasons: []),
                          .init(pet: rounded, score: -1, distance: "", reasons: [""])],
                  nextCursor: "eyJwZXRJRCI6IkFCQyIsInNjb3JlIjo4N30"),
            .init(items: [], nextCursor: nil),
        ]
    }

    @Test func aDeckPageIsWrittenByteForByteAsTheGeneratedCodeWritesIt() async throws {
        for page in try Self.pages() {
            let written = try shortcutJSON(page)
            let generated = try await generatedJSON(page)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: generated, as: UTF8.self))
            #expect(written == generated)
        }
    }

    @Test func numbersAreWrittenAsTheEncoderWritesThemAndNoneThatJSONCannotHold() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for number in [0.0, -0.0, 4, 4.25, 0.1, 1e20, 1e-7, 123_456.789, 1.2345678901234567e16, -3.5] {
            var json = JSONBytes()
            try json.double(number)
            #expect(json.bytes == Array(try encoder.encode(number)), "\(number)")
        }
        var json = JSONBytes()
        #expect(throws: JSONBytes.NonFiniteNumber.self) { try json.double(.infinity) }
        #expect(throws: JSONBytes.NonFiniteNumber.self) { try json.double(.nan) }
        #expect(json.bytes.isEmpty)
    }

    /// If the contract gains a property, the writer must learn it: the full page's JSON holds a
    /// key for every stored property of the generated types, at every level.
    @Test func theWriterWritesEveryPropertyTheGeneratedTypesHave() throws {
        let page = try Self.pages()[0]
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try shortcutJSON(page))) as? [String: Any])
        func keys(_ value: Any) -> Set<String> { Set(Mirror(reflecting: value).children.compactMap(\.label)) }
        #expect(Set(object.keys) == keys(page))
        let card = try #require((object["items"] as? [[String: Any]])?.first)
        #expect(Set(card.keys) == keys(page.items[0]))
        let pet = try #require(card["pet"] as? [String: Any])
        #expect(Set(pet.keys) == keys(page.items[0].pet))
        let photo = try #require((pet["photos"] as? [[String: Any]])?.first)
        #expect(Set(photo.keys) == keys(page.items[0].pet.photos[0]))
    }

    // MARK: The query

    @Test func theShortcutReadsPlainQueriesAndLeavesAllOthersToTheGeneratedCode() {
        #expect(DeckQuery(plain: nil) == DeckQuery())
        #expect(DeckQuery(plain: "") == DeckQuery())
        #expect(DeckQuery(plain: "limit=5&cursor=eyJw-_9Q&maxDistanceKm=3.5&minAgeMonths=6&maxAgeMonths=120")
            == DeckQuery(limit: 5, cursor: "eyJw-_9Q", overrides: .init(maxDistanceKm: 3.5, minAgeMonths: 6, maxAgeMonths: 120)))
        #expect(DeckQuery(plain: "maxDistanceKm=25&limit=-1") == DeckQuery(limit: -1, overrides: .init(maxDistanceKm: 25)))
        for odd in ["limit", "limit=", "limit=5&limit=6", "limit=%35", "limit=+5", "limit=5.0", "limit=1234567890",
                    "limit=abc", "cursor=a%3D", "cursor=a=", "cursor=a+b", "maxDistanceKm=1e3", "maxDistanceKm=.5",
                    "maxDistanceKm=5.", "maxDistanceKm=nan", "maxDistanceKm=-3", "minAgeMonths=", "other=1", "limit=5&&cursor=a",
                    "Limit=5"] {
            #expect(DeckQuery(plain: odd) == nil, "\(odd)")
        }
        #expect(DeckShortcut.takesJSON(nil))
        #expect(DeckShortcut.takesJSON("application/json"))
        #expect(DeckShortcut.takesJSON("*/*"))
        #expect(!DeckShortcut.takesJSON("text/html"))
        #expect(!DeckShortcut.takesJSON("application/json, text/plain"))
    }

    // MARK: Over HTTP

    /// The same requests answered by the shortcut and, given an `Accept` it leaves alone, by the
    /// generated code: the same status, content type and bytes, pages and problems alike.
    @Test func theShortcutAnswersEveryRequestAsTheGeneratedCodeDoes() async throws {
        try await TestServer.run { server in
            let ada = try await server.member("ada")
            _ = try await server.send(.PUT, "/v1/me/location", object: ["latitude": 45.7640, "longitude": 4.8357], token: ada.accessToken)
            let adaDog = try await dog(server, ada, name: "Ada's dog")
            for (index, name) in ["bob", "cyd", "dee"].enumerated() {
                let member = try await server.member(name)
                _ = try await server.send(.PUT, "/v1/me/location", object: ["latitude": 45.77 + Double(index) * 0.01, "longitude": 4.8357],
                                          token: member.accessToken)
                let id = try await dog(server, member, name: index == 0 ? "Zoë \"Best\" / Лайка / 犬 🐶" : "\(name.capitalized)'s dog",
                                       breed: index == 1 ? "Border Collie / Lab" : nil)
                if index == 0 {
                    let photo = try await server.upload("/v1/pets/\(id)/photos", parts: [
                        .init(name: "photo", filename: "a.jpg", contentType: "image/jpeg", data: try fixture("plain.jpg")),
                    ], token: member.accessToken)
                    #expect(photo.status == 201, "\(photo.text)")
                }
            }
            let deck = "/v1/pets/\(adaDog)/deck"
            let first = try await server.request(.GET, deck + "?limit=2", token: ada.accessToken)
            let cursor = try #require(first.json["nextCursor"] as? String)
            #expect(first.text.contains("\\/media\\/"), "the photo is on the page")
            let bob = try await server.member("eve")
            for (query, token, status) in [
                ("", ada.accessToken, 200), ("?limit=2", ada.accessToken, 200), ("?limit=2&cursor=\(cursor)", ada.accessToken, 200),
                ("?maxDistanceKm=1.5&minAgeMonths=6&maxAgeMonths=120", ada.accessToken, 200),
                ("?limit=500", ada.accessToken, 422), ("?cursor=nonsense", ada.accessToken, 422),
                ("?minAgeMonths=-3", ada.accessToken, 422), ("", bob.accessToken, 403), ("", "not-a-token", 401),
            ] {
                let shortcut = try await server.request(.GET, deck + query, token: token)
                let generated = try await server.request(.GET, deck + query, token: token,
                                                         headers: [("Accept", "application/json, text/plain")])
                #expect(shortcut.status == status, "\(query): \(shortcut.text)")
                #expect(shortcut.status == generated.status, "\(query)")
                #expect(shortcut.headers.first(name: "Content-Type") == generated.headers.first(name: "Content-Type"), "\(query)")
                #expect(shortcut.text == generated.text, "\(query)")
            }
            // What the shortcut leaves alone, the generated code still reads.
            let escaped = try await server.request(.GET, deck + "?limit=%32", token: ada.accessToken)
            #expect(escaped.status == 200)
            #expect((escaped.json["items"] as? [Any])?.count == 2)
            let malformed = try await server.request(.GET, deck + "?limit=two", token: ada.accessToken)
            #expect(malformed.status == 400, "\(malformed.text)")
        }
    }

    func dog(_ server: TestServer, _ member: TestServer.Member, name: String, breed: String? = nil) async throws -> String {
        var body: [String: any Sendable] = ["name": name, "species": "dog", "estimatedAgeMonths": 30, "weightKg": 14.0]
        if let breed { body["breed"] = breed }
        let reply = try await server.send(.POST, "/v1/pets", object: body, token: member.accessToken)
        return try #require((reply.json["card"] as? [String: Any])?["id"] as? String, "\(reply.text)")
    }
}
