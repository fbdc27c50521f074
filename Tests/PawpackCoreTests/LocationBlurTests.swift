import Foundation
import Testing

@testable import PawpackCore

@Suite struct LocationBlurTests {
    @Test func aPointIsKeptAsTheCentreOfItsCellWhichStaysWhereItIs() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<5_000 {
            let point = GeoPoint(
                latitude: Double.random(in: -80...80, using: &random),
                longitude: Double.random(in: -179...179, using: &random))
            let offset = LocationBlur.Offset.random(using: &random)
            let kept = LocationBlur.matchingPoint(of: point, offset: offset)
            // within half a cell's diagonal of the point, and given again, the same point
            #expect(Matchmaker.haversineKm(point, kept) * 1_000 <= 250 * 2.0.squareRoot() + 1, "\(point) → \(kept)")
            #expect(LocationBlur.matchingPoint(of: kept, offset: offset) == kept)
        }
    }

    @Test func everyPointOfACellIsKeptAsTheSamePointAndTheOffsetMovesTheCells() {
        let offset = LocationBlur.Offset(north: 0.3, east: 0.8)
        let centre = LocationBlur.matchingPoint(of: GeoPoint(latitude: 51.5, longitude: -0.12), offset: offset)
        let degreesNorth = 240 / 111_320.0
        let degreesEast = 240 / (111_320 * cos(centre.latitude * .pi / 180))
        for (north, east) in [(-1.0, -1.0), (-1, 1), (1, -1), (1, 1), (0, 0.5)] {
            let point = GeoPoint(latitude: centre.latitude + north * degreesNorth, longitude: centre.longitude + east * degreesEast)
            #expect(LocationBlur.matchingPoint(of: point, offset: offset) == centre)
        }
        #expect(LocationBlur.matchingPoint(of: centre, offset: LocationBlur.Offset(north: 0.8, east: 0.3)) != centre)
    }

    @Test func thePolesAndTheDateLineStayOnTheGlobe() {
        for point in [
            GeoPoint(latitude: 90, longitude: 180), GeoPoint(latitude: -90, longitude: -180),
            GeoPoint(latitude: 89.999, longitude: 0), GeoPoint(latitude: 0, longitude: 179.999),
        ] {
            let kept = LocationBlur.matchingPoint(of: point, offset: LocationBlur.Offset(north: 0.99, east: 0.99))
            #expect(GeoPoint.validated(latitude: kept.latitude, longitude: kept.longitude) != nil, "\(point) → \(kept)")
        }
    }
}
