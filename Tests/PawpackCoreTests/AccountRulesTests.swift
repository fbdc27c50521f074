import Foundation
import PawpackCore
import Testing

@Suite struct AccountRulesTests {
    let rules = AccountRules()
    /// 2026-03-01 12:00 UTC.
    let now = Date(timeIntervalSince1970: 1_772_366_400)

    func form(
        email: String = "Ada@Example.com ", password: String = "a walk in the park",
        username: String = "Ada_Dogs", displayName: String = " Ada ", dateOfBirth: String = "1990-05-17",
        city: String? = "  "
    ) -> SignUpForm {
        SignUpForm(
            email: email, password: password, username: username, displayName: displayName,
            dateOfBirth: dateOfBirth, city: city)
    }

    func problem(_ form: SignUpForm) -> Problem? {
        do {
            _ = try rules.validate(form, now: now)
            return nil
        } catch { return error }
    }

    @Test func aValidSignUpIsNormalised() throws {
        let valid = try rules.validate(form(), now: now)
        #expect(valid.email == "ada@example.com")
        #expect(valid.username == "ada_dogs")
        #expect(valid.displayName == "Ada")
        #expect(valid.city == nil)
        #expect(valid.dateOfBirth == LocalDate(year: 1990, month: 5, day: 17))
    }

    @Test(arguments: ["123456789", "short"])
    func passwordsUnderTenCharactersAreRefused(password: String) {
        let problem = problem(form(password: password))
        #expect(problem?.code == .validationFailed)
        #expect(problem?.errors == [FieldError(field: "password", message: "must be at least 10 characters")])
    }

    @Test(arguments: ["1234567890", "Password123", "QWERTYUIOP", "iloveyou123"])
    func commonPasswordsAreRefusedWhateverTheirCase(password: String) {
        #expect(problem(form(password: password))?.field == "password")
    }

    @Test func aPassphraseMayBeLongButNotEndless() {
        #expect(problem(form(password: String(repeating: "é", count: 128))) == nil)
        #expect(problem(form(password: String(repeating: "x", count: 129)))?.field == "password")
    }

    @Test func everyBadFieldIsNamedAtOnce() {
        let problem = problem(
            form(
                email: "not-an-email", password: "x", username: "9lives",
                displayName: "", dateOfBirth: "17/05/1990"))
        #expect(Set(problem?.errors.map(\.field) ?? []) == ["email", "password", "username", "displayName", "dateOfBirth"])
        #expect(problem?.status == 422)
    }

    @Test(arguments: ["ab", "a-b-c", "Émile", "_start", String(repeating: "a", count: 31)])
    func usernamesOutsideTheAlphabetOrLengthAreRefused(username: String) {
        #expect(problem(form(username: username))?.field == "username")
    }

    @Test func thirteenYearsOldToTheDayMayJoinButADayYoungerMayNot() {
        // now is 2026-03-01: born 2013-03-01 turned 13 today; 2013-03-02 turns 13 tomorrow.
        #expect(problem(form(dateOfBirth: "2013-03-01")) == nil)
        let tooYoung = problem(form(dateOfBirth: "2013-03-02"))
        #expect(tooYoung?.code == .tooYoung)
        #expect(tooYoung?.field == "dateOfBirth")
    }

    @Test func aLeapDayBirthdayCompletesItsYearOnTheFirstOfMarch() {
        let birth = LocalDate(year: 2012, month: 2, day: 29)!
        #expect(birth.age(on: LocalDate(year: 2025, month: 2, day: 28)!) == 12)
        #expect(birth.age(on: LocalDate(year: 2025, month: 3, day: 1)!) == 13)
        #expect(birth.age(on: LocalDate(year: 2024, month: 2, day: 29)!) == 12)
    }

    @Test func birthDatesInTheFutureOrImpossibleAreRefused() {
        #expect(problem(form(dateOfBirth: "2026-03-02"))?.errors.first?.message == "cannot be in the future")
        #expect(problem(form(dateOfBirth: "2023-02-29"))?.field == "dateOfBirth")
        #expect(problem(form(dateOfBirth: "1990-5-17"))?.field == "dateOfBirth")
    }

    @Test func aProfileChangeKeepsAbsentFieldsAndLetsAnEmptyCityClear() throws {
        let change = try rules.validate(ProfileChange(displayName: nil, city: "", username: " NewName "))
        #expect(change.displayName == nil)
        #expect(change.city == "")
        #expect(change.username == "newname")
        #expect(throws: Problem.self) { try rules.validate(ProfileChange(displayName: "   ")) }
    }

    @Test func aTimeZoneIsAnIANANameOrEmptyToClearIt() throws {
        #expect(try rules.validate(ProfileChange(timeZone: " Europe/Oslo ")).timeZone == "Europe/Oslo")
        #expect(try rules.validate(ProfileChange(timeZone: "")).timeZone == "")
        #expect(try rules.validate(ProfileChange(displayName: "Ada")).timeZone == nil)
        for bad in ["Oslo", "GMT+2", "Mars/Olympus"] {
            #expect(throws: Problem.self, "\(bad)") { try rules.validate(ProfileChange(timeZone: bad)) }
        }
        var signUp = form()
        signUp.timeZone = "America/Lima"
        #expect(try rules.validate(signUp, now: now).timeZone == "America/Lima")
        signUp.timeZone = "Lima"
        #expect(problem(signUp)?.field == "timeZone")
    }
}
