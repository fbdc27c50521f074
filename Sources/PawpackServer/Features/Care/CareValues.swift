import Foundation
import PawpackCore

/// A food with its stock, as the household sees it.
struct FoodValue: Sendable {
    var id: Care.Food.ID
    var pet: Pet.ID
    var name: String
    var kind: FoodKind
    var kcal: Double?
    var packetsPerBox: Int?
    var packetsPerBag: Int?
    var usualUnits: Int
    var stockUnits: Int?
    var lowStockUnits: Int?
    /// "Runs out in about N days", from the last days' use.
    var daysLeft: Int?
}

/// One feed as the household sees it.
struct FeedValue: Sendable {
    var id: Care.Feed.ID
    var clientID: UUID
    var pet: Pet.ID
    var food: Care.Food.ID?
    var foodName: String
    var kind: FoodKind
    var units: Int
    var kcal: Double
    var fedAt: Date
    var fedBy: User.ID?
    var fedByUsername: String?
    var fedByDisplayName: String?
    /// The household's day it falls on.
    var day: LocalDate
    /// The first feed of its day (set where a whole day is shown: today, the history).
    var firstOfDay: Bool
    var createdAt: Date
}

/// A pet's weight on a day.
struct WeightValue: Sendable {
    var id: Care.Weight.ID
    var day: LocalDate
    var kilograms: Double
}

/// What the pet eats against what it should: today, the average over the days with feeds in
/// the window before today, and the estimate.
struct CaloriesValue: Sendable {
    var today: Double
    var averagePerFeedingDay: Double?
    var feedingDays: Int
    var windowDays: Int
    var ideal: Double?
    var restingEnergy: Double?
    var factor: Double?
    var factorIsDefault: Bool
    var kilograms: Double?
    /// Kcal on each of the window's days and today, oldest first (the 14-day chart).
    var byDay: [(day: LocalDate, kcal: Double)]
}

/// A pet's care at a glance: the Care tab's card and `GET /v1/pets/{petId}/care`.
struct CareSummaryValue: Sendable {
    var pet: Pet.ID
    var petName: String
    var species: Species
    /// Its first photo, for its card.
    var photo: PetPhotoRecordValue?
    /// The household's time zone (`HouseholdDays.zoneName`).
    var timeZone: String
    /// The one set for the pet itself; nil while it follows its owner's.
    var ownTimeZone: String?
    var feedingGapHours: Double
    var vaccinationReminderDays: Int
    var dietaryNotes: String?
    var family: (id: Care.Family.ID, name: String)?
    var nextFeedAt: Date?
    var state: FeedState
    var lastFeed: FeedValue?
    var today: [FeedValue]
    var foods: [FoodValue]
    var calories: CaloriesValue
    var insight: CareInsight?
    var access: CareAccess
}

/// A feed to log: the client's id for it, the pet, the food and portion (the food's usual
/// portion when none), and when (now when not said).
struct FeedDraft: Sendable {
    var clientID: UUID
    var pet: Pet.ID
    /// Nil: the usual feed (`CareService.usualFood`), as "Mark as fed" sends.
    var food: Care.Food.ID?
    var portion: Portion?
    var fedAt: Date?
}

/// A new food, or the changes to one (nil: unchanged; a kind never changes).
struct FoodDraft: Sendable {
    var name: String?
    var kind: FoodKind?
    var kcal: Double?
    var packetsPerBox: Int?
    var packetsPerBag: Int?
    var usualPortion: Portion?
    /// Packets or grams; zero turns the low alert off.
    var lowStockAt: Double?
}

/// How a member changes a food's stock: says what is there now, or adds a purchase.
struct StockChange: Sendable {
    enum Action: Sendable { case set, add }
    enum Unit: String, Sendable { case packets, boxes, bags, grams, kilograms }
    var action: Action
    var amount: Double
    var unit: Unit
    /// The amount's name where it was given, for a problem to name: `set` or `add` in the
    /// API, `amount` in the page's form.
    var amountField = "amount"
}

/// A pet's care settings as changed (nil: unchanged).
struct CareSettingsDraft: Sendable {
    var feedingGapHours: Double?
    var vaccinationReminderDays: Int?
    var timeZone: String?
    var dietaryNotes: String?
    var energyFactor: Double?
    /// Back to the default factor for the pet's species, neutering and age.
    var defaultEnergyFactor = false
}
