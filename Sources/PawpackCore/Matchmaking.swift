import Foundation

// Playdates matchmaking: which dogs a dog's deck shows, in what order, and why.
//
// 1. Hard filters (`Matchmaker.passesHardFilters`). A candidate is never the seeker itself, a
//    pet of the seeker's owner, a pet in `excludedPets` (the owner's pets and the dogs this dog
//    already swiped), or a pet of a blocked owner (blocked either way); never beyond the
//    preferred distance; and it must meet the saved preferences: age, sexes, size classes,
//    weight range, neutered-only and play styles. A preference a candidate cannot be checked
//    against (no weight given, no size known) excludes it: the owner asked for it explicitly.
// 2. Welfare (SoPup): a dog in Puppy Mode has its behavioural fields held back (play styles,
//    environment, neuter status; `WelfarePolicy.heldBackInPuppyMode`). So when the seeker
//    or the candidate is in Puppy Mode, the neutered-only and play-style preferences are not
//    applied to that pair, its compatibility uses only age closeness and size difference, and
//    its reasons never mention a held-back field. Age, sex, size, weight and distance still apply.
// 3. Compatibility, in 0...1: a weighted mean of components each in 0...1 (weights in
//    `Matchmaker.ComponentWeights`). A component whose data one of the dogs lacks counts as a
//    neutral 0.5 and gives no reason. A toy with a giant (size classes four apart) is a welfare
//    risk: such a pair's compatibility is 0 and it gets no compatibility reason at all.
// 4. Distance score, in 0...1: 0.5^(km / `distanceHalfLifeKm`), from the Haversine distance.
// 5. The combined score is `compatibilityWeight × compatibility + distanceWeight × distance
//    score`, over the sum of the two weights. Owners see it as a whole percentage (`score`); the
//    deck orders by `rank`, the combined score rounded to millionths, so that dogs scoring the
//    same up to floating-point noise tie exactly and then go by pet id.
//
// Another member's location never leaves the server: a card carries the exact distance for
// the server's own use and, for clients, only the whole-kilometre `roundedDistance`.

// MARK: - Preferences

/// What an owner looks for in a dog's Playdates deck, saved per pet. `nil` means "any"; an
/// empty set counts as `nil` too (`validated()` turns it into `nil`).
public struct DeckPreferences: Sendable, Codable, Equatable {
    public static let defaultMaxDistanceKm = 25.0
    public static let distanceRangeKm = 1.0...200.0
    public static let ageRangeMonths = 0...480
    public static let weightRangeKg = 0.1...150.0

    public var maxDistanceKm: Double
    public var minAgeMonths: Int?
    public var maxAgeMonths: Int?
    public var sexes: Set<PetSex>?
    public var neuteredOnly: Bool
    /// Size classes; a candidate without a class uses the one its weight implies.
    public var sizes: Set<SizeClass>?
    public var minWeightKg: Double?
    public var maxWeightKg: Double?
    /// The candidate must share at least one of these.
    public var playStyles: Set<PlayStyle>?

    public init(
        maxDistanceKm: Double = 25, minAgeMonths: Int? = nil, maxAgeMonths: Int? = nil,
        sexes: Set<PetSex>? = nil, neuteredOnly: Bool = false, sizes: Set<SizeClass>? = nil,
        minWeightKg: Double? = nil, maxWeightKg: Double? = nil, playStyles: Set<PlayStyle>? = nil
    ) {
        self.maxDistanceKm = maxDistanceKm
        self.minAgeMonths = minAgeMonths
        self.maxAgeMonths = maxAgeMonths
        self.sexes = sexes
        self.neuteredOnly = neuteredOnly
        self.sizes = sizes
        self.minWeightKg = minWeightKg
        self.maxWeightKg = maxWeightKg
        self.playStyles = playStyles
    }

    private enum CodingKeys: String, CodingKey {
        case maxDistanceKm, minAgeMonths, maxAgeMonths, sexes, neuteredOnly, sizes, minWeightKg, maxWeightKg, playStyles
    }

