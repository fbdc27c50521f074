import Foundation

/// The order a viewer sees a contest's entries in (the seed's formula): votes × 3, plus a
/// recency boost of max(0, 10 − 0.1 × hours since entry), plus a random 0–5 of the viewer's
/// own; the viewer's own entries first, newest first.
///
/// The random part comes from a generator seeded by (viewer, contest, day) and the entry: the
/// same viewer gets the same draw for an entry all day, whatever else is entered or which page
/// they read, so paging is stable; another viewer, or the next day, gets another order, so no
/// entry sits at the bottom for everyone. The seed mixes the identifiers' bytes (not Swift's
/// `Hasher`, which differs from process to process), so every server instance agrees.
public struct ContestRanking: Sendable {
    public var voteWeight = 3.0
    public var recencyBoost = 10.0
    public var boostLostPerHour = 0.1
    public var randomRange = 5.0

    public init() {}

    public struct Entry: Sendable, Equatable {
        public var id: Moments.Entry.ID
        public var votes: Int
        public var enteredAt: Date
        public var mine: Bool

        public init(id: Moments.Entry.ID, votes: Int, enteredAt: Date, mine: Bool) {
            self.id = id
            self.votes = votes
            self.enteredAt = enteredAt
            self.mine = mine
        }
    }

    /// The viewer's draw for an entry, in 0..<`randomRange`.
    public func randomBoost(viewer: User.ID?, contest: Moments.Contest.ID, day: LocalDate, entry: Moments.Entry.ID) -> Double {
        draw(from: Self.seed(viewer: viewer, contest: contest, day: day), entry: entry)
    }

    /// The entry's score for this viewer at `now`.
    public func score(of entry: Entry, viewer: User.ID?, contest: Moments.Contest.ID, now: Date) -> Double {
        score(of: entry, now: now, seed: Self.seed(viewer: viewer, contest: contest, day: LocalDate(utc: now)))
    }

    /// The entries as the viewer sees them: their own first (newest first), then by score, the
    /// entry's id breaking a tie so that the order is total. With `first`, only that many from
    /// the start of the same order.
    public func ordered(_ entries: [Entry], viewer: User.ID?, contest: Moments.Contest.ID, now: Date, first: Int = .max) -> [Entry] {
        // The viewer's, the contest's and the day's part of every draw, worked out once: a
        // contest of thousands of entries is ranked on each page.
        let seed = Self.seed(viewer: viewer, contest: contest, day: LocalDate(utc: now))
        let scored = entries.map { ($0, $0.mine ? 0 : score(of: $0, now: now, seed: seed)) }
        func comesFirst(_ a: (Entry, Double), _ b: (Entry, Double)) -> Bool {
            if a.0.mine != b.0.mine { return a.0.mine }
            if a.0.mine { return a.0.enteredAt != b.0.enteredAt ? a.0.enteredAt > b.0.enteredAt : a.0.id.description < b.0.id.description }
            return a.1 != b.1 ? a.1 > b.1 : a.0.id.description < b.0.id.description
        }
        guard first < scored.count / 8 else { return scored.sorted(by: comesFirst).prefix(first).map(\.0) }
        // A page's worth of thousands: the first ones kept in order as the others pass by, most
        // of them after one comparison with the last kept (sorting them all was a twentieth of
        // the server's time under a contest feed's load).
        var kept: [(Entry, Double)] = []
        kept.reserveCapacity(first + 1)
        for candidate in scored {
            if kept.count == first, let last = kept.last, !comesFirst(candidate, last) { continue }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if comesFirst(candidate, kept[middle]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(candidate, at: low)
            if kept.count > first { kept.removeLast() }
        }
        return kept.map(\.0)
    }

    private func score(of entry: Entry, now: Date, seed: UInt64) -> Double {
        let hours = max(0, now.timeIntervalSince(entry.enteredAt) / 3_600)
        return Double(entry.votes) * voteWeight + max(0, recencyBoost - boostLostPerHour * hours) + draw(from: seed, entry: entry.id)
    }

    private func draw(from seed: UInt64, entry: Moments.Entry.ID) -> Double {
        var seed = seed
        Self.mix(entry.rawValue, into: &seed)
        var generator = SeededRandom(seed: seed)
        return generator.unit() * randomRange
    }

    /// FNV-1a over the viewer's, the contest's and the day's bytes (the entry's are mixed in
    /// last, then SplitMix): stable across processes and machines.
    private static func seed(viewer: User.ID?, contest: Moments.Contest.ID, day: LocalDate) -> UInt64 {
        var seed: UInt64 = 0xCBF2_9CE4_8422_2325
        if let viewer { mix(viewer.rawValue, into: &seed) }
        mix(contest.rawValue, into: &seed)
        for byte in day.description.utf8 { mix(byte, into: &seed) }
        return seed
    }

    private static func mix(_ uuid: UUID, into seed: inout UInt64) {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for byte in bytes { mix(byte, into: &seed) }
        }
    }

