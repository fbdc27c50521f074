import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

/// Chats through the HTTP API: one per match, for its two owners only; messages trimmed,
/// bounded and idempotent; unread counts and read receipts; closed, with their history, after
/// an unmatch or a block.
@Suite struct ChatsAPITests {
    typealias Chat = Components.Schemas.Chat
    typealias Message = Components.Schemas.ChatMessage

    func chats(_ server: TestServer, of owner: TestServer.Owner, query: String = "") async throws -> Components.Schemas.ChatPage {
        try await server.get("/v1/chats\(query)", token: owner.token, as: Components.Schemas.ChatPage.self)
    }

    func messages(_ server: TestServer, of owner: TestServer.Owner, in chat: String, query: String = "") async throws
        -> Components.Schemas.MessagePage
    {
        try await server.get("/v1/chats/\(chat)/messages\(query)", token: owner.token, as: Components.Schemas.MessagePage.self)
    }

    @Test func aMatchOpensOneChatThatOnlyItsTwoOwnersCanSeeOrUse() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)

            // a like alone opens nothing
            _ = try await server.like(ada, bob)
            #expect(try await chats(server, of: ada).items.isEmpty)
            #expect(try await chats(server, of: bob).items.isEmpty)

            // the match does, one chat seen from each side with their own dog first
            _ = try await server.like(bob, ada)
            let adas = try #require(try await chats(server, of: ada).items.first)
            let bobs = try #require(try await chats(server, of: bob).items.first)
            #expect(adas.id == bobs.id)
            #expect(adas.myPet.name == "Ada's dog" && adas.otherPet.name == "Bob's dog")
            #expect(bobs.myPet.name == "Bob's dog" && adas.otherOwnerDisplayName == "Bob")
            #expect(adas.unreadCount == 0 && !adas.closed && adas.lastMessage == nil)
            #expect(try await chats(server, of: eve).items.isEmpty)
            try await server.say("Hello Bob", from: ada, in: adas.id)

            // a stranger gets exactly what a chat that does not exist gets, and changes nothing
            let missing = UUID().uuidString.lowercased()
            var answers: [[String]] = []
            for chat in [adas.id, missing] {
                let reads = [
                    try await server.request(.GET, APIPath.chat(chat), token: eve.token),
                    try await server.request(.GET, APIPath.messages(chat), token: eve.token),
                    try await server.send(.POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": "hi"], token: eve.token),
                    try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": UUID().uuidString], token: eve.token),
                    try await server.upload(
                        APIPath.chatPhotos(chat),
                        parts: [
                            .init(name: "id", data: Data(UUID().uuidString.utf8)),
                            .init(name: "photo", filename: "a.png", contentType: "image/png", data: TestImages.png(width: 4, height: 4)),
                        ], token: eve.token),
                ]
                #expect(reads.map(\.status) == [404, 404, 404, 404, 404])
                answers.append(reads.map { $0.text.replacingOccurrences(of: chat, with: "…") })
            }
            #expect(answers[0] == answers[1], "a stranger learns nothing a made-up id would not tell")
            #expect(try await server.rowCounts()["chat_messages"] == 1)
            #expect(try await server.request(.GET, APIPath.chats).status == 401)
        }
    }

    @Test func messagesAreTrimmedBoundedAndSentOnceWhateverTheRetries() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cleo = try await server.owner("cleo", at: TestServer.Place.lyonNear)
            let chat = try await server.matched(ada, bob).id
            let other = try await server.matched(ada, cleo).id

            let id = UUID()
            let first = try await server.say("  Park at ten?\n", from: ada, in: chat, id: id)
            #expect(first.text == "Park at ten?" && first.position == 1 && first.fromMe)
            #expect(first.clientMessageId == id.uuidString.lowercased())
            // the answer was lost; the app sends again with the same id
            let again = try await server.send(
                .POST, APIPath.messages(chat), object: ["id": id.uuidString, "text": "Park at ten?"], token: ada.token)
            #expect(again.status == 200)
            #expect(try again.decode(Message.self).id == first.id)
            let elsewhere = try await server.send(
                .POST, APIPath.messages(other), object: ["id": id.uuidString, "text": "hi"], token: ada.token)
            #expect(elsewhere.status == 409 && elsewhere.code == "message_id_reused")

            // nothing empty, nothing too long, nothing without an id
            for text in ["   \n ", String(repeating: "a", count: ChatRules.maximumTextLength + 1)] {
                let refused = try await server.send(
                    .POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": text], token: ada.token)
                #expect(refused.status == 422)
                #expect((refused.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "text")
            }
            let exactlyLongest = String(repeating: "🐕", count: ChatRules.maximumTextLength)
            try await server.say(exactlyLongest, from: bob, in: chat)
            let noID = try await server.send(.POST, APIPath.messages(chat), object: ["id": "not-a-uuid", "text": "hi"], token: ada.token)
            #expect(noID.status == 422 || noID.status == 400)
            #expect(try await messages(server, of: bob, in: chat).items.map(\.position) == [2, 1])
            #expect(try await server.rowCounts()["chat_messages"] == 2)
        }
    }

    @Test func historyComesNewestFirstAPageAtATime() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            for number in 1...5 { try await server.say("message \(number)", from: number.isMultiple(of: 2) ? bob : ada, in: chat) }

            var pages: [[String]] = []
            var cursor: String?
            repeat {
                let page = try await messages(server, of: bob, in: chat, query: "?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
                pages.append(page.items.compactMap(\.text))
                cursor = page.nextCursor
            } while cursor != nil
            #expect(pages == [["message 5", "message 4"], ["message 3", "message 2"], ["message 1"]])
            let all = try await messages(server, of: bob, in: chat).items
            #expect(all.map(\.fromMe) == [false, true, false, true, false])
            // Time-ordered ids (RFC 9562 version 7), so the messages' id index grows at one end.
            #expect(all.allSatisfy { Array($0.id)[14] == "7" }, "\(all.map(\.id))")

            let badCursor = try await server.request(.GET, "/v1/chats/\(chat)/messages?cursor=zzz", token: bob.token)
            #expect(badCursor.status == 422)
            #expect((badCursor.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "cursor")
            #expect(try await server.request(.GET, "/v1/chats/\(chat)/messages?limit=101", token: bob.token).status == 422)
        }
    }

    @Test func unreadCountsFollowReadingAndTheSenderSeesHowFarTheOtherRead() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            let sent = [
                try await server.say("one", from: ada, in: chat), try await server.say("two", from: ada, in: chat),
                try await server.say("three", from: ada, in: chat),
            ]

            var bobs = try #require(try await chats(server, of: bob).items.first)
            #expect(bobs.unreadCount == 3 && bobs.lastMessage?.text == "three" && bobs.lastMessage?.fromMe == false)
            #expect(try #require(try await chats(server, of: ada).items.first).unreadCount == 0, "your own messages are not unread")

            let read = try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": sent[1].id], token: bob.token)
            #expect(read.status == 204)
            bobs = try await server.get(APIPath.chat(chat), token: bob.token, as: Chat.self)
            #expect(bobs.unreadCount == 1)
            var adas = try await server.get(APIPath.chat(chat), token: ada.token, as: Chat.self)
            #expect(adas.theirReadPosition == 2 && adas.theirReadAt != nil)

            // reading never goes back, and a message of no chat of theirs is named
            _ = try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": sent[0].id], token: bob.token)
            adas = try await server.get(APIPath.chat(chat), token: ada.token, as: Chat.self)
            #expect(adas.theirReadPosition == 2)
            let unknown = try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": UUID().uuidString], token: bob.token)
            #expect(unknown.status == 422)
            #expect((unknown.json["errors"] as? [[String: Any]])?.first?["field"] as? String == "messageId")

            // Bob answers: his reply is unread for Ada, and reading it clears Bob's count too
            let reply = try await server.say("Yes!", from: bob, in: chat)
            #expect(try await server.get(APIPath.chat(chat), token: ada.token, as: Chat.self).unreadCount == 1)
            _ = try await server.send(.POST, APIPath.chatRead(chat), object: ["messageId": reply.id], token: bob.token)
            #expect(try await server.get(APIPath.chat(chat), token: bob.token, as: Chat.self).unreadCount == 0)
        }
    }

    @Test func chatsComeNewestActivityFirstAPageAtATime() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cleo = try await server.owner("cleo", at: TestServer.Place.lyonNear)
            let withBob = try await server.matched(ada, bob).id
            server.clock.advance(by: 60)
            let withCleo = try await server.matched(ada, cleo).id
            #expect(try await chats(server, of: ada).items.map(\.id) == [withCleo, withBob])
            server.clock.advance(by: 60)
            try await server.say("Still on for Sunday?", from: bob, in: withBob)
            #expect(try await chats(server, of: ada).items.map(\.id) == [withBob, withCleo])

            let first = try await chats(server, of: ada, query: "?limit=1")
            let cursor = try #require(first.nextCursor)
            let second = try await chats(server, of: ada, query: "?limit=1&cursor=\(cursor)")
            #expect(first.items.map(\.id) + second.items.map(\.id) == [withBob, withCleo])
            #expect(second.nextCursor == nil)
            #expect(try await server.request(.GET, "/v1/chats?cursor=nonsense", token: ada.token).status == 422)

            // chats opened at the same instant are paged one by one all the same, none twice
            server.clock.advance(by: 60)
            let dan = try await server.owner("dan", at: TestServer.Place.lyonNear)
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let fay = try await server.owner("fay", at: TestServer.Place.lyonNear)
            let sameInstant = [
                try await server.matched(ada, dan).id, try await server.matched(ada, eve).id,
                try await server.matched(ada, fay).id,
            ]
            var paged: [String] = []
            var next: String?
            repeat {
                let page = try await chats(server, of: ada, query: "?limit=1" + (next.map { "&cursor=\($0)" } ?? ""))
                paged += page.items.map(\.id)
                next = page.nextCursor
            } while next != nil
            #expect(paged.count == 5 && Set(paged) == Set(sameInstant + [withBob, withCleo]))
            #expect(Array(paged.suffix(2)) == [withBob, withCleo])
        }
    }

    @Test func anUnmatchOrABlockClosesTheChatAndKeepsItsHistory() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let cleo = try await server.owner("cleo", at: TestServer.Place.lyonNear)
            let withBob = try await server.matched(ada, bob)
            let withCleo = try await server.matched(ada, cleo).id
            try await server.say("See you at the park", from: ada, in: withBob.id)
            try await server.say("Hi Cleo", from: ada, in: withCleo)

            #expect(try await server.request(.DELETE, APIPath.match(withBob.matchId), token: bob.token).status == 204)
            let cleoBlocks = try await server.send(.POST, APIPath.blocks, object: ["username": "ada"], token: cleo.token)
            #expect(cleoBlocks.status == 204)

            for (chat, owner) in [(withBob.id, ada), (withBob.id, bob), (withCleo, ada), (withCleo, cleo)] {
                let seen = try await server.get(APIPath.chat(chat), token: owner.token, as: Chat.self)
                #expect(seen.closed)
                #expect(try await messages(server, of: owner, in: chat).items.count == 1, "the history stays")
                let refused = try await server.send(
                    .POST, APIPath.messages(chat), object: ["id": UUID().uuidString, "text": "hello?"], token: owner.token)
                #expect(refused.status == 409 && refused.code == "chat_closed")
            }
            #expect(try await server.rowCounts()["chat_messages"] == 2)
        }
    }

    @Test func aChatPhotoIsCleanedAndShownToTheTwoOnly() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            let eve = try await server.owner("eve", at: TestServer.Place.lyonNear)
            let chat = try await server.matched(ada, bob).id
            let original = try fixture("gps.jpg")
            let id = UUID().uuidString
            let parts: [TestServer.FormPart] = [
                .init(name: "id", data: Data(id.utf8)),
                .init(name: "photo", filename: "park.jpg", contentType: "image/jpeg", data: original),
            ]
            let sent = try await server.upload(APIPath.chatPhotos(chat), parts: parts, token: ada.token)
            #expect(sent.status == 201, "\(sent.text)")
            let message = try sent.decode(Message.self)
            #expect(message.text == nil && message.photo?.contentType == "image/jpeg")
            #expect(try await server.upload(APIPath.chatPhotos(chat), parts: parts, token: ada.token).status == 200)
            #expect(server.storedMediaFiles().count == 1, "a retry stores nothing more")

            let path = String(try #require(message.photo?.url).dropFirst(server.config.publicBaseURL.count))
            let served = try await server.request(.GET, path, token: bob.token)
            #expect(served.status == 200)
            #expect(!served.body.contains("Exif") && !served.body.contains("GPS"))
            #expect(try await server.request(.GET, path, token: ada.token).status == 200)
            #expect(try await server.request(.GET, path, token: eve.token).status == 404)
            #expect(try await server.request(.GET, path).status == 401)

            let notAPhoto = try await server.upload(
                APIPath.chatPhotos(chat),
                parts: [
                    .init(name: "id", data: Data(UUID().uuidString.utf8)),
                    .init(name: "photo", filename: "a.gif", contentType: "image/gif", data: try fixture("not-an-image.gif")),
                ], token: ada.token)
            #expect(notAPhoto.status == 415)
            #expect(try await server.rowCounts()["chat_messages"] == 1)
        }
    }

    @Test func aChatPhotoOfTwoMegabytesIsTakenAsAPetPhotoIs() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            // given a photo of noise, which no compression makes smaller: over 2 MB, past the
            // 1 MB that bounds JSON bodies and under the 10 MB that bounds photos
            var random = SeededRandom(seed: 7)
            let side = 860
            let photo = PNGEncoder.encode(width: side, height: side, rgb: (0..<side * side * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            #expect(photo.count > 2 * 1_048_576)

            // when Ada sends it in the chat, it is sent
            let sent = try await server.upload(
                APIPath.chatPhotos(chat),
                parts: [
                    .init(name: "id", data: Data(UUID().uuidString.utf8)),
                    .init(name: "photo", filename: "noise.png", contentType: "image/png", data: photo),
                ], token: ada.token)
            #expect(sent.status == 201, "\(sent.status) \(sent.text.prefix(200))")
            #expect(try await server.rowCounts()["chat_messages"] == 1)
        }
    }

    @Test func deletingAnAccountTakesItsChatsMessagesAndPhotosAway() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            try await server.say("Hello", from: ada, in: chat)
            _ = try await server.upload(
                APIPath.chatPhotos(chat),
                parts: [
                    .init(name: "id", data: Data(UUID().uuidString.utf8)),
                    .init(name: "photo", filename: "a.png", contentType: "image/png", data: TestImages.png(width: 8, height: 8)),
                ], token: bob.token)
            #expect(server.storedMediaFiles().count == 1)
            // Ada's inbox tells of the match and of Bob's photo, both leading to their chat
            func notificationsAboutTheChat() async throws -> Int {
                try await server.get(APIPath.notifications, token: ada.token, as: Components.Schemas.NotificationPage.self)
                    .items.filter { $0.chatId == chat }.count
            }
            #expect(try await notificationsAboutTheChat() == 2)

            let deleted = try await server.send(.DELETE, APIPath.me, object: ["password": bob.member.password], token: bob.token)
            #expect(deleted.status == 204)
            #expect(try await chats(server, of: ada).items.isEmpty)
            // and those notifications went with the chat: they would lead nowhere
            #expect(try await notificationsAboutTheChat() == 0)
            #expect(try await server.rowCounts()["chats"] == 0)
            #expect(try await server.rowCounts()["chat_messages"] == 0)
            #expect(server.storedMediaFiles().isEmpty)
        }
    }
}