    /// Absent keys take their defaults, so preferences saved before a field existed still decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        maxDistanceKm =
            try container.decodeIfPresent(Double.self, forKey: .maxDistanceKm)
            ?? DeckPreferences.defaultMaxDistanceKm
        minAgeMonths = try container.decodeIfPresent(Int.self, forKey: .minAgeMonths)
        maxAgeMonths = try container.decodeIfPresent(Int.self, forKey: .maxAgeMonths)
        sexes = try container.decodeIfPresent(Set<PetSex>.self, forKey: .sexes)
        neuteredOnly = try container.decodeIfPresent(Bool.self, forKey: .neuteredOnly) ?? false
        sizes = try container.decodeIfPresent(Set<SizeClass>.self, forKey: .sizes)
        minWeightKg = try container.decodeIfPresent(Double.self, forKey: .minWeightKg)
        maxWeightKg = try container.decodeIfPresent(Double.self, forKey: .maxWeightKg)
        playStyles = try container.decodeIfPresent(Set<PlayStyle>.self, forKey: .playStyles)
    }

    /// These preferences with empty sets read as `nil`; throws 422 naming every bad field:
    /// `maxDistanceKm` from 1 to 200 km, ages from 0 to 480 months, weights from 0.1 to 150 kg,
    /// and each minimum no more than its maximum (reported on the maximum).
    public func validated() throws(Problem) -> DeckPreferences {
        var errors: [FieldError] = []
        if !DeckPreferences.distanceRangeKm.contains(maxDistanceKm) {
            errors.append(FieldError(field: "maxDistanceKm", message: "must be from 1 to 200 km"))
        }
        let ages = DeckPreferences.ageRangeMonths
        if let minAgeMonths, !ages.contains(minAgeMonths) {
            errors.append(FieldError(field: "minAgeMonths", message: "must be from 0 to 480 months"))
        }
        if let maxAgeMonths, !ages.contains(maxAgeMonths) {
            errors.append(FieldError(field: "maxAgeMonths", message: "must be from 0 to 480 months"))
        }
        if let minAgeMonths, let maxAgeMonths, ages.contains(minAgeMonths), ages.contains(maxAgeMonths),
            minAgeMonths > maxAgeMonths
        {
            errors.append(FieldError(field: "maxAgeMonths", message: "must not be less than minAgeMonths"))
        }
        // `contains` is false for NaN and the infinities, so they are refused here as well.
        let weights = DeckPreferences.weightRangeKg
        if let minWeightKg, !weights.contains(minWeightKg) {
            errors.append(FieldError(field: "minWeightKg", message: "must be from 0.1 to 150 kg"))
        }
        if let maxWeightKg, !weights.contains(maxWeightKg) {
            errors.append(FieldError(field: "maxWeightKg", message: "must be from 0.1 to 150 kg"))
        }
        if let minWeightKg, let maxWeightKg, weights.contains(minWeightKg), weights.contains(maxWeightKg),
            minWeightKg > maxWeightKg
        {
            errors.append(FieldError(field: "maxWeightKg", message: "must not be less than minWeightKg"))
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        var result = self
        if sexes?.isEmpty == true { result.sexes = nil }
        if sizes?.isEmpty == true { result.sizes = nil }
        if playStyles?.isEmpty == true { result.playStyles = nil }
        return result
    }
}

// MARK: - Dogs, cards and positions

/// A dog as the deck sees it; the server builds these from its index. Every `DeckDog` is a
/// dog: only dogs have a deck and only dogs are indexed.
public struct DeckDog: Sendable, Equatable {
    public var id: Pet.ID
    public var ownerID: User.ID
    /// The owner's saved location. Server-internal: never sent to another member.
    public var location: GeoPoint
    public var birthDate: LocalDate
    public var sex: PetSex
    public var neutered: Bool?
    public var sizeClass: SizeClass?
    public var weightKg: Double?
    public var playStyles: [PlayStyle]
    public var energy: EnergyLevel?
    public var environment: PetEnvironment?
    public var mode: WelfareMode

    public init(
        id: Pet.ID, ownerID: User.ID, location: GeoPoint, birthDate: LocalDate, sex: PetSex,
        neutered: Bool? = nil, sizeClass: SizeClass? = nil, weightKg: Double? = nil,
        playStyles: [PlayStyle] = [], energy: EnergyLevel? = nil, environment: PetEnvironment? = nil,
        mode: WelfareMode
    ) {
        self.id = id
        self.ownerID = ownerID
        self.location = location
        self.birthDate = birthDate
        self.sex = sex
        self.neutered = neutered
        self.sizeClass = sizeClass
        self.weightKg = weightKg
        self.playStyles = playStyles
        self.energy = energy
        self.environment = environment
        self.mode = mode
    }

    /// The size class given, or the one the weight implies.
    public var effectiveSizeClass: SizeClass? { SizeClass.effective(given: sizeClass, weightKg: weightKg) }

    /// Whole months from the birth date to `today`, counted as `PetAge` counts them (a month is
    /// complete on the same day of the month); 0 for a birth date in the future.
    public func ageInMonths(on today: LocalDate) -> Int {
        let months =
            (today.year - birthDate.year) * 12 + (today.month - birthDate.month)
            - (today.day < birthDate.day ? 1 : 0)
        return Swift.max(0, months)
    }
}

/// One card of the deck: who, how well they fit, how far, and why.
public struct DeckCard: Sendable, Equatable {
    public var petID: Pet.ID
    /// The combined score as a whole percentage, 0...100: what the owner sees.
    public var score: Int
    /// The combined score rounded to millionths, 0...1: what the deck orders by.
    public var rank: Double
    /// 0...1.
    public var compatibility: Double
    /// 0...1.
    public var distanceScore: Double
    /// The exact distance. Server-internal: never sent to clients.
    public var distanceKm: Double
    /// "< 1 km", "3 km": whole kilometres, rounded half up.
    public var roundedDistance: String
    /// In words, most important first, at most four, always ending with the distance
    /// ("both love chase games", "similar energy", "similar size", "3 km away").
    public var reasons: [String]

