/// An average of ratings from 1 to 5, kept as a count and a sum so that each review adds to it
/// in one statement.
public struct RatingSummary: Sendable, Equatable {
    public var count: Int
    public var sum: Int

    public init(count: Int, sum: Int) {
        self.count = count
        self.sum = sum
    }

    /// Nil before the first review; otherwise rounded to one decimal (4.5, not 4.4999).
    public var average: Double? {
        count > 0 ? (Double(sum) / Double(count) * 10).rounded() / 10 : nil
    }
}
