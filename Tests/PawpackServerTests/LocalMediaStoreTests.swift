import Foundation
import Testing

@testable import PawpackServer

@Suite struct LocalMediaStoreTests {
    @Test func passesTheMediaStoreContract() async throws {
        let folder = try MediaTestFolder()
        defer { folder.remove() }
        // A root that does not exist yet: the first put creates it.
        try await MediaStoreContract.verify(LocalMediaStore(root: folder.path + "/media"))
    }

    @Test func photosAndTheirFoldersAreTheServersAlone() async throws {
        let folder = try MediaTestFolder()
        defer { folder.remove() }
        let store = LocalMediaStore(root: folder.path + "/media")
        try await store.put(Data("photo".utf8), key: "pets/a/b.jpg", contentType: "image/jpeg")
        let files = FileManager.default
        for path in [folder.path + "/media", folder.path + "/media/pets", folder.path + "/media/pets/a"] {
            #expect(try files.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o700, "\(path)")
        }
        let stored = try #require(try files.subpathsOfDirectory(atPath: folder.path + "/media/pets/a").first)
        #expect(try files.attributesOfItem(atPath: folder.path + "/media/pets/a/" + stored)[.posixPermissions] as? Int == 0o600)
    }

    @Test func invalidKeysThrowAndWriteNothing() async throws {
        let folder = try MediaTestFolder()
        defer { folder.remove() }
        let store = LocalMediaStore(root: folder.path + "/media")

        for key in ["../x", "/etc/passwd", "", "..", "pets/../../escaped.jpg", "pets\\..\\x.jpg", "pets/x\u{0}.jpg"] {
            await #expect(throws: MediaStoreError.invalidKey(key)) {
                try await store.put(Data("payload".utf8), key: key, contentType: "image/jpeg")
            }
        }
        // Nothing anywhere: not below the root (which was not even created), not next to it.
        let entries = try folder.entries()
        #expect(entries.isEmpty, "unexpected files: \(entries)")
    }

    @Test func storesOneFilePerKeyAndLeavesNoTemporaryFilesBehind() async throws {
        let folder = try MediaTestFolder()
        defer { folder.remove() }
        let store = LocalMediaStore(root: folder.path + "/")
        #expect(store.root == folder.path)

        try await store.put(Data("a".utf8), key: "pets/1/a.jpg", contentType: "image/jpeg")
        try await store.put(Data("b".utf8), key: "pets/1/a.jpg", contentType: "image/png")
        try await store.put(
            MediaStoreContract.pseudoRandomBytes(count: 300_000, seed: 7),
            key: "pets/2/ph oto+1.jpg",
            contentType: "image/jpeg"
        )
        try await store.put(Data(), key: "top.gif", contentType: "image/gif")
        try await store.put(Data("gone".utf8), key: "pets/3/gone.jpg", contentType: "image/jpeg")
        try await store.delete(key: "pets/3/gone.jpg")

        // This put fails after its temporary file exists: a folder ("pets/1" holds a.jpg) is in
        // the way of the rename. The temporary file must go, the other objects must stay.
        await #expect(throws: MediaStoreError.self) {
            try await store.put(Data("blocked".utf8), key: "pets/1", contentType: "image/jpeg")
        }
        // A folder of other keys is not an object: it reads as missing and deleting it does nothing.
        let folderAsObject = try await store.get(key: "pets/1")
        #expect(folderAsObject == nil)
        try await store.delete(key: "pets/1")

        let files = try folder.regularFiles()
        #expect(files == ["pets/1/a.jpg", "pets/2/ph oto+1.jpg", "top.gif"])
        let survivor = try await store.get(key: "pets/1/a.jpg")
        #expect(survivor == StoredMedia(data: Data("b".utf8), contentType: "image/png"))

        // The documented file format: a format line, the content type, then the bytes as given.
        let raw = try Data(contentsOf: URL(fileURLWithPath: folder.path + "/pets/1/a.jpg"))
        #expect(raw == Data("pawpack-media 1\nimage/png\nb".utf8))

        // The listing above sees hidden files, so a leftover ".pawpack-….tmp" could not hide from it.
        try Data().write(to: URL(fileURLWithPath: folder.path + "/pets/2/.hidden-probe"))
        let withProbe = try folder.regularFiles()
        #expect(withProbe.contains("pets/2/.hidden-probe"))
    }

    @Test func filesNotWrittenByTheStoreAreReportedAsCorrupt() async throws {
        let folder = try MediaTestFolder()
        defer { folder.remove() }
        try Data("raw jpeg bytes without a header".utf8).write(to: URL(fileURLWithPath: folder.path + "/legacy.jpg"))
        let store = LocalMediaStore(root: folder.path)

        await #expect(throws: MediaStoreError.corruptObject(key: "legacy.jpg")) {
            _ = try await store.get(key: "legacy.jpg")
        }
        // Deleting it is still possible.
        try await store.delete(key: "legacy.jpg")
        let entries = try folder.entries()
        #expect(entries.isEmpty, "unexpected files: \(entries)")
    }
}

/// A fresh, empty folder under the system's temporary directory.
struct MediaTestFolder {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("pawpack-media-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Every file and folder below, hidden ones included, as sorted relative paths.
    func entries() throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: path).sorted()
    }

    /// The files below (not folders), as sorted relative paths.
    func regularFiles() throws -> [String] {
        try entries().filter { entry in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path + "/" + entry, isDirectory: &isFolder)
            return exists && !isFolder.boolValue
        }
    }
}
