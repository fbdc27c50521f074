import Foundation
import PawpackCore
import PawpackTestSupport
import Testing
import Vapor

@testable import PawpackServer

@Suite struct SystemTests {
    @Test func healthzReportsTheDatabase() async throws {
        try await TestServer.run { server in
            let reply = try await server.request(.GET, "/healthz")
            #expect(reply.status == 200)
            #expect(reply.json["database"] as? String == "ok")
        }
    }

    @Test func theContractIsServedAndEveryReplyCarriesARequestID() async throws {
        try await TestServer.run { server in
            let reply = try await server.request(.GET, "/openapi.yaml")
            #expect(reply.status == 200)
            #expect(reply.text.contains("operationId: signUp"))
            #expect(reply.headers.first(name: "X-Request-ID")?.isEmpty == false)
        }
    }

    /// Each operation reads the request it answers (`RequestContext`, bound while the chain is
    /// called and kept by the handler's task): members asking at once each get their own account.
    @Test func requestsArrivingTogetherEachAnswerTheirOwnMember() async throws {
        try await TestServer.run { server in
            var members: [TestServer.Member] = []
            for name in ["ada", "bob", "cat", "dan"] { members.append(try await server.member(name)) }
            try await withThrowingTaskGroup(of: (String, String?).self) { group in
                for _ in 0..<10 {
                    for member in members {
                        group.addTask {
                            let me = try await server.request(.GET, APIPath.me, token: member.accessToken)
                            return (member.username, me.json["username"] as? String)
                        }
                    }
                }
                var answered = 0
                for try await (asked, answer) in group {
                    #expect(answer == asked)
                    answered += 1
                }
                #expect(answered == 40)
            }
        }
    }

    @Test func anUnknownPathIsAProblemNotAPage() async throws {
        try await TestServer.run { server in
            let reply = try await server.request(.GET, "/v1/nothing-here")
            #expect(reply.status == 404)
            #expect(reply.headers.first(name: "Content-Type") == "application/problem+json")
            #expect(reply.code == "not_found")
            #expect(reply.json["type"] as? String == "urn:pawpack:problem:not_found")
        }
    }

    @Test func aMethodAnAddressDoesNotTakeIs405NamingTheOnesItTakes() async throws {
        try await TestServer.run { server in
            let cases: [(HTTPMethod, String, String)] = [
                (.DELETE, APIPath.logIn, "POST"),
                (.TRACE, "/healthz", "GET, HEAD"),
                (.PUT, APIPath.pets, "GET, HEAD, POST"),
                (.PATCH, APIPath.deck(UUID()), "GET, HEAD"),
                (.DELETE, "/signup", "GET, HEAD, POST"),
            ]
            for (method, path, allowed) in cases {
                let reply = try await server.request(method, path)
                #expect(reply.status == 405, "\(method) \(path)")
                #expect(reply.code == "method_not_allowed")
                #expect(reply.headers.first(name: "Allow") == allowed, "\(method) \(path)")
            }
            // a path the contract names literally is no id of the route beside it
            // (`/v1/families/join` is not `/v1/families/{familyId}`)
            let ada = try await server.member("ada")
            for method in [HTTPMethod.GET, .PATCH, .DELETE, .OPTIONS] {
                let reply = try await server.request(method, APIPath.joinFamily, raw: method == .PATCH ? "{}" : nil, token: ada.accessToken)
                #expect(reply.status == 405 && reply.headers.first(name: "Allow") == "POST", "\(method): \(reply.text)")
            }
            // nor `/v1/feeds/friends` a feed of Care's, even with a body it cannot read
            for (method, body) in [(HTTPMethod.PATCH, nil), (.PATCH, "{}"), (.DELETE, nil)] as [(HTTPMethod, String?)] {
                let reply = try await server.request(method, APIPath.friendsFeed, raw: body, token: ada.accessToken)
                #expect(reply.status == 405 && reply.headers.first(name: "Allow") == "GET, HEAD", "\(method): \(reply.text)")
            }
            // a path nothing serves is still not found, whatever the method
            #expect(try await server.request(.DELETE, "/v1/nothing-here").status == 404)
        }
    }

