import Fluent
import Foundation
import PawpackCore
import SQLKit

/// One side of a chat `pawpack bench chat` drives: a member with an access token, and the chat.
package struct ChatBenchMember: Sendable {
    package let user: String
    package let accessToken: String
    package let chat: String
}

/// What `pawpack bench chat` needs from inside the server: matched pairs with their chat,
/// made directly (signing thousands of members up and having their dogs like each other
/// through HTTP would take long and measure other things), and access tokens issued directly.
extension PawpackServices {
    /// `pairs` pairs of members, each member in one pair only, their dogs matched with an open
    /// chat. The demo community is seeded first when the database is empty; chats made by an
    /// earlier run are used again.
    package func chatBenchPairs(_ pairs: Int, on db: any Database) async throws -> [(ChatBenchMember, ChatBenchMember)] {
        _ = try await seedDemo(dogs: pairs * 2, seed: 1, on: db, onlyIfEmpty: true)
        let now = dependencies.clock.now()
        var chats = try await ChatRecord.query(on: db).filter(\.$closedAt == nil).sort(\.$id).limit(pairs).all()
        if chats.count < pairs {
            let taken = Set(chats.flatMap { [$0.$userA.id, $0.$userB.id] })
            // The first dog of each member not yet in a chat, two by two.
            var dogs: [PetRecord] = []
            var owners = Set<User.ID>()
            for pet in try await PetRecord.query(on: db).sort(\.$id).all()
            where !taken.contains(pet.$owner.id) && owners.insert(pet.$owner.id).inserted {
                dogs.append(pet)
                if dogs.count == (pairs - chats.count) * 2 { break }
            }
            let paired = dogs
            try await db.transaction { tx in
                for index in stride(from: 0, to: paired.count - 1, by: 2) {
                    let (one, other) = (paired[index], paired[index + 1])
                    let (petA, petB) = PlaydateService.pair(try one.requireID(), try other.requireID())
                    let (a, b) = petA == one.id ? (one, other) : (other, one)
                    let match = MatchRecord()
                    match.$petA.id = petA
                    match.$petB.id = petB
                    match.$userA.id = a.$owner.id
                    match.$userB.id = b.$owner.id
                    match.createdAt = now
                    match.activity = ActivityCursor<Playdates.Match>.activity(at: now)
                    try await match.create(on: tx)
                    try await match.openChat(now: now, on: tx)
                }
            }
            chats = try await ChatRecord.query(on: db).filter(\.$closedAt == nil).sort(\.$id).limit(pairs).all()
        }
        let users = try await UserRecord.query(on: db).filter(\.$id ~~ chats.flatMap { [$0.$userA.id, $0.$userB.id] }).all()
        let byID = Dictionary(uniqueKeysWithValues: try users.map { (try $0.requireID(), $0) })
        var result: [(ChatBenchMember, ChatBenchMember)] = []
        for chat in chats {
            guard let a = byID[chat.$userA.id], let b = byID[chat.$userB.id] else { continue }
            let chatID = try chat.requireID().description
            let tokenA = try await sessions.issueAppSession(for: a, on: db).accessToken
            let tokenB = try await sessions.issueAppSession(for: b, on: db).accessToken
            result.append(
                (
                    ChatBenchMember(user: chat.$userA.id.description, accessToken: tokenA, chat: chatID),
                    ChatBenchMember(user: chat.$userB.id.description, accessToken: tokenB, chat: chatID)
                ))
        }
        return result
    }
}
