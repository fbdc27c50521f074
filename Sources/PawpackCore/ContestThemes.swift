import Foundation

/// The kinds of theme a contest may have.
public enum ThemeCategory: String, Sendable, Codable, CaseIterable {
    case cute, funny, active, seasonal, special
}

/// A contest's theme; a seasonal one only in its months (the northern hemisphere's).
public struct ContestTheme: Sendable, Equatable {
    public var code: String
    public var title: String
    public var category: ThemeCategory
    /// The months (1–12) it may run in; nil for all year.
    public var months: Set<Int>?

    public init(_ code: String, _ title: String, _ category: ThemeCategory, months: Set<Int>? = nil) {
        self.code = code
        self.title = title
        self.category = category
        self.months = months
    }

    public func inSeason(_ day: LocalDate) -> Bool { months?.contains(day.month) ?? true }
}

/// The weekly rotation: one contest at a time, seven days each, the next starting when the
/// last ends; its theme chosen from `pool` among those in season and not run in the last year.
public struct ContestRotation: Sendable {
    public var pool: [ContestTheme]
    /// How long before a theme may come again.
    public var repeatAfterDays = 365
    public var length: TimeInterval = 7 * 86_400

    public init(pool: [ContestTheme] = ContestRotation.themes) { self.pool = pool }

    /// When the contest after one ending at `end` runs, or, with none running (a server down
    /// for weeks, the first start), the week starting `now`.
    public func nextWeek(after end: Date?, now: Date) -> Range<Date> {
        let start = end.map { $0 > now.addingTimeInterval(-length) ? $0 : now } ?? now
        return start..<start.addingTimeInterval(length)
    }

    /// The theme of a contest starting on `day`, given when each theme last ran: one of those
    /// in season and not run within `repeatAfterDays`, drawn by the day (the same day gives the
    /// same theme, so two instances that rotate at once agree). Should none be left, the one
    /// run longest ago among those in season.
    public func theme(startingOn day: LocalDate, lastRun: [String: LocalDate]) -> ContestTheme {
        let inSeason = pool.filter { $0.inSeason(day) }
        let fresh = inSeason.filter { theme in lastRun[theme.code].map { $0.days(until: day) >= repeatAfterDays } ?? true }
        guard !fresh.isEmpty else {
            return inSeason.min { (lastRun[$0.code] ?? day) < (lastRun[$1.code] ?? day) } ?? pool[0]
        }
        var generator = SeededRandom(seed: UInt64(bitPattern: Int64(day.dayNumber)) &* 0x9E37_79B9_7F4A_7C15)
        return fresh[Int(generator.next() % UInt64(fresh.count))]
    }

    /// Pawpack's themes: 56 for any time of year and 12 seasonal, so a year of weekly contests
    /// never runs out of fresh ones.
    public static let themes: [ContestTheme] = [
        // cute
        .init("sleeping-position", "Cutest Sleeping Position", .cute),
        .init("puppy-eyes", "Best Puppy Eyes", .cute),
        .init("tiny-paws", "Tiny Paws", .cute),
        .init("best-friends", "Best Friends", .cute),
        .init("head-tilt", "The Head Tilt", .cute),
        .init("tongue-out", "Tongue Out", .cute),
        .init("snuggle-buddies", "Snuggle Buddies", .cute),
        .init("first-photo", "Their Very First Photo", .cute),
        .init("fluffiest", "Fluffiest Coat", .cute),
        .init("blep", "Best Blep", .cute),
        .init("window-watch", "Window Watcher", .cute),
        .init("bedtime", "Bedtime", .cute),
        // funny
        .init("derp", "Derpiest Face", .funny),
        .init("caught-in-the-act", "Caught in the Act", .funny),
        .init("guilty-look", "The Guilty Look", .funny),
        .init("weird-spot", "Napping in the Weirdest Spot", .funny),
        .init("sneeze", "Mid-Sneeze", .funny),
        .init("bad-hair-day", "Bad Hair Day", .funny),
        .init("if-i-fits", "If I Fits, I Sits", .funny),
        .init("side-eye", "Best Side-Eye", .funny),
        .init("photobomb", "Photobomb", .funny),
        .init("drama-queen", "Drama Queen", .funny),
        .init("upside-down", "Upside Down", .funny),
        .init("stolen-snack", "The Stolen Snack", .funny),
        // active
        .init("zoomies", "Fastest Zoomies", .active),
        .init("big-jump", "The Big Jump", .active),
        .init("fetch", "Fetch Champion", .active),
        .init("mid-air", "Mid-Air", .active),
        .init("muddy-paws", "Muddy Paws", .active),
        .init("hiking-buddy", "Hiking Buddy", .active),
        .init("swim", "Splash and Swim", .active),
        .init("tug-of-war", "Tug of War", .active),
        .init("playdate", "Best Playdate", .active),
        .init("toy-destroyer", "Toy Destroyer", .active),
        .init("hunter", "The Great Hunter", .active),
        .init("climber", "Climbing High", .active),
        .init("run-free", "Running Free", .active),
        .init("training", "Trick Training", .active),
        // special
        .init("adopted", "Adoption Day", .special),
        .init("senior", "Golden Oldies", .special),
        .init("before-after", "Then and Now", .special),
        .init("twins", "Lookalikes", .special),
        .init("favourite-toy", "Favourite Toy", .special),
        .init("costume", "Best Costume", .special),
        .init("road-trip", "Road Trip", .special),
        .init("work-from-home", "Work-From-Home Colleague", .special),
        .init("portrait", "Portrait Mode", .special),
        .init("black-and-white", "Black and White", .special),
        .init("reflection", "Reflections", .special),
        .init("helper", "Household Helper", .special),
        .init("birthday", "Birthday Party", .special),
        .init("dinner-time", "Dinner Time", .special),
        .init("bath-time", "Bath Time", .special),
        .init("garden", "In the Garden", .special),
        .init("multi-pet", "The Whole Gang", .special),
        .init("rescue", "Rescue Story", .special),
        // seasonal
        .init("snow-day", "Snow Day", .seasonal, months: [12, 1, 2]),
        .init("new-year", "New Year, New Tricks", .seasonal, months: [1]),
        .init("valentines", "Valentine's Cuddles", .seasonal, months: [2]),
        .init("spring-blossom", "Spring Blossoms", .seasonal, months: [3, 4, 5]),
        .init("easter-hunt", "Spring Egg Hunt", .seasonal, months: [3, 4]),
        .init("summer-splash", "Summer Splash", .seasonal, months: [6, 7, 8]),
        .init("beach-day", "Beach Day", .seasonal, months: [6, 7, 8]),
        .init("back-to-school", "Back to School", .seasonal, months: [8, 9]),
        .init("autumn-leaves", "Autumn Leaves", .seasonal, months: [9, 10, 11]),
        .init("halloween", "Spooky Season", .seasonal, months: [10]),
        .init("cosy-blanket", "Cosy Blanket Season", .seasonal, months: [11, 12, 1]),
        .init("holiday-sweater", "Holiday Sweaters", .seasonal, months: [12]),
    ]
}
