import Foundation
import PawpackAPI
import PawpackCore

/// A portion as logged: a share of a packet of wet food (¼, ½ or 1), or grams of dry food.
public typealias FeedPortion = Portion

/// One food a pet eats, and what is left of it.
public struct Food: Sendable, Equatable, Identifiable {
    public typealias ID = Care.Food.ID

    public var id: ID
    public var petID: Pet.ID
    public var name: String
    public var kind: FoodKind
    /// Kcal per packet (wet) or per 100 g (dry).
    public var kcal: Double?
    public var packetsPerBox: Int?
    public var packetsPerBag: Int?
    /// What one tap logs.
    public var usualPortion: FeedPortion
    /// Packets (wet) or grams (dry) left; nil while the stock is not kept.
    public var stock: Double?
    /// The household hears when the stock reaches it.
    public var lowStockAt: Double?
    /// "Runs out in about N days", from the last 14 days' use.
    public var daysLeft: Int?

    init(_ dto: Components.Schemas.Food) throws {
        id = try serverID(dto.id)
        petID = try serverID(dto.petId)
        name = dto.name
        kind = try same(dto.kind, as: FoodKind.self)
        kcal = dto.kcal
        packetsPerBox = dto.packetsPerBox
        packetsPerBag = dto.packetsPerBag
        usualPortion = try FeedPortion(dto.usualPortion)
        stock = dto.stock
        lowStockAt = dto.lowStockAt
        daysLeft = dto.daysLeft
    }
}

/// A food to add, or what to change of one (nil: unchanged; a food's kind never changes).
public struct FoodInput: Sendable, Equatable {
    public var name: String?
    public var kind: FoodKind?
    public var kcal: Double?
    public var packetsPerBox: Int?
    public var packetsPerBag: Int?
    public var usualPortion: FeedPortion?
    /// Packets or grams; 0 turns the low alert off.
    public var lowStockAt: Double?

    public init(
        name: String? = nil, kind: FoodKind? = nil, kcal: Double? = nil, packetsPerBox: Int? = nil, packetsPerBag: Int? = nil,
        usualPortion: FeedPortion? = nil, lowStockAt: Double? = nil
    ) {
        self.name = name
        self.kind = kind
        self.kcal = kcal
        self.packetsPerBox = packetsPerBox
        self.packetsPerBag = packetsPerBag
        self.usualPortion = usualPortion
        self.lowStockAt = lowStockAt
    }
}

/// What to do with a food's stock: say what is left, or add a purchase.
public enum StockUpdate: Sendable, Equatable {
    public enum Unit: String, Sendable { case packets, boxes, bags, grams, kilograms }
    case set(Double, Unit)
    case add(Double, Unit)
}

/// Who logged a feed.
public struct FeedAuthor: Sendable, Equatable {
    public var username: String
    public var displayName: String
}

/// One feed, as the household sees it.
public struct Feed: Sendable, Equatable, Identifiable {
    public typealias ID = Care.Feed.ID

    public var id: ID
    /// The id it was logged with: log again with it after a lost answer.
    public var clientID: UUID
    public var petID: Pet.ID
    /// Nil once the food was deleted (its name stays).
    public var foodID: Food.ID?
    public var foodName: String
    public var kind: FoodKind
    public var portion: FeedPortion
    public var kcal: Double
    public var fedAt: Date
    /// The household's day it falls on.
    public var day: LocalDate
    public var isFirstOfDay: Bool
    /// Nil once that member deleted their account.
    public var fedBy: FeedAuthor?
    public var isFedByMe: Bool

    init(_ dto: Components.Schemas.Feed) throws {
        id = try serverID(dto.id)
        guard let client = UUID(text: dto.clientId), let day = LocalDate(dto.day) else {
            throw PawpackError.malformed("feed \(dto.id) is unreadable")
        }
        clientID = client
        petID = try serverID(dto.petId)
        foodID = try dto.foodId.map(serverID)
        foodName = dto.foodName
        kind = try same(dto.kind, as: FoodKind.self)
        portion = try FeedPortion(dto.portion)
        kcal = dto.kcal
        fedAt = dto.fedAt
        self.day = day
        isFirstOfDay = dto.firstOfDay
        fedBy = dto.fedBy.map { FeedAuthor(username: $0.username, displayName: $0.displayName) }
        isFedByMe = dto.fedByMe
    }
}

/// A feed to log: the food (its usual portion unless `portion` is given) and when (now when nil).
public struct FeedInput: Sendable, Equatable {
    public var pet: Pet.ID
    /// Nil: the usual feed (the food of the pet's last feed at its usual portion).
    public var food: Food.ID?
    public var portion: FeedPortion?
    public var fedAt: Date?
    /// Chosen once per feed: a retry with it never logs twice.
    public var id: UUID

    public init(pet: Pet.ID, food: Food.ID?, portion: FeedPortion? = nil, fedAt: Date? = nil, id: UUID = UUID()) {
        self.pet = pet
        self.food = food
        self.portion = portion
        self.fedAt = fedAt
        self.id = id
    }
}

