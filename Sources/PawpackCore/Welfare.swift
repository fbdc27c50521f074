import Foundation

// SoPup welfare modes. A dog is in Puppy Mode while it is young or its core vaccinations are
// not verified: it may match and chat but may not propose or accept meet-ups, and its
// behavioural facts are held back from matching and from other members. It is in Social Mode once its core vaccinations protect it.
// Vaccination guidance (WSAVA/AAHA): core doses every 2–4 weeks until 16 weeks old or older;
// an adult needs a core dose within the last 3 years.

/// A vaccine as recorded on a dose.
public enum Vaccine: Hashable, Sendable, Codable, CustomStringConvertible {
    case distemper
    case adenovirus
    case parvovirus
    case rabies
    /// A combined core shot (DAP: DHPP, DAPP, DA2PP, DHP). One dose counts as one dose of
    /// distemper, adenovirus and parvovirus.
    case dap
    /// Any other vaccine (leptospirosis, kennel cough, ...), by the name the owner gave. It
    /// counts toward nothing unless a policy lists that exact value among its core vaccines.
    case other(String)

    /// The vaccines one `.dap` dose counts as.
    public static let dapComponents: Set<Vaccine> = [.distemper, .adenovirus, .parvovirus]

    /// Parses a vaccine name as sent by clients: the codes below, case-insensitive, with
    /// "dhpp", "dapp", "da2pp" and "dhp" read as `.dap`; any other text is `.other` with the
    /// text trimmed. So `Vaccine(code: "Distemper")` is `.distemper`, never
    /// `.other("Distemper")`.
    public init(code: String) {
        let trimmed = code.trimmingCharacters(in: .whitespacesAndNewlines)
        switch trimmed.lowercased() {
        case "distemper": self = .distemper
        case "adenovirus": self = .adenovirus
        case "parvovirus": self = .parvovirus
        case "rabies": self = .rabies
        case "dap", "dhpp", "dapp", "da2pp", "dhp": self = .dap
        default: self = .other(trimmed)
        }
    }

    /// The wire form: "distemper", "adenovirus", "parvovirus", "rabies", "dap", or the name of
    /// another vaccine as given.
    public var code: String {
        switch self {
        case .distemper: return "distemper"
        case .adenovirus: return "adenovirus"
        case .parvovirus: return "parvovirus"
        case .rabies: return "rabies"
        case .dap: return "dap"
        case .other(let name): return name
        }
    }

    public var description: String { code }

    /// Whether a dose of this vaccine is a dose of `core`: the same vaccine, or a combined
    /// DAP shot and `core` is one of its components.
    public func counts(toward core: Vaccine) -> Bool {
        self == core || (self == .dap && Vaccine.dapComponents.contains(core))
    }

    /// The name used in sentences for owners.
    public var spokenName: String {
        switch self {
        case .dap: return "combined DAP"
        default: return code
        }
    }

    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        self.init(code: code)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

/// One recorded vaccination.
public struct VaccinationDose: Sendable, Hashable, Codable {
    public var vaccine: Vaccine
    public var givenOn: LocalDate

    public init(vaccine: Vaccine, givenOn: LocalDate) {
        self.vaccine = vaccine
        self.givenOn = givenOn
    }
}

public enum WelfareMode: String, Sendable, Codable, CaseIterable {
    /// May match and chat; may not propose or accept meet-ups; behavioural facts held back.
    case puppy
    /// Everything is open.
    case social

