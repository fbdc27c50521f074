import Foundation
import Plot

/// Moments on a page (a message's time, a meet-up's start): written in UTC on the server and
/// rewritten by the page script in the reader's own time zone.
enum TimeViews {
    /// How much of a moment to write: day and time, day, or time.
    enum TimeStyle: String {
        case full, short, time

        /// In English, in UTC, as the page is written before the script knows the reader's zone.
        var format: Date.VerbatimFormatStyle {
            let pattern: Date.FormatString =
                switch self {
                case .full:
                    "\(weekday: .abbreviated) \(day: .defaultDigits) \(month: .abbreviated), \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC"
                case .short: "\(day: .defaultDigits) \(month: .abbreviated)"
                case .time: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits)"
                }
            return Date.VerbatimFormatStyle(
                format: pattern, locale: Locale(identifier: "en_GB"), timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
        }
    }

    /// A `<time>` in UTC, which the script rewrites in the reader's own time zone.
    static func time<Context: HTML.BodyContext>(_ date: Date, style: TimeStyle) -> Node<Context> {
        .element(
            named: "time",
            nodes: [
                .attribute(named: "datetime", value: date.formatted(Date.ISO8601FormatStyle())),
                .data(named: "style", value: style.rawValue), .text(date.formatted(style.format)),
            ])
    }
}