    @Test func theHashingLineIsBoundedAndRefusesWhenFull() async throws {
        // given one permit and room for one waiter
        let gate = BoundedGate(permits: 1, queueLimit: 1)
        try await gate.acquire()
        let waiter = Task { try await gate.acquire() }
        while await gate.waiting == 0 { await Task.yield() }
        // when a third asks, it is refused at once
        await #expect(throws: Problem.self) { try await gate.acquire() }
        // and when the permit comes back, the waiter gets it
        await gate.release()
        try await waiter.value
        #expect(await gate.waiting == 0)
    }

    @Test func passwordsAreHashedWithBcryptAtTheConfiguredCost() async throws {
        let hasher = PasswordHasher(cost: 5, threads: 1, queueLimit: 4)
        let hash = try await hasher.hash("a walk in the park")
        #expect(hash.hasPrefix("$2b$05$"))
        #expect(try await hasher.verify("a walk in the park", against: hash))
        #expect(try await !hasher.verify("a walk in the parc", against: hash))
        // a passphrase past bcrypt's 72 bytes counts to its last character
        let long = String(repeating: "a long walk in the park, ", count: 4)
        let longHash = try await hasher.hash(long + "with Rex")
        #expect(try await hasher.verify(long + "with Rex", against: longHash))
        #expect(try await !hasher.verify(long + "with Max", against: longHash))
        try await hasher.shutdown()
    }
}

@Suite struct ConfigTests {
    @Test func defaultsServeLocallyOnSQLiteWithTheOutbox() throws {
        let config = try Config.load(from: [:])
        #expect(config.environment == .development)
        #expect(config.hostname == "127.0.0.1")
        #expect(config.port == 8080)
        #expect(config.database == .sqliteFile("./data/pawpack.sqlite"))
        #expect(config.mail == .developmentOutbox)
        #expect(config.bcryptCost == 12)
        #expect(config.publicBaseURL == "http://127.0.0.1:8080")
    }

    @Test func theDataDirectoryPortAndDatabaseURLAreRead() throws {
        let config = try Config.load(from: [
            "PAWPACK_DATA_DIR": "/srv/pawpack", "PAWPACK_PORT": "9000",
            "DATABASE_URL": "postgres://u:p@db:5432/pawpack",
        ])
        #expect(config.port == 9000)
        #expect(config.database == .postgres(url: "postgres://u:p@db:5432/pawpack"))
        #expect(try Config.load(from: ["PAWPACK_DATA_DIR": "/srv/pawpack"]).database == .sqliteFile("/srv/pawpack/pawpack.sqlite"))
    }