    public init(
        petID: Pet.ID, score: Int, rank: Double, compatibility: Double, distanceScore: Double,
        distanceKm: Double, roundedDistance: String, reasons: [String]
    ) {
        self.petID = petID
        self.score = score
        self.rank = rank
        self.compatibility = compatibility
        self.distanceScore = distanceScore
        self.distanceKm = distanceKm
        self.roundedDistance = roundedDistance
        self.reasons = reasons
    }
}

/// A card's place in the deck: higher `score` (a card's `rank`) first, then pet id ascending
/// (byte by byte, the order of the ids' canonical text). `<` means "comes earlier in the deck".
/// A page cursor is the position of the page's last card; ids are unique, so the order is total
/// and the next page never repeats a card.
public struct DeckPosition: Sendable, Hashable, Comparable, Codable {
    public var score: Double
    public var petID: Pet.ID

    public init(score: Double, petID: Pet.ID) {
        self.score = score
        self.petID = petID
    }

    public static func < (lhs: DeckPosition, rhs: DeckPosition) -> Bool {
        if lhs.score != rhs.score { return lhs.score > rhs.score }
        return idPrecedes(lhs.petID, rhs.petID)
    }
}

/// Whether `a` sorts before `b`, comparing the UUID bytes in order (the order of their text).
private func idPrecedes(_ a: Pet.ID, _ b: Pet.ID) -> Bool {
    Swift.withUnsafeBytes(of: a.rawValue.uuid) { lhs in
        Swift.withUnsafeBytes(of: b.rawValue.uuid) { rhs in lhs.lexicographicallyPrecedes(rhs) }
    }
}

// MARK: - Matchmaker

/// The Playdates matchmaking rules (see the overview at the top of this file).
///
/// Every weight lives here:
/// - combined score: compatibility 0.7, distance 0.3 (`compatibilityWeight`, `distanceWeight`);
/// - distance score: halves every 5 km (`distanceHalfLifeKm`): 1 at 0 km, 0.5 at 5, 0.25 at 10;
/// - compatibility (`componentWeights`): play style 0.30, energy 0.25, size 0.20, sex and neuter
///   pairing 0.15, environment 0.10; a pair with a dog in Puppy Mode: age 0.5, size 0.5.
/// Weights are divided by their sum, so only their ratios matter.
public struct Matchmaker: Sendable {
    /// Compatibility weights, each component scored in 0...1:
    /// - play style: shared styles over the smaller dog's number of styles (1 when all of one
    ///   dog's styles are the other's, 0 when none is shared);
    /// - energy: by levels apart, 0 → 1, 1 → 0.6, 2 → 0.2, 3 → 0;
    /// - size: by classes apart, 0 → 1, 1 → 0.6, 2 → 0.2, 3 → 0.1 (4, a toy with a giant, vetoes
    ///   the pair);
    /// - sex and neuter pairing: mixed sexes with at least one neutered, or both neutered → 1;
    ///   two females with one intact → 0.8; a male and a female both intact → 0.7 (an unplanned
    ///   litter is possible); two intact females → 0.6; two males with one intact → 0.6; two
    ///   intact males → 0 (the most likely to fight). An unknown neuter status counts as either,
    ///   equally likely (the mean of both); an unknown sex makes the component neutral;
    /// - environment: half gardens (both 1, one 0.5, neither 0), half area (same 1, city–suburb
    ///   or suburb–rural 0.5, city–rural 0);
    /// - Puppy Mode pairs: age closeness, 1 − months apart / 12 (0 from a year apart), and size.
    public struct ComponentWeights: Sendable, Equatable {
        public var playStyle = 0.30
        public var energy = 0.25
        public var size = 0.20
        public var sexAndNeuter = 0.15
        public var environment = 0.10
        public var puppyAge = 0.5
        public var puppySize = 0.5

        public init() {}
    }

    public var compatibilityWeight = 0.7
    public var distanceWeight = 0.3
    /// The distance score is 0.5^(km / distanceHalfLifeKm).
    public var distanceHalfLifeKm = 5.0
    public var componentWeights = ComponentWeights()

    public init() {}

    /// The mean Earth radius (IUGG), used for every distance.
    public static let earthRadiusKm = 6371.0088
    /// Reasons per card, the distance included.
    public static let maximumReasons = 4

    static let energyScores = [1.0, 0.6, 0.2, 0.0]
    static let sizeScores = [1.0, 0.6, 0.2, 0.1, 0.0]
    /// Size classes apart at which the pair is a welfare risk (toy with giant).
    static let vetoSizeGap = 4
    /// A component one of the dogs has no data for.
    static let neutral = 0.5
    /// Puppy pairs: age closeness reaches 0 this many months apart.
    static let puppyAgeSpanMonths = 12.0
    /// Puppy pairs: "similar age" up to this many months apart.
    static let similarAgeMonths = 3
    /// How much heavier one dog may be than the other for their card to say "similar size".
    static let similarWeightRatio = 1.5

