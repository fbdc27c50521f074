import Foundation
import PawpackCore
import Testing

@Suite struct FeedingRulesTests {
    let rules = FeedingRules()

    func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func wetFoodIsLoggedInQuarterHalfOrWholePacketsAndDryFoodInGrams() throws {
        #expect(try rules.units(of: .packets(0.25), kind: .wet) == 1)
        #expect(try rules.units(of: .packets(0.5), kind: .wet) == 2)
        #expect(try rules.units(of: .packets(1), kind: .wet) == 4)
        #expect(try rules.units(of: .grams(1), kind: .dry) == 1)
        #expect(try rules.units(of: .grams(1_000), kind: .dry) == 1_000)
        for (portion, kind) in [
            (Portion.packets(0.75), FoodKind.wet), (.packets(2), .wet), (.packets(0), .wet), (.packets(.nan), .wet),
            (.grams(0), .dry), (.grams(1_001), .dry), (.grams(40), .wet), (.packets(1), .dry),
        ] {
            #expect(throws: Problem.self) { try rules.units(of: portion, kind: kind) }
            do {
                _ = try rules.units(of: portion, kind: kind)
            } catch {
                #expect(error.field == "portion")
            }
        }
    }

    @Test func halfAPacketLastsHalfTheGapAndNoPortionMoreThanOneGap() {
        let fed = instant("2026-05-01T08:00:00Z")
        let gap: TimeInterval = 6 * 3_600
        #expect(
            rules.nextFeed(lastFedAt: fed, lastGapShare: rules.gapShare(units: 2, kind: .wet, usualUnits: 4), gap: gap)
                == instant("2026-05-01T11:00:00Z"))
        #expect(
            rules.nextFeed(lastFedAt: fed, lastGapShare: rules.gapShare(units: 1, kind: .wet, usualUnits: 4), gap: gap)
                == instant("2026-05-01T09:30:00Z"))
        #expect(
            rules.nextFeed(lastFedAt: fed, lastGapShare: rules.gapShare(units: 4, kind: .wet, usualUnits: 4), gap: gap)
                == instant("2026-05-01T14:00:00Z"))
        #expect(rules.gapShare(units: 25, kind: .dry, usualUnits: 50) == 0.5)
        #expect(rules.gapShare(units: 200, kind: .dry, usualUnits: 50) == 1)
        #expect(rules.nextFeed(lastFedAt: nil, lastGapShare: 1, gap: gap) == nil)
    }

    @Test func aFeedIsFedUntilItsTimeThenDueForAnHourThenOverdue() {
        let next = instant("2026-05-01T14:00:00Z")
        #expect(rules.state(next: next, now: instant("2026-05-01T13:59:59Z")) == .fed)
        #expect(rules.state(next: next, now: next) == .due)
        #expect(rules.state(next: next, now: instant("2026-05-01T14:59:59Z")) == .due)
        #expect(rules.state(next: next, now: instant("2026-05-01T15:00:00Z")) == .overdue)
        #expect(rules.state(next: nil, now: next) == .due)
    }

    @Test func feedsMayBeLoggedEarlierButNeverInTheFuture() throws {
        let now = instant("2026-05-01T12:00:00Z")
        try rules.checkFeedTime(now, now: now)
        try rules.checkFeedTime(now.addingTimeInterval(120), now: now)
        try rules.checkFeedTime(now.addingTimeInterval(-31 * 86_400), now: now)
        #expect(throws: Problem.self) { try rules.checkFeedTime(now.addingTimeInterval(121), now: now) }
        #expect(throws: Problem.self) { try rules.checkFeedTime(now.addingTimeInterval(-31 * 86_400 - 1), now: now) }
    }

    @Test func gapsAreQuarterHoursFromOneToFortyEight() throws {
        #expect(try rules.gap(hours: 6) == 21_600)
        #expect(try rules.gap(hours: 1.25) == 4_500)
        for hours in [0.75, 48.25, 6.1, .infinity, .nan] {
            #expect(throws: Problem.self) { try rules.gap(hours: hours) }
        }
    }

    @Test func aFeedTakesItsPortionOrWhatIsLeftAndNothingFromAStockNotKept() {
        #expect(rules.taken(units: 4, from: 10) == 4)
        #expect(rules.taken(units: 4, from: 3) == 3)
        #expect(rules.taken(units: 4, from: 0) == 0)
        #expect(rules.taken(units: 4, from: nil) == nil)
    }

    @Test func stockRunsOutFromTheAverageUseOfTheLastDays() {
        #expect(rules.daysLeft(stock: 40, usedUnits: 56, overDays: 14) == 10)
        #expect(rules.daysLeft(stock: 3, usedUnits: 56, overDays: 14) == 0)
        #expect(rules.daysLeft(stock: 40, usedUnits: 0, overDays: 14) == nil)
        #expect(rules.daysLeft(stock: 40, usedUnits: 8, overDays: 2) == 10)
    }

    @Test func aLowAlertNeedsAThresholdAndEachAlertGoesOnceUntilRefilled() {
        var state = StockAlertState()
        // No threshold: nothing until empty, then empty once.
        var result = rules.alert(stock: 3, threshold: nil, state: state)
        #expect(result.alert == nil)
        result = rules.alert(stock: 0, threshold: nil, state: result.state)
        #expect(result.alert == .empty)
        result = rules.alert(stock: 0, threshold: nil, state: result.state)
        #expect(result.alert == nil)
        // A threshold: low once when reached, not again while below; refilled, low again.
        state = StockAlertState()
        result = rules.alert(stock: 6, threshold: 5, state: state)
        #expect(result.alert == nil)
        result = rules.alert(stock: 5, threshold: 5, state: result.state)
        #expect(result.alert == .low)
        result = rules.alert(stock: 4, threshold: 5, state: result.state)
        #expect(result.alert == nil)
        result = rules.alert(stock: 0, threshold: 5, state: result.state)
        #expect(result.alert == .empty)
        result = rules.alert(stock: 20, threshold: 5, state: result.state)
        #expect(result.alert == nil && result.state == StockAlertState())
        result = rules.alert(stock: 2, threshold: 5, state: result.state)
        #expect(result.alert == .low)
    }
}