    private static func mix(_ byte: UInt8, into seed: inout UInt64) {
        seed ^= UInt64(byte)
        seed = seed &* 0x0000_0100_0000_01B3
    }
}

/// A contest's leaderboard: the entries with the most votes, a tie going to the one that
/// reached its count first.
public enum Leaderboard {
    public struct Standing: Sendable, Equatable {
        public var entry: Moments.Entry.ID
        public var votes: Int
        /// When its latest vote counted came: the moment it reached `votes`.
        public var reachedAt: Date

        public init(entry: Moments.Entry.ID, votes: Int, reachedAt: Date) {
            self.entry = entry
            self.votes = votes
            self.reachedAt = reachedAt
        }
    }

    public static let size = 10

    /// The top `size` with at least one vote, most votes first.
    public static func top(_ standings: [Standing], size: Int = Leaderboard.size) -> [Standing] {
        Array(
            standings.filter { $0.votes > 0 }.sorted { a, b in
                if a.votes != b.votes { return a.votes > b.votes }
                if a.reachedAt != b.reachedAt { return a.reachedAt < b.reachedAt }
                return a.entry.description < b.entry.description
            }.prefix(size))
    }
}

/// What a member may enter and vote on.
public struct ContestRules: Sendable {
    /// Entries per member per contest.
    public var entriesPerMember = 3
    /// How long a contest runs.
    public var length: TimeInterval = 7 * 86_400

    public init() {}

    /// Refuses an entry the rules do not allow, naming the field: a photo of someone else's, a
    /// private one (entering makes a photo public; a private one stays private), one already in
    /// a contest, a fourth entry, or a contest that is over.
    public func checkEntry(ownPhoto: Bool, privacy: PhotoPrivacy, inAContest: Bool, myEntries: Int, contestOpen: Bool)
        throws(Problem)
    {
        guard ownPhoto else { throw Problem.invalidField("photoId", "is not one of your photos") }
        guard contestOpen else { throw Problem.invalidField("contestId", "is over: entries are closed") }
        guard privacy != .private else {
            throw Problem.invalidField("photoId", "is private: share it with friends or everyone to enter it")
        }
        guard !inAContest else { throw Problem.invalidField("photoId", "is entered in a contest already") }
        guard myEntries < entriesPerMember else {
            throw Problem.invalidField("photoId", "would be your entry number \(myEntries + 1): at most \(entriesPerMember) a contest")
        }
    }

    /// Refuses a vote on one's own photo or in a contest that is over.
    public func checkVote(ownPhoto: Bool, contestOpen: Bool = true) throws(Problem) {
        guard !ownPhoto else { throw Problem.invalidField("photoId", "is yours: vote for other members' photos") }
        guard contestOpen else { throw Problem.invalidField("contestId", "is over: votes are closed") }
    }
}