    // MARK: Distance

    /// The great-circle distance in km (Haversine, on a sphere of `earthRadiusKm`). Symmetric,
    /// finite for any input, 0 for the same point.
    public static func haversineKm(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        DistancesFrom(a).km(to: b)
    }

    /// Great-circle distances from one point, with what depends on that point alone worked out
    /// once: a deck measures thousands of dogs from the same seeker. The same operations in the
    /// same order as ever, so every distance is bit for bit what it was, which the naive path's
    /// equality with the index's rests on.
    struct DistancesFrom {
        let origin: GeoPoint
        let latitude: Double
        let cosLatitude: Double

        init(_ origin: GeoPoint) {
            self.origin = origin
            latitude = origin.latitude * .pi / 180
            cosLatitude = cos(latitude)
        }

        func km(to b: GeoPoint) -> Double {
            let lat2 = b.latitude * .pi / 180
            let halfDLat = (lat2 - latitude) / 2
            let halfDLon = (b.longitude - origin.longitude) * .pi / 360
            let sinLat = sin(halfDLat)
            let sinLon = sin(halfDLon)
            let h = sinLat * sinLat + cosLatitude * cos(lat2) * sinLon * sinLon
            // Rounding can push h a hair past 1 for antipodal points, where asin would give NaN;
            // non-finite coordinates (never in a validated GeoPoint) come out as the farthest apart.
            let clamped = h.isNaN ? 1 : Swift.min(Swift.max(h, 0), 1)
            return 2 * Matchmaker.earthRadiusKm * asin(clamped.squareRoot())
        }
    }

    /// The distance as members see it: "< 1 km" below 1 km, otherwise whole kilometres rounded
    /// half up ("1 km" from 1.0 to just under 1.5, "3 km" from 2.5). Negative and NaN values,
    /// which `haversineKm` never returns, read as "< 1 km".
    public static func roundedDistance(km: Double) -> String {
        guard let whole = wholeKilometres(km) else { return "< 1 km" }
        return "\(whole) km"
    }

    /// Whole kilometres rounded half up, or nil below 1 km.
    static func wholeKilometres(_ km: Double) -> Int? {
        guard km >= 1 else { return nil }
        // No two points on Earth are farther apart than half the equator; the cap keeps
        // `Int(_:)` safe from infinity.
        return Int(Swift.min(km, 20_038).rounded(.toNearestOrAwayFromZero))
    }

    /// The last reason on every card: "less than 1 km away", "3 km away".
    static func distanceReason(km: Double) -> String {
        guard let whole = wholeKilometres(km) else { return "less than 1 km away" }
        return "\(whole) km away"
    }

    /// The cheap latitude/longitude box around a circle of `radiusKm`, for pre-filtering in the
    /// database: every point within the radius (by `haversineKm`) lies inside it; some points
    /// inside it are farther, so the exact distance is still checked afterwards.
    ///
    /// - Latitude: the centre's ± the radius as an angle, clamped to -90...90.
    /// - Longitude: ± asin(sin(radius angle) / cos(latitude)), the widest the circle reaches.
    /// - When the circle reaches a pole it covers every longitude there: -180...180.
    /// - When the box would cross the antimeridian (±180°), one closed range cannot wrap around,
    ///   so it also widens to -180...180; the latitude range still narrows the search.
    /// - Each side is padded by 1e-7° (about a centimetre) so that rounding never leaves out a
    ///   point exactly on the circle. Non-finite input gives the whole globe.
    public static func boundingBox(around center: GeoPoint, radiusKm: Double)
        -> (latitude: ClosedRange<Double>, longitude: ClosedRange<Double>)
    {
        let everywhere = (latitude: -90.0...90.0, longitude: -180.0...180.0)
        guard center.latitude.isFinite, center.longitude.isFinite, !radiusKm.isNaN else { return everywhere }
        let padding = 1e-7
        let latitude = Swift.min(Swift.max(center.latitude, -90), 90)
        let angle = Swift.max(radiusKm, 0) / earthRadiusKm // radians
        let angleDegrees = angle * 180 / .pi
        let south = latitude - angleDegrees - padding
        let north = latitude + angleDegrees + padding
        let latitudes = Swift.max(south, -90)...Swift.min(north, 90)
        guard south > -90, north < 90, angle < .pi / 2 else { return (latitudes, everywhere.longitude) }
        let ratio = sin(angle) / cos(latitude * .pi / 180)
        guard ratio < 1 else { return (latitudes, everywhere.longitude) }
        let halfWidth = asin(ratio) * 180 / .pi + padding
        let west = center.longitude - halfWidth
        let east = center.longitude + halfWidth
        guard west >= -180, east <= 180 else { return (latitudes, everywhere.longitude) }
        return (latitudes, west...east)
    }

    // MARK: Hard filters

