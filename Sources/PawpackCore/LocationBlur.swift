import Foundation

/// Where a member is matched from: never where they said they are, but the centre of the
/// 500 m cell around it on a grid of their own.
///
/// Decks rank and label dogs by distance, and a member can move their own position; with exact
/// positions, moving until a label flips finds another owner's home to a few metres. Here each
/// member's grid is shifted by an offset drawn once, when they first give a position, and kept
/// (`Offset`), and only the centre of the cell they are in is stored and compared. Every
/// position within one cell gives the same stored point, so the answers of every deck, however
/// the others move, are the same wherever in that cell the home is: at best an observer finds
/// the cell, 500 m across, and the offset keeps the cell's edges from being known in advance.
/// The threat model is in `docs/SECURITY.md`.
public enum LocationBlur {
    /// The side of a cell.
    public static let cellMetres = 500.0
    static let metresPerDegreeOfLatitude = 111_320.0

    /// How far a member's grid is shifted from the plain one, as fractions of a cell north and
    /// east, each in `0..<1`.
    public struct Offset: Sendable, Equatable, Hashable {
        public var north: Double
        public var east: Double

        public init(north: Double, east: Double) {
            self.north = north
            self.east = east
        }

        public static func random<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Offset {
            Offset(north: Double.random(in: 0..<1, using: &generator), east: Double.random(in: 0..<1, using: &generator))
        }

        public static func random() -> Offset {
            var generator = SystemRandomNumberGenerator()
            return random(using: &generator)
        }
    }

    /// The centre of the cell of `point` on the grid shifted by `offset`. The same for every
    /// point of the cell, and its own result: a stored point given again stays where it is.
    public static func matchingPoint(of point: GeoPoint, offset: Offset) -> GeoPoint {
        let latitudeStep = cellMetres / metresPerDegreeOfLatitude
        let row = (point.latitude / latitudeStep - offset.north).rounded(.down)
        let latitude = min(max((row + 0.5 + offset.north) * latitudeStep, -90), 90)
        // A cell is as wide as it is tall at its row's centre, so every point of a row shares
        // one width and the centre falls back into the same column.
        let longitudeStep = latitudeStep / max(cos(latitude * .pi / 180), 0.01)
        let column = (point.longitude / longitudeStep - offset.east).rounded(.down)
        let longitude = min(max((column + 0.5 + offset.east) * longitudeStep, -180), 180)
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}
