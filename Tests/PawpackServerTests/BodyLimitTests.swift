import AsyncHTTPClient
import Foundation
import NIOCore
import PawpackAPI
import PawpackTestSupport
import Testing

/// Every request body is bounded: JSON and forms by PAWPACK_MAX_BODY_KB (1 MB), photos by
/// PAWPACK_MAX_UPLOAD_MB. A body too large is refused with 413 before it is held whole, and the
/// connection it came on is left clean: the next request on it is answered.
@Suite struct BodyLimitTests {
    @Test func aFiftyMegabyteBodyIsRefusedAndTheServerNeverHoldsIt() async throws {
        // given the built server in a process of its own, whose peak memory only it sets
        let server = try await ServerProcess()
        defer { server.stop() }
        let before = try server.peakMemory()

        // when an anonymous client sends a 50 MB log-in, with its length and then without
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 50 * 1_048_576)
        let port = try #require(Int(server.baseURL.split(separator: ":").last ?? ""))
        for (label, bytes) in [
            ("with its length", Self.request("POST", APIPath.logIn, contentType: "application/json", body: body)),
            ("chunked", Self.chunkedRequest("POST", APIPath.logIn, contentType: "application/json", body: body)),
        ] {
            let connection = try RawConnection(port: port, timeoutSeconds: 30)
            await connection.write(bytes)

            // then it is refused as too large, by name
            guard case .response(let status, let headers, let answer) = await connection.response() else {
                Issue.record("\(label): no answer")
                continue
            }
            #expect(status == 413, "\(label)")
            #expect(headers["content-type"] == "application/problem+json")
            #expect(String(decoding: answer, as: UTF8.self).contains("payload_too_large"))
        }
        // and the server's memory never held the body (it grew by a few MB, not 50 or 1,400)
        let grown = try server.peakMemory() - before
        #expect(grown < 16 * 1_048_576, "peak memory grew by \(grown / 1_048_576) MB")
    }

    @Test func aRefusedBodyLeavesItsConnectionAnsweringTheNextRequest() async throws {
        try await TestServer.run { server in
            let ada = try await server.owner("ada", at: TestServer.Place.lyon)
            let member = ada.member
            let browser = try await TestBrowser.signedIn(server, as: member)
            let cookies = browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")
            let json = Array("{\"email\":\"ada@example.com\",\"password\":\"\(String(repeating: "x", count: 2 * 1_048_576))\"}".utf8)
            let cases: [(String, [UInt8])] = [
                ("a JSON body over 1 MB", Self.request("POST", APIPath.logIn, contentType: "application/json", body: json)),
                ("a chunked JSON body over 1 MB", Self.chunkedRequest("POST", APIPath.logIn, contentType: "application/json", body: json)),
                (
                    "a photo over 10 MB",
                    Self.request(
                        "POST", APIPath.photos(ada.dogID), contentType: "multipart/form-data; boundary=b",
                        body: Self.multipart(photo: 11 * 1_048_576), token: member.accessToken)
                ),
                (
                    "a photo over 10 MB for a pet that is not there",
                    Self.request(
                        "POST", APIPath.photos(UUID()),
                        contentType: "multipart/form-data; boundary=b",
                        body: Self.multipart(photo: 11 * 1_048_576), token: member.accessToken)
                ),
                (
                    "a photo over 10 MB through the web page",
                    Self.request(
                        "POST", "/pets/\(ada.dogID)/photos",
                        contentType: "multipart/form-data; boundary=b",
                        body: Self.multipart(photo: 11 * 1_048_576, csrf: browser.cookies["pawpack_csrf"]),
                        cookies: cookies)
                ),
                (
                    "a web form over 1 MB",
                    Self.request(
                        "POST", "/signup", contentType: "application/x-www-form-urlencoded",
                        body: Array(("email=" + String(repeating: "a", count: 2 * 1_048_576)).utf8))
                ),
            ]
            for (label, bytes) in cases {
                // given one connection, which waits as long as the first test's: on a loaded
                // machine a refusal can take more than the default 5 s, and a hang never ends
                let connection = try RawConnection(port: server.port, timeoutSeconds: 30)
                // when the oversized request goes, and then a small one on the same connection
                await connection.write(bytes)
                let refused = await connection.response()
                // (a file of the shell's: the answer needs no database connection, which a
                // loaded machine may take seconds to open, and the connection is what is tested)
                await connection.write(Self.request("GET", "/icon.svg"))
                let next = await connection.response()

                // then the first is refused (413, or another refusal the route gives first), and
                // the second is answered or the connection closed: it never hangs
                guard case .response(let status, let headers, _) = refused else {
                    Issue.record("\(label): no answer (\(refused))")
                    continue
                }
                #expect([413, 401, 404].contains(status), "\(label): \(status)")
                if status == 413 { #expect(headers["connection"]?.contains("close") == true, "\(label)") }
                switch next {
                case .response(let status, _, _): #expect(status == 200, "\(label): the next request got \(status)")
                case .closed: break
                case .silence: Issue.record("\(label): the next request on the connection got no answer")
                }
            }
        }
    }

    // MARK: Helpers

    static func request(
        _ method: String, _ path: String, contentType: String? = nil, body: [UInt8] = [],
        token: String? = nil, cookies: String? = nil
    ) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let cookies { head += "Cookie: \(cookies)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    static func chunkedRequest(_ method: String, _ path: String, contentType: String, body: [UInt8]) -> [UInt8] {
        var bytes = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var offset = 0
        while offset < body.count {
            let size = min(65_536, body.count - offset)
            bytes += Array((String(size, radix: 16) + "\r\n").utf8) + body[offset..<(offset + size)] + Array("\r\n".utf8)
            offset += size
        }
        return bytes + Array("0\r\n\r\n".utf8)
    }

    static func multipart(photo size: Int, csrf: String? = nil) -> [UInt8] {
        let field = csrf.map { "--b\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\n\($0)\r\n" } ?? ""
        return Array((field + "--b\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"big.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").utf8)
            + [UInt8](repeating: 0xFF, count: size) + Array("\r\n--b--\r\n".utf8)
    }
}