    /// Whether `candidate` may appear in `seeker`'s deck at all. `excludedPets` holds the
    /// owner's own pets and the dogs this dog already swiped; `blockedOwners` the members
    /// blocked by or blocking the owner. The seeker is never its own candidate, and no pet of
    /// the seeker's owner ever passes.
    public func passesHardFilters(
        seeker: DeckDog, candidate: DeckDog, preferences: DeckPreferences,
        excludedPets: Set<Pet.ID>, blockedOwners: Set<User.ID>,
        today: LocalDate
    ) -> Bool {
        distanceIfPassing(
            seeker: seeker, candidate: candidate, preferences: preferences,
            excludedPets: excludedPets, blockedOwners: blockedOwners, today: today) != nil
    }

    /// The candidate's distance from the seeker when it passes every hard filter, else nil.
    func distanceIfPassing(
        seeker: DeckDog, candidate: DeckDog, preferences: DeckPreferences,
        excludedPets: Set<Pet.ID>, blockedOwners: Set<User.ID>,
        today: LocalDate
    ) -> Double? {
        guard !isLeftOut(candidate, excludedPets: excludedPets, blockedOwners: blockedOwners) else { return nil }
        return distanceIfPassingPreferences(seeker: seeker, candidate: candidate, preferences: preferences, today: today)
    }

    /// A dog already swiped (or otherwise excluded), or of a blocked member.
    func isLeftOut(_ candidate: DeckDog, excludedPets: Set<Pet.ID>, blockedOwners: Set<User.ID>) -> Bool {
        excludedPets.contains(candidate.id) || blockedOwners.contains(candidate.ownerID)
    }

    /// The candidate's distance when it passes every hard filter but `isLeftOut`, else nil.
    func distanceIfPassingPreferences(
        seeker: DeckDog, candidate: DeckDog, preferences: DeckPreferences,
        today: LocalDate
    ) -> Double? {
        distanceIfPassingPreferences(
            seeker: seeker, candidate: candidate, preferences: preferences, today: today,
            measuredFrom: DistancesFrom(seeker.location), knownKm: nil)
    }

    /// The same, measuring from `seekerDistances` (made from the seeker's location), or taking
    /// `knownKm` when the caller has measured it already.
    func distanceIfPassingPreferences(
        seeker: DeckDog, candidate: DeckDog, preferences: DeckPreferences,
        today: LocalDate, measuredFrom seekerDistances: DistancesFrom,
        knownKm: Double?
    ) -> Double? {
        guard candidate.id != seeker.id, candidate.ownerID != seeker.ownerID else { return nil }
        let age = candidate.ageInMonths(on: today)
        if let youngest = preferences.minAgeMonths, age < youngest { return nil }
        if let oldest = preferences.maxAgeMonths, age > oldest { return nil }
        if let sexes = preferences.sexes, !sexes.isEmpty, !sexes.contains(candidate.sex) { return nil }
        if let sizes = preferences.sizes, !sizes.isEmpty {
            guard let size = candidate.effectiveSizeClass, sizes.contains(size) else { return nil }
        }
        if preferences.minWeightKg != nil || preferences.maxWeightKg != nil {
            guard let weight = candidate.weightKg else { return nil }
            // Written as "not within" so that a NaN weight or bound never passes.
            if let lightest = preferences.minWeightKg, !(weight >= lightest) { return nil }
            if let heaviest = preferences.maxWeightKg, !(weight <= heaviest) { return nil }
        }
        // Behavioural preferences: locked, hence not applied, when either dog is in Puppy Mode.
        if !Matchmaker.involvesPuppy(seeker, candidate) {
            if preferences.neuteredOnly, candidate.neutered != true { return nil }
            if let styles = preferences.playStyles, !styles.isEmpty,
                !candidate.playStyles.contains(where: { styles.contains($0) })
            {
                return nil
            }
        }
        // Distance last: it is the costliest check.
        let distance = knownKm ?? seekerDistances.km(to: candidate.location)
        guard distance <= preferences.maxDistanceKm else { return nil }
        return distance
    }

    static func involvesPuppy(_ a: DeckDog, _ b: DeckDog) -> Bool {
        a.mode == .puppy || b.mode == .puppy
    }

    // MARK: Scores

    /// The card for `candidate` in `seeker`'s deck, whatever the filters say.
    public func card(seeker: DeckDog, candidate: DeckDog, today: LocalDate) -> DeckCard {
        card(
            seeker: seeker, candidate: candidate,
            distanceKm: Matchmaker.haversineKm(seeker.location, candidate.location), today: today)
    }

    func card(seeker: DeckDog, candidate: DeckDog, distanceKm: Double, today: LocalDate) -> DeckCard {
        let pair = compatibility(of: seeker, with: candidate, today: today, explain: true)
        let proximity = distanceScore(km: distanceKm)
        let value = combined(compatibility: pair.value, distanceScore: proximity)
        var reasons = Array(pair.reasons.prefix(Matchmaker.maximumReasons - 1))
        reasons.append(Matchmaker.distanceReason(km: distanceKm))
        return DeckCard(
            petID: candidate.id, score: Int((value * 100).rounded()), rank: Matchmaker.rank(value),
            compatibility: pair.value, distanceScore: proximity, distanceKm: distanceKm,
            roundedDistance: Matchmaker.roundedDistance(km: distanceKm), reasons: reasons)
    }

