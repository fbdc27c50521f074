/// What one member may do toward another. Every operation that reaches another member (a like
/// and its request, a message, a meet-up and its answers, a review; and what later areas add:
/// friend requests, family invitations, votes, People likes) asks this once, at the service
/// that makes it, with whether either of the two blocked the other.
public struct InteractionRules: Sendable {
    public init() {}

    /// Nil when `actor` may act toward the other member; otherwise the answer to give. A block,
    /// either way, refuses everything from then on, as a thing that does not exist (404): the
    /// blocked member learns nothing from the answer. Reporting to moderation is not an
    /// interaction and stays open.
    public func refusal(blocked: Bool) -> Problem? {
        blocked ? Problem.notFound : nil
    }
}