    /// Both modes may match and chat; only Social Mode may propose or accept meet-ups.
    public var mayArrangeMeetUps: Bool { self == .social }
}

/// Why a dog is in Puppy Mode. Each case carries what an owner needs to act on it, and
/// `message` says it in a sentence.
public enum WelfareReason: Sendable, Hashable {
    /// The dog is younger than `weeks` weeks; it is exactly that old on `until`.
    case tooYoung(until: LocalDate, weeks: Int)
    /// Fewer than `need` doses of the vaccine count (`have` do). If the missing doses are given
    /// as early as the rules allow, from today on, the last of them falls on `lastDoseOn`.
    /// For an adult, `have` is 0 and `need` 1: no dose given at the final-dose age or older
    /// is recorded.
    case missingDoses(Vaccine, have: Int, need: Int, lastDoseOn: LocalDate)
    /// The dose on `later` came less than `minimumDays` days after the counted dose on
    /// `earlier`, so it does not count. Listed only while that vaccine's series is incomplete.
    case dosesTooClose(Vaccine, earlier: LocalDate, later: LocalDate, minimumDays: Int)
    /// Enough doses count, but the last counted one, on `lastDose`, was given before the dog
    /// was `weeks` weeks old. One more dose is needed, on or after `nextDoseOn`.
    case lastDoseTooEarly(Vaccine, lastDose: LocalDate, nextDoseOn: LocalDate, weeks: Int)
    /// An adult's last dose of the vaccine stopped counting on `expiredOn` (the day after its
    /// booster was due). A booster is needed.
    case adultBoosterExpired(Vaccine, expiredOn: LocalDate)
    /// Every dose needed is recorded, but protection is still building: Social Mode can start
    /// on `until` (the first day after the buffer).
    case bufferRunning(until: LocalDate)

    /// A stable machine-readable name for the kind of reason.
    public var code: String {
        switch self {
        case .tooYoung: return "too_young"
        case .missingDoses: return "missing_doses"
        case .dosesTooClose: return "doses_too_close"
        case .lastDoseTooEarly: return "last_dose_too_early"
        case .adultBoosterExpired: return "adult_booster_expired"
        case .bufferRunning: return "buffer_running"
        }
    }

    /// A sentence an owner understands, e.g.
    /// "Give a parvovirus dose on or after 12 June 2026: the last dose of the series must be
    /// given at 16 weeks old or later, and the one on 3 June 2026 was earlier."
    public var message: String { message(writingDates: \.spelledOut) }

    /// The sentence with its dates written by `date`, which the server gives the member's
    /// language ("June 12, 2026" in American English).
    public func message(writingDates date: (LocalDate) -> String) -> String {
        switch self {
        case .tooYoung(let until, let weeks):
            return "Your dog turns \(weeks) weeks old on \(date(until)); Puppy Mode lasts at least until then."
        case .missingDoses(let vaccine, let have, let need, let lastDoseOn):
            let name = vaccine.spokenName
            let last = date(lastDoseOn)
            if have <= 0 {
                return need <= 1
                    ? "Give \(WelfareReason.article(name)) \(name) dose on or after \(last)."
                    : "Give \(need) \(name) doses, the last on or after \(last)."
            }
            let more = need - have
            let soFar = "(\(have) of \(need) count so far)"
            return more <= 1
                ? "Give one more \(name) dose on or after \(last) \(soFar)."
                : "Give \(more) more \(name) doses, the last on or after \(last) \(soFar)."
        case .dosesTooClose(let vaccine, let earlier, let later, let minimumDays):
            let apart = earlier.days(until: later)
            return "The \(vaccine.spokenName) dose on \(date(later)) was given "
                + "\(WelfareReason.days(apart)) after the one on \(date(earlier)) and does not count: "
                + "doses must be at least \(WelfareReason.days(minimumDays)) apart."
        case .lastDoseTooEarly(let vaccine, let lastDose, let nextDoseOn, let weeks):
            let name = vaccine.spokenName
            return "Give \(WelfareReason.article(name)) \(name) dose on or after \(date(nextDoseOn)): "
                + "the last dose of the series must be given at \(weeks) weeks old or later, "
                + "and the one on \(date(lastDose)) was earlier."
        case .adultBoosterExpired(let vaccine, let expiredOn):
            let name = vaccine.spokenName
            return "Give \(WelfareReason.article(name)) \(name) booster: "
                + "the last dose stopped counting on \(date(expiredOn))."
        case .bufferRunning(let until):
            return "Every dose needed is recorded; Social Mode starts on \(date(until)), "
                + "once the protection has had time to build."
        }
    }