    @Test(arguments: [
        ("PAWPACK_PORT", "eighty"), ("PAWPACK_PORT", "70000"), ("PAWPACK_ENV", "staging"),
        ("PAWPACK_BCRYPT_COST", "3"), ("DATABASE_URL", "mysql://x"), ("PAWPACK_SECRET", "short"),
        ("SMTP_URL", "ftp://mail"), ("PAWPACK_LOG_FORMAT", "xml"), ("PAWPACK_PUBLIC_URL", "pawpack.example"),
        ("PAWPACK_SQLITE_RESIDENT_MB", "lots"), ("PAWPACK_SQLITE_RESIDENT_MB", "-1"),
    ])
    func aBadValueStopsStartUpNamingTheVariable(name: String, value: String) {
        #expect(throws: ConfigError.self) { try Config.load(from: [name: value]) }
        do {
            _ = try Config.load(from: [name: value])
        } catch let error as ConfigError {
            #expect(error.variable == name)
            #expect(error.description.contains(name))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func productionRefusesToStartWithoutWhatItNeeds() throws {
        let complete = [
            "PAWPACK_ENV": "production", "PAWPACK_PUBLIC_URL": "https://pawpack.example.org",
            "SMTP_URL": "smtp://mailer:secret@smtp.example.org", "PAWPACK_SECRET": "q7Vd0xKp2LmZ9sR4tWb8yNc3HfJ6gE1uAo5Qi",
        ]
        let config = try Config.load(from: complete)
        #expect(config.isProduction)
        #expect(config.secureCookies)
        #expect(config.logFormat == .json)
        for missing in ["PAWPACK_PUBLIC_URL", "SMTP_URL", "PAWPACK_SECRET"] {
            var partial = complete
            partial[missing] = nil
            do {
                _ = try Config.load(from: partial)
                Issue.record("production started without \(missing)")
            } catch let error as ConfigError {
                #expect(error.variable == missing)
            }
        }
    }

    @Test func productionRefusesAGuessableSecretAndPlainHTTP() throws {
        let complete = [
            "PAWPACK_ENV": "production", "PAWPACK_PUBLIC_URL": "https://pawpack.example.org",
            "SMTP_URL": "smtp://mailer:secret@smtp.example.org", "PAWPACK_SECRET": "q7Vd0xKp2LmZ9sR4tWb8yNc3HfJ6gE1uAo5Qi",
        ]
        for weak in [String(repeating: "k", count: 40), "passwordpasswordpasswordpassword", "abababababababababababababababab1"] {
            var config = complete
            config["PAWPACK_SECRET"] = weak
            #expect(throws: ConfigError.self, "\(weak)") { try Config.load(from: config) }
        }
        // 32 random bytes, as base64 and as hex, are fine
        for strong in [
            "3q2+7wABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGho=",
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        ] {
            var config = complete
            config["PAWPACK_SECRET"] = strong
            #expect(throws: Never.self) { try Config.load(from: config) }
        }
        var plain = complete
        plain["PAWPACK_PUBLIC_URL"] = "http://pawpack.example.org"
        #expect(
            throws: ConfigError(
                variable: "PAWPACK_PUBLIC_URL",
                message: "must start with https:// in production (sessions and links travel over it); PAWPACK_ALLOW_HTTP=1 allows http://")
        ) {
            try Config.load(from: plain)
        }
        plain["PAWPACK_ALLOW_HTTP"] = "1"
        #expect(try Config.load(from: plain).secureCookies == false)
    }

    @Test func anHTTPSServerAsksBrowsersToStayOnHTTPS() async throws {
        try await TestServer.run(adjust: { $0.publicBaseURL = "https://pawpack.example.org" }) { server in
            let reply = try await server.request(.GET, "/healthz")
            #expect(reply.headers.first(name: "Strict-Transport-Security") == "max-age=31536000")
        }
        try await TestServer.run { server in
            let reply = try await server.request(.GET, "/healthz")
            #expect(reply.headers.first(name: "Strict-Transport-Security") == nil)
        }
    }

    @Test func theDatabaseFileAndDataFolderAreTheServersAlone() async throws {
        let server = try await ServerProcess()
        defer { server.stop() }
        let files = FileManager.default
        #expect(try files.attributesOfItem(atPath: server.databaseFile)[.posixPermissions] as? Int == 0o600)
        let folder = (server.databaseFile as NSString).deletingLastPathComponent
        #expect(try files.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)
    }

    @Test func dotEnvLinesAreParsedWithCommentsAndQuotes() {
        let parsed = Config.parseDotEnv(
            """
            # local settings
            PAWPACK_PORT=9090
            export PAWPACK_HOST = 0.0.0.0
            MAIL_FROM="Pawpack <noreply@example.org>"
            EMPTY=
            """)
        #expect(
            parsed == [
                "PAWPACK_PORT": "9090", "PAWPACK_HOST": "0.0.0.0",
                "MAIL_FROM": "Pawpack <noreply@example.org>", "EMPTY": "",
            ])
    }
}
