import Foundation
import PawpackAPI
import PawpackCore
import PawpackTestSupport
import Testing

@testable import PawpackServer

/// Every text field of the contract against a table of hostile strings: each is refused with a
/// 422 naming the field and nothing stored, or stored exactly as echoed and read back; the same
/// on SQLite and on PostgreSQL (the suite runs on both).
@Suite struct HostileTextTests {
    enum Kind { case name, line, paragraphs }

    /// A field: how it is written, how to read what is stored, its kind and limit.
    struct Field: Sendable {
        var name: String
        var kind: Kind
        var maximum: Int
        var write: @Sendable (String) async throws -> TestServer.Reply
        var stored: @Sendable () async throws -> String?
        var undo: @Sendable (TestServer.Reply) async throws -> Void = { _ in }
    }

    /// A hostile string and whether a field of each kind takes it (then stored as `kept`).
    struct Hostile {
        var label: String
        var text: String
        var takenBy: Set<Kind>
        var kept: String?
    }

    static func hostile(maximum: Int) -> [Hostile] {
        let all: Set<Kind> = [.name, .line, .paragraphs]
        return [
            Hostile(label: "NUL first", text: "\u{0000}x", takenBy: []),
            Hostile(label: "NUL inside", text: "Rex\u{0000}evil", takenBy: []),
            Hostile(label: "C0 bell", text: "a\u{0007}b", takenBy: []),
            Hostile(label: "escape sequence", text: "a\u{001B}[31mred", takenBy: []),
            Hostile(label: "C1 next line", text: "a\u{0085}b", takenBy: []),
            Hostile(label: "bidi override", text: "Rex\u{202E}gnp.exe", takenBy: [.line, .paragraphs]),
            Hostile(label: "line break", text: "one\ntwo", takenBy: [.paragraphs]),
            Hostile(label: "combining flood", text: "a" + String(repeating: "\u{0301}", count: 20_000), takenBy: []),
            Hostile(label: "longest word", text: String(repeating: "w", count: maximum), takenBy: all),
            Hostile(label: "a word too long", text: String(repeating: "w", count: maximum + 1), takenBy: []),
            Hostile(label: "markup", text: "<img src=x onerror=alert(1)>", takenBy: all),
            Hostile(label: "padded", text: "  Biscuit  ", takenBy: all, kept: "Biscuit"),
        ]
    }

    func walk(_ fields: [Field]) async throws {
        for field in fields {
            for hostile in Self.hostile(maximum: field.maximum) {
                let before = try await field.stored()
                let reply = try await field.write(hostile.text)
                let label = "\(field.name) ← \(hostile.label)"
                if hostile.takenBy.contains(field.kind) {
                    #expect((200..<300).contains(reply.status), "\(label): \(reply.status) \(reply.text.prefix(200))")
                    #expect(try await field.stored() == (hostile.kept ?? hostile.text), "\(label): stored as sent")
                    try await field.undo(reply)
                } else {
                    #expect(reply.status == 422, "\(label): \(reply.status) \(reply.text.prefix(200))")
                    let named = (reply.json["errors"] as? [[String: Any]])?.compactMap { $0["field"] as? String } ?? []
                    #expect(named.contains(field.name), "\(label): names \(named)")
                    #expect(try await field.stored() == before, "\(label): nothing stored")
                }
            }
        }
    }

    @Test func everyTextFieldRefusesOrKeepsHostileTextExactly() async throws {
        try await TestServer.run { server in
            let (ada, bob) = try await server.adaAndBob()
            for owner in [ada, bob] { try await server.vaccinate(owner) }
            let chat = try await server.matched(ada, bob).id
            let me = { @Sendable (key: String) in try await server.request(.GET, APIPath.me, token: ada.token).json[key] as? String }
            let dog = { @Sendable (key: String) -> String? in
                let view = try await server.request(.GET, APIPath.pet(ada.dogID), token: ada.token).json
                return ((view["profile"] as? [String: Any])?[key] ?? (view["card"] as? [String: Any])?[key]) as? String
            }
            let profile = { @Sendable (key: String, kind: Kind, maximum: Int) in
                Field(
                    name: key, kind: kind, maximum: maximum,
                    write: { try await server.send(.PATCH, APIPath.me, object: [key: $0], token: ada.token) },
                    stored: { try await me(key) })
            }
            let pet = { @Sendable (key: String, kind: Kind, maximum: Int) in
                Field(
                    name: key, kind: kind, maximum: maximum,
                    write: { try await server.send(.PATCH, APIPath.pet(ada.dogID), object: [key: $0], token: ada.token) },
                    stored: { try await dog(key) })
            }
            let lastMessage = { @Sendable () -> String? in
                let page = try await server.request(.GET, "/v1/chats/\(chat)/messages?limit=1", token: ada.token).json
                return ((page["items"] as? [[String: Any]])?.first)?["text"] as? String
            }
            let pendingMeetup = { @Sendable (key: String) -> String? in
                let page = try await server.request(.GET, "/v1/meetups?filter=upcoming", token: ada.token).json
                return ((page["items"] as? [[String: Any]])?.first { $0["status"] as? String == "pending" })?[key] as? String
            }
            let cancel = { @Sendable (reply: TestServer.Reply) async throws in
                let id = reply.json["id"] as? String ?? ""
                #expect(try await server.request(.POST, APIPath.meetup(id, "cancel"), token: ada.token).status == 200)
            }
            try await walk([
                profile("displayName", .name, 50),
                profile("city", .line, 80),
                pet("name", .name, 40),
                pet("breed", .line, 60),
                pet("notes", .paragraphs, 1_000),
                Field(
                    name: "text", kind: .paragraphs, maximum: 2_000,
                    write: {
                        try await server.send(
                            .POST, APIPath.messages(chat),
                            object: ["id": UUID().uuidString, "text": $0], token: ada.token)
                    },
                    stored: lastMessage),
                Field(
                    name: "placeName", kind: .line, maximum: 120,
                    write: { try await server.propose(ada, in: chat, place: $0) }, stored: { try await pendingMeetup("placeName") },
                    undo: cancel),
                Field(
                    name: "note", kind: .paragraphs, maximum: 500,
                    write: { try await server.propose(ada, in: chat, extra: ["note": $0]) }, stored: { try await pendingMeetup("note") },
                    undo: cancel),
            ])
        }
    }

    @Test func aLoneSurrogateInAJSONEscapeIsABadRequestAndStoresNothing() async throws {
        try await TestServer.run { server in
            let (ada, bob, chat) = try await server.adaAndBobMatched()
            for escaped in [#"a\ud800b"#, #"\udfff"#, #"x\ud83d"#] {
                let reply = try await server.request(
                    .POST, APIPath.messages(chat),
                    raw: #"{"id":"\#(UUID().uuidString)","text":"\#(escaped)"}"#, token: ada.token)
                #expect([400, 422].contains(reply.status), "\(escaped): \(reply.status) \(reply.text)")
                let renamed = try await server.request(.PATCH, APIPath.me, raw: #"{"displayName":"\#(escaped)"}"#, token: ada.token)
                #expect([400, 422].contains(renamed.status), "\(escaped): \(renamed.status)")
            }
            let page = try await server.request(.GET, APIPath.messages(chat), token: ada.token).json
            #expect((page["items"] as? [Any])?.isEmpty == true)
            #expect(try await server.request(.GET, APIPath.me, token: ada.token).json["displayName"] as? String == "Ada")
        }
    }
}
