import Foundation
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Another member's home cannot be found by moving around and reading distances: members are
/// matched from the centre of a 500 m cell on a grid of their own (`LocationBlur`), location
/// changes and deck reads are limited per member. The searches below are given limits high
/// enough to run; the limits themselves are tested last.
@Suite struct LocationPrivacyTests {
    static let home = TestServer.Place.lyon
    /// The centre of the cell the victim's home is in.
    static let cellCentre = LocationBlur.matchingPoint(of: home, offset: TestServer.centredGrid)

    static func unlimited(_ config: inout Config) {
        config.locationChangesPerHour = 100_000
        config.deckReadsPerMinute = 100_000
    }

    @Test func everyHomeInOneCellGetsTheSameAnswersWhereverTheOthersMove() async throws {
        // given two homes 560 m apart in one cell, and an observer who moves around each
        let corners = [
            Self.cellCentre.moved(northMetres: -200, eastMetres: -200),
            Self.cellCentre.moved(northMetres: 200, eastMetres: 200),
        ]
        var answers: [[String]] = []
        for victimHome in corners {
            answers.append(
                try await TestServer.run(adjust: Self.unlimited) { server in
                    let victim = try await server.owner("vic", at: victimHome)
                    let observer = try await server.owner("obs", at: Self.home)
                    var seen: [String] = []
                    for step in 0..<40 {
                        // a spiral out to 3 km, in 75 m steps of radius
                        let angle = Double(step) * 0.7
                        let radius = 75.0 * Double(step)
                        let probe = Self.home.moved(northMetres: radius * cos(angle), eastMetres: radius * sin(angle))
                        try await server.move(observer, to: probe)
                        let card = try await server.deck(observer).items.first { $0.pet.id == victim.dogID }
                        seen.append(card.map { "\($0.distance) \($0.score) \($0.reasons)" } ?? "not in the deck")
                    }
                    return seen
                })
        }
        // then the observer sees exactly the same thing from every point of its path
        #expect(answers[0] == answers[1])
        #expect(Set(answers[0]).count >= 3, "the path crossed distance steps: \(Set(answers[0]))")
    }

    @Test func searchingWhereTheDistanceLabelFlipsFindsTheCellNotTheHome() async throws {
        // given a home near a corner of its cell, 280 m from the cell's centre
        let victimHome = Self.cellCentre.moved(northMetres: 200, eastMetres: -195)
        let estimate = try await TestServer.run(adjust: Self.unlimited) { server in
            let victim = try await server.owner("vic", at: victimHome)
            let observer = try await server.owner("obs", at: victimHome)
            // when an observer starting at the very home looks for where "< 1 km" ends in four
            // directions, halving the step each time, as the search that found homes to 4 m did
            func near(_ point: GeoPoint) async throws -> Bool {
                try await server.move(observer, to: point)
                let card = try await server.deck(observer).items.first { $0.pet.id == victim.dogID }
                return card?.distance == "< 1 km"
            }
            func edge(north: Double, east: Double) async throws -> Double {
                var (inside, outside) = (0.0, 3_000.0)
                while outside - inside > 2 {
                    let middle = (inside + outside) / 2
                    if try await near(victimHome.moved(northMetres: north * middle, eastMetres: east * middle)) {
                        inside = middle
                    } else {
                        outside = middle
                    }
                }
                return (inside + outside) / 2
            }
            let (north, south) = (try await edge(north: 1, east: 0), try await edge(north: -1, east: 0))
            let (east, west) = (try await edge(north: 0, east: 1), try await edge(north: 0, east: -1))
            return victimHome.moved(northMetres: (north - south) / 2, eastMetres: (east - west) / 2)
        }
        // then the best guess is nearer the cell's centre than the home, and no nearer the home than 150 m
        let error = Matchmaker.haversineKm(estimate, victimHome) * 1_000
        let fromCentre = Matchmaker.haversineKm(estimate, Self.cellCentre) * 1_000
        print("label-flip search: \(Int(error)) m from the home, \(Int(fromCentre)) m from its cell's centre")
        #expect(error > 150, "the search got within \(Int(error)) m of the home")
        #expect(fromCentre < error)
    }

    @Test func aMemberMovesAFewTimesAnHourAndReadsAFewDecksAMinute() async throws {
        try await TestServer.run { server in
            var ada = try await server.owner("ada", at: Self.home)
            // when Ada moves cell after cell: the first moves count, the same cell again is free
            for step in 1..<6 {
                try await server.move(ada, to: Self.home.moved(northMetres: 600 * Double(step), eastMetres: 0))
            }
            try await server.move(ada, to: Self.home.moved(northMetres: 3_000, eastMetres: 0))
            let refused = try await server.send(
                .PUT, APIPath.location, object: ["latitude": 46.2, "longitude": 6.1],
                token: ada.token)
            #expect(refused.status == 429 && refused.code == "too_many_requests", "\(refused.status) \(refused.text)")
            #expect(Int(refused.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
            // and nothing moved her
            let me = try await server.request(.GET, APIPath.me, token: ada.token)
            #expect((me.json["location"] as? [String: Any])?["latitude"] as? Double ?? 0 < 46)
            // and an hour later, signed in again, she moves again
            server.clock.advance(by: 60 * 60)
            let again = try await server.send(
                .POST, APIPath.logIn, object: ["email": ada.member.email, "password": ada.member.password],
                token: nil)
            ada.member.accessToken = try #require(again.json["accessToken"] as? String)
            try await server.move(ada, to: GeoPoint(latitude: 46.2, longitude: 6.1))

            // when she reads her deck sixty times in a minute, the next is refused, and Bob's is not
            let bob = try await server.owner("bob", at: Self.home)
            for _ in 0..<60 { _ = try await server.deck(ada) }
            let tooMany = try await server.request(.GET, APIPath.deck(ada.dogID), token: ada.token)
            #expect(tooMany.status == 429 && tooMany.code == "too_many_requests")
            _ = try await server.deck(bob)
            server.clock.advance(by: 61)
            _ = try await server.deck(ada)
        }
    }
}

extension TestServer {
    /// The owner gives a new position, which must be taken.
    func move(_ owner: Owner, to point: GeoPoint) async throws {
        let reply = try await send(
            .PUT, APIPath.location, object: ["latitude": point.latitude, "longitude": point.longitude],
            token: owner.token)
        guard reply.status == 200 else { throw TestFailure("move: \(reply.status) \(reply.text)") }
    }
}

extension GeoPoint {
    func moved(northMetres: Double, eastMetres: Double) -> GeoPoint {
        GeoPoint(
            latitude: latitude + northMetres / 111_320,
            longitude: longitude + eastMetres / (111_320 * cos(latitude * .pi / 180)))
    }
}