    /// 0.5^(km / half-life), in 0...1; 0 when it cannot be computed.
    func distanceScore(km: Double) -> Double {
        guard distanceHalfLifeKm > 0 else { return 0 }
        return Matchmaker.unitInterval(pow(0.5, Swift.max(km, 0) / distanceHalfLifeKm))
    }

    /// The weighted mean of compatibility and distance score, in 0...1.
    func combined(compatibility: Double, distanceScore: Double) -> Double {
        Matchmaker.weightedMean(
            compatibilityWeight * compatibility + distanceWeight * distanceScore,
            over: compatibilityWeight + distanceWeight)
    }

    /// What the deck orders by: the combined score rounded to millionths, so that equal dogs
    /// tie exactly whatever the floating-point noise, and the same on every machine.
    static func rank(_ combined: Double) -> Double {
        (combined * 1_000_000).rounded() / 1_000_000
    }

    static func weightedMean(_ weightedSum: Double, over totalWeight: Double) -> Double {
        guard totalWeight > 0 else { return 0 }
        return unitInterval(weightedSum / totalWeight)
    }

    /// `value` clamped to 0...1; 0 when it is NaN.
    static func unitInterval(_ value: Double) -> Double {
        value.isNaN ? 0 : Swift.min(Swift.max(value, 0), 1)
    }

    /// A pair's compatibility in 0...1 and, when `explain`, its reasons most important first
    /// (in the order of the component weights). The deck ranks without the reasons, which
    /// spares building strings for dogs that never reach the page.
    func compatibility(
        of seeker: DeckDog, with candidate: DeckDog, today: LocalDate,
        explain: Bool
    ) -> (value: Double, reasons: [String]) {
        let sizesApart = Matchmaker.sizeGap(seeker, candidate)
        if let gap = sizesApart, gap >= Matchmaker.vetoSizeGap { return (0, []) }
        let size = sizesApart.map { Matchmaker.sizeScores[$0] } ?? Matchmaker.neutral
        let similarSize = Matchmaker.similarSize(seeker, candidate)
        let weights = componentWeights
        var reasons: [String] = []

        if Matchmaker.involvesPuppy(seeker, candidate) {
            let monthsApart = abs(seeker.ageInMonths(on: today) - candidate.ageInMonths(on: today))
            let age = Swift.max(0, 1 - Double(monthsApart) / Matchmaker.puppyAgeSpanMonths)
            if explain {
                if monthsApart <= Matchmaker.similarAgeMonths { reasons.append("similar age") }
                if similarSize { reasons.append("similar size") }
            }
            let value = Matchmaker.weightedMean(
                weights.puppyAge * age + weights.puppySize * size,
                over: weights.puppyAge + weights.puppySize)
            return (value, reasons)
        }

        let play = Matchmaker.playStyleMatch(seeker.playStyles, candidate.playStyles)
        let levelsApart = Matchmaker.energyGap(seeker.energy, candidate.energy)
        let energy = levelsApart.map { Matchmaker.energyScores[$0] } ?? Matchmaker.neutral
        let pairing = Matchmaker.pairingScore(seeker, candidate)
        let environment = Matchmaker.environmentScore(seeker.environment, candidate.environment)
        if explain {
            if let shared = play.firstShared { reasons.append(Matchmaker.playReason(shared)) }
            if let gap = levelsApart, gap <= 1 { reasons.append("similar energy") }
            if similarSize { reasons.append("similar size") }
            if seeker.neutered == true, candidate.neutered == true { reasons.append("both neutered") }
            if let mine = seeker.environment, let theirs = candidate.environment {
                if mine.hasGarden, theirs.hasGarden { reasons.append("both have a garden") }
                if mine.area == theirs.area { reasons.append(Matchmaker.areaReason(mine.area)) }
            }
        }
        let weightedSum =
            weights.playStyle * play.score + weights.energy * energy + weights.size * size
            + weights.sexAndNeuter * pairing + weights.environment * environment
        let totalWeight =
            weights.playStyle + weights.energy + weights.size + weights.sexAndNeuter
            + weights.environment
        return (Matchmaker.weightedMean(weightedSum, over: totalWeight), reasons)
    }

    /// The highest compatibility a candidate can have with a seeker given the component scores
    /// its bucket fixes (`DeckBuckets`): the sex and neuter pairing and the environment count as
    /// perfect, and a puppy pair's age closeness as identical; `sizeScore` is nil for a vetoed
    /// pair (toy with giant). Kept next to `compatibility(of:with:)`, which it bounds: the same
    /// arithmetic in the same order with the open components at their best, so that rounding
    /// can never put it below.
    func compatibilityCeiling(playScore: Double, energyScore: Double, sizeScore: Double?, puppyPair: Bool) -> Double {
        guard let sizeScore else { return 0 }
        let weights = componentWeights
        if puppyPair {
            return Matchmaker.weightedMean(
                weights.puppyAge * 1 + weights.puppySize * sizeScore,
                over: weights.puppyAge + weights.puppySize)
        }
        let weightedSum =
            weights.playStyle * playScore + weights.energy * energyScore + weights.size * sizeScore
            + weights.sexAndNeuter * 1 + weights.environment * 1
        let totalWeight =
            weights.playStyle + weights.energy + weights.size + weights.sexAndNeuter
            + weights.environment
        return Matchmaker.weightedMean(weightedSum, over: totalWeight)
    }