@Suite struct HouseholdDaysTests {
    func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }
    let oslo = HouseholdDays(timeZone: HouseholdDays.timeZone(named: "Europe/Oslo")!)

    @Test func aFeedJustBeforeAndJustAfterLocalMidnightFallsOnTwoDays() {
        // 23:59 and 00:01 in Oslo (UTC+1 in January) are 22:59 and 23:01 UTC on one UTC day.
        let before = instant("2026-01-14T22:59:00Z")
        let after = instant("2026-01-14T23:01:00Z")
        #expect(oslo.day(of: before) == LocalDate("2026-01-14"))
        #expect(oslo.day(of: after) == LocalDate("2026-01-15"))
        #expect(oslo.firstOfDay([before, after]) == [true, true])
        #expect(oslo.firstOfDay([after, instant("2026-01-15T06:00:00Z"), before]) == [true, false, true])
        // feeds logged together (a batch) at one moment: one is the day's first
        #expect(oslo.firstOfDay([after, after, before]) == [true, false, true])
    }

    @Test func theDayTheClocksGoForwardIsTwentyThreeHoursAndBackTwentyFive() {
        let spring = oslo.range(of: LocalDate("2026-03-29")!)
        #expect(spring.lowerBound == instant("2026-03-28T23:00:00Z"))
        #expect(spring.upperBound.timeIntervalSince(spring.lowerBound) == 23 * 3_600)
        let autumn = oslo.range(of: LocalDate("2026-10-25")!)
        #expect(autumn.lowerBound == instant("2026-10-24T22:00:00Z"))
        #expect(autumn.upperBound.timeIntervalSince(autumn.lowerBound) == 25 * 3_600)
        // 00:30 local after the autumn change is still the 26th's first half hour.
        #expect(oslo.day(of: instant("2026-10-25T22:30:00Z")) == LocalDate("2026-10-25"))
        #expect(oslo.day(of: instant("2026-10-25T23:30:00Z")) == LocalDate("2026-10-26"))
        // The repeated hour (02:00–03:00 twice) stays on the 25th.
        #expect(oslo.day(of: instant("2026-10-25T00:30:00Z")) == LocalDate("2026-10-25"))
        #expect(oslo.day(of: instant("2026-10-25T01:30:00Z")) == LocalDate("2026-10-25"))
    }

    @Test func onlyIANANamesAreTimeZones() {
        #expect(HouseholdDays.timeZone(named: "Europe/Oslo") != nil)
        #expect(HouseholdDays.timeZone(named: "America/Santiago") != nil)
        #expect(HouseholdDays.timeZone(named: "UTC") != nil)
        for name in ["", "Mars/Olympus", "GMT+2", "CET+", String(repeating: "A/", count: 40)] {
            #expect(HouseholdDays.timeZone(named: name) == nil, "\(name)")
        }
    }

    @Test func aHouseholdsZoneIsTheFamilysElseThePetsElseTheOwnersElseUTC() {
        #expect(HouseholdDays.zoneName(family: "Europe/Oslo", pet: "Asia/Tokyo", owner: "America/Lima") == "Europe/Oslo")
        #expect(HouseholdDays.zoneName(family: nil, pet: "Asia/Tokyo", owner: "America/Lima") == "Asia/Tokyo")
        #expect(HouseholdDays.zoneName(family: nil, pet: nil, owner: "America/Lima") == "America/Lima")
        #expect(HouseholdDays.zoneName(family: nil, pet: nil, owner: nil) == "UTC")
        // a name no longer known is passed over, as if unset
        #expect(HouseholdDays.zoneName(family: "Gone/Away", pet: nil, owner: "America/Lima") == "America/Lima")
    }
}

