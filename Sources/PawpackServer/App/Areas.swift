/// Pawpack's areas, in order: each area's migrations may refer to tables of the areas before
/// it, and its services may use theirs. The spine comes first (members, then realtime events,
/// the inbox and pushes, which every area writes to), then the areas members see. Adding an
/// area is one entry here and a folder: see `docs/ARCHITECTURE.md`, "Adding an area".
package struct Areas: Sendable {
    let list: [Area]

    init(_ list: [Area]) {
        self.list = list
    }

    package static let all = Areas([
        .accounts, .realtime, .notifications, .push,
        .pets, .chats, .playdates, .meetups, .reviews, .care, .moments,
    ])
}