    private static func article(_ word: String) -> String {
        guard let first = word.lowercased().first else { return "a" }
        return "aeiou".contains(first) ? "an" : "a"
    }

    private static func days(_ count: Int) -> String {
        count == 1 ? "1 day" : "\(count) days"
    }
}

/// The welfare mode of one dog on one day.
public struct WelfareAssessment: Sendable, Equatable {
    public var mode: WelfareMode
    /// Everything that keeps the dog in Puppy Mode; empty in Social Mode.
    public var reasons: [WelfareReason]
    /// In Puppy Mode: the first day Social Mode can be reached if every missing dose is given
    /// as early as the rules allow, from today on (on or after today; nil if the policy makes
    /// Social Mode unreachable). In Social Mode: the day the dog's current stretch of Social
    /// Mode began (today or earlier).
    public var earliestSocialDate: LocalDate?

    public init(mode: WelfareMode, reasons: [WelfareReason], earliestSocialDate: LocalDate?) {
        self.mode = mode
        self.reasons = reasons
        self.earliestSocialDate = earliestSocialDate
    }
}

/// The rule deciding Puppy Mode or Social Mode, with every number in one place.
///
/// How the rule is read, precisely:
/// - Ages are whole days from the date of birth: a dog is `n` weeks old from the day
///   `birthDate + 7n days` (so 11 weeks 6 days is under 12 weeks, and leap days are just days).
/// - Doses dated before the birth date or after `today` are ignored (the server refuses them
///   anyway). Several doses counting toward the same vaccine on one day count as one.
/// - Each core vaccine is checked on its own; a `.dap` dose counts for distemper, adenovirus
///   and parvovirus at once. Rabies and other vaccines never count unless listed as core.
/// - Puppy series (a dog younger than `adultAgeWeeks` today): a vaccine's series is complete
///   on the first dose given on or after the day the dog is `finalDoseMinimumAgeWeeks` old that
///   ends a chain of at least `minimumDoses` doses, each given at least
///   `minimumDaysBetweenDoses` days after the one before. Doses are counted from the first:
///   a dose closer than that to the last counted dose does not count (it is reported as
///   `dosesTooClose`), yet a later dose may still pair with an earlier counted one.
/// - Adult (at least `adultAgeWeeks` old today; the puppy series no longer matters): a
///   vaccine needs a dose given when the dog was at least `finalDoseMinimumAgeWeeks` old (an
///   earlier dose may be blocked by maternal antibodies) and within the booster validity. A
///   dose given on D is valid up to and including its booster due date
///   `D.adding(years: adultBoosterValidityYears)`: a dose exactly 3 years ago to the day still
///   counts, one a day older does not. A dose given on 29 February falls due on 1 March in a
///   common year (as `LocalDate.adding(years:)` and `age(on:)` count anniversaries).
/// - Buffer: protection starts `bufferDays` days after the qualifying dose: for the series,
///   the day the last vaccine completed (the latest of the completing doses; later extra doses
///   do not restart it); for an adult, the dose that began the vaccine's current protection. A
///   booster given on or before the previous dose's due date continues the protection without
///   a new buffer; one given after it lapsed starts a new buffer.
/// - Social Mode is never reached before the dog is `minimumAgeWeeks` old. With no core
///   vaccines listed, age alone decides.
/// - `earliestSocialDate` in Puppy Mode plans missing doses from today on, respecting the
///   spacing and the final-dose age, then adds the buffer. It also accounts for the adult rule
///   taking over on the day the dog turns `adultAgeWeeks` old, which may reach Social Mode
///   sooner than finishing the series (with a valid dose given at 16 weeks or older, no further
///   dose is needed then).
/// - Values out of range are read as the nearest sensible one: `minimumDoses` at least 1,
///   `minimumDaysBetweenDoses` at least 1 (doses on one day are one dose), `bufferDays` and
///   `adultBoosterValidityYears` at least 0. A policy whose buffer lasts as long as the booster
///   validity can never admit an adult.
public struct WelfarePolicy: Sendable, Equatable {
    public var minimumAgeWeeks = 12
    public var coreVaccines: [Vaccine] = [.distemper, .adenovirus, .parvovirus]
    public var minimumDoses = 2
    /// Doses closer than this count as one (the later one does not count).
    public var minimumDaysBetweenDoses = 14
    public var finalDoseMinimumAgeWeeks = 16
    /// From this age, one core dose within the booster validity suffices.
    public var adultAgeWeeks = 52
    public var adultBoosterValidityYears = 3
    public var bufferDays = 7