@Suite struct EnergyRulesTests {
    let rules = EnergyRules()

    @Test func restingEnergyIsSeventyTimesKilogramsToTheThreeQuarters() {
        #expect(abs(rules.restingEnergy(kilograms: 1) - 70) < 0.0001)
        #expect(abs(rules.restingEnergy(kilograms: 4) - 197.99) < 0.01)
        #expect(abs(rules.restingEnergy(kilograms: 10) - 393.6) < 0.1)
    }

    @Test func defaultFactorsFollowSpeciesNeuteringAndGrowth() {
        #expect(rules.defaultFactor(species: .dog, neutered: true, ageInMonths: 24) == 1.6)
        #expect(rules.defaultFactor(species: .dog, neutered: false, ageInMonths: 24) == 1.8)
        #expect(rules.defaultFactor(species: .dog, neutered: nil, ageInMonths: 24) == 1.8)
        #expect(rules.defaultFactor(species: .dog, neutered: false, ageInMonths: 3) == 3.0)
        #expect(rules.defaultFactor(species: .dog, neutered: false, ageInMonths: 4) == 2.0)
        #expect(rules.defaultFactor(species: .dog, neutered: true, ageInMonths: 11) == 2.0)
        #expect(rules.defaultFactor(species: .dog, neutered: true, ageInMonths: 12) == 1.6)
        #expect(rules.defaultFactor(species: .cat, neutered: true, ageInMonths: 11) == 2.5)
        #expect(rules.defaultFactor(species: .cat, neutered: true, ageInMonths: 12) == 1.2)
        #expect(rules.defaultFactor(species: .cat, neutered: false, ageInMonths: 40) == 1.4)
        #expect(rules.defaultFactor(species: .other, neutered: true, ageInMonths: 40) == nil)
    }

