import Foundation
import PawpackAPI
import Vapor

/// What a deck request asks for besides the dog: the page and the preferences it overrides.
struct DeckQuery: Equatable, Sendable {
    var limit: Int?
    var cursor: String?
    var overrides: PlaydateService.Overrides

    init(limit: Int? = nil, cursor: String? = nil, overrides: PlaydateService.Overrides = .init()) {
        self.limit = limit
        self.cursor = cursor
        self.overrides = overrides
    }

    /// The query as clients write it: each of the operation's parameters at most once, and
    /// nothing a reader could take two ways — the cursor as this server writes it, the numbers
    /// as plain digits, no escapes. Anything else is nil, for the generated code to read with
    /// the contract's own rules and errors.
    init?(plain query: String?) {
        self.init()
        guard let query, !query.isEmpty else { return }
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = Substring(pair[..<equals]), value = Substring(pair[pair.index(after: equals)...])
            switch name {
            case "limit" where limit == nil:
                guard let number = Self.plainInt(value) else { return nil }
                limit = number
            case "cursor" where cursor == nil:
                guard Self.isCursorText(value) else { return nil }
                cursor = String(value)
            case "maxDistanceKm" where overrides.maxDistanceKm == nil:
                guard let number = Self.plainDecimal(value) else { return nil }
                overrides.maxDistanceKm = number
            case "minAgeMonths" where overrides.minAgeMonths == nil:
                guard let number = Self.plainInt(value) else { return nil }
                overrides.minAgeMonths = number
            case "maxAgeMonths" where overrides.maxAgeMonths == nil:
                guard let number = Self.plainInt(value) else { return nil }
                overrides.maxAgeMonths = number
            default: return nil
            }
        }
    }

    /// Up to nine digits, perhaps after a minus: no sign of plus, no spaces, no overflow.
    private static func plainInt(_ text: Substring) -> Int? {
        let digits = text.first == "-" ? text.dropFirst() : text
        guard (1...9).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// Digits with at most one decimal point between digits: no exponent, no sign, no "nan".
    private static func plainDecimal(_ text: Substring) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ (1...9).contains($0.utf8.count) && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }) else {
            return nil
        }
        return Double(text)
    }

    /// The cursors this server gives out are base64url without padding.
    private static func isCursorText(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

/// The deck's own answer to the requests it recognises (`DeckQuery(plain:)`, an `Accept` that
/// takes JSON): the same page from the same `APIHandler.deckPage`, written by `JSONBytes`
/// instead of the generated code's `JSONEncoder`. The deck is the one read a community makes
/// hundreds of times a second, and encoding its page was an eighth of all the CPU it took
/// (docs/PERFORMANCE.md). Every other request, and every other operation, goes through the
/// generated code; `DeckShortcutTests` holds the two answers byte for byte equal.
struct DeckShortcut {
    static let path = "/v1/pets/{petId}/deck"
    /// The content type the generated code gives a JSON answer.
    static let contentType = "application/json; charset=utf-8"

    let handler: APIHandler

    var shortcut: BufferedVaporTransport.Shortcut {
        .init(method: .get, path: Self.path) { request in try await answer(request) }
    }

    func answer(_ request: Request) async throws -> Response? {
        guard Self.takesJSON(request.headers.first(name: .accept)), let query = DeckQuery(plain: request.url.query),
              let petId = request.parameters.get("petId") else { return nil }
        let page = try await handler.deckPage(petId: petId, query)
        var json = JSONBytes(capacity: 1024 + 768 * page.items.count)
        try json.write(page)
        var headers = HTTPHeaders()
        headers.add(name: .contentType, value: Self.contentType)
        return Response(status: .ok, headers: headers, body: .init(buffer: json.buffer(request.byteBufferAllocator)))
    }

    /// No `Accept`, or one that names JSON alone or anything; the generated code weighs the rest.
    static func takesJSON(_ accept: String?) -> Bool {
        guard let accept else { return true }
        return accept == "application/json" || accept == "*/*"
    }
}

/// The deck page's types, each object's keys in byte order (`JSONBytes`). Every property the
/// generated types have is written; `DeckShortcutTests` checks that against the types themselves.
extension JSONBytes {
    mutating func write(_ page: Components.Schemas.DeckPage) throws {
        beginObject()
        key("items")
        try array(page.items) { try $0.write($1) }
        if let cursor = page.nextCursor {
            key("nextCursor")
            string(cursor)
        }
        endObject()
    }

    mutating func write(_ card: Components.Schemas.DeckCard) throws {
        beginObject()
        key("distance")
        string(card.distance)
        key("pet")
        try write(card.pet)
        key("reasons")
        strings(card.reasons)
        key("score")
        int(card.score)
        endObject()
    }

    mutating func write(_ pet: Components.Schemas.PetCard) throws {
        beginObject()
        key("ageText")
        string(pet.ageText)
        if let rating = pet.averageRating {
            key("averageRating")
            try double(rating)
        }
        if let breed = pet.breed {
            key("breed")
            string(breed)
        }
        key("id")
        string(pet.id)
        if let mode = pet.mode {
            key("mode")
            string(mode.rawValue)
        }
        key("name")
        string(pet.name)
        key("ownerDisplayName")
        string(pet.ownerDisplayName)
        key("photos")
        try array(pet.photos) { try $0.write($1) }
        if let size = pet.sizeClass {
            key("sizeClass")
            string(size.rawValue)
        }
        key("species")
        string(pet.species.rawValue)
        endObject()
    }

    mutating func write(_ photo: Components.Schemas.Photo) throws {
        beginObject()
        key("contentType")
        string(photo.contentType)
        key("createdAt")
        // The contract's dates, as the generated code's encoder writes them.
        string(try RFC3339DateTranscoder().encode(photo.createdAt))
        key("id")
        string(photo.id)
        key("kind")
        string(photo.kind.rawValue)
        key("url")
        string(photo.url)
        endObject()
    }
}
