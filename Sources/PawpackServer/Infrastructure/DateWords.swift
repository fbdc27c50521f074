import Foundation
import PawpackCore
import Vapor

/// Dates as people read them, in the member's language (the `Accept-Language` their browser or
/// app sends): "12 March 2026" in British English, "March 12, 2026" in American English. Pages
/// and the API's sentences (the welfare reasons) both write dates this way.
enum DateWords {
    static func long(_ date: LocalDate, for request: Request) -> String {
        long(date, locale: locale(of: request))
    }

    static func long(_ date: LocalDate, locale: Locale) -> String {
        let formatter = DateFormatter()
        formatter.locale = locale
        formatter.setLocalizedDateFormatFromTemplate("d MMMM y")
        formatter.timeZone = TimeZone(identifier: "UTC")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let day = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day)) else {
            return date.description
        }
        return formatter.string(from: day)
    }

    /// What `WelfareReason.message(writingDates:)` needs: dates in the language of `request`,
    /// or British English without one.
    static func writer(for request: Request?) -> (LocalDate) -> String {
        let locale = request.map(locale(of:)) ?? Locale(identifier: "en_GB")
        return { long($0, locale: locale) }
    }

    /// The first language the browser asks for that Foundation knows; British English otherwise.
    static func locale(of request: Request) -> Locale {
        let wanted = (request.headers.first(name: .acceptLanguage) ?? "").split(separator: ",")
            .map { $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            .first { !$0.isEmpty && $0 != "*" && $0.count <= 20 }
        return Locale(identifier: wanted.map { $0.replacingOccurrences(of: "-", with: "_") } ?? "en_GB")
    }
}