    public init() {}

    /// The pet fields held back in Puppy Mode, as named on the wire: play styles, environment,
    /// neutered. SoPup locked them; Pawpack stores what the owner says and shows it to the owner
    /// and guardians, but uses none of it in matching nor shows it to other members until the
    /// dog reaches Social Mode, so a puppy's profile never speaks for behaviour not yet seen
    /// among other dogs.
    public static let heldBackInPuppyMode: Set<String> = ["playStyles", "environment", "neutered"]

    public func assess(birthDate: LocalDate, doses: [VaccinationDose], today: LocalDate) -> WelfareAssessment {
        WelfareEvaluation(policy: self, birthDate: birthDate, doses: doses, today: today).assessment()
    }
}

// MARK: - Evaluation

/// The days on which doses counting toward one core vaccine were given, ascending and distinct.
private struct CoreDoses {
    let vaccine: Vaccine
    let days: [Int]
}

/// A vaccine's puppy series as recorded.
private struct PuppySeries {
    /// The doses that count, each at least the spacing after the one before.
    var counted: [Int]
    /// Doses too close to the counted dose before them.
    var skipped: [(earlier: Int, later: Int)]
    /// The first dose that completes the series, if one does.
    var completedOn: Int?
    /// If incomplete: the earliest day the last missing dose can be given from today on.
    var plannedCompletion: Int
}

/// Days an adult is protected against one vaccine: `start..<end`, as day numbers.
private struct ProtectedSpan {
    var start: Int
    var end: Int
}

/// One dog on one day under one policy, with every date as a day number.
private struct WelfareEvaluation {
    let policy: WelfarePolicy
    let birth: Int
    let today: Int
    let minimumAgeDay: Int
    let finalDoseDay: Int
    let adultDay: Int
    let need: Int
    let gap: Int
    let buffer: Int
    let validityYears: Int
    let coreDoses: [CoreDoses]

    init(policy: WelfarePolicy, birthDate: LocalDate, doses: [VaccinationDose], today: LocalDate) {
        let birth = birthDate.dayNumber
        let now = today.dayNumber
        self.policy = policy
        self.birth = birth
        self.today = now
        minimumAgeDay = birth + policy.minimumAgeWeeks * 7
        finalDoseDay = birth + policy.finalDoseMinimumAgeWeeks * 7
        adultDay = birth + policy.adultAgeWeeks * 7
        need = max(policy.minimumDoses, 1)
        gap = max(policy.minimumDaysBetweenDoses, 1)
        buffer = max(policy.bufferDays, 0)
        validityYears = max(policy.adultBoosterValidityYears, 0)
        // Written as plain loops over small arrays: every card of a deck page is assessed, and
        // the sets and chained filters this was first written with allocated more than it computed.
        var vaccines: [Vaccine] = []
        for vaccine in policy.coreVaccines where !vaccines.contains(vaccine) { vaccines.append(vaccine) }
        coreDoses = vaccines.map { vaccine -> CoreDoses in
            var days: [Int] = []
            for dose in doses where dose.vaccine.counts(toward: vaccine) {
                let day = dose.givenOn.dayNumber
                if day >= birth && day <= now { days.append(day) }
            }
            days.sort()
            var distinct: [Int] = []
            distinct.reserveCapacity(days.count)
            for day in days where day != distinct.last { distinct.append(day) }
            return CoreDoses(vaccine: vaccine, days: distinct)
        }
    }