/// A medication schedule with its next dose and the latest doses given.
public struct Medication: Sendable, Equatable, Identifiable {
    public typealias ID = Care.Medication.ID

    public struct Dose: Sendable, Equatable, Identifiable {
        public typealias ID = Care.Dose.ID
        public var id: ID
        public var givenAt: Date
        /// Who gave it; nil once their account is gone.
        public var givenBy: FeedAuthor?
        public var givenByMe: Bool
    }

    public var id: ID
    public var pet: Pet.ID
    public var name: String
    public var dose: String
    public var interval: MedicationInterval
    public var startsAt: Date
    /// The course's last day; nil: until deleted.
    public var until: LocalDate?
    /// Nil once the course has ended.
    public var nextDueAt: Date?
    /// The latest, newest first.
    public var doses: [Dose]
    public var createdAt: Date

    init(_ dto: Components.Schemas.Medication) throws {
        id = try serverID(dto.id)
        pet = try serverID(dto.petId)
        name = dto.name
        dose = dto.dose
        interval = dto.unit == .days ? .days(dto.every) : .hours(dto.every)
        startsAt = dto.startsAt
        until = dto.until.flatMap(LocalDate.init)
        nextDueAt = dto.nextDueAt
        doses = try dto.doses.map { dose in
            Dose(
                id: try serverID(dose.id), givenAt: dose.givenAt,
                givenBy: dose.givenBy.map { FeedAuthor(username: $0.username, displayName: $0.displayName) }, givenByMe: dose.givenByMe)
        }
        createdAt = dto.createdAt
    }
}

/// A new medication schedule.
public struct MedicationInput: Sendable, Equatable {
    public var name: String
    /// As the vet wrote it: "½ tablet", "0.5 ml".
    public var dose: String
    public var interval: MedicationInterval
    /// The first dose; now when nil.
    public var startsAt: Date?
    public var until: LocalDate?

    public init(name: String, dose: String, every interval: MedicationInterval, startsAt: Date? = nil, until: LocalDate? = nil) {
        self.name = name
        self.dose = dose
        self.interval = interval
        self.startsAt = startsAt
        self.until = until
    }
}

/// A pet's weight on a day.
public struct WeightEntry: Sendable, Equatable, Identifiable {
    public typealias ID = Care.Weight.ID

    public var id: ID
    public var day: LocalDate
    public var kilograms: Double

    init(_ dto: Components.Schemas.Weight) throws {
        guard let day = LocalDate(dto.date) else { throw PawpackError.malformed("weight \(dto.id) has no date") }
        id = try serverID(dto.id)
        self.day = day
        kilograms = dto.kilograms
    }
}

/// A pet's care at a glance: the next feed, today, foods, calories, the insight.
public struct CareSummary: Sendable, Equatable {
    public struct Calories: Sendable, Equatable {
        public var today: Double
        /// Over the days with feeds among the 14 before today.
        public var averagePerFeedingDay: Double?
        public var feedingDays: Int
        public var windowDays: Int
        /// An estimate: factor × RER.
        public var ideal: Double?
        public var restingEnergy: Double?
        public var factor: Double?
        public var factorIsDefault: Bool
        public var kilograms: Double?
        public var byDay: [(day: LocalDate, kcal: Double)]

        public static func == (lhs: Calories, rhs: Calories) -> Bool {
            lhs.today == rhs.today && lhs.averagePerFeedingDay == rhs.averagePerFeedingDay && lhs.ideal == rhs.ideal
                && lhs.factor == rhs.factor && lhs.kilograms == rhs.kilograms
                && lhs.byDay.map(\.day) == rhs.byDay.map(\.day) && lhs.byDay.map(\.kcal) == rhs.byDay.map(\.kcal)
        }
    }

    public var petID: Pet.ID
    public var petName: String
    public var species: Species
    public var photoURL: URL?
    public var timeZone: String
    public var feedingGapHours: Double
    /// Days before a vaccination's next due date its reminder goes.
    public var vaccinationReminderDays: Int
    public var dietaryNotes: String?
    public var familyID: Family.ID?
    public var familyName: String?
    public var nextFeedAt: Date?
    public var state: FeedState
    public var lastFeed: Feed?
    public var today: [Feed]
    public var foods: [Food]
    public var calories: Calories
    public var insight: CareInsight?
    public var canLog: Bool
    public var canManage: Bool
    public var canShare: Bool

