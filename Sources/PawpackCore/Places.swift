import Foundation

/// A town or city members can say they live in, from the bundled gazetteer (GeoNames' cities of
/// 5,000 people or more; `scripts/derive-places.py`). Choosing one stores its centre, which
/// `LocationBlur` then reduces to a cell like any other point.
public struct Place: Sendable, Equatable, Identifiable {
    /// GeoNames' id of the place.
    public struct ID: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public init?(_ text: String) {
            guard let value = Int(text), value > 0 else { return nil }
            rawValue = value
        }
        public var description: String { String(rawValue) }
    }

    public var id: ID
    public var name: String
    public var countryCode: String
    public var countryName: String
    /// The state, for places in the United States, where names repeat the most.
    public var region: String?
    public var centre: GeoPoint
    public var population: Int

    /// "Springfield, Illinois, United States"; "Lyon, France".
    public var label: String {
        ([name] + [region, countryName].compactMap { $0 }).joined(separator: ", ")
    }
}

/// The bundled places, searchable by the start of their name.
public struct PlaceDirectory: Sendable {
    /// Longest query looked at, in characters.
    public static let maximumQueryLength = 100

    private let places: [Place]
    /// Each place's name, country and region folded for comparison, in `places`' order.
    private let foldedNames: [String]
    private let foldedQualifiers: [[String]]
    private let indexByID: [ID: Int]

    public typealias ID = Place.ID

    public var count: Int { places.count }

    /// Reads the file `scripts/derive-places.py` writes; lines it does not know are skipped.
    /// Places are kept in the file's order, most populous first.
    public init(tsv: String) {
        var countries: [String: String] = [:]
        var places: [Place] = []
        for line in tsv.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if columns.first == "C", columns.count == 3 {
                countries[columns[1]] = columns[2]
            } else if columns.first == "P", columns.count == 8, let id = ID(columns[1]),
                      let latitude = Double(columns[5]), let longitude = Double(columns[6]),
                      let centre = GeoPoint.validated(latitude: latitude, longitude: longitude) {
                places.append(Place(id: id, name: columns[2], countryCode: columns[3],
                                    countryName: countries[columns[3]] ?? columns[3],
                                    region: columns[4].isEmpty ? nil : columns[4], centre: centre,
                                    population: Int(columns[7]) ?? 0))
            }
        }
        self.places = places
        foldedNames = places.map { Self.fold($0.name) }
        foldedQualifiers = places.map { [Self.fold($0.countryName), Self.fold($0.countryCode), $0.region.map(Self.fold) ?? ""] }
        indexByID = Dictionary(places.indices.map { (places[$0].id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public func place(_ id: ID) -> Place? { indexByID[id].map { places[$0] } }

    /// Places whose name starts with the query, exact names first, then the most populous.
    /// Text after a comma narrows by country, country code or state: "springfield, ill".
    public func search(_ query: String, limit: Int = 8) -> [Place] {
        let parts = String(query.prefix(Self.maximumQueryLength)).split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            .map { Self.fold(String($0)) }
        guard let name = parts.first, !name.isEmpty else { return [] }
        let qualifier = parts.count > 1 ? parts[1] : ""
        var exact: [Place] = [], prefixed: [Place] = []
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

    /// Lower case, without accents, single spaces, and "saint"/"st." written one way.
    static func fold(_ text: String) -> String {
        let folded = text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
            .replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "'", with: " ")
        var words = folded.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        if let first = words.first, first == "st" || first == "st." { words[0] = "saint" }
        return words.joined(separator: " ")
    }
}