    /// Shared styles over the smaller dog's count of styles, neutral when either has none, and
    /// the first shared style in the seeker's order (for the reason).
    static func playStyleMatch(_ mine: [PlayStyle], _ theirs: [PlayStyle]) -> (score: Double, firstShared: PlayStyle?) {
        var myCount = 0
        var theirCount = 0
        var shared = 0
        // Counting over the cases ignores any duplicates in the lists.
        for style in PlayStyle.allCases {
            let inMine = mine.contains(style)
            let inTheirs = theirs.contains(style)
            if inMine { myCount += 1 }
            if inTheirs { theirCount += 1 }
            if inMine, inTheirs { shared += 1 }
        }
        guard myCount > 0, theirCount > 0 else { return (neutral, nil) }
        let score = Double(shared) / Double(Swift.min(myCount, theirCount))
        return (score, mine.first(where: { theirs.contains($0) }))
    }

    static func energyGap(_ a: EnergyLevel?, _ b: EnergyLevel?) -> Int? {
        guard let a, let b else { return nil }
        return abs(energyIndex(a) - energyIndex(b))
    }

    static func energyIndex(_ level: EnergyLevel) -> Int {
        switch level {
        case .low: return 0
        case .moderate: return 1
        case .high: return 2
        case .veryHigh: return 3
        }
    }

    /// Size classes apart (0...4), or nil when either size is unknown.
    /// Whether a card may say "similar size": with both weights known, the heavier at most
    /// `similarWeightRatio` times the lighter (a 7 kg dog beside a 24 kg one is not, though
    /// their size classes are neighbours); otherwise the same size class. The score still
    /// counts a neighbouring class as close (`sizeScores`); only the words are stricter.
    static func similarSize(_ a: DeckDog, _ b: DeckDog) -> Bool {
        if let x = a.weightKg, let y = b.weightKg, x > 0, y > 0 {
            return Swift.max(x, y) <= Swift.min(x, y) * similarWeightRatio
        }
        return sizeGap(a, b) == 0
    }

    static func sizeGap(_ a: DeckDog, _ b: DeckDog) -> Int? {
        guard let x = a.effectiveSizeClass, let y = b.effectiveSizeClass else { return nil }
        return abs(sizeIndex(x) - sizeIndex(y))
    }

    static func sizeIndex(_ size: SizeClass) -> Int {
        switch size {
        case .toy: return 0
        case .small: return 1
        case .medium: return 2
        case .large: return 3
        case .giant: return 4
        }
    }

    /// The sex and neuter pairing (see `ComponentWeights`).
    static func pairingScore(_ a: DeckDog, _ b: DeckDog) -> Double {
        guard a.sex != .unknown, b.sex != .unknown else { return neutral }
        // An unknown neuter status is averaged over both: neutered first, then intact. Counted
        // out rather than listed in arrays, which cost two allocations for every dog scored.
        let aCount = a.neutered == nil ? 2 : 1
        let bCount = b.neutered == nil ? 2 : 1
        var total = 0.0
        for aOption in 0..<aCount {
            let aNeutered = a.neutered ?? (aOption == 0)
            for bOption in 0..<bCount {
                let bNeutered = b.neutered ?? (bOption == 0)
                let intact = (aNeutered ? 0 : 1) + (bNeutered ? 0 : 1)
                total += knownPairingScore(sameSex: a.sex == b.sex, males: a.sex == .male, intact: intact)
            }
        }
        return total / Double(aCount * bCount)
    }

    /// `intact` is how many of the two are intact; `males` matters only for the same sex.
    static func knownPairingScore(sameSex: Bool, males: Bool, intact: Int) -> Double {
        if intact == 0 { return 1 }
        if !sameSex { return intact == 1 ? 1 : 0.7 }
        if males { return intact == 1 ? 0.6 : 0 }
        return intact == 1 ? 0.8 : 0.6
    }

    static func environmentScore(_ a: PetEnvironment?, _ b: PetEnvironment?) -> Double {
        guard let a, let b else { return neutral }
        var gardens = 0
        if a.hasGarden { gardens += 1 }
        if b.hasGarden { gardens += 1 }
        let areaGap = abs(areaIndex(a.area) - areaIndex(b.area))
        let area = areaGap == 0 ? 1.0 : (areaGap == 1 ? 0.5 : 0.0)
        return (Double(gardens) / 2 + area) / 2
    }

    static func areaIndex(_ area: HomeArea) -> Int {
        switch area {
        case .city: return 0
        case .suburb: return 1
        case .rural: return 2
        }
    }