    init(_ dto: Components.Schemas.CareSummary) throws {
        petID = try serverID(dto.petId)
        petName = dto.petName
        species = try same(dto.species, as: Species.self)
        photoURL = dto.photoUrl.flatMap(URL.init(string:))
        timeZone = dto.timeZone
        feedingGapHours = dto.feedingGapHours
        vaccinationReminderDays = dto.vaccinationReminderDays
        dietaryNotes = dto.dietaryNotes
        familyID = try dto.familyId.map(serverID)
        familyName = dto.familyName
        nextFeedAt = dto.nextFeedAt
        state = try same(dto.state, as: FeedState.self)
        lastFeed = try dto.lastFeed.map(Feed.init)
        today = try dto.today.map(Feed.init)
        foods = try dto.foods.map(Food.init)
        let c = dto.calories
        calories = Calories(
            today: c.today, averagePerFeedingDay: c.averagePerFeedingDay, feedingDays: c.feedingDays, windowDays: c.windowDays,
            ideal: c.ideal, restingEnergy: c.restingEnergy, factor: c.factor, factorIsDefault: c.factorIsDefault,
            kilograms: c.kilograms,
            byDay: try c.byDay.map { entry in
                guard let day = LocalDate(entry.date) else { throw PawpackError.malformed("unreadable day \(entry.date)") }
                return (day, entry.kcal)
            })
        insight = dto.insight.map {
            CareInsight(headline: $0.headline, why: $0.why, change: $0.change, unit: $0.unit.rawValue, basedOnDays: $0.basedOnDays)
        }
        canLog = dto.canLog
        canManage = dto.canManage
        canShare = dto.canShare
    }
}

/// What to change of a pet's care settings (nil: unchanged).
public struct CareSettingsChange: Sendable, Equatable {
    public var feedingGapHours: Double?
    /// Days before a vaccination's next due date its reminder goes (0–60).
    public var vaccinationReminderDays: Int?
    /// An IANA name: the pet's days while it is not shared with a family.
    public var timeZone: String?
    public var dietaryNotes: String?
    public var energyFactor: Double?
    /// Back to the default factor for its species, neutering and age.
    public var defaultEnergyFactor: Bool

    public init(
        feedingGapHours: Double? = nil, vaccinationReminderDays: Int? = nil, timeZone: String? = nil, dietaryNotes: String? = nil,
        energyFactor: Double? = nil, defaultEnergyFactor: Bool = false
    ) {
        self.feedingGapHours = feedingGapHours
        self.vaccinationReminderDays = vaccinationReminderDays
        self.timeZone = timeZone
        self.dietaryNotes = dietaryNotes
        self.energyFactor = energyFactor
        self.defaultEnergyFactor = defaultEnergyFactor
    }
}

/// A family you belong to.
public struct Family: Sendable, Equatable, Identifiable {
    public typealias ID = Care.Family.ID

    public struct Member: Sendable, Equatable {
        public var username: String
        public var displayName: String
        public var role: FamilyRole
        public var joinedAt: Date
    }

    public struct SharedPet: Sendable, Equatable {
        public var petID: Pet.ID
        public var name: String
        public var species: Species
        public var ownerDisplayName: String
    }

    public var id: ID
    public var name: String
    public var timeZone: String
    public var myRole: FamilyRole
    /// The owner's only, while it is good.
    public var inviteCode: String?
    public var inviteExpiresAt: Date?
    /// The username the family was offered to.
    public var pendingOwner: String?
    public var members: [Member]
    public var pets: [SharedPet]

    init(_ dto: Components.Schemas.Family) throws {
        id = try serverID(dto.id)
        name = dto.name
        timeZone = dto.timeZone
        myRole = try same(dto.myRole, as: FamilyRole.self)
        inviteCode = dto.inviteCode
        inviteExpiresAt = dto.inviteExpiresAt
        pendingOwner = dto.pendingOwner
        members = try dto.members.map {
            Member(username: $0.username, displayName: $0.displayName, role: try same($0.role, as: FamilyRole.self), joinedAt: $0.joinedAt)
        }
        pets = try dto.pets.map {
            SharedPet(
                petID: try serverID($0.petId), name: $0.name, species: try same($0.species, as: Species.self),
                ownerDisplayName: $0.ownerDisplayName)
        }
    }
}

/// A request to join a family: to one you own (incoming) or your own (outgoing).
public struct FamilyJoinRequest: Sendable, Equatable, Identifiable {
    public typealias ID = Care.JoinRequest.ID

    public var id: ID
    public var familyID: Family.ID
    public var familyName: String
    public var username: String
    public var displayName: String
    public var isIncoming: Bool
    public var createdAt: Date

    init(_ dto: Components.Schemas.FamilyJoinRequest) throws {
        id = try serverID(dto.id)
        familyID = try serverID(dto.familyId)
        familyName = dto.familyName
        username = dto.username
        displayName = dto.displayName
        isIncoming = dto.direction == .incoming
        createdAt = dto.createdAt
    }
}

extension FeedPortion {
    init(_ dto: Components.Schemas.Portion) throws {
        switch (dto.packets, dto.grams) {
        case (let packets?, nil): self = .packets(packets)
        case (nil, let grams?): self = .grams(grams)
        default: throw PawpackError.malformed("a portion without packets or grams")
        }
    }

    var dto: Components.Schemas.Portion {
        switch self {
        case .packets(let packets): .init(packets: packets)
        case .grams(let grams): .init(grams: grams)
        }
    }
}
