import Foundation
import PawpackCore
import Testing

@Suite struct LocalDateArithmeticTests {
    func date(_ text: String) -> LocalDate { LocalDate(text)! }

    func utcCalendar() -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }

    @Test func dayNumbersCountDaysFromTheUnixEpoch() {
        #expect(date("1970-01-01").dayNumber == 0)
        #expect(date("1969-12-31").dayNumber == -1)
        #expect(date("2000-03-01").dayNumber == 11_017)
        #expect(date("2026-03-01").dayNumber == 20_513)
        #expect(date("0001-01-01").dayNumber == -719_162)
        #expect(date("9999-12-31").dayNumber == 2_932_896)
        #expect(LocalDate(dayNumber: 20_513) == date("2026-03-01"))
        #expect(LocalDate(dayNumber: -719_162) == date("0001-01-01"))
        #expect(LocalDate(dayNumber: -719_163) == nil)
        #expect(LocalDate(dayNumber: 2_932_897) == nil)
    }

    @Test func onlyStrictCalendarDatesAreRead() {
        #expect(LocalDate("2024-02-29") == LocalDate(year: 2024, month: 2, day: 29))
        #expect(LocalDate("0001-01-01") == LocalDate(year: 1, month: 1, day: 1))
        for text in [
            "2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "0000-01-01", "2024-1-01",
            "2024-01-1", "24-01-01", "2024/01/01", "2024-01-01 ", " 2024-01-01", "2024-01-0a",
            "2024-0١-01", "２０２４-01-01", "+024-01-01", "2024--1-01", "", "2024-01-01T00:00",
        ] {
            #expect(LocalDate(text) == nil, "\(text) is not a date")
        }
    }

    @Test func datesAreWrittenWithLeadingZeros() {
        #expect(LocalDate(year: 7, month: 3, day: 9)!.description == "0007-03-09")
        #expect(LocalDate(year: 2026, month: 11, day: 21)!.description == "2026-11-21")
        #expect(LocalDate(year: 9999, month: 12, day: 31)!.description == "9999-12-31")
        for text in ["1970-01-01", "2024-02-29", "0999-10-05"] { #expect(LocalDate(text)!.description == text) }
    }

    @Test func theUTCDateOfAnInstantIsTheCalendarsDate() {
        let calendar = utcCalendar()
        // Around midnight, before 1970, on leap days and far from today, every 7 hours 13 minutes.
        var instants: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1),
            Date(timeIntervalSince1970: 86_399.999), Date(timeIntervalSince1970: 86_400),
            Date(timeIntervalSince1970: -86_400.5),
        ]
        var instant = Date(timeIntervalSince1970: -2_500_000_000)
        while instant.timeIntervalSince1970 < 4_200_000_000 {
            instants.append(instant)
            instant += 7 * 3_600 + 13 * 60 + 0.25
        }
        for instant in instants {
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            #expect(
                LocalDate(utc: instant) == LocalDate(year: parts.year!, month: parts.month!, day: parts.day!),
                "\(instant)")
        }
    }

    @Test func addingDaysCrossesMonthYearAndLeapDayBoundaries() {
        #expect(date("2024-02-28").adding(days: 1) == date("2024-02-29"))
        #expect(date("2024-02-28").adding(days: 2) == date("2024-03-01"))
        #expect(date("2023-02-28").adding(days: 1) == date("2023-03-01"))
        #expect(date("2000-02-28").adding(days: 1) == date("2000-02-29"))
        #expect(date("1900-02-28").adding(days: 1) == date("1900-03-01"))
        #expect(date("2100-02-28").adding(days: 1) == date("2100-03-01"))
        #expect(date("2026-04-30").adding(days: 1) == date("2026-05-01"))
        #expect(date("2025-12-31").adding(days: 1) == date("2026-01-01"))
        #expect(date("2026-01-01").adding(days: -1) == date("2025-12-31"))
        #expect(date("2024-03-01").adding(days: -1) == date("2024-02-29"))
        #expect(date("2026-03-01").adding(days: 0) == date("2026-03-01"))
        #expect(date("2026-03-01").adding(days: 365) == date("2027-03-01"))
        #expect(date("2024-01-01").adding(days: 366) == date("2025-01-01"))
    }

    @Test func addingWeeksAddsSevenDaysEach() {
        #expect(date("2026-03-01").adding(weeks: 16) == date("2026-06-21"))
        #expect(date("2024-02-29").adding(weeks: 12) == date("2024-05-23"))
        #expect(date("2024-02-29").adding(weeks: 16) == date("2024-06-20"))
        #expect(date("2026-01-05").adding(weeks: -1) == date("2025-12-29"))
    }

    @Test func daysUntilCountsEveryDayIncludingLeapDays() {
        #expect(date("2024-01-01").days(until: date("2025-01-01")) == 366)
        #expect(date("2025-01-01").days(until: date("2026-01-01")) == 365)
        #expect(date("2000-01-01").days(until: date("2001-01-01")) == 366)
        #expect(date("2100-01-01").days(until: date("2101-01-01")) == 365)
        #expect(date("2024-02-28").days(until: date("2024-03-01")) == 2)
        #expect(date("2026-03-01").days(until: date("2026-03-01")) == 0)
        #expect(date("2026-03-01").days(until: date("2026-02-01")) == -28)
    }

    @Test func addingYearsKeepsTheDateAndSendsALeapDayToTheFirstOfMarch() {
        #expect(date("2023-03-15").adding(years: 3) == date("2026-03-15"))
        #expect(date("2023-02-28").adding(years: 1) == date("2024-02-28"))
        #expect(date("2024-02-29").adding(years: 1) == date("2025-03-01"))
        #expect(date("2024-02-29").adding(years: 3) == date("2027-03-01"))
        #expect(date("2024-02-29").adding(years: 4) == date("2028-02-29"))
        #expect(date("2096-02-29").adding(years: 4) == date("2100-03-01"))
        #expect(date("2024-02-29").adding(years: -1) == date("2023-03-01"))
        #expect(date("2026-03-01").adding(years: 0) == date("2026-03-01"))
    }

    @Test func resultsStopAtTheFirstAndLastRepresentableDates() {
        #expect(date("9999-12-31").adding(days: 1) == date("9999-12-31"))
        #expect(date("0001-01-01").adding(days: -1) == date("0001-01-01"))
        #expect(date("2026-03-01").adding(days: Int.max) == date("9999-12-31"))
        #expect(date("2026-03-01").adding(days: Int.min) == date("0001-01-01"))
        #expect(date("2026-03-01").adding(weeks: Int.max) == date("9999-12-31"))
        #expect(date("9999-06-01").adding(years: 1) == date("9999-12-31"))
        #expect(date("0001-06-01").adding(years: -1) == date("0001-01-01"))
        #expect(date("2026-03-01").adding(years: Int.min) == date("0001-01-01"))
    }

    /// Every day from 1900 to 2100 against Foundation's Gregorian calendar, which is proleptic
    /// only from 1582 on, so earlier dates cannot be compared with it.
    @Test func dayNumbersAgreeWithFoundationsCalendarEveryDayFrom1900To2100() {
        let calendar = utcCalendar()
        let start = date("1900-01-01")
        let first = start.dayNumber
        let last = date("2100-12-31").dayNumber
        #expect(last - first + 1 == 73_414)
        var mismatches: [Int] = []
        for number in first...last {
            let instant = Date(timeIntervalSince1970: TimeInterval(number) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day], from: instant)
            guard let expected = LocalDate(year: parts.year ?? 0, month: parts.month ?? 0, day: parts.day ?? 0) else {
                mismatches.append(number)
                continue
            }
            var agrees = LocalDate(dayNumber: number) == expected
            agrees = agrees && expected.dayNumber == number
            agrees = agrees && start.adding(days: number - first) == expected
            agrees = agrees && start.days(until: expected) == number - first
            if !agrees { mismatches.append(number) }
        }
        #expect(mismatches.isEmpty)
    }

    /// `adding(years:)` agrees with Foundation except on 29 February, where it follows `age(on:)`.
    @Test func addingYearsAgreesWithAgeOnAndOtherwiseWithFoundationsCalendar() {
        let calendar = utcCalendar()
        var mismatches: [String] = []
        var day = date("2019-01-01")
        let end = date("2029-12-31")
        while day <= end {
            for years in [1, 3, 4, 100] {
                let later = day.adding(years: years)
                if day.age(on: later) != years || day.age(on: later.adding(days: -1)) != years - 1 {
                    mismatches.append("age \(day) + \(years)")
                }
                let isLeapDay = day.month == 2 && day.day == 29
                let instant = Date(timeIntervalSince1970: TimeInterval(day.dayNumber) * 86_400)
                let foundation = calendar.date(byAdding: .year, value: years, to: instant).map { LocalDate(utc: $0) }
                if !isLeapDay && foundation != later {
                    mismatches.append("calendar \(day) + \(years)")
                }
            }
            day = day.adding(days: 1)
        }
        #expect(mismatches.isEmpty)
    }
}
