import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

/// The pet pages. Through HTTP with cookies, as a browser without JavaScript.
@Suite struct PetPagesTests {
    @Test func aPuppysProfileShowsItsBehaviourToItsOwnerOnly() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner(
                "ada", at: TestServer.Place.lyon, dog: ["estimatedAgeMonths": 4, "playStyles": ["chase"], "neutered": true])
            let bob = try await server.owner("bob", at: TestServer.Place.lyonNorth)
            let own = try await TestBrowser.signedIn(server, as: ada.member).get("/pets/\(ada.dogID)")
            #expect(own.html.contains("<dt>Plays</dt><dd>Chase</dd>") && own.html.contains("<dt>Neutered</dt><dd>Yes</dd>"))
            #expect(own.html.contains("Meet-ups unlock once"))
            let theirs = try await TestBrowser.signedIn(server, as: bob.member).get("/pets/\(ada.dogID)")
            #expect(theirs.status == 200)
            #expect(!theirs.html.contains("<dt>Plays</dt>") && !theirs.html.contains("<dt>Neutered</dt>"))
            #expect(!theirs.html.contains(#"id="welfare""#))
        }
    }
}
