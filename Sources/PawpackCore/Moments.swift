import Foundation

/// Namespace for the identifiers of Moments: pet photos shared with friends or everyone, and
/// the weekly themed contests they enter.
public enum Moments {
    /// A photo of one or more pets, posted by a member.
    public enum Photo {
        public typealias ID = Identifier<Photo>
    }

    /// One week's themed contest.
    public enum Contest {
        public typealias ID = Identifier<Contest>
    }

    /// A photo entered in a contest.
    public enum Entry {
        public typealias ID = Identifier<Entry>
    }

    /// A member's request to another to be friends, while it waits for an answer.
    public enum FriendRequest {
        public typealias ID = Identifier<FriendRequest>
    }
}

/// Who may see a photo, as its member chose.
public enum PhotoPrivacy: String, Sendable, Codable, CaseIterable {
    case `public`, friends, `private`
}

/// How a viewer stands to a photo, the strongest tie first.
public enum PhotoViewer: Int, Sendable, Comparable, CaseIterable {
    case anonymous, member, friend, guardian, owner

    /// The strongest of the viewer's ties to the photo.
    public init(isOwner: Bool, guardsAPetInIt: Bool, isFriend: Bool, signedIn: Bool) {
        self =
            isOwner ? .owner : guardsAPetInIt ? .guardian : isFriend ? .friend : signedIn ? .member : .anonymous
    }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Who may see a photo: the one rule every read of Moments goes through (feeds, the photo and
/// its files, contests, search, export). Pawse decided it on the phone; here the server does.
///
/// | viewer                              | public | friends | private |
/// | ----------------------------------- | ------ | ------- | ------- |
/// | its owner                           | yes    | yes     | yes     |
/// | a guardian of a pet in it           | yes    | yes     | yes     |
/// | a friend of its owner               | yes    | yes     | no      |
/// | any other member                    | yes    | no      | no      |
/// | anonymous                           | yes    | no      | no      |
///
/// A member blocked by the owner, or who blocked them, sees nothing of theirs, public photos
/// included (the owner always sees their own). A photo entered in a running contest is public
/// while it is entered (its owner is told so first), and one on a finished contest's kept
/// leaderboard stays seen with its results until its owner makes it private: the server passes
/// `entered` for both. A private photo is never public, entered or not (the server refuses to
/// enter one or to make an entered one private; this holds should anything get past both).
public enum PhotoVisibility {
    public static func canSee(_ privacy: PhotoPrivacy, viewer: PhotoViewer, blocked: Bool, entered: Bool = false) -> Bool {
        if viewer == .owner { return true }
        if blocked { return false }
        switch entered && privacy != .private ? .public : privacy {
        case .public: return true
        case .friends: return viewer >= .friend
        case .private: return viewer >= .guardian
        }
    }
}

/// What a posted photo may say and how large its smaller copies may be. Phones and pages make
/// the display size and the thumbnail themselves (the server adds no image library, so that it
/// builds anywhere with the README's two commands); the server checks each one's type and
/// pixel size from its headers and cleans it as it cleans the original.
public struct MomentPhotoRules: Sendable {
    /// About 1,080 pixels on the long side is asked for; up to this much is taken.
    public var displayLongestSide = 1_600
    /// About 320 pixels is asked for.
    public var thumbnailLongestSide = 480
    public var caption = TextRule.paragraphs(max: 500)
    /// Pets one photo may show.
    public var mostPets = 10

    public init() {}

    /// How far a copy's shape (width over height) may stray from the original's: rounding a
    /// 4,032 × 3,024 photo down to 320 pixels moves it a little, a different picture far more.
    public var shapeTolerance = 0.03

    /// Why this copy is refused, if it is: not the original's shape, so not a copy of it (a
    /// feed would show another picture than the one posted).
    public func shapeProblem(of part: String, width: Int, height: Int, original: (width: Int, height: Int)) -> Problem? {
        guard width > 0, height > 0, original.width > 0, original.height > 0 else { return nil }
        let ratio = Double(width) / Double(height)
        let expected = Double(original.width) / Double(original.height)
        guard abs(ratio - expected) / expected > shapeTolerance else { return nil }
        return Problem(
            status: 422, code: .validationFailed, title: "Not a copy of the photo",
            detail: "The \(part) copy is \(width) × \(height) pixels, another shape than the photo's \(original.width) × \(original.height).",
            errors: [.init(field: part, message: "must have the photo's shape")])
    }

    /// Why this copy (`display` or `thumbnail`) is refused, if it is: larger than its size.
    public func sizeProblem(of part: String, longestSide: Int) -> Problem? {
        let limit = part == "thumbnail" ? thumbnailLongestSide : displayLongestSide
        guard longestSide > limit else { return nil }
        return Problem(
            status: 422, code: .validationFailed, title: "Copy too large",
            detail: "The \(part) copy is \(longestSide) pixels on its long side; at most \(limit) are taken.",
            errors: [.init(field: part, message: "must be at most \(limit) pixels on its long side")])
    }
}