    func assessment() -> WelfareAssessment {
        var reasons: [WelfareReason] = []
        if today < minimumAgeDay {
            reasons.append(.tooYoung(until: date(minimumAgeDay), weeks: policy.minimumAgeWeeks))
        }
        return today >= adultDay ? assessAdult(reasons) : assessPuppy(reasons)
    }

    private func date(_ day: Int) -> LocalDate {
        LocalDate.clamped(dayNumber: day)
    }

    // MARK: Puppy series

    private func assessPuppy(_ ageReasons: [WelfareReason]) -> WelfareAssessment {
        var doseReasons: [WelfareReason] = []
        // Per vaccine, the day its series completed or, if it has not, can complete at the earliest.
        var completionDays: [Int] = []
        for entry in coreDoses {
            let series = puppySeries(entry.days)
            if let completed = series.completedOn {
                completionDays.append(completed)
                continue
            }
            completionDays.append(series.plannedCompletion)
            for pair in series.skipped {
                doseReasons.append(
                    .dosesTooClose(
                        entry.vaccine, earlier: date(pair.earlier),
                        later: date(pair.later), minimumDays: gap))
            }
            if series.counted.count < need {
                doseReasons.append(
                    .missingDoses(
                        entry.vaccine, have: series.counted.count, need: need,
                        lastDoseOn: date(series.plannedCompletion)))
            } else if let last = series.counted.last {
                doseReasons.append(
                    .lastDoseTooEarly(
                        entry.vaccine, lastDose: date(last),
                        nextDoseOn: date(series.plannedCompletion),
                        weeks: policy.finalDoseMinimumAgeWeeks))
            }
        }
        var reasons = ageReasons + doseReasons
        let protectedFrom = completionDays.max().map { $0 + buffer }
        if doseReasons.isEmpty, let protectedFrom, protectedFrom > today {
            reasons.append(.bufferRunning(until: date(protectedFrom)))
        }
        let socialFrom = max(minimumAgeDay, protectedFrom ?? minimumAgeDay)
        if reasons.isEmpty {
            return WelfareAssessment(mode: .social, reasons: [], earliestSocialDate: date(socialFrom))
        }
        // The series only decides until the dog is an adult; after that the adult rule does.
        let earliest: Int? =
            socialFrom < adultDay
            ? socialFrom
            : adultReadyDay(from: max(today, adultDay, minimumAgeDay))
        return WelfareAssessment(mode: .puppy, reasons: reasons, earliestSocialDate: earliest.map { date($0) })
    }

    private func puppySeries(_ days: [Int]) -> PuppySeries {
        var counted: [Int] = []
        var skipped: [(earlier: Int, later: Int)] = []
        for day in days {
            if let last = counted.last, day - last < gap {
                skipped.append((earlier: last, later: day))
            } else {
                counted.append(day)
            }
        }
        // Counting greedily from the first dose gives, for every day, the most spaced doses up to
        // that day. So a dose ends a chain of `need` spaced doses exactly when at least `need - 1`
        // counted doses lie `gap` or more days before it, even if the dose itself was skipped.
        let completedOn = days.first(where: { day in
            day >= finalDoseDay && counted.filter { $0 <= day - gap }.count >= need - 1
        })
        // The quickest completion from today keeps the first `need - 1` counted doses at most
        // (the greedy ones are the earliest possible) and adds the rest from today, `gap` apart,
        // the last also on or after the final-dose day.
        let kept = min(counted.count, need - 1)
        let added = need - kept
        let firstAdded = kept == 0 ? max(today, birth) : max(today, counted[kept - 1] + gap)
        let plannedCompletion = max(finalDoseDay, firstAdded + (added - 1) * gap)
        return PuppySeries(
            counted: counted, skipped: skipped, completedOn: completedOn,
            plannedCompletion: plannedCompletion)
    }

