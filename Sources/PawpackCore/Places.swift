import Foundation

/// A place members can say they live in, from the bundled gazetteer: a town or city (GeoNames'
/// cities of 5,000 people or more; `scripts/derive-places.py`) or a postcode area (GeoNames'
/// postal codes; `scripts/derive-postcodes.py`). Choosing one stores its centre, which
/// `LocationBlur` then reduces to a cell like any other point.
public struct Place: Sendable, Equatable, Identifiable {
    /// A town's GeoNames id ("2996944"), or a postcode area's country and code ("FR-75013").
    public struct ID: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Reads an id a form sent back; anything else is nil.
        public init?(_ text: String) {
            guard text.utf8.count <= 20 else { return nil }
            let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 1 {
                guard let value = Int(text), value > 0 else { return nil }
                rawValue = String(value)
            } else {
                guard parts[0].utf8.count == 2, parts[0].utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }),
                    !parts[1].isEmpty, PostcodeText.normalized(parts[1]) == parts[1]
                else { return nil }
                rawValue = text
            }
        }

        public static func town(_ geonamesID: Int) -> ID { ID(rawValue: String(geonamesID)) }
        public static func postcode(country: String, code: String) -> ID { ID(rawValue: "\(country)-\(code)") }
        public var description: String { rawValue }
    }

    public var id: ID
    public var name: String
    public var countryCode: String
    public var countryName: String
    /// The state, for towns in the United States, where names repeat the most.
    public var region: String?
    /// The postcode as written ("75013"), for a postcode area; one that stands for every postcode
    /// beginning with it ends in "…" ("SW1A…" for SW1A 1AA and its neighbours, "10…").
    public var postcode: String?
    public var centre: GeoPoint
    /// Zero for a postcode area.
    public var population: Int

    /// "Springfield, Illinois, United States"; "Lyon, France"; "75013 Paris 13, France".
    public var label: String {
        ([postcode.map { "\($0) \(name)" } ?? name] + [region, countryName].compactMap { $0 }).joined(separator: ", ")
    }
}

/// How postcodes are compared: letters and digits only, in capitals ("sw1a 1aa" is "SW1A1AA").
public enum PostcodeText {
    public static func normalized<S: StringProtocol>(_ text: S) -> String {
        String(
            decoding: text.utf8.compactMap { byte -> UInt8? in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"): byte
                case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 32
                default: nil
                }
            }, as: UTF8.self)
    }
}

/// The bundled places: towns searchable by the start of their name, postcode areas by their code.
public struct PlaceDirectory: Sendable {
    /// Longest query looked at, in characters.
    public static let maximumQueryLength = 100

    private let places: [Place]
    /// Each place's name, country and region folded for comparison, in `places`' order.
    private let foldedNames: [String]
    private let foldedQualifiers: [[String]]
    private let indexByID: [ID: Int]
    private let postcodes: PostcodeAreas

    public typealias ID = Place.ID

    /// Towns and cities.
    public var count: Int { places.count }
    /// Postcode areas.
    public var postcodeCount: Int { postcodes.count }

