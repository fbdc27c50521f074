import Foundation
import PawpackCore
import Testing

@testable import PawpackServer

/// Stored token hashes and the URL-safe Base64 of links and cursors must not change between
/// versions: a database keeps the hashes, and members keep the links and cursors.
@Suite struct SecretsTests {
    @Test func aTokensHashIsItsSHA256InLowercaseHex() {
        // FIPS 180-2's test vector, and the empty string.
        #expect(OpaqueToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(OpaqueToken.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func urlSafeBase64UsesDashAndUnderscoreWithoutPaddingAndReadsBack() {
        // RFC 4648's vectors, and the two bytes where the alphabets differ.
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            #expect(Data(plain.utf8).base64URLEncoded == encoded)
            #expect(Data(base64URLEncoded: encoded) == Data(plain.utf8))
        }
        #expect(Data([0xFB, 0xFF]).base64URLEncoded == "-_8")
        #expect(Data(base64URLEncoded: "-_8") == Data([0xFB, 0xFF]))
        var random = SystemRandomNumberGenerator()
        for length in 0..<64 {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: .min ... .max, using: &random) })
            let text = bytes.base64URLEncoded
            #expect(!text.contains("+") && !text.contains("/") && !text.contains("="))
            #expect(Data(base64URLEncoded: text) == bytes)
        }
        #expect(Data(base64URLEncoded: "not base64!") == nil)
    }
}
