import Foundation

/// A portion as a member logs it: a share of a packet of wet food, or grams of dry food.
public enum Portion: Sendable, Equatable, Hashable {
    case packets(Double)
    case grams(Int)

    /// The portions wet food is logged in: a quarter, a half or a whole packet.
    public static let packetShares: [Double] = [0.25, 0.5, 1]
}

/// The feeding rules: portions and their units, the next feed, its state, stock and its alerts.
/// Pure; `now` and the household's time zone are inputs.
public struct FeedingRules: Sendable, Equatable {
    /// How long after the next feed's time a pet counts as overdue rather than due.
    public var overdueAfter: TimeInterval = 60 * 60
    /// A feed logged this soon after another member's feed of the same pet is asked about
    /// first ("Sam fed Miso 12 minutes ago — log anyway?").
    public var recentFeedWindow: TimeInterval = 30 * 60
    /// How far back a feed may be logged, and how far ahead of the server's clock a device's
    /// "now" may be (clocks drift).
    public var earliestFeedAge: TimeInterval = 31 * 24 * 60 * 60
    public var clockSkew: TimeInterval = 2 * 60
    /// Dry food portions, in grams.
    public var gramsPerPortion: ClosedRange<Int> = 1...1_000
    /// The days "runs out in about N days" reads.
    public var usageDays = 14
    /// Feeding gaps, in hours.
    public var gapHours: ClosedRange<Double> = 1...48
    public static let defaultGapHours: Double = 6

    public init() {}

    // MARK: Portions

    /// The portion checked against the food's kind: wet food in ¼, ½ or 1 packet, dry food in
    /// grams; its units (quarter packets or grams).
    public func units(of portion: Portion, kind: FoodKind, field: String = "portion") throws(Problem) -> Int {
        switch (portion, kind) {
        case (.packets(let packets), .wet):
            guard Portion.packetShares.contains(packets), let units = kind.units(of: packets) else {
                throw Problem.invalidField(field, "must be 0.25, 0.5 or 1 packet")
            }
            return units
        case (.grams(let grams), .dry):
            guard gramsPerPortion.contains(grams) else {
                throw Problem.invalidField(field, "must be from \(gramsPerPortion.lowerBound) to \(gramsPerPortion.upperBound) grams")
            }
            return grams
        case (.packets, .dry): throw Problem.invalidField(field, "is dry food: give grams, not packets")
        case (.grams, .wet): throw Problem.invalidField(field, "is wet food: give packets, not grams")
        }
    }

    /// How much of the feeding gap a portion lasts: half a packet, half the gap (Pawfolio);
    /// dry food as its share of the food's usual portion. Never more than one gap.
    public func gapShare(units: Int, kind: FoodKind, usualUnits: Int) -> Double {
        switch kind {
        case .wet: min(1, kind.amount(of: units))
        case .dry: usualUnits > 0 ? min(1, Double(units) / Double(usualUnits)) : 1
        }
    }

    // MARK: Time

    /// When a feed may be logged for: not in the future (beyond the skew), not older than
    /// `earliestFeedAge`.
    public func checkFeedTime(_ time: Date, now: Date, field: String = "fedAt") throws(Problem) {
        guard time <= now.addingTimeInterval(clockSkew) else { throw Problem.invalidField(field, "is in the future") }
        guard time >= now.addingTimeInterval(-earliestFeedAge) else {
            throw Problem.invalidField(field, "is more than \(Int(earliestFeedAge / 86_400)) days ago")
        }
    }

    public func gap(hours: Double, field: String = "feedingGapHours") throws(Problem) -> TimeInterval {
        guard hours.isFinite, gapHours.contains(hours), (hours * 4).rounded() == hours * 4 else {
            throw Problem.invalidField(
                field, "must be from \(Int(gapHours.lowerBound)) to \(Int(gapHours.upperBound)) hours, in quarter hours")
        }
        return hours * 3_600
    }

    /// The next feed: the last feed's time plus the gap times the share its portion lasts.
    /// Nil for a pet never fed here.
    public func nextFeed(lastFedAt: Date?, lastGapShare: Double, gap: TimeInterval) -> Date? {
        lastFedAt.map { $0.addingTimeInterval(gap * lastGapShare) }
    }

    public func state(next: Date?, now: Date) -> FeedState {
        guard let next else { return .due }
        if now < next { return .fed }
        return now < next.addingTimeInterval(overdueAfter) ? .due : .overdue
    }