    @Test func factorsAndWeightsAreBounded() throws {
        #expect(try rules.checkFactor(1.234) == 1.23)
        #expect(try rules.checkWeight(4.2) == 4.2)
        for factor in [0.49, 5.01, .nan] { #expect(throws: Problem.self) { try rules.checkFactor(factor) } }
        for weight in [0.0, 150.1, -1, .infinity] { #expect(throws: Problem.self) { try rules.checkWeight(weight) } }
    }

    @Test func aPortionsKilocaloriesComeFromItsFood() {
        #expect(rules.kilocalories(units: 2, kind: .wet, kcalPerAmount: 80) == 40)
        #expect(rules.kilocalories(units: 50, kind: .dry, kcalPerAmount: 380) == 190)
        #expect(rules.kilocalories(units: 50, kind: .dry, kcalPerAmount: nil) == 0)
    }

    @Test func theAverageCountsOnlyDaysWithFeeds() {
        let days = [LocalDate("2026-05-01")!: 200.0, LocalDate("2026-05-03")!: 100.0]
        #expect(rules.averageIntake(kcalByDay: days) == 150)
        #expect(rules.averageIntake(kcalByDay: [:]) == nil)
    }

    func days(_ count: Int, kcal: Double) -> [LocalDate: Double] {
        Dictionary(uniqueKeysWithValues: (0..<count).map { (LocalDate("2026-05-01")!.adding(days: $0), kcal) })
    }

    @Test func anInsightNeedsFiveDaysAndRoundsToHalfAPacket() throws {
        let food = (name: "Salmon pouches", kind: FoodKind.wet, kcalPerAmount: Optional(80.0))
        func insight(days count: Int, average: Double, ideal: Double?) -> CareInsight? {
            rules.insight(
                InsightInput(petName: "Miso", kilograms: 4.2, idealKilocalories: ideal, kcalByDay: days(count, kcal: average), mainFood: food))
        }
        #expect(insight(days: 4, average: 160, ideal: 200) == nil)
        #expect(insight(days: 5, average: 160, ideal: nil) == nil)
        let more = try #require(insight(days: 5, average: 160, ideal: 200))
        #expect(more.change == 0.5)
        #expect(more.headline == "About ½ packet more of Salmon pouches a day")
        #expect(more.why.contains("5 days with feeds in the last 14"))
        #expect(more.why.contains("not veterinary advice"))
        // 19 kcal short is under a quarter packet: about right.
        #expect(insight(days: 9, average: 181, ideal: 200)?.change == 0)
        #expect(insight(days: 9, average: 181, ideal: 200)?.headline.hasPrefix("About right") == true)
        // 21 kcal short rounds up to half a packet; 120 kcal over is 1½ packets less.
        #expect(insight(days: 9, average: 179, ideal: 200)?.change == 0.5)
        let less = try #require(insight(days: 9, average: 320, ideal: 200))
        #expect(less.change == -1.5)
        #expect(less.headline == "About 1½ packets less of Salmon pouches a day")
    }

    @Test func dryFoodInsightsRoundToFiveGrams() throws {
        let food = (name: "Kibble", kind: FoodKind.dry, kcalPerAmount: Optional(400.0))
        let insight = try #require(
            rules.insight(
                InsightInput(petName: "Rex", kilograms: 10, idealKilocalories: 600, kcalByDay: days(7, kcal: 520), mainFood: food)))
        #expect(insight.change == 20)
        #expect(insight.headline == "About 20 g more of Kibble a day")
    }
}

@Suite struct CareAccessTests {
    @Test func theStrongerOfPetRoleAndFamilyRoleDecides() {
        let cases: [(PetRole?, FamilyRole?, view: Bool, log: Bool, manage: Bool, share: Bool, othersFeeds: Bool, unshare: Bool)] = [
            (.owner, nil, true, true, true, true, true, true),
            (.owner, .viewer, true, true, true, true, true, true),
            (.guardian, nil, true, true, true, false, false, false),
            (.guardian, .viewer, true, true, true, false, false, false),
            (.guardian, .owner, true, true, true, false, false, true),
            (nil, .owner, true, true, false, false, false, true),
            (nil, .member, true, true, false, false, false, false),
            (nil, .viewer, true, false, false, false, false, false),
            (nil, nil, false, false, false, false, false, false),
        ]
        for (pet, family, view, log, manage, share, othersFeeds, unshare) in cases {
            let access = CareAccess(petRole: pet, familyRole: family)
            #expect(access.canView == view, "\(String(describing: pet)) \(String(describing: family))")
            #expect(access.canLog == log, "\(String(describing: pet)) \(String(describing: family))")
            #expect(access.canManage == manage, "\(String(describing: pet)) \(String(describing: family))")
            #expect(access.canShare == share, "\(String(describing: pet)) \(String(describing: family))")
            #expect(access.canUnshare == unshare, "\(String(describing: pet)) \(String(describing: family))")
            #expect(access.canChangeFeed(loggedByMe: false) == othersFeeds)
            #expect(access.canChangeFeed(loggedByMe: true) == log)
        }
    }

