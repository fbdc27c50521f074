import Foundation

/// What a pet should eat in a day, and how what it ate compares: RER = 70 × kg^0.75 kcal,
/// maintenance = factor × RER (factors and their sources in `DESIGN.md`, "Rules and their
/// sources"). Estimates, said as such wherever they are shown.
public struct EnergyRules: Sendable, Equatable {
    /// Days with feeds an insight needs among the last `windowDays`.
    public var insightMinimumDays = 5
    /// The days the average intake reads (the days before today: today is not over).
    public var windowDays = 14
    /// Factors a member may set.
    public var factorRange: ClosedRange<Double> = 0.5...5
    /// Weights a member may log, in kilograms.
    public var weightRange: ClosedRange<Double> = 0.05...150

    public init() {}

    /// Resting energy requirement, kcal a day.
    public func restingEnergy(kilograms: Double) -> Double {
        70 * pow(kilograms, 0.75)
    }

    /// The default maintenance factor: WSAVA's for growing animals (puppies under 4 months 3.0,
    /// then 2.0 until a year; kittens 2.5 until a year), else neutered adult dog 1.6, intact
    /// 1.8, neutered cat 1.2, intact cat 1.4. Nil for other species: there is no one factor for
    /// a rabbit and a parrot, so the member sets it. A pet whose neutering is not recorded
    /// counts as intact.
    public func defaultFactor(species: Species, neutered: Bool?, ageInMonths months: Int) -> Double? {
        switch species {
        case .dog:
            if months < 4 { return 3.0 }
            if months < 12 { return 2.0 }
            return neutered == true ? 1.6 : 1.8
        case .cat:
            if months < 12 { return 2.5 }
            return neutered == true ? 1.2 : 1.4
        case .other:
            return nil
        }
    }

    public func checkFactor(_ factor: Double, field: String = "energyFactor") throws(Problem) -> Double {
        guard factor.isFinite, factorRange.contains(factor) else {
            throw Problem.invalidField(field, "must be from \(factorRange.lowerBound) to \(factorRange.upperBound)")
        }
        return (factor * 100).rounded() / 100
    }

    public func checkWeight(_ kilograms: Double, field: String = "kilograms") throws(Problem) -> Double {
        guard kilograms.isFinite, weightRange.contains(kilograms) else {
            throw Problem.invalidField(field, "must be from \(weightRange.lowerBound) to \(Int(weightRange.upperBound)) kg")
        }
        return (kilograms * 1_000).rounded() / 1_000
    }

    /// The kcal of a portion: packets × kcal per packet, or grams × kcal per 100 g / 100.
    public func kilocalories(units: Int, kind: FoodKind, kcalPerAmount: Double?) -> Double {
        guard let kcalPerAmount else { return 0 }
        switch kind {
        case .wet: return kind.amount(of: units) * kcalPerAmount
        case .dry: return Double(units) * kcalPerAmount / 100
        }
    }

    /// The average a day over the days that had feeds (Pawfolio's way: a day without a feed
    /// logged is a day nobody logged, not a day the pet fasted). Nil without any such day.
    public func averageIntake(kcalByDay: [LocalDate: Double]) -> Double? {
        guard !kcalByDay.isEmpty else { return nil }
        return kcalByDay.values.reduce(0, +) / Double(kcalByDay.count)
    }

    /// One sentence of advice once there are `insightMinimumDays` days with feeds: how much more
    /// or less of the pet's main food a day would meet the estimate, rounded to half a packet
    /// (wet) or 5 g (dry). Nil without enough days, a weight, a factor or the food's kcal.
    public func insight(_ input: InsightInput) -> CareInsight? {
        guard input.kcalByDay.count >= insightMinimumDays, let ideal = input.idealKilocalories, ideal > 0,
            let average = averageIntake(kcalByDay: input.kcalByDay), let kcal = input.mainFood.kcalPerAmount, kcal > 0
        else { return nil }
        let difference = ideal - average
        let change: Double
        switch input.mainFood.kind {
        case .wet: change = (difference / kcal * 2).rounded() / 2
        case .dry: change = (difference / kcal * 100 / 5).rounded() * 5
        }
        let days = input.kcalByDay.count
        let why =
            "\(input.petName) ate about \(Int(average.rounded())) kcal a day on the \(days) days with feeds in the last \(windowDays); "
            + "for \(Self.kilograms(input.kilograms)) an estimated \(Int(ideal.rounded())) kcal a day keeps a pet like this at its weight. "
            + "An estimate, not veterinary advice: ask your vet before changing a diet."
        let amount = Self.amount(abs(change), kind: input.mainFood.kind)
        let headline: String
        if change == 0 {
            headline = "About right: keep feeding as now"
        } else {
            headline = "About \(amount) \(change > 0 ? "more" : "less") of \(input.mainFood.name) a day"
        }
        return CareInsight(headline: headline, why: why, change: change, unit: input.mainFood.kind.unitName, basedOnDays: days)
    }

    /// "½ packet", "1½ packets", "20 g".
    public static func amount(_ value: Double, kind: FoodKind) -> String {
        switch kind {
        case .wet:
            let whole = Int(value)
            let half = value - Double(whole) >= 0.5
            let number = whole == 0 ? (half ? "½" : "0") : "\(whole)" + (half ? "½" : "")
            return number + (value > 1 ? " packets" : " packet")
        case .dry:
            return "\(Int(value.rounded())) g"
        }
    }

    static func kilograms(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) kg" : "\(rounded) kg"
    }
}

/// What an insight reads.
public struct InsightInput: Sendable {
    public var petName: String
    public var kilograms: Double
    public var idealKilocalories: Double?
    /// Kcal eaten on each day with feeds in the window.
    public var kcalByDay: [LocalDate: Double]
    /// The food that gave the most kcal in the window.
    public var mainFood: (name: String, kind: FoodKind, kcalPerAmount: Double?)

    public init(
        petName: String, kilograms: Double, idealKilocalories: Double?, kcalByDay: [LocalDate: Double],
        mainFood: (name: String, kind: FoodKind, kcalPerAmount: Double?)
    ) {
        self.petName = petName
        self.kilograms = kilograms
        self.idealKilocalories = idealKilocalories
        self.kcalByDay = kcalByDay
        self.mainFood = mainFood
    }
}

/// "About ½ packet more of Salmon pouches a day", and why.
public struct CareInsight: Sendable, Equatable {
    public var headline: String
    public var why: String
    /// Packets (wet) or grams (dry) more a day; negative for less.
    public var change: Double
    public var unit: String
    public var basedOnDays: Int

    public init(headline: String, why: String, change: Double, unit: String, basedOnDays: Int) {
        self.headline = headline
        self.why = why
        self.change = change
        self.unit = unit
        self.basedOnDays = basedOnDays
    }
}
