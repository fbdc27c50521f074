import Foundation
import PawpackCore
import Testing

@Suite struct WelfarePolicyTests {
    let policy = WelfarePolicy()
    /// The pinned clock: 1 March 2026.
    let today = LocalDate(year: 2026, month: 3, day: 1)!
    let core: [Vaccine] = [.distemper, .adenovirus, .parvovirus]
    let noDoses: [VaccinationDose] = []

    func date(_ text: String) -> LocalDate { LocalDate(text)! }

    /// The day `offset` days after today (before, when negative).
    func inDays(_ offset: Int) -> LocalDate { today.adding(days: offset) }

    /// The birth date of a dog `days` days old today.
    func born(daysAgo days: Int) -> LocalDate { today.adding(days: -days) }

    /// Combined DAP doses given when the dog was `ages` days old.
    func dap(_ birth: LocalDate, ageDays ages: Int...) -> [VaccinationDose] {
        ages.map { VaccinationDose(vaccine: .dap, givenOn: birth.adding(days: $0)) }
    }

    func doses(_ vaccine: Vaccine, _ dates: LocalDate...) -> [VaccinationDose] {
        dates.map { VaccinationDose(vaccine: vaccine, givenOn: $0) }
    }

    func assess(
        _ birth: LocalDate, _ doses: [VaccinationDose], on day: LocalDate? = nil,
        policy: WelfarePolicy? = nil
    ) -> WelfareAssessment {
        (policy ?? self.policy).assess(birthDate: birth, doses: doses, today: day ?? today)
    }

    func social(since date: LocalDate) -> WelfareAssessment {
        WelfareAssessment(mode: .social, reasons: [], earliestSocialDate: date)
    }

    func puppy(_ reasons: [WelfareReason], earliest date: LocalDate?) -> WelfareAssessment {
        WelfareAssessment(mode: .puppy, reasons: reasons, earliestSocialDate: date)
    }

    // MARK: Age

    @Test func twelveWeeksOldToTheDayIsOldEnoughButElevenWeeksSixDaysIsNot() {
        // A final-dose age of 8 weeks lets a series complete before 12 weeks, so age alone decides.
        var early = WelfarePolicy()
        early.finalDoseMinimumAgeWeeks = 8
        let young = born(daysAgo: 83)
        let tooYoung: [WelfareReason] = [.tooYoung(until: inDays(1), weeks: 12)]
        #expect(assess(young, dap(young, ageDays: 42, 56), policy: early) == puppy(tooYoung, earliest: inDays(1)))
        let old = born(daysAgo: 84)
        #expect(assess(old, dap(old, ageDays: 42, 56), policy: early) == social(since: today))
    }

    @Test func theAgeReasonIsListedAlongsideMissingDoses() {
        let young = assess(born(daysAgo: 83), noDoses)
        var expected: [WelfareReason] = [.tooYoung(until: inDays(1), weeks: 12)]
        expected += core.map { WelfareReason.missingDoses($0, have: 0, need: 2, lastDoseOn: inDays(29)) }
        #expect(young == puppy(expected, earliest: inDays(36)))
        let hasAgeReason = assess(born(daysAgo: 84), noDoses).reasons.contains { $0.code == "too_young" }
        #expect(!hasAgeReason)
    }

    // MARK: Spacing

    @Test func dosesThirteenDaysApartCountAsOne() {
        let birth = born(daysAgo: 140)
        let result = assess(birth, dap(birth, ageDays: 105, 118))
        let expected: [WelfareReason] = core.flatMap { vaccine -> [WelfareReason] in
            [
                .dosesTooClose(vaccine, earlier: birth.adding(days: 105), later: birth.adding(days: 118), minimumDays: 14),
                .missingDoses(vaccine, have: 1, need: 2, lastDoseOn: today),
            ]
        }
        #expect(result == puppy(expected, earliest: inDays(7)))
    }

