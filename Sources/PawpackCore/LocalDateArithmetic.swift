import Foundation

/// Day arithmetic on calendar dates, computed from a day number in the proleptic Gregorian
/// calendar rather than with `Calendar`: exact, allocation-free and the same on every platform.
extension LocalDate {
    /// Day numbers of 0001-01-01 and 9999-12-31, the dates `LocalDate` can hold.
    static let dayNumberRange = -719_162...2_932_896

    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July",
        "August", "September", "October", "November", "December",
    ]

    /// Days since 1970-01-01 (negative before it), counting back with today's Gregorian rules
    /// even before 1582.
    public var dayNumber: Int {
        // Howard Hinnant's days_from_civil: years start on 1 March, so the leap day is the last
        // day of the year and month lengths follow a fixed 153-days-per-5-months pattern.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400 // 0...399
        let monthFromMarch = month > 2 ? month - 3 : month + 9 // 0...11
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1 // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `dayNumber` days after 1970-01-01; nil outside 0001-01-01...9999-12-31.
    public init?(dayNumber: Int) {
        guard LocalDate.dayNumberRange.contains(dayNumber) else { return nil }
        // Hinnant's civil_from_days, the inverse of `dayNumber`.
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097 // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100) // 0...365
        let monthFromMarch = (5 * dayOfYear + 2) / 153 // 0...11
        let d = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let m = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let y = yearOfEra + era * 400 + (m <= 2 ? 1 : 0)
        self.init(year: y, month: m, day: d)
    }

    /// The date for `dayNumber`, or the first or last date `LocalDate` can hold when it lies
    /// beyond them.
    static func clamped(dayNumber: Int) -> LocalDate {
        let inRange = Swift.min(Swift.max(dayNumber, dayNumberRange.lowerBound), dayNumberRange.upperBound)
        return LocalDate(dayNumber: inRange)!
    }

    /// The date `days` days later (earlier when negative). Results beyond 0001-01-01...9999-12-31
    /// stop at those dates.
    public func adding(days: Int) -> LocalDate {
        // Any step beyond the whole representable span (about 3.65 million days) lands on a
        // bound anyway; limiting it first keeps the sum from overflowing.
        let step = Swift.min(Swift.max(days, -4_000_000), 4_000_000)
        return LocalDate.clamped(dayNumber: dayNumber + step)
    }

    public func adding(weeks: Int) -> LocalDate {
        adding(days: Swift.min(Swift.max(weeks, -1_000_000), 1_000_000) * 7)
    }

    /// The same month and day `years` years later (earlier when negative). A 29 February lands
    /// on 1 March in a common year, the day `age(on:)` counts a leap-day birthday as completing
    /// a year, so `d.age(on: d.adding(years: n)) == n` for every `n >= 0`. (Foundation's
    /// `Calendar` lands on 28 February instead.) Results beyond years 1...9999 stop at
    /// 0001-01-01 or 9999-12-31.
    public func adding(years: Int) -> LocalDate {
        let target = year + Swift.min(Swift.max(years, -10_000), 10_000)
        if target < 1 { return LocalDate.clamped(dayNumber: LocalDate.dayNumberRange.lowerBound) }
        if target > 9999 { return LocalDate.clamped(dayNumber: LocalDate.dayNumberRange.upperBound) }
        if month == 2, day == 29, !LocalDate.isLeap(target) {
            return LocalDate(year: target, month: 3, day: 1)!
        }
        return LocalDate(year: target, month: month, day: day)!
    }

    /// Days from this date to `other`: positive when `other` is later, 0 on the same day.
    public func days(until other: LocalDate) -> Int {
        other.dayNumber - dayNumber
    }

    /// The date as owners read it in messages, e.g. "12 June 2026".
    var spelledOut: String {
        "\(day) \(LocalDate.monthNames[month - 1]) \(year)"
    }

    /// Whole months from this date to `other` (a birthday's month counts once its day came).
    public func months(until other: LocalDate) -> Int {
        (other.year - year) * 12 + (other.month - month) - (other.day < day ? 1 : 0)
    }
}
