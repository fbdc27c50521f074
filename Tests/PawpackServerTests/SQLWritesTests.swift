import Fluent
import Foundation
import NIOConcurrencyHelpers
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import SQLKit
import Testing

@testable import PawpackServer

/// The transactions that write most (`SQLWrites`): on an SQLite file, on a connection of their
/// own. They must commit all or nothing, and a file another connection holds must neither lose
/// a message nor block the caller's thread: the transaction goes through Fluent, which waits.
@Suite struct SQLWritesTests {
    static let onSQLite = TestServer.postgresURL == nil

    @Test func aTransactionCommitsAllOrNothing() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            let writes = server.app.pawpack.writes
            let ada = try await server.member("ada")
            @Sendable func name() async throws -> String? {
                try await db.sql.raw(#"SELECT "display_name" FROM "users" WHERE "id" = \#(bind: ada.userID)"#).first()?
                    .decode(column: "display_name", as: String.self)
            }
            let before = writes.counts.own

            // A failing statement after a write takes the write back with it.
            await #expect(throws: (any Error).self) {
                try await writes.transaction(on: db) { statements in
                    try await statements.run(#"UPDATE "users" SET "display_name" = 'Changed' WHERE "id" = \#(bind: ada.userID)"#)
                    try await statements.run(#"INSERT INTO "no_such_table" ("id") VALUES (1)"#)
                }
            }
            #expect(try await name() == "Ada")

            // A body that throws takes its writes back too.
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await writes.transaction(on: db) { statements in
                    try await statements.run(#"UPDATE "users" SET "display_name" = 'Changed' WHERE "id" = \#(bind: ada.userID)"#)
                    throw Refused()
                }
            }
            #expect(try await name() == "Ada")

            // Committed, it is seen by every connection, the hot reads' among them.
            let returned = try await writes.transaction(on: db) { statements in
                try await statements.first(
                    #"""
                    UPDATE "users" SET "display_name" = 'Ada Lovelace' WHERE "id" = \#(bind: ada.userID) RETURNING "display_name"
                    """#)?.decode(column: "display_name", as: String.self)
            }
            #expect(returned == "Ada Lovelace")
            #expect(try await name() == "Ada Lovelace")
            #expect(try await server.get(APIPath.me, token: ada.accessToken, as: Components.Schemas.Account.self).displayName == "Ada Lovelace")
            #expect(writes.counts.own == before + (Self.onSQLite ? 1 : 0), "on SQLite only the committed one counts as the own connection's")
        }
    }

    @Test(.enabled(if: onSQLite, "another connection holding an SQLite file"))
    func aMessageSentWhileAnotherConnectionHoldsTheFileIsWrittenOnceItIsFree() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await Self.adaAndBobInAChat(server)
            let writes = server.app.pawpack.writes

            // Another connection to the same file takes the write lock and keeps it a while.
            let file = try #require(
                try await server.app.db.sql.raw("PRAGMA database_list").all()
                    .first { try $0.decode(column: "name", as: String.self) == "main" }?.decode(column: "file", as: String.self))
            let holder = try SQLiteOwnConnection(path: file, writes: true)
            defer { holder.close() }
            #expect(try holder.rows("BEGIN IMMEDIATE", []) != nil)
            let busyBefore = writes.counts.busy
            let sent = Task {
                try await server.send(
                    .POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": "Still there?"],
                    token: ada.token
                ).status
            }
            // Until the own connection finds the file busy (a condition, not a fixed wait: a
            // loaded machine may take longer to get the request there).
            let deadline = ContinuousClock.now + .seconds(30)
            while writes.counts.busy == busyBefore, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            // Let go (a test database keeps SQLite's rollback journal, whose commit would wait
            // for the message's reader; a served file's WAL would not).
            #expect(try holder.rows("ROLLBACK", []) != nil)

            #expect(try await sent.value == 201)
            #expect(writes.counts.busy == busyBefore + 1, "the own connection found the file busy and handed the message on")
            let page = try await server.get(APIPath.messages(chat), token: bob.token, as: Components.Schemas.MessagePage.self)
            #expect(page.items.map(\.text) == ["Still there?"], "written once")
            let bobs = try await server.get(APIPath.chat(chat), token: bob.token, as: Components.Schemas.Chat.self)
            #expect(bobs.unreadCount == 1)
        }
    }

    /// Each statement of a message is prepared once on the own connection: SQLite preparing one
    /// again on every message (as it did for a join on a bound value) costs as much as not
    /// keeping it.
    @Test(.enabled(if: onSQLite, "the own writing connection of an SQLite file"))
    func aMessagesStatementsArePreparedOnce() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await Self.adaAndBobInAChat(server)
            let writes = server.app.pawpack.writes
            // The first message prepares what the others use again.
            #expect(
                try await server.send(
                    .POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": "Hello"],
                    token: ada.token
                ).status == 201)
            let before = writes.counts
            for (sender, text) in [(bob, "Hi!"), (ada, "Park at six?"), (bob, "Deal")] {
                #expect(
                    try await server.send(
                        .POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": text],
                        token: sender.token
                    ).status == 201)
            }
            #expect(writes.counts.own == before.own + 3, "the messages went through the own connection")
            #expect(writes.counts.reprepared == before.reprepared, "no statement was prepared again")
        }
    }

    /// Transactions that queue while another runs share the next commit (group commit), and
    /// one of them failing takes back its own writes only: the others still commit, together.
    @Test(.enabled(if: onSQLite, "the own writing connection of an SQLite file"))
    func transactionsThatWaitTogetherShareACommitAndOneFailingFailsAlone() async throws {
        try await TestServer.run { server in
            let db = server.app.db
            let writes = server.app.pawpack.writes
            var members: [User.ID] = []
            for name in ["ada", "bob", "cyd"] { members.append(try await server.member(name).userID) }
            let (ada, bob, cy) = (members[0], members[1], members[2])
            @Sendable func name(_ user: User.ID) async throws -> String? {
                try await db.sql.raw(#"SELECT "display_name" FROM "users" WHERE "id" = \#(bind: user)"#).first()?
                    .decode(column: "display_name", as: String.self)
            }
            @Sendable func rename(_ user: User.ID, _ name: String, holdingAt gate: Gate? = nil, fail: Bool = false) async throws {
                struct Refused: Error {}
                try await writes.transaction(on: db) { statements in
                    try await statements.run(#"UPDATE "users" SET "display_name" = \#(bind: name) WHERE "id" = \#(bind: user)"#)
                    try await gate?.pass()
                    if fail { throw Refused() }
                }
            }
            /// Until `count` transactions wait behind the one at the gate.
            func waitForQueue(of count: Int) async throws {
                let deadline = ContinuousClock.now + .seconds(5)
                while writes.counts.waiting < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
                guard writes.counts.waiting == count else { throw TestFailure("\(writes.counts.waiting) waiting, not \(count)") }
            }

            // One transaction holds the writer while three more arrive: they wait, then commit together.
            var before = writes.counts
            let gate = Gate()
            let holding = Task { try await rename(ada, "Ada 1", holdingAt: gate) }
            try await gate.entered()
            async let first: Void = rename(bob, "Bob 1")
            async let second: Void = rename(cy, "Cy 1")
            async let third: Void = rename(ada, "Ada 2")
            try await waitForQueue(of: 3)
            gate.open()
            _ = try await (holding.value, first, second, third)
            #expect(try await [name(ada), name(bob), name(cy)] == ["Ada 2", "Bob 1", "Cy 1"])
            #expect(writes.counts.own == before.own + 4)
            #expect(writes.counts.commits == before.commits + 2, "the three that waited shared one commit")

            // The same with one of the three failing: it fails alone.
            before = writes.counts
            let gateAgain = Gate()
            let holdingAgain = Task { try await rename(ada, "Ada 3", holdingAt: gateAgain) }
            try await gateAgain.entered()
            async let good: Void = rename(bob, "Bob 2")
            let failing = Task { try await rename(ada, "Changed", fail: true) }
            async let alsoGood: Void = rename(cy, "Cy 2")
            try await waitForQueue(of: 3)
            gateAgain.open()
            _ = try await (holdingAgain.value, good, alsoGood)
            await #expect(throws: (any Error).self) { try await failing.value }
            #expect(try await [name(ada), name(bob), name(cy)] == ["Ada 3", "Bob 2", "Cy 2"], "only the failing one's write was taken back")
            #expect(writes.counts.own == before.own + 3)
            #expect(writes.counts.commits == before.commits + 2, "the two others still committed together")
        }
    }

    /// SQLiteNIO's busy handler keeps a thread for as long as another connection holds the file.
    /// A server's connections waiting for its file, and those of another server in the same
    /// process, must never take the thread the holder needs for its next statement and commit:
    /// when they could (one pool for the process), the tests of two areas that write at once
    /// stopped the whole process.
    @Test(.enabled(if: onSQLite, "Fluent's SQLite connections and their threads"))
    func connectionsWaitingForTheFileNeverStarveTheOneHoldingIt() async throws {
        try await TestServer.run { other in
            try await TestServer.run { server in
                @Sendable func database(_ server: TestServer, _ loop: any EventLoop) throws -> any SQLDatabase {
                    try #require(server.app.databases.database(logger: server.app.logger, on: loop) as? any SQLDatabase)
                }
                let rename: SQLQueryString = #"UPDATE "users" SET "display_name" = "display_name" || '!'"#
                _ = try await other.member("ada")
                _ = try await server.member("bob")

                // The other server: another connection holds its file, and every one of its own
                // connections waits for it.
                let file = try #require(
                    try await other.app.db.sql.raw("PRAGMA database_list").all()
                        .first { try $0.decode(column: "name", as: String.self) == "main" }?.decode(column: "file", as: String.self))
                let holder = try SQLiteOwnConnection(path: file, writes: true)
                defer { holder.close() }
                #expect(try holder.rows("BEGIN IMMEDIATE", []) != nil)
                let otherWaiting = try other.app.eventLoopGroup.makeIterator().map { loop in
                    let db = try database(other, loop)
                    return Task { try await db.raw(rename).run() }
                }

                // This server: one connection writes in a transaction and holds on, the rest wait.
                let loops = Array(server.app.eventLoopGroup.makeIterator())
                let gate = Gate()
                let first = try database(server, loops[0]) as! any Database
                let holding = Task {
                    try await first.transaction { tx in
                        try await tx.sql.raw(rename).run()
                        try await gate.pass()
                        try await tx.sql.raw(rename).run()
                    }
                }
                try await gate.entered()
                let waiting = try loops.dropFirst().map { loop in
                    let db = try database(server, loop)
                    return Task { try await db.raw(rename).run() }
                }
                try await Task.sleep(for: .milliseconds(500))
                gate.open()

                // The holder commits while the other server's file is still held.
                let deadline = ContinuousClock.now + .seconds(20)
                let done = NIOLockedValueBox(false)
                let finishing = Task {
                    try await holding.value
                    done.withLockedValue { $0 = true }
                }
                while !done.withLockedValue({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
                let committedWhileHeld = done.withLockedValue { $0 }
                #expect(try holder.rows("ROLLBACK", []) != nil)
                try await finishing.value
                for task in waiting + otherWaiting { try await task.value }
                #expect(committedWhileHeld, "the holder got a thread while every other connection waited")
                let names = try await server.app.db.sql.raw(#"SELECT "display_name" FROM "users" WHERE "username" = 'bob'"#).first()?
                    .decode(column: "display_name", as: String.self)
                #expect(names?.hasSuffix(String(repeating: "!", count: 2 + waiting.count)) == true)
            }
        }
    }

    /// Keeps a transaction open until the test opens it, so that others queue behind it
    /// whatever the machine's load.
    final class Gate: Sendable {
        private let state = NIOLockedValueBox((entered: false, open: false))

        /// In the transaction: waits until the test opens the gate.
        func pass() async throws {
            state.withLockedValue { $0.entered = true }
            let deadline = ContinuousClock.now + .seconds(10)
            while !state.withLockedValue({ $0.open }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }

        /// Until the transaction has reached the gate.
        func entered() async throws {
            let deadline = ContinuousClock.now + .seconds(5)
            while !state.withLockedValue({ $0.entered }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            guard state.withLockedValue({ $0.entered }) else { throw TestFailure("the transaction never began") }
        }

        func open() { state.withLockedValue { $0.open = true } }
    }

    private static func adaAndBobInAChat(_ server: TestServer) async throws -> (ada: TestServer.Owner, bob: TestServer.Owner, chat: String) {
        let (ada, bob) = try await server.adaAndBob()
        return (ada, bob, try await server.matched(ada, bob).id)
    }
}