    @Test func onlyTheFamilysOwnerRunsIt() {
        #expect(FamilyPermissions(role: .owner).canRun)
        #expect(!FamilyPermissions(role: .member).canRun)
        #expect(FamilyPermissions(role: .viewer).canSee)
        #expect(!FamilyPermissions(role: nil).canSee)
    }
}

@Suite struct FamilyRulesTests {
    @Test func inviteCodesAreSixDigitsWithLeadingZeros() {
        #expect(FamilyRules.inviteCode(from: 42) == "000042")
        #expect(FamilyRules.inviteCode(from: 1_999_999) == "999999")
        #expect(FamilyRules.inviteCode(from: UInt64.max).count == 6)
    }

    @Test func aTypedCodeMayHaveSpacesOrADash() {
        let rules = FamilyRules()
        #expect(rules.normalizedCode("123 456") == "123456")
        #expect(rules.normalizedCode("123-456") == "123456")
        for raw in ["12345", "1234567", "12345a", "١٢٣٤٥٦", ""] { #expect(rules.normalizedCode(raw) == nil) }
    }

    @Test func aCodeIsLiveUntilItExpires() {
        let rules = FamilyRules()
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(rules.isLive(expiresAt: now.addingTimeInterval(1), now: now))
        #expect(!rules.isLive(expiresAt: now, now: now))
        #expect(!rules.isLive(expiresAt: nil, now: now))
    }
}

@Suite struct ReminderRulesTests {
    let rules = ReminderRules()
    let oslo = HouseholdDays(timeZone: HouseholdDays.timeZone(named: "Europe/Oslo")!)

    func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func intervalsAreHoursOrDaysWithinTheirBoundsAndReadBackAsWritten() throws {
        #expect(try rules.interval(every: 1, unit: "hours") == .hours(1))
        #expect(try rules.interval(every: 72, unit: "hours") == .hours(72))
        #expect(try rules.interval(every: 90, unit: "days") == .days(90))
        for (count, unit) in [(0, "hours"), (73, "hours"), (0, "days"), (91, "days"), (1, "weeks")] {
            #expect(throws: Problem.self) { try rules.interval(every: count, unit: unit) }
        }
        #expect(MedicationInterval(minutes: MedicationInterval.hours(8).minutes) == .hours(8))
        #expect(MedicationInterval(minutes: MedicationInterval.days(3).minutes) == .days(3))
        #expect(MedicationInterval.hours(48).minutes == MedicationInterval.days(2).minutes, "48 hours is 2 days")
        #expect(MedicationInterval.days(1).words == "every day" && MedicationInterval.hours(8).words == "every 8 hours")
    }

