import Foundation
import Testing

@testable import PawpackServer

/// What every `MediaStore` must do, stated as a user of the store would notice it. Each store's
/// tests run it against a fresh, empty store; a failure names the store in its comment.
enum MediaStoreContract {
    static func verify(_ store: any MediaStore) async throws {
        try await missingKeysAreNil(store)
        try await bytesAndContentTypeComeBackUnchanged(store)
        try await putReplacesTheWholeObject(store)
        try await deleteRemovesOnlyThatObject(store)
        try await nestedKeysWithUnusualCharactersAreDistinct(store)
        try await invalidKeysAndContentTypesAreRefused(store)
    }

    private static func missingKeysAreNil(_ store: any MediaStore) async throws {
        let missing = try await store.get(key: "contract/missing.jpg")
        #expect(missing == nil, "\(type(of: store)): a key never stored must read as nil")
        let missingFolder = try await store.get(key: "contract/no/such/folder/photo.jpg")
        #expect(missingFolder == nil, "\(type(of: store)): a key below missing folders must read as nil")
    }

    private static func bytesAndContentTypeComeBackUnchanged(_ store: any MediaStore) async throws {
        let everyByte = Data(UInt8.min...UInt8.max)
        try await expectRoundTrip(
            store,
            StoredMedia(data: everyByte + Data(everyByte.reversed()), contentType: "application/octet-stream"),
            key: "contract/every-byte.bin"
        )
        // Bytes that look like a text header or an HTTP message must not be taken for one.
        try await expectRoundTrip(
            store,
            StoredMedia(
                data: Data("pawpack-media 1\ntext/plain\n\r\n\r\nHTTP/1.1 200 OK\r\n".utf8),
                contentType: "image/png"
            ),
            key: "contract/header-lookalike.png"
        )
        try await expectRoundTrip(
            store,
            StoredMedia(data: pseudoRandomBytes(count: 2 * 1_048_576, seed: 0x5EED_CAFE), contentType: "image/jpeg"),
            key: "contract/large-2mb.jpg"
        )
        try await expectRoundTrip(
            store,
            StoredMedia(data: Data(), contentType: "application/octet-stream"),
            key: "contract/empty.bin"
        )
        // Parameters and their spacing are part of the content type.
        try await expectRoundTrip(
            store,
            StoredMedia(data: Data("Woof 🐾\n".utf8), contentType: "text/plain; charset=utf-8"),
            key: "contract/note.txt"
        )
    }

    private static func putReplacesTheWholeObject(_ store: any MediaStore) async throws {
        let key = "contract/replaced.img"
        try await expectRoundTrip(store, StoredMedia(data: Data("first".utf8), contentType: "image/jpeg"), key: key)
        try await expectRoundTrip(
            store,
            StoredMedia(data: Data("second, and longer than the first".utf8), contentType: "image/png"),
            key: key
        )
        // Shorter than before: nothing of the previous object may be left at the end.
        try await expectRoundTrip(store, StoredMedia(data: Data("3".utf8), contentType: "image/webp"), key: key)
    }

    private static func deleteRemovesOnlyThatObject(_ store: any MediaStore) async throws {
        let doomed = "contract/delete/doomed.jpg"
        let sibling = StoredMedia(data: Data("sibling".utf8), contentType: "image/jpeg")
        try await store.put(Data("doomed".utf8), key: doomed, contentType: "image/jpeg")
        try await store.put(sibling.data, key: "contract/delete/sibling.jpg", contentType: sibling.contentType)

        try await store.delete(key: doomed)
        let deleted = try await store.get(key: doomed)
        #expect(deleted == nil, "\(type(of: store)): a deleted key must read as nil")
        let survivor = try await store.get(key: "contract/delete/sibling.jpg")
        #expect(survivor == sibling, "\(type(of: store)): deleting one key must leave its neighbours alone")

        // Deleting what is not there is fine: again, and below folders that never existed.
        try await store.delete(key: doomed)
        try await store.delete(key: "contract/never/existed.jpg")

        // A deleted key can be used again.
        try await expectRoundTrip(store, StoredMedia(data: Data("reborn".utf8), contentType: "image/gif"), key: doomed)
    }

