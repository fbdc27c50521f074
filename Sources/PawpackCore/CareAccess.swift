/// Who may do what with a pet's care: the one rule every Care read and write goes through.
///
/// A member reaches a pet's care in two ways, and the stronger one counts:
///
/// | who                         | see | log feeds, weights, stock, doses | foods, settings, medications | change others' feeds | share with a family | take out of the family |
/// | --------------------------- | --- | -------------------------------- | ---------------------------- | -------------------- | ------------------- | ---------------------- |
/// | the pet's owner             | yes | yes                              | yes                          | yes                  | yes                 | yes                    |
/// | a guardian of the pet       | yes | yes                              | yes                          | no                   | no                  | no                     |
/// | family owner                | yes | yes                              | no                           | no                   | no                  | yes                    |
/// | family member               | yes | yes                              | no                           | no                   | no                  | no                     |
/// | family viewer               | yes | no                               | no                           | no                   | no                  | no                     |
/// | anyone else                 | 404, as for a pet that does not exist                                                                                   |
///
/// "Family" means the family the pet is shared with; a member's own feeds may be changed by
/// them as long as they may still log. The family's owner decides which pets the household
/// cares for, so they may take one out of it (its owner shares it again, or elsewhere).
public struct CareAccess: Sendable, Equatable {
    public var petRole: PetRole?
    /// The member's role in the family the pet is shared with, if any.
    public var familyRole: FamilyRole?

    public init(petRole: PetRole?, familyRole: FamilyRole?) {
        self.petRole = petRole
        self.familyRole = familyRole
    }

    public var canView: Bool { petRole != nil || familyRole != nil }
    public var canLog: Bool { petRole != nil || (familyRole.map { $0 >= .member } ?? false) }
    public var canManage: Bool { petRole != nil }
    public var canShare: Bool { petRole == .owner }
    /// Stop sharing it with the family: the pet's owner, or the family's owner.
    public var canUnshare: Bool { petRole == .owner || familyRole == .owner }

    /// Edit or delete a feed: its author while they may log, or the pet's owner.
    public func canChangeFeed(loggedByMe: Bool) -> Bool {
        petRole == .owner || (loggedByMe && canLog)
    }
}

/// What a family's members may do with the family itself.
public struct FamilyPermissions: Sendable, Equatable {
    public var role: FamilyRole?

    public init(role: FamilyRole?) { self.role = role }

    public var canSee: Bool { role != nil }
    /// Rename, change the time zone, make a new invite code, answer join requests, remove
    /// members, change roles, transfer, delete.
    public var canRun: Bool { role == .owner }
}
