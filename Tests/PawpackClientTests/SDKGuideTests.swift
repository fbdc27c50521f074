import Foundation
import PawpackAPI
import PawpackClient
import PawpackCore
import PawpackTestSupport
import Testing

// The walk-through of docs/SDK.md, as an app would write it. The guide quotes the code between
// the two markers; `SDKGuideTests` runs it against a live server and checks the guide quotes
// it exactly, so the guide always compiles and works.

// BEGIN WALKTHROUGH
/// Signs in, adds a dog, opens its deck and likes the best card. `keychain` stands for wherever
/// the app keeps secrets: every new session is saved there, and the next launch resumes from it.
func findAPlaymate(
    server: URL, email: String, password: String,
    keychain: SessionKeychain
) async throws -> (PawpackClient, SwipeResult?) {
    // 1. One client per server: resume the saved session, save each new one.
    let pawpack = PawpackClient(serverURL: server, session: keychain.load()) { session in
        keychain.save(session)
    }

    // 2. Sign in, unless the saved session still works.
    if await pawpack.session == nil {
        try await pawpack.logIn(email: email, password: password)
    }

    // 3. Where you are: the deck shows dogs near it. Nobody else ever sees it.
    try await pawpack.setLocation(GeoPoint(latitude: 45.7640, longitude: 4.8357))

    // 4. Add a dog. A new dog is in Puppy Mode: it may match and chat, not meet up yet.
    let biscuit = try await pawpack.addPet(PetDraft(name: "Biscuit", species: .dog, estimatedAgeMonths: 30, weightKg: 14))

    // 5. Its deck: nearby dogs, best first, each with the reasons it fits.
    let page = try await pawpack.deck(for: biscuit.id)
    guard let best = page.cards.first else { return (pawpack, nil) }
    print("\(best.pet.name), \(best.distance): \(best.reasons.joined(separator: ", "))")

    // 6. Like it: its owner is asked, or it is a match at once if they liked Biscuit first.
    let result = try await pawpack.like(best.pet.id, for: biscuit.id)
    if let match = result.match {
        print("It's a match with \(match.otherPet.name)!")
    }
    return (pawpack, result)
}

/// Later, the matches: each once the other owner said yes (the newest fifty; the page's
/// `nextCursor` leads to more).
func yourMatches(_ pawpack: PawpackClient) async throws -> [Match] {
    do {
        return try await pawpack.matches().items
    } catch PawpackError.notSignedIn {
        // The session ended (signed out elsewhere, or the password changed): log in again.
        return []
    }
}
// END WALKTHROUGH

/// Where the walk-through keeps its session; an app would use the keychain.
final class SessionKeychain: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Data?

    func save(_ session: Session?) {
        lock.withLock { stored = session.flatMap { try? JSONEncoder().encode($0) } }
    }

    func load() -> Session? {
        lock.withLock { stored.flatMap { try? JSONDecoder().decode(Session.self, from: $0) } }
    }
}

@Suite struct SDKGuideTests {
    @Test func theGuidesWalkThroughFindsAPlaymateAndShowsTheMatch() async throws {
        try await TestServer.run { server in
            // given Ada's account, and Bob's dog 2 km from where she will be
            let ada = try await server.member("ada")
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let keychain = SessionKeychain()

            // when Ada's app runs the walk-through
            let (pawpack, liked) = try await findAPlaymate(
                server: URL(string: server.baseURL)!, email: ada.email,
                password: ada.password, keychain: keychain)

            // then she asked Bob, and once he says yes she sees the match
            let result = try #require(liked)
            let request = try #require(result.request)
            #expect(request.toPet.name == "Bob's dog")
            #expect(try await yourMatches(pawpack).isEmpty)
            #expect(await pawpack.session != nil, "no matches yet, and still signed in")
            let accepted = try await server.request(.POST, APIPath.acceptRequest(request.id), token: bob.token)
            #expect(accepted.status == 200)
            #expect(try await yourMatches(pawpack).map(\.otherPet.name) == ["Bob's dog"])

            // and the next launch resumes from the keychain without logging in again
            let relaunched = try await findAPlaymate(
                server: URL(string: server.baseURL)!, email: ada.email,
                password: "not needed", keychain: keychain)
            #expect(try await relaunched.0.myPets().count == 2)
        }
    }

    @Test func theGuideQuotesTheWalkThroughExactly() throws {
        let here = URL(fileURLWithPath: #filePath)
        let source = try String(contentsOf: here, encoding: .utf8)
        let guide = try String(
            contentsOf: here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("docs/SDK.md"), encoding: .utf8)
        let begin = try #require(source.range(of: "// BEGIN WALKTHROUGH\n"))
        let end = try #require(source.range(of: "// END WALKTHROUGH"))
        let walkthrough = String(source[begin.upperBound..<end.lowerBound])
        #expect(walkthrough.count > 1_000)
        #expect(guide.contains("```swift\n" + walkthrough + "```"), "docs/SDK.md must quote the walk-through as it is")
    }
}