    /// Reads the files `scripts/derive-places.py` (towns, and the countries' names) and
    /// `scripts/derive-postcodes.py` write; lines they do not know are skipped. Towns are kept
    /// in the file's order, most populous first.
    public init(tsv: String, postcodes postcodeTSV: String = "") {
        var countries: [String: String] = [:]
        var places: [Place] = []
        for line in tsv.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if columns.first == "C", columns.count == 3 {
                countries[columns[1]] = columns[2]
            } else if columns.first == "P", columns.count == 8, let id = Int(columns[1]),
                let latitude = Double(columns[5]), let longitude = Double(columns[6]),
                let centre = GeoPoint.validated(latitude: latitude, longitude: longitude)
            {
                places.append(
                    Place(
                        id: .town(id), name: columns[2], countryCode: columns[3],
                        countryName: countries[columns[3]] ?? columns[3],
                        region: columns[4].isEmpty ? nil : columns[4], postcode: nil, centre: centre,
                        population: Int(columns[7]) ?? 0))
            }
        }
        self.places = places
        foldedNames = places.map { Self.fold($0.name) }
        foldedQualifiers = places.map { [Self.fold($0.countryName), Self.fold($0.countryCode), $0.region.map(Self.fold) ?? ""] }
        indexByID = Dictionary(places.indices.map { (places[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
        // Where a postcode exists in several countries ("1000"), the more populous come first.
        let population = places.reduce(into: [String: Int]()) { $0[$1.countryCode, default: 0] += $1.population }
        postcodes = PostcodeAreas(tsv: postcodeTSV, countryNames: countries, population: population)
    }

    public func place(_ id: ID) -> Place? {
        if let index = indexByID[id] { return places[index] }
        return postcodes.place(id)
    }

    /// Towns whose name starts with the query, exact names first, then the most populous; or,
    /// when the query holds a digit, postcode areas (see `PostcodeAreas.search`). Text after a
    /// comma narrows by country, country code or state: "springfield, ill", "1000, portugal".
    public func search(_ query: String, limit: Int = 8) -> [Place] {
        let parts = String(query.prefix(Self.maximumQueryLength)).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            .map { Self.fold(String($0)) }
        guard let name = parts.first, !name.isEmpty else { return [] }
        let qualifier = parts.count > 1 ? parts[1] : ""
        if name.contains(where: \.isNumber) {
            return postcodes.search(PostcodeText.normalized(name), qualifier: qualifier, limit: limit)
        }
        var exact: [Place] = []
        var prefixed: [Place] = []
        for index in places.indices where foldedNames[index].hasPrefix(name) {
            if !qualifier.isEmpty, !foldedQualifiers[index].contains(where: { !$0.isEmpty && $0.hasPrefix(qualifier) }) { continue }
            if foldedNames[index] == name {
                exact.append(places[index])
            } else if prefixed.count < limit {
                prefixed.append(places[index])
            }
            if exact.count >= limit { break }
        }
        return Array((exact + prefixed).prefix(limit))
    }

    /// The town whose centre is closest to `point` (towns only, not postcode areas): what to
    /// call a place the browser gave. A scan of the 53,000 towns, done once per choice.
    public func nearestTown(to point: GeoPoint) -> Place? {
        places.min { Matchmaker.haversineKm(point, $0.centre) < Matchmaker.haversineKm(point, $1.centre) }
    }

    /// Lower case, without accents, single spaces, and "saint"/"st." written one way.
    static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
            .replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "'", with: " ")
        var words = folded.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        if let first = words.first, first == "st" || first == "st." { words[0] = "saint" }
        return words.joined(separator: " ")
    }
}

/// The postcode areas of each country, sorted by code so a prefix is a binary search away.
/// About 360,000 of them, so each is kept small: codes are short enough for Swift to store
/// inline, and the place names, often shared, are stored once.
struct PostcodeAreas: Sendable {
    struct Area: Sendable {
        var code: String
        /// As written, when it differs from `code`: "001-0012", or with an ellipsis when it
        /// stands for every postcode beginning with it ("SW1A…", "10…").
        var written: String
        var name: Int32
        var latitude: Float
        var longitude: Float
    }

    struct Country: Sendable {
        var code: String
        var name: String
        var folded: [String]
        var areas: [Area]
    }

    /// The longest postcode looked at, in letters and digits (Portugal and Japan write seven).
    static let longestCode = 12

    private let countries: [Country]
    private let names: [String]

    var count: Int { countries.reduce(0) { $0 + $1.areas.count } }