    static func playReason(_ style: PlayStyle) -> String {
        switch style {
        case .chase: return "both love chase games"
        case .wrestle: return "both love to wrestle"
        case .tug: return "both love tug games"
        case .fetch: return "both love fetch"
        case .gentle: return "both like gentle play"
        case .independent: return "both like to play on their own"
        }
    }

    static func areaReason(_ area: HomeArea) -> String {
        switch area {
        case .city: return "both city dogs"
        case .suburb: return "both suburban"
        case .rural: return "both rural"
        }
    }

    // MARK: The deck

    /// Filters, scores, sorts and pages: the cards strictly after `after` (nil for the first
    /// page), at most `limit`, in deck order (`DeckPosition`). A pet listed twice among the
    /// candidates appears once.
    public func deck(
        seeker: DeckDog, candidates: [DeckDog], preferences: DeckPreferences,
        excludedPets: Set<Pet.ID>, blockedOwners: Set<User.ID>, today: LocalDate,
        after: DeckPosition?, limit: Int
    ) -> [DeckCard] {
        var ranker = DeckRanker(
            matchmaker: self, seeker: seeker, preferences: preferences, excludedPets: excludedPets,
            blockedOwners: blockedOwners, today: today, after: after, limit: limit)
        for candidate in candidates { ranker.consider(candidate) }
        return ranker.cards()
    }

    /// The card's place in the deck; the cursor for the page it ends.
    public func position(of card: DeckCard) -> DeckPosition {
        DeckPosition(score: card.rank, petID: card.petID)
    }
}

/// The best `limit` cards after `after` among the dogs it is shown, kept as they come in: each
/// dog is filtered and scored once, and only the page's dogs get reasons. `deck` shows it every
/// candidate at once; the candidate index shows it block by block.
struct DeckRanker {
    let matchmaker: Matchmaker
    let seeker: DeckDog
    let preferences: DeckPreferences
    let excludedPets: Set<Pet.ID>
    let blockedOwners: Set<User.ID>
    let today: LocalDate
    let after: DeckPosition?
    let limit: Int
    let seekerDistances: Matchmaker.DistancesFrom
    /// In deck order, at most `limit`.
    private(set) var top: [(position: DeckPosition, dog: DeckDog, distanceKm: Double)] = []

    init(
        matchmaker: Matchmaker, seeker: DeckDog, preferences: DeckPreferences, excludedPets: Set<Pet.ID>,
        blockedOwners: Set<User.ID>, today: LocalDate, after: DeckPosition?, limit: Int
    ) {
        self.matchmaker = matchmaker
        self.seeker = seeker
        self.preferences = preferences
        self.excludedPets = excludedPets
        self.blockedOwners = blockedOwners
        self.today = today
        self.after = after
        self.limit = max(0, limit)
        seekerDistances = Matchmaker.DistancesFrom(seeker.location)
    }

    /// The last card of a full page: nothing scoring less can join any more. Nil until full.
    var worst: DeckPosition? { top.count == limit ? top.last?.position : nil }

    /// Filters and scores a dog; a pet already on the page is skipped. `knownKm` is its distance
    /// from the seeker when the caller has measured it already (`Matchmaker.DistancesFrom`).
    mutating func consider(_ candidate: DeckDog, knownKm: Double? = nil) {
        guard limit > 0 else { return }
        // The excluded pets and blocked owners are hard filters like the others, checked
        // last: they hash the dog's identifiers, and few of the dogs read get that far.
        guard
            let distance = matchmaker.distanceIfPassingPreferences(
                seeker: seeker, candidate: candidate, preferences: preferences, today: today,
                measuredFrom: seekerDistances, knownKm: knownKm)
        else { return }
        let fit = matchmaker.compatibility(of: seeker, with: candidate, today: today, explain: false).value
        let value = matchmaker.combined(compatibility: fit, distanceScore: matchmaker.distanceScore(km: distance))
        let position = DeckPosition(score: Matchmaker.rank(value), petID: candidate.id)
        if let after, !(after < position) { return }
        if let worst, !(position < worst) { return }
        if matchmaker.isLeftOut(candidate, excludedPets: excludedPets, blockedOwners: blockedOwners) { return }
        // Binary search for the place in deck order, then keep only `limit`.
        var low = 0
        var high = top.count
        while low < high {
            let middle = (low + high) / 2
            if top[middle].position < position { low = middle + 1 } else { high = middle }
        }
        // A pet given twice has the same position both times: the second lands on the first.
        // (One that left the page, or never made it, is behind `worst` again.) Cheaper than
        // remembering every pet seen, which hashed each of the thousands of dogs read.
        if low < top.count, top[low].position == position { return }
        top.insert((position: position, dog: candidate, distanceKm: distance), at: low)
        if top.count > limit { top.removeLast() }
    }

    /// The page, with reasons.
    func cards() -> [DeckCard] {
        top.map { matchmaker.card(seeker: seeker, candidate: $0.dog, distanceKm: $0.distanceKm, today: today) }
    }
}
