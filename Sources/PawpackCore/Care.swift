import Foundation

/// Namespace for the identifiers of the Care area: households that share pets, and what they
/// log about feeding and health.
public enum Care {
    /// A household: members who share pets' care, with an owner.
    public enum Family {
        public typealias ID = Identifier<Family>
    }

    /// A member's request to join a family with its invite code, until the owner answers.
    public enum JoinRequest {
        public typealias ID = Identifier<JoinRequest>
    }

    /// One food a pet eats, with its stock.
    public enum Food {
        public typealias ID = Identifier<Food>
    }

    /// One feed: a portion of a food given to a pet by a member.
    public enum Feed {
        public typealias ID = Identifier<Feed>
    }

    /// A pet's weight on a day.
    public enum Weight {
        public typealias ID = Identifier<Weight>
    }
}

/// How a food is counted: wet food in packets (boxes and bags hold several), dry food in grams.
public enum FoodKind: String, Sendable, Codable, CaseIterable {
    case wet, dry

    /// Stock and portions are kept as whole units so that a feed restores exactly what it took:
    /// quarter packets for wet food, grams for dry.
    public var unitsPerAmount: Int {
        switch self {
        case .wet: 4
        case .dry: 1
        }
    }

    /// The amount (packets or grams) in units; nil when it is not a whole number of units.
    public func units(of amount: Double) -> Int? {
        let units = amount * Double(unitsPerAmount)
        guard units.isFinite, units >= 0, units <= Double(Int32.max), units == units.rounded() else { return nil }
        return Int(units)
    }

    /// Units as packets or grams.
    public func amount(of units: Int) -> Double { Double(units) / Double(unitsPerAmount) }

    /// "packets" or "grams", as the API names an amount's unit.
    public var unitName: String {
        switch self {
        case .wet: "packets"
        case .dry: "grams"
        }
    }
}

/// A member's role in a family.
public enum FamilyRole: String, Sendable, Codable, CaseIterable, Comparable {
    /// Reads everything shared with the family; changes nothing.
    case viewer
    /// Logs feeds and weights, changes stock, marks medication given.
    case member
    /// Created the family (or took it over): invites, answers requests, removes members.
    case owner

    public static func < (lhs: FamilyRole, rhs: FamilyRole) -> Bool { lhs.rank < rhs.rank }

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .member: 1
        case .owner: 2
        }
    }
}

/// How close the next feed is.
public enum FeedState: String, Sendable, Codable, CaseIterable {
    /// Fed: the next feed is still ahead.
    case fed
    /// The next feed's time has come (or the pet has never been fed here).
    case due
    /// Well past the next feed's time.
    case overdue
}