    init(tsv: String, countryNames: [String: String], population: [String: Int]) {
        var byCountry: [String: [Area]] = [:]
        var names: [String] = []
        var nameIndex: [String: Int32] = [:]
        for line in tsv.split(separator: "\n", omittingEmptySubsequences: true) where line.first == "Z" {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count == 7, let latitude = Float(columns[5]), let longitude = Float(columns[6]),
                GeoPoint.validated(latitude: Double(latitude), longitude: Double(longitude)) != nil,
                !columns[2].isEmpty, columns[2].utf8.count <= Self.longestCode
            else { continue }
            let name = String(columns[4])
            let index: Int32
            if let known = nameIndex[name] {
                index = known
            } else {
                index = Int32(names.count)
                names.append(name)
                nameIndex[name] = index
            }
            byCountry[String(columns[1]), default: []].append(
                Area(code: String(columns[2]), written: String(columns[3]), name: index, latitude: latitude, longitude: longitude))
        }
        self.names = names
        countries = byCountry.map { code, areas in
            let name = countryNames[code] ?? code
            return Country(
                code: code, name: name, folded: [PlaceDirectory.fold(name), PlaceDirectory.fold(code)],
                areas: areas.sorted { $0.code.utf8.lexicographicallyPrecedes($1.code.utf8) })
        }.sorted { (population[$0.code] ?? 0, $1.code) > (population[$1.code] ?? 0, $0.code) }
    }

    func place(_ id: Place.ID) -> Place? {
        let parts = id.rawValue.split(separator: "-", maxSplits: 1)
        guard parts.count == 2, let country = countries.first(where: { $0.code == parts[0] }) else { return nil }
        let code = String(parts[1])
        let start = Self.firstIndex(in: country.areas, notBefore: code)
        guard start < country.areas.count, country.areas[start].code == code else { return nil }
        return place(country.areas[start], in: country)
    }

    /// Postcode areas for a code typed, whole or in part: first the area with exactly that code;
    /// then the area whose beginning the code typed starts with ("SW1A 1AA" is in "SW1A…",
    /// "1000-001" in Lisbon's "10…"); then, when the code typed is only a beginning, the areas
    /// it begins ("7501" finds "75010"…). Within each, the more populous countries come first.
    func search(_ query: String, qualifier: String, limit: Int) -> [Place] {
        guard query.utf8.count >= 2 else { return [] }
        let query = String(query.prefix(Self.longestCode))
        var exact: [Place] = []
        var holding: [Place] = []
        var begun: [Place] = []
        for country in countries where qualifier.isEmpty || country.folded.contains(where: { $0.hasPrefix(qualifier) }) {
            var index = Self.firstIndex(in: country.areas, notBefore: query)
            if index < country.areas.count, country.areas[index].code == query {
                exact.append(place(country.areas[index], in: country))
                index += 1
            } else if let area = beginning(holding: query, in: country) {
                holding.append(place(area, in: country))
            }
            while begun.count < limit, index < country.areas.count, country.areas[index].code.hasPrefix(query) {
                begun.append(place(country.areas[index], in: country))
                index += 1
            }
        }
        return Array((exact + holding + begun).prefix(limit))
    }

    /// The longest beginning ("SW1A…", "10…") that the code starts with.
    private func beginning(holding code: String, in country: Country) -> Area? {
        for length in stride(from: code.count - 1, through: 2, by: -1) {
            let prefix = String(code.prefix(length))
            let index = Self.firstIndex(in: country.areas, notBefore: prefix)
            if index < country.areas.count, country.areas[index].code == prefix, country.areas[index].written.hasSuffix("…") {
                return country.areas[index]
            }
        }
        return nil
    }

    private func place(_ area: Area, in country: Country) -> Place {
        Place(
            id: .postcode(country: country.code, code: area.code), name: names[Int(area.name)],
            countryCode: country.code, countryName: country.name, region: nil,
            postcode: area.written.isEmpty ? area.code : area.written,
            centre: GeoPoint(latitude: Double(area.latitude), longitude: Double(area.longitude)),
            population: 0)
    }

    /// The first area whose code is not before `code`, in byte order.
    private static func firstIndex(in areas: [Area], notBefore code: String) -> Int {
        var low = 0
        var high = areas.count
        while low < high {
            let middle = (low + high) / 2
            if areas[middle].code.utf8.lexicographicallyPrecedes(code.utf8) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