    // MARK: Stock

    /// What a feed takes from a stock: its portion, or what is left when that is less. Nil
    /// when the food's stock is not kept.
    public func taken(units: Int, from stock: Int?) -> Int? {
        stock.map { min($0, units) }
    }

    /// "Runs out in about N days": the stock over the average daily use of the last
    /// `usageDays` days (or of the days since the food was first fed, when fewer). Nil when
    /// nothing was used.
    public func daysLeft(stock: Int, usedUnits: Int, overDays days: Int) -> Int? {
        guard usedUnits > 0, days > 0 else { return nil }
        let perDay = Double(usedUnits) / Double(days)
        return Int((Double(stock) / perDay).rounded(.down))
    }

    /// Whether a stock change alerts the household: a low alert only where a threshold was set
    /// (once, until the stock rises above it again), an empty alert once until refilled.
    public func alert(stock: Int, threshold: Int?, state: StockAlertState) -> (state: StockAlertState, alert: StockAlert?) {
        if stock == 0 {
            return (StockAlertState(lowSent: true, emptySent: true), state.emptySent ? nil : .empty)
        }
        if let threshold, stock <= threshold {
            return (StockAlertState(lowSent: true, emptySent: false), state.lowSent ? nil : .low)
        }
        return (StockAlertState(lowSent: false, emptySent: false), nil)
    }
}

public enum StockAlert: String, Sendable, Equatable {
    case low, empty
}

/// Which stock alerts went out since the stock was last above its threshold.
public struct StockAlertState: Sendable, Equatable {
    public var lowSent: Bool
    public var emptySent: Bool

    public init(lowSent: Bool = false, emptySent: Bool = false) {
        self.lowSent = lowSent
        self.emptySent = emptySent
    }
}

/// The household's days: which local day an instant falls on, and where a day begins and ends,
/// in the household's time zone (a day across a daylight-saving change is 23 or 25 hours).
public struct HouseholdDays: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// A time zone by its IANA name ("Europe/Oslo"); nil for anything else.
    public static func timeZone(named name: String) -> TimeZone? {
        guard name.utf8.count <= 64, name.contains("/") || name == "UTC", let zone = TimeZone(identifier: name) else { return nil }
        return zone
    }

    /// The name of a pet's household time zone: its family's while it is shared with one, else
    /// the one set for the pet, else its owner's own, else UTC. A name no longer known (time
    /// zones are retired now and then) is passed over as if unset.
    public static func zoneName(family: String?, pet: String?, owner: String?) -> String {
        [family, pet, owner].lazy.compactMap { $0 }.first { timeZone(named: $0) != nil } ?? "UTC"
    }

    public func day(of instant: Date) -> LocalDate {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDate(year: parts.year!, month: parts.month!, day: parts.day!)!
    }

    /// The first instant of the day (midnight, or the first hour that exists).
    public func start(of day: LocalDate) -> Date {
        calendar.startOfDay(for: calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!)
    }

    /// The instant the household's clocks show `hour`:00 on the day (on the day clocks change
    /// too, where the day's start plus the hours would be an hour off; an hour the change
    /// skips is the first that exists after it).
    public func instant(hour: Int, on day: LocalDate) -> Date {
        let components = DateComponents(year: day.year, month: day.month, day: day.day, hour: hour)
        return calendar.nextDate(
            after: start(of: day).addingTimeInterval(-1), matching: components, matchingPolicy: .nextTime, repeatedTimePolicy: .first,
            direction: .forward) ?? start(of: day).addingTimeInterval(TimeInterval(hour) * 3_600)
    }

    /// The day's instants: from its start to the next day's.
    public func range(of day: LocalDate) -> Range<Date> {
        start(of: day)..<start(of: day.adding(days: 1))
    }

    /// Feeds' times marked with the first of each local day: `firsts[i]` for `times[i]`. One a
    /// day: of feeds at the same moment (a batch), the first listed.
    public func firstOfDay(_ times: [Date]) -> [Bool] {
        var earliest: [LocalDate: Int] = [:]
        for (index, time) in times.enumerated() {
            let day = day(of: time)
            if earliest[day].map({ time < times[$0] }) ?? true { earliest[day] = index }
        }
        let firsts = Set(earliest.values)
        return times.indices.map { firsts.contains($0) }
    }
}
