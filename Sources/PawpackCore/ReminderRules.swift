import Foundation

extension Care {
    /// A medication schedule for a pet: a name, a dose, how often, until when.
    public enum Medication {
        public typealias ID = Identifier<Medication>
    }

    /// One dose of a medication, marked given by a member.
    public enum Dose {
        public typealias ID = Identifier<Dose>
    }

    /// A reminder waiting to go out: a feed, a dose, a vaccination falling due.
    public enum Reminder {
        public typealias ID = Identifier<Reminder>
    }
}

/// How often a medication is given: every N hours or every N days.
public enum MedicationInterval: Sendable, Equatable {
    case hours(Int)
    case days(Int)

    public var seconds: TimeInterval {
        switch self {
        case .hours(let hours): TimeInterval(hours) * 3_600
        case .days(let days): TimeInterval(days) * 86_400
        }
    }

    /// Stored as minutes; read back as days when it is whole days.
    public var minutes: Int { Int(seconds / 60) }

    public init(minutes: Int) {
        self = minutes % 1_440 == 0 ? .days(minutes / 1_440) : .hours(max(1, minutes / 60))
    }

    /// "every 8 hours", "every day", "every 3 days".
    public var words: String {
        switch self {
        case .hours(1): "every hour"
        case .hours(let hours): "every \(hours) hours"
        case .days(1): "every day"
        case .days(let days): "every \(days) days"
        }
    }
}

/// Medication schedules and the reminders Care sends: pure, with `now` and the household's
/// time zone as inputs.
public struct ReminderRules: Sendable, Equatable {
    /// Intervals a schedule may have: from every hour to every three days in hours, up to
    /// every 90 days (a flea treatment) in days.
    public var intervalHours: ClosedRange<Int> = 1...72
    public var intervalDays: ClosedRange<Int> = 1...90
    /// How long a course may run: until a date at most a year after its start.
    public var longestCourseDays = 366
    /// Schedules one pet may have at once.
    public var medicationsPerPet = 20
    /// At most one push per pet per member this often (Pawfolio's cooldown); the inbox still
    /// gets every notification.
    public var pushCooldown: TimeInterval = 60
    /// Vaccination reminders go this many days before the next due date, unless the pet's
    /// settings say otherwise, at `reminderHour` in the household's time zone.
    public var vaccinationLeadDays: ClosedRange<Int> = 0...60
    public static let defaultVaccinationLeadDays = 14
    public var reminderHour = 9
    /// A vaccination due this long ago is no longer reminded of (it was given and not logged,
    /// or the pet moved on); one due before a server's downtime is reminded of once after it.
    public var vaccinationStaleDays = 30

    public init() {}

    /// The interval checked against its bounds, naming `field`.
    public func interval(every count: Int, unit: String, field: String = "every") throws(Problem) -> MedicationInterval {
        switch unit {
        case "hours":
            guard intervalHours.contains(count) else {
                throw Problem.invalidField(field, "must be from \(intervalHours.lowerBound) to \(intervalHours.upperBound) hours")
            }
            return .hours(count)
        case "days":
            guard intervalDays.contains(count) else {
                throw Problem.invalidField(field, "must be from \(intervalDays.lowerBound) to \(intervalDays.upperBound) days")
            }
            return .days(count)
        default:
            throw Problem.invalidField("unit", "must be hours or days")
        }
    }

    /// A course's last day: not before its first, and within `longestCourseDays` of it.
    public func checkUntil(_ until: LocalDate?, firstDay: LocalDate, field: String = "until") throws(Problem) {
        guard let until else { return }
        guard !(until < firstDay) else { throw Problem.invalidField(field, "must not be before the first dose") }
        guard firstDay.days(until: until) <= longestCourseDays else {
            throw Problem.invalidField(field, "must be within \(longestCourseDays) days of the first dose")
        }
    }

    public func checkLeadDays(_ days: Int, field: String = "vaccinationReminderDays") throws(Problem) {
        guard vaccinationLeadDays.contains(days) else {
            throw Problem.invalidField(field, "must be from \(vaccinationLeadDays.lowerBound) to \(vaccinationLeadDays.upperBound) days")
        }
    }

    /// When the next dose is due: the first at the course's start, each next one an interval
    /// after the last given (a late dose moves the schedule, as a vet's "every 8 hours" means);
    /// nil once the course has ended (`endsAt`: the end of its last day).
    public func nextDose(lastGiven: Date?, startsAt: Date, interval: MedicationInterval, endsAt: Date?) -> Date? {
        let next = lastGiven.map { max($0.addingTimeInterval(interval.seconds), startsAt) } ?? startsAt
        if let endsAt, next >= endsAt { return nil }
        return next
    }

    /// When to remind of a vaccination due on `due`: `leadDays` before, at `reminderHour` in
    /// the household's time zone.
    public func vaccinationReminder(due: LocalDate, leadDays: Int, days: HouseholdDays) -> Date {
        days.instant(hour: reminderHour, on: due.adding(days: -leadDays))
    }
}
