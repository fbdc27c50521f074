import Foundation

/// The rules for account fields. Every message names what to do, because owners read them.
public struct AccountRules: Sendable {
    /// Kobble and SoPup are for adults and teens; under-13s may not hold an account (COPPA).
    public var minimumAge = 13
    public var minimumPasswordLength = 10
    /// Passphrases welcome; bcrypt reads 72 bytes, so the hasher reduces a longer one to its
    /// SHA-256 first (`PasswordHasher`) and all of it counts.
    public var maximumPasswordLength = 128
    public var usernameLength = 3...30
    public var displayNameLength = 1...50
    public var maximumCityLength = 80
    public var maximumEmailLength = 254

    public init() {}

    public func validate(_ form: SignUpForm, now: Date) throws(Problem) -> ValidSignUp {
        var errors: [FieldError] = []
        let email = normalizedEmail(form.email)
        if let message = emailProblem(email) { errors.append(.init(field: "email", message: message)) }
        let username = normalizedUsername(form.username)
        if let message = usernameProblem(username) { errors.append(.init(field: "username", message: message)) }
        let displayName = form.displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        if let message = displayNameProblem(displayName) {
            errors.append(.init(field: "displayName", message: message))
        }
        if let message = passwordProblem(form.password, email: email, username: username) {
            errors.append(.init(field: "password", message: message))
        }
        let city = normalizedCity(form.city)
        if let city, let message = cityProblem(city) { errors.append(.init(field: "city", message: message)) }
        let timeZone = form.timeZone?.trimmingCharacters(in: .whitespaces)
        if let timeZone, !timeZone.isEmpty, let message = timeZoneProblem(timeZone) {
            errors.append(.init(field: "timeZone", message: message))
        }
        let birth = LocalDate(form.dateOfBirth.trimmingCharacters(in: .whitespaces))
        if birth == nil {
            errors.append(.init(field: "dateOfBirth", message: "must be a date written as YYYY-MM-DD"))
        } else if let birth, birth > LocalDate(utc: now) {
            errors.append(.init(field: "dateOfBirth", message: "cannot be in the future"))
        } else if let birth, birth.year < 1900 {
            errors.append(.init(field: "dateOfBirth", message: "must be in 1900 or later"))
        }
        guard errors.isEmpty, let birth else { throw Problem.validation(errors) }
        if birth.age(on: LocalDate(utc: now)) < minimumAge {
            throw Problem(
                status: 422, code: .tooYoung, title: "Too young for Pawpack",
                detail: "You must be at least \(minimumAge) years old to join Pawpack.",
                errors: [.init(field: "dateOfBirth", message: "you must be at least \(minimumAge) years old")])
        }
        return ValidSignUp(
            email: email, password: form.password, username: username,
            displayName: displayName, dateOfBirth: birth, city: city,
            timeZone: timeZone?.isEmpty == false ? timeZone : nil)
    }

    public func normalizedEmail(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    public func normalizedUsername(_ raw: String) -> String {
        raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// An empty city means "no city".
    public func normalizedCity(_ raw: String?) -> String? {
        guard let trimmed = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        return trimmed
    }

    public func emailProblem(_ email: String) -> String? {
        if email.isEmpty { return "is required" }
        if email.count > maximumEmailLength { return "must be at most \(maximumEmailLength) characters" }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "<" || $0 == ">" }),
            !email.unicodeScalars.contains(where: TextRule.isControl)
        else {
            return "must be an email address like name@example.com"
        }
        return nil
    }

    public func usernameProblem(_ username: String) -> String? {
        if !usernameLength.contains(username.count) {
            return "must be \(usernameLength.lowerBound) to \(usernameLength.upperBound) characters"
        }
        let allowed = username.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
        }
        guard allowed, let first = username.unicodeScalars.first, ("a"..."z").contains(first) else {
            return "may use only letters, digits and _ and must start with a letter"
        }
        return nil
    }

    /// A display name: `TextRule`'s for names (callers store it trimmed, as the rule keeps it).
    public func displayNameProblem(_ name: String) -> String? {
        switch TextRule.name(max: displayNameLength.upperBound).check(name) {
        case .success: return nil
        case .failure(.empty), .failure(.tooLong):
            return "must be \(displayNameLength.lowerBound) to \(displayNameLength.upperBound) characters"
        case .failure(let refusal): return refusal.message
        }
    }

    public func cityProblem(_ city: String) -> String? {
        if case .failure(let refusal) = TextRule.line(max: maximumCityLength).check(city) { return refusal.message }
        return nil
    }

    /// A member's time zone must be one the household days can follow.
    public func timeZoneProblem(_ name: String) -> String? {
        HouseholdDays.timeZone(named: name) == nil ? "is not a time zone's IANA name, such as Europe/Oslo" : nil
    }

    public func passwordProblem(_ password: String, email: String = "", username: String = "") -> String? {
        if password.count < minimumPasswordLength {
            return "must be at least \(minimumPasswordLength) characters"
        }
        if password.count > maximumPasswordLength || password.unicodeScalars.count > maximumPasswordLength * 8 {
            return "must be at most \(maximumPasswordLength) characters"
        }
        // A NUL ends the password for bcrypt: what follows it would not count.
        if password.unicodeScalars.contains(where: TextRule.isControl) {
            return "may not contain control characters"
        }
        let lowered = password.lowercased()
        if CommonPasswords.contains(lowered) {
            return "is one of the most common passwords; choose another"
        }
        if (!username.isEmpty && lowered == username) || (!email.isEmpty && lowered == email) {
            return "must not be your email or username"
        }
        return nil
    }

    /// Checks a profile change and returns it normalised.
    public func validate(_ change: ProfileChange) throws(Problem) -> ProfileChange {
        var errors: [FieldError] = []
        var result = ProfileChange()
        if let name = change.displayName {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            if let message = displayNameProblem(trimmed) {
                errors.append(.init(field: "displayName", message: message))
            }
            result.displayName = trimmed
        }
        if let city = change.city {
            // An empty string clears the city; `nil` in the result still means "unchanged",
            // so the cleared state travels as "".
            let trimmed = city.trimmingCharacters(in: .whitespacesAndNewlines)
            if let message = cityProblem(trimmed) { errors.append(.init(field: "city", message: message)) }
            result.city = trimmed
        }
        if let username = change.username {
            let normalized = normalizedUsername(username)
            if let message = usernameProblem(normalized) {
                errors.append(.init(field: "username", message: message))
            }
            result.username = normalized
        }
        if let zone = change.timeZone {
            // As the city: an empty name clears it, and travels as "".
            let trimmed = zone.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty, let message = timeZoneProblem(trimmed) {
                errors.append(.init(field: "timeZone", message: message))
            }
            result.timeZone = trimmed
        }
        guard errors.isEmpty else { throw Problem.validation(errors) }
        return result
    }
}