    @Test func dosesFourteenDaysApartBothCount() {
        let birth = born(daysAgo: 140)
        #expect(assess(birth, dap(birth, ageDays: 105, 119)) == social(since: birth.adding(days: 126)))
    }

    @Test func aDoseTooCloseToTheOneBeforeCanStillEndTheSeriesWithAnEarlierDose() {
        // Counted: 8 weeks and 15w6d; the dose at 16w3d is only 4 days after the second, but it is
        // 59 days after the first, so 8 weeks → 16w3d is a complete series.
        let birth = born(daysAgo: 140)
        #expect(assess(birth, dap(birth, ageDays: 56, 111, 115)) == social(since: birth.adding(days: 122)))
    }

    @Test func severalDosesOnOneDayCountAsOne() {
        let birth = born(daysAgo: 140)
        let sameDay = dap(birth, ageDays: 90) + doses(.parvovirus, birth.adding(days: 90))
        let expected: [WelfareReason] = core.map {
            WelfareReason.missingDoses($0, have: 1, need: 2, lastDoseOn: today)
        }
        #expect(assess(birth, sameDay) == puppy(expected, earliest: inDays(7)))
        // A distemper dose the day after the combined shot is too close; the series still completes.
        let complete = sameDay + doses(.distemper, birth.adding(days: 91)) + dap(birth, ageDays: 112)
        #expect(assess(birth, complete) == social(since: birth.adding(days: 119)))
    }

    // MARK: Final dose age

    @Test func theLastDoseOnTheDayBeforeSixteenWeeksIsTooEarly() {
        let birth = born(daysAgo: 130)
        let expected: [WelfareReason] = core.map {
            WelfareReason.lastDoseTooEarly($0, lastDose: birth.adding(days: 111), nextDoseOn: today, weeks: 16)
        }
        #expect(assess(birth, dap(birth, ageDays: 91, 111)) == puppy(expected, earliest: inDays(7)))
    }

    @Test func theLastDoseOnTheSixteenWeekDayCompletesTheSeries() {
        let birth = born(daysAgo: 130)
        #expect(assess(birth, dap(birth, ageDays: 91, 112)) == social(since: birth.adding(days: 119)))
    }

    // MARK: Buffer

    @Test func sixDaysAfterTheQualifyingDoseTheBufferIsStillRunning() {
        let birth = born(daysAgo: 118)
        let expected: [WelfareReason] = [.bufferRunning(until: inDays(1))]
        #expect(assess(birth, dap(birth, ageDays: 91, 112)) == puppy(expected, earliest: inDays(1)))
    }

    @Test func sevenDaysAfterTheQualifyingDoseTheDogIsSocial() {
        let birth = born(daysAgo: 119)
        #expect(assess(birth, dap(birth, ageDays: 91, 112)) == social(since: today))
    }

    @Test func anExtraDoseAfterTheSeriesDoesNotRestartTheBuffer() {
        let birth = born(daysAgo: 140)
        #expect(assess(birth, dap(birth, ageDays: 91, 112, 138)) == social(since: birth.adding(days: 119)))
    }

    // MARK: Adults

    @Test func anAdultDoseThreeYearsMinusADayOldCounts() {
        #expect(assess(date("2020-01-10"), doses(Vaccine.dap, date("2023-03-02"))) == social(since: date("2023-03-09")))
    }

    @Test func anAdultDoseExactlyThreeYearsOldStillCountsOnItsDueDate() {
        #expect(assess(date("2020-01-10"), doses(Vaccine.dap, date("2023-03-01"))) == social(since: date("2023-03-08")))
    }

    @Test func anAdultDoseThreeYearsAndADayOldHasExpired() {
        let expected: [WelfareReason] = core.map { WelfareReason.adultBoosterExpired($0, expiredOn: today) }
        #expect(assess(date("2020-01-10"), doses(Vaccine.dap, date("2023-02-28"))) == puppy(expected, earliest: inDays(7)))
    }