    private static func nestedKeysWithUnusualCharactersAreDistinct(_ store: any MediaStore) async throws {
        let keys = [
            "pets/2f0c/ph oto+1.jpg",
            "pets/2f0c/Größe 🐾.png",
            "pets/2f0c/a~b_c-d.e(1)!&$'=,;@.webp",
            "pets/2f0c/100% sure?#1.jpg",
            "pets/2f0c/deeper/still/deeper/x.jpg",
            "top-level.gif",
        ]
        // Everything first, then read back: each key must hold its own object.
        for key in keys {
            try await store.put(Data(key.utf8), key: key, contentType: "image/jpeg")
        }
        for key in keys {
            let stored = try await store.get(key: key)
            #expect(
                stored == StoredMedia(data: Data(key.utf8), contentType: "image/jpeg"),
                "\(type(of: store)): \(key.debugDescription) did not come back as stored"
            )
        }
        // A "+" is a plus, not an encoded space.
        let spaceInsteadOfPlus = try await store.get(key: "pets/2f0c/ph oto 1.jpg")
        #expect(spaceInsteadOfPlus == nil, "\(type(of: store)): \"+\" and \" \" must name different keys")

        try await store.delete(key: "pets/2f0c/ph oto+1.jpg")
        let deleted = try await store.get(key: "pets/2f0c/ph oto+1.jpg")
        #expect(deleted == nil, "\(type(of: store)): deleting a key with a space and a plus must remove it")
    }

    private static func invalidKeysAndContentTypesAreRefused(_ store: any MediaStore) async throws {
        let invalidKeys = [
            "",
            "/etc/passwd",
            "../x",
            "pets/../../x",
            "pets/./x.jpg",
            "pets//x.jpg",
            "pets/x/",
            "pets\\x.jpg",
            "pets/x\u{0}.jpg",
            "pets/line\nbreak.jpg",
            String(repeating: "k", count: 1025),
        ]
        for key in invalidKeys {
            await #expect(throws: MediaStoreError.invalidKey(key), "\(type(of: store)) put") {
                try await store.put(Data([1]), key: key, contentType: "image/jpeg")
            }
            await #expect(throws: MediaStoreError.invalidKey(key), "\(type(of: store)) get") {
                _ = try await store.get(key: key)
            }
            await #expect(throws: MediaStoreError.invalidKey(key), "\(type(of: store)) delete") {
                try await store.delete(key: key)
            }
        }

        // Content types must survive an HTTP header unchanged; anything else is refused
        // before storing.
        for contentType in ["", " image/jpeg", "image/jpeg ", "image/jpeg\r\nX-Injected: 1", "image/jpég"] {
            await #expect(throws: MediaStoreError.invalidContentType(contentType), "\(type(of: store))") {
                try await store.put(Data([1]), key: "contract/refused.jpg", contentType: contentType)
            }
        }
        let refused = try await store.get(key: "contract/refused.jpg")
        #expect(refused == nil, "\(type(of: store)): a refused put must store nothing")
    }

    // MARK: - Helpers

    private static func expectRoundTrip(
        _ store: any MediaStore,
        _ media: StoredMedia,
        key: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await store.put(media.data, key: key, contentType: media.contentType)
        let stored = try await store.get(key: key)
        #expect(
            stored?.contentType == media.contentType,
            "\(type(of: store)): content type of \(key.debugDescription)",
            sourceLocation: sourceLocation
        )
        #expect(
            stored?.data == media.data,
            "\(type(of: store)): bytes of \(key.debugDescription) (\(media.data.count) bytes stored)",
            sourceLocation: sourceLocation
        )
    }

    /// Deterministic bytes without structure (xorshift64), so a store that drops, repeats or
    /// reorders chunks cannot pass by luck.
    static func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
        var state = seed
        var bytes = [UInt8]()
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes.append(UInt8(truncatingIfNeeded: state))
        }
        return Data(bytes)
    }
}