    /// The day the puppy series first admitted the dog, from the recorded doses; nil if never.
    private func puppySocialDay() -> Int? {
        var day = minimumAgeDay
        for entry in coreDoses {
            guard let completed = puppySeries(entry.days).completedOn else { return nil }
            day = max(day, completed + buffer)
        }
        return day
    }

    // MARK: Adult

    private func assessAdult(_ ageReasons: [WelfareReason]) -> WelfareAssessment {
        var doseReasons: [WelfareReason] = []
        var protectedSince: [Int] = []
        var bufferEnds: [Int] = []
        for entry in coreDoses {
            let protection = adultProtection(entry.days)
            if let current = protection.spans.first(where: { $0.start <= today && today < $0.end }) {
                protectedSince.append(current.start)
            } else if let building = protection.spans.first(where: { $0.start > today }) {
                bufferEnds.append(building.start)
            } else if let expiredOn = protection.lastExpiry {
                doseReasons.append(.adultBoosterExpired(entry.vaccine, expiredOn: date(expiredOn)))
            } else {
                doseReasons.append(
                    .missingDoses(
                        entry.vaccine, have: 0, need: 1,
                        lastDoseOn: date(max(today, finalDoseDay))))
            }
        }
        var reasons = ageReasons + doseReasons
        if doseReasons.isEmpty, let until = bufferEnds.max() {
            reasons.append(.bufferRunning(until: date(until)))
        }
        if reasons.isEmpty {
            // Protected continuously from the latest start. If that is no later than the day the
            // dog became an adult, the stretch began then, or earlier under the puppy series.
            let runStart = protectedSince.reduce(minimumAgeDay) { max($0, $1) }
            let since: Int
            if runStart > adultDay {
                since = runStart
            } else if let puppySince = puppySocialDay(), puppySince < adultDay {
                since = puppySince
            } else {
                since = adultDay
            }
            return WelfareAssessment(mode: .social, reasons: [], earliestSocialDate: date(since))
        }
        let earliest = adultReadyDay(from: max(today, minimumAgeDay))
        return WelfareAssessment(mode: .puppy, reasons: reasons, earliestSocialDate: earliest.map { date($0) })
    }

    /// The spans an adult is protected by its doses of one vaccine, ascending, neither
    /// overlapping nor touching, and the day the latest eligible dose stops counting.
    private func adultProtection(_ days: [Int]) -> (spans: [ProtectedSpan], lastExpiry: Int?) {
        var spans: [ProtectedSpan] = []
        var lastExpiry: Int?
        for day in days where day >= finalDoseDay {
            let expiry = expiryDay(ofDoseOn: day)
            lastExpiry = expiry
            if let last = spans.last, day < last.end || day + buffer <= last.end {
                // A booster while still protected continues the protection without a new buffer.
                spans[spans.count - 1].end = max(last.end, expiry)
            } else {
                spans.append(ProtectedSpan(start: day + buffer, end: expiry))
            }
        }
        return (spans.filter { $0.start < $0.end }, lastExpiry)
    }

    /// The first day a dose given on `day` no longer counts: the day after its booster is due.
    private func expiryDay(ofDoseOn day: Int) -> Int {
        date(day).adding(years: validityYears).dayNumber + 1
    }

    /// The first day on or after `lower` (itself on or after today) that the adult rule can
    /// admit the dog, if boosters are given from today on as needed; nil if it never can.
    private func adultReadyDay(from lower: Int) -> Int? {
        // A new dose protects from `bufferDays` after it for the validity years; any dose covers
        // at least 365 days a year, so beyond a too-long buffer it protects from then on.
        let newDoseProtects = 365 * validityYears > buffer
        var day = lower
        for entry in coreDoses {
            if let span = adultProtection(entry.days).spans.first(where: { $0.end > today }) {
                // Protected now or soon, and a booster before the span ends keeps it going.
                day = max(day, span.start)
            } else if newDoseProtects {
                day = max(day, max(today, finalDoseDay) + buffer)
            } else {
                return nil
            }
        }
        return day
    }
}
