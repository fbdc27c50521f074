/// A short list of passwords that appear at the top of public breach lists. Only entries of
/// ten characters or more matter (shorter ones already fail the length rule), so the list
/// favours those. Compared in lower case.
public enum CommonPasswords {
    public static func contains(_ lowercasedPassword: String) -> Bool {
        list.contains(lowercasedPassword)
    }

    static let list: Set<String> = [
        "1234567890", "0123456789", "12345678910", "123456789a", "1q2w3e4r5t",
        "1qaz2wsx3edc", "password1!", "password12", "password123", "password1234",
        "passw0rd123", "qwertyuiop", "qwerty1234", "qwerty12345", "qwerty123456",
        "asdfghjkl1", "zxcvbnm123", "iloveyou12", "iloveyou123", "iloveyou1234",
        "abc1234567", "abcdefghij", "abcd123456", "aaaaaaaaaa", "1111111111",
        "0000000000", "9876543210", "1122334455", "1234512345", "1234554321",
        "superman123", "football123", "baseball123", "princess123", "sunshine123",
        "welcome123", "welcome1234", "letmein123", "changeme123", "trustno1234",
        "dragon1234", "monkey1234", "master1234", "shadow1234", "michael123",
        "jennifer123", "starwars123", "whatever123", "computer123", "internet123",
        "administrator", "admin12345", "admin123456", "pokemon123", "chocolate1",
        "butterfly1", "basketball", "basketball1", "football12", "liverpool1",
        "pawpack123", "pawpack1234", "mydog12345", "ilovemydog", "ilovemydog1",
        "ilovemycat", "doggy12345", "puppy12345", "puppylove1", "kitty12345",
        "password12345", "passwordpassword", "qwertyqwerty", "1qazxsw23edc",
        "zaq12wsxcde3", "q1w2e3r4t5", "q1w2e3r4t5y6", "a1b2c3d4e5", "1a2b3c4d5e",
        "secret1234", "summer2024", "summer2025", "summer2026", "winter2025",
        "spring2026", "autumn2026", "p@ssw0rd123", "p@ssword123", "qwe1234567",
    ]
}