    @Test func aCourseEndsOnItsLastDayAndNotBeforeItsFirstNorPastAYear() throws {
        let first = LocalDate(year: 2026, month: 3, day: 1)!
        try rules.checkUntil(first, firstDay: first)
        try rules.checkUntil(first.adding(days: 366), firstDay: first)
        #expect(throws: Problem.self) { try rules.checkUntil(first.adding(days: -1), firstDay: first) }
        #expect(throws: Problem.self) { try rules.checkUntil(first.adding(days: 367), firstDay: first) }
    }

    @Test func theNextDoseIsAnIntervalAfterTheLastGivenNeverBeforeTheStartAndNoneAfterTheEnd() {
        let start = instant("2026-03-01T08:00:00Z")
        let end = oslo.range(of: LocalDate(year: 2026, month: 3, day: 2)!).upperBound
        #expect(rules.nextDose(lastGiven: nil, startsAt: start, interval: .hours(8), endsAt: end) == start)
        // given late: the schedule moves with it
        let late = instant("2026-03-01T09:30:00Z")
        #expect(rules.nextDose(lastGiven: late, startsAt: start, interval: .hours(8), endsAt: end) == instant("2026-03-01T17:30:00Z"))
        // given before the course began (logged early): the first is still at the start
        #expect(rules.nextDose(lastGiven: instant("2026-02-28T20:00:00Z"), startsAt: start, interval: .hours(8), endsAt: end) == start)
        // the 2nd of March ends at 23:00 UTC in Oslo: a dose due then or later is none
        #expect(rules.nextDose(lastGiven: instant("2026-03-02T15:00:00Z"), startsAt: start, interval: .hours(8), endsAt: end) == nil)
        #expect(rules.nextDose(lastGiven: instant("2026-03-02T14:59:00Z"), startsAt: start, interval: .hours(8), endsAt: end) != nil)
        #expect(rules.nextDose(lastGiven: late, startsAt: start, interval: .days(30), endsAt: nil) == late.addingTimeInterval(30 * 86_400))
    }

    @Test func aVaccinationIsRemindedAtNineInTheHouseholdsMorningTheChosenDaysBefore() {
        // due 10 April: 14 days before is 27 March, a day before the clocks go forward (UTC+1)
        let due = LocalDate(year: 2026, month: 4, day: 10)!
        #expect(rules.vaccinationReminder(due: due, leadDays: 14, days: oslo) == instant("2026-03-27T08:00:00Z"))
        // 5 days before is 5 April, in summer time (UTC+2)
        #expect(rules.vaccinationReminder(due: due, leadDays: 5, days: oslo) == instant("2026-04-05T07:00:00Z"))
        #expect(rules.vaccinationReminder(due: due, leadDays: 0, days: oslo) == instant("2026-04-10T07:00:00Z"))
        // on the days the clocks change, 9:00 still: 29 March (forward, a 23-hour day) and
        // 25 October (back, 25 hours)
        #expect(rules.vaccinationReminder(due: due, leadDays: 12, days: oslo) == instant("2026-03-29T07:00:00Z"))
        let autumn = LocalDate(year: 2026, month: 10, day: 30)!
        #expect(rules.vaccinationReminder(due: autumn, leadDays: 5, days: oslo) == instant("2026-10-25T08:00:00Z"))
        #expect(oslo.instant(hour: 0, on: LocalDate(year: 2026, month: 10, day: 25)!) == instant("2026-10-24T22:00:00Z"))
        #expect(
            oslo.instant(hour: 2, on: LocalDate(year: 2026, month: 3, day: 29)!) == instant("2026-03-29T01:00:00Z"), "02:00 is skipped: 03:00 CEST")
        #expect(throws: Problem.self) { try rules.checkLeadDays(61) }
        #expect(throws: Problem.self) { try rules.checkLeadDays(-1) }
    }
}