    @Test func aDoseOn29FebruaryFallsDueOn1MarchInACommonYear() {
        let birth = date("2020-05-01")
        let leapDose = doses(.dap, date("2024-02-29"))
        #expect(assess(birth, leapDose, on: date("2027-02-28")).mode == .social)
        #expect(assess(birth, leapDose, on: date("2027-03-01")) == social(since: date("2024-03-07")))
        let expected: [WelfareReason] = core.map { WelfareReason.adultBoosterExpired($0, expiredOn: date("2027-03-02")) }
        #expect(assess(birth, leapDose, on: date("2027-03-02")) == puppy(expected, earliest: date("2027-03-09")))
    }

    @Test func anAdultWithNoDoseAtSixteenWeeksOrOlderNeedsOne() {
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 0, need: 1, lastDoseOn: today) }
        #expect(assess(date("2020-01-10"), noDoses) == puppy(expected, earliest: inDays(7)))
        // Puppy doses at 6 and 10 weeks do not protect an adult.
        let early = doses(.dap, date("2020-02-21"), date("2020-03-20"))
        #expect(assess(date("2020-01-10"), early) == puppy(expected, earliest: inDays(7)))
    }

    @Test func aBoosterGivenByTheDueDateKeepsSocialModeWithoutANewBuffer() {
        let birth = date("2020-01-10")
        let early = doses(.dap, date("2023-03-05"), date("2026-02-27"))
        #expect(assess(birth, early) == social(since: date("2023-03-12")))
        let onTheDueDate = doses(.dap, date("2023-03-01"), date("2026-03-01"))
        #expect(assess(birth, onTheDueDate) == social(since: date("2023-03-08")))
    }

    @Test func aBoosterAfterALapseStartsANewBuffer() {
        // The 2023-02-20 dose was due on 2026-02-20 and stopped counting on 2026-02-21.
        let lapsed = doses(.dap, date("2023-02-20"), date("2026-02-27"))
        let expected: [WelfareReason] = [.bufferRunning(until: date("2026-03-06"))]
        #expect(assess(date("2020-01-10"), lapsed) == puppy(expected, earliest: date("2026-03-06")))
    }

    @Test func anAdultThatCompletedItsSeriesAsAPuppyHasBeenSocialSinceThen() {
        let birth = born(daysAgo: 400)
        #expect(assess(birth, dap(birth, ageDays: 70, 112)) == social(since: birth.adding(days: 119)))
        // One dose at 30 weeks never completed the series; it admits the dog as an adult at 52 weeks.
        #expect(assess(birth, dap(birth, ageDays: 210)) == social(since: birth.adding(days: 364)))
    }

    @Test func aPupAboutToBecomeAnAdultMayNeedNoFurtherDose() {
        // 51 weeks 5 days old with one dose at 30 weeks: the series wants a second dose (social at
        // the earliest in 7 days), but in 2 days the adult rule accepts the dose it has.
        let birth = born(daysAgo: 362)
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 1, need: 2, lastDoseOn: today) }
        #expect(assess(birth, dap(birth, ageDays: 210)) == puppy(expected, earliest: inDays(2)))
    }

    // MARK: Leap-day birthdays

    @Test func aDogBornOn29FebruaryTurns12WeeksOn23May() {
        let birth = date("2024-02-29")
        let tooYoung = WelfareReason.tooYoung(until: date("2024-05-23"), weeks: 12)
        #expect(assess(birth, noDoses, on: date("2024-05-22")).reasons.first == tooYoung)
        let twelveWeeks = assess(birth, noDoses, on: date("2024-05-23"))
        #expect(!twelveWeeks.reasons.contains(tooYoung))
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 0, need: 2, lastDoseOn: date("2024-06-20")) }
        #expect(twelveWeeks == puppy(expected, earliest: date("2024-06-27")))
    }

    @Test func aDogBornOn29FebruaryTurns16WeeksOn20June() {
        let birth = date("2024-02-29")
        let dayBefore = doses(.dap, date("2024-05-09"), date("2024-06-19"))
        let expected: [WelfareReason] = core.map {
            WelfareReason.lastDoseTooEarly($0, lastDose: date("2024-06-19"), nextDoseOn: date("2024-07-10"), weeks: 16)
        }
        #expect(assess(birth, dayBefore, on: date("2024-07-10")) == puppy(expected, earliest: date("2024-07-17")))
        let onTheDay = doses(.dap, date("2024-05-09"), date("2024-06-20"))
        #expect(assess(birth, onTheDay, on: date("2024-07-10")) == social(since: date("2024-06-27")))
    }

    // MARK: Which vaccines count

    @Test func aCombinedDHPPShotCountsForAllThreeCoreVaccines() {
        let birth = born(daysAgo: 140)
        let combined = doses(Vaccine(code: "DHPP"), birth.adding(days: 70), birth.adding(days: 112))
        let allCombined = combined.allSatisfy { $0.vaccine == .dap }
        #expect(allCombined)
        #expect(assess(birth, combined) == social(since: birth.adding(days: 119)))
        let separate = core.flatMap { doses($0, birth.adding(days: 70), birth.adding(days: 112)) }
        #expect(assess(birth, separate) == social(since: birth.adding(days: 119)))
    }

    @Test func rabiesAndOtherVaccinesDoNotCountTowardTheCoreSeries() {
        let birth = born(daysAgo: 140)
        let given = [birth.adding(days: 70), birth.adding(days: 112)]
        let notCore = given.flatMap { doses(.rabies, $0) + doses(.other("Leptospirosis"), $0) }
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 0, need: 2, lastDoseOn: inDays(14)) }
        #expect(assess(birth, notCore) == puppy(expected, earliest: inDays(21)))
        #expect(!Vaccine.dap.counts(toward: Vaccine.rabies))
        #expect(!Vaccine.rabies.counts(toward: Vaccine.distemper))
        #expect(Vaccine.dap.counts(toward: Vaccine.parvovirus))
    }

    @Test func reasonsListEveryMissingThing() {
        let birth = born(daysAgo: 126)
        let given =
            doses(.distemper, birth.adding(days: 70), birth.adding(days: 112))
            + doses(.adenovirus, birth.adding(days: 70))
            + doses(.rabies, birth.adding(days: 112))
        let expected: [WelfareReason] = [
            .missingDoses(.adenovirus, have: 1, need: 2, lastDoseOn: today),
            .missingDoses(.parvovirus, have: 0, need: 2, lastDoseOn: inDays(14)),
        ]
        #expect(assess(birth, given) == puppy(expected, earliest: inDays(21)))
    }

    @Test func dosesBeforeBirthOrInTheFutureAreIgnored() {
        let birth = born(daysAgo: 140)
        let given = dap(birth, ageDays: -3, 105) + doses(.dap, inDays(1))
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 1, need: 2, lastDoseOn: today) }
        #expect(assess(birth, given) == puppy(expected, earliest: inDays(7)))
    }

    // MARK: Earliest Social date

    @Test func aNewbornCanBeSocialAtSeventeenWeeks() {
        // Two doses at least 14 days apart, the last on the 16-week day, then the 7-day buffer.
        var expected: [WelfareReason] = [.tooYoung(until: inDays(84), weeks: 12)]
        expected += core.map { WelfareReason.missingDoses($0, have: 0, need: 2, lastDoseOn: inDays(112)) }
        #expect(assess(today, noDoses) == puppy(expected, earliest: inDays(119)))
        #expect(inDays(119) == date("2026-06-28"))
    }

    @Test func aPupWithOneDoseCanBeSocialAWeekAfterSixteenWeeks() {
        let birth = born(daysAgo: 70)
        var expected: [WelfareReason] = [.tooYoung(until: inDays(14), weeks: 12)]
        expected += core.map { WelfareReason.missingDoses($0, have: 1, need: 2, lastDoseOn: inDays(42)) }
        #expect(assess(birth, dap(birth, ageDays: 56)) == puppy(expected, earliest: inDays(49)))
    }

    @Test func theSpacingCanPushTheLastDoseBeyondSixteenWeeks() {
        // 15 weeks old, first dose yesterday: the next may come 14 days after it, at 16w6d.
        let birth = born(daysAgo: 105)
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 1, need: 2, lastDoseOn: inDays(13)) }
        #expect(assess(birth, dap(birth, ageDays: 104)) == puppy(expected, earliest: inDays(20)))
    }

    @Test func aCompleteSeriesInItsBufferIsSocialWhenTheBufferEnds() {
        let birth = born(daysAgo: 113)
        let result = assess(birth, dap(birth, ageDays: 91, 112))
        #expect(result.mode == .puppy)
        #expect(result.earliestSocialDate == inDays(6))
        #expect(assess(birth, dap(birth, ageDays: 91, 112), on: inDays(6)) == social(since: inDays(6)))
    }

    // MARK: Configuration

    @Test func aBufferOfZeroDaysMakesTheDogSocialOnTheDayOfTheDose() {
        var noBuffer = WelfarePolicy()
        noBuffer.bufferDays = 0
        let birth = born(daysAgo: 112)
        #expect(assess(birth, dap(birth, ageDays: 91, 112), policy: noBuffer) == social(since: today))
        let buffering: [WelfareReason] = [.bufferRunning(until: inDays(7))]
        #expect(assess(birth, dap(birth, ageDays: 91, 112)).reasons == buffering)
    }

    @Test func everyNumberOfThePolicyIsConfigurable() {
        let birth = born(daysAgo: 112)
        var threeDoses = WelfarePolicy()
        threeDoses.minimumDoses = 3
        let expected: [WelfareReason] = core.map { WelfareReason.missingDoses($0, have: 2, need: 3, lastDoseOn: inDays(14)) }
        #expect(assess(birth, dap(birth, ageDays: 91, 112), policy: threeDoses) == puppy(expected, earliest: inDays(21)))

        var rabiesOnly = WelfarePolicy()
        rabiesOnly.coreVaccines = [.rabies]
        let older = born(daysAgo: 140)
        let rabies = doses(.rabies, older.adding(days: 70), older.adding(days: 112))
        #expect(assess(older, rabies, policy: rabiesOnly) == social(since: older.adding(days: 119)))

        var relaxed = WelfarePolicy()
        relaxed.minimumAgeWeeks = 8
        relaxed.minimumDaysBetweenDoses = 21
        relaxed.finalDoseMinimumAgeWeeks = 12
        relaxed.bufferDays = 3
        let pup = born(daysAgo: 90)
        #expect(assess(pup, dap(pup, ageDays: 63, 84), policy: relaxed) == social(since: pup.adding(days: 87)))
        #expect(assess(pup, dap(pup, ageDays: 64, 84), policy: relaxed).mode == .puppy)

        var shortValidity = WelfarePolicy()
        shortValidity.adultAgeWeeks = 26
        shortValidity.adultBoosterValidityYears = 1
        let adult = date("2024-01-10")
        let boosted = doses(.dap, date("2025-02-28"))
        let lapsed: [WelfareReason] = core.map {
            WelfareReason.adultBoosterExpired($0, expiredOn: date("2026-03-01"))
        }
        #expect(assess(adult, boosted, policy: shortValidity) == puppy(lapsed, earliest: inDays(7)))
        #expect(assess(adult, boosted).mode == .social)
    }

    @Test func withoutCoreVaccinesAgeAloneDecides() {
        var none = WelfarePolicy()
        none.coreVaccines = []
        #expect(assess(born(daysAgo: 84), noDoses, policy: none) == social(since: today))
        let tooYoung: [WelfareReason] = [.tooYoung(until: inDays(1), weeks: 12)]
        #expect(assess(born(daysAgo: 83), noDoses, policy: none) == puppy(tooYoung, earliest: inDays(1)))
    }

    // MARK: What the modes allow, and how reasons read

    @Test func puppyModeMayNotArrangeMeetUpsAndHoldsBackBehaviouralFields() {
        #expect(!WelfareMode.puppy.mayArrangeMeetUps)
        #expect(WelfareMode.social.mayArrangeMeetUps)
        let heldBack: Set<String> = ["playStyles", "environment", "neutered"]
        #expect(WelfarePolicy.heldBackInPuppyMode == heldBack)
    }

    @Test func reasonsSpeakToOwners() {
        let tooEarly = WelfareReason.lastDoseTooEarly(
            .parvovirus, lastDose: date("2026-06-03"),
            nextDoseOn: date("2026-06-12"), weeks: 16)
        #expect(
            tooEarly.message
                == "Give a parvovirus dose on or after 12 June 2026: the last dose of the series must be given at 16 weeks old or later, and the one on 3 June 2026 was earlier."
        )
        #expect(
            WelfareReason.missingDoses(Vaccine.adenovirus, have: 0, need: 1, lastDoseOn: today).message
                == "Give an adenovirus dose on or after 1 March 2026.")
        #expect(
            WelfareReason.missingDoses(Vaccine.distemper, have: 0, need: 2, lastDoseOn: date("2026-06-21")).message
                == "Give 2 distemper doses, the last on or after 21 June 2026.")
        #expect(
            WelfareReason.missingDoses(Vaccine.distemper, have: 1, need: 2, lastDoseOn: date("2026-04-12")).message
                == "Give one more distemper dose on or after 12 April 2026 (1 of 2 count so far).")
        #expect(
            WelfareReason.missingDoses(Vaccine.parvovirus, have: 1, need: 3, lastDoseOn: date("2026-04-12")).message
                == "Give 2 more parvovirus doses, the last on or after 12 April 2026 (1 of 3 count so far).")
        #expect(
            WelfareReason.dosesTooClose(
                Vaccine.distemper, earlier: date("2026-01-25"), later: date("2026-02-07"),
                minimumDays: 14
            ).message
                == "The distemper dose on 7 February 2026 was given 13 days after the one on 25 January 2026 and does not count: doses must be at least 14 days apart."
        )
        #expect(
            WelfareReason.tooYoung(until: date("2026-05-24"), weeks: 12).message
                == "Your dog turns 12 weeks old on 24 May 2026; Puppy Mode lasts at least until then.")
        #expect(
            WelfareReason.adultBoosterExpired(Vaccine.distemper, expiredOn: date("2027-03-02")).message
                == "Give a distemper booster: the last dose stopped counting on 2 March 2027.")
        #expect(
            WelfareReason.bufferRunning(until: date("2026-03-08")).message
                == "Every dose needed is recorded; Social Mode starts on 8 March 2026, once the protection has had time to build.")
        #expect(WelfareReason.bufferRunning(until: today).code == "buffer_running")
    }

    @Test func vaccinesTravelAsPlainNames() throws {
        #expect(Vaccine(code: " DHPP ") == .dap)
        #expect(Vaccine(code: "da2pp") == .dap)
        #expect(Vaccine(code: "Parvovirus") == .parvovirus)
        #expect(Vaccine(code: " Leptospirosis ") == Vaccine.other("Leptospirosis"))
        let given = [
            VaccinationDose(vaccine: .dap, givenOn: today),
            VaccinationDose(vaccine: .other("Kennel cough"), givenOn: today),
        ]
        let encoded = try JSONEncoder().encode(given)
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains("\"dap\""))
        #expect(text.contains("\"Kennel cough\""))
        #expect(text.contains("\"2026-03-01\""))
        #expect(try JSONDecoder().decode([VaccinationDose].self, from: encoded) == given)
        let parsed: [Vaccine] = [.dap, .rabies]
        #expect(try JSONDecoder().decode([Vaccine].self, from: Data("[\"DAPP\", \"rabies\"]".utf8)) == parsed)
    }
}
