import Foundation

/// A pet's age in words for its card: "3 weeks", "4 months", "2 years"; "about" when the
/// birth date is an estimate.
public enum PetAge {
    public static func text(birthDate: LocalDate, estimated: Bool, today: LocalDate) -> String {
        let months = birthDate.months(until: today)
        let words: String
        if months >= 24 {
            words = "\(months / 12) years"
        } else if months >= 2 {
            words = "\(months) months"
        } else {
            let days = max(0, birthDate.days(until: today))
            words = days >= 14 ? "\(days / 7) weeks" : days == 1 ? "1 day" : "\(days) days"
        }
        return estimated ? "about \(words)" : words
    }
}
