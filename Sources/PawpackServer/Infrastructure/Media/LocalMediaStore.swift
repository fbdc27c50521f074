import Foundation
import NIOPosix

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Media as files below one folder: the object for key `pets/1/a.jpg` is the file
/// `<root>/pets/1/a.jpg`.
///
/// Each file holds a two-line text header, then the bytes exactly as given:
///
///     pawpack-media 1
///     image/jpeg
///     <bytes>
///
/// Keeping the content type inside the same file (rather than in a second file next to it)
/// makes a `put` one rename, so the bytes and their content type are replaced together.
/// A `put` writes and flushes a temporary file in the target folder, then renames it over the
/// target: a crash leaves the old object or the new one, never half a file.
///
/// File I/O runs on NIO's blocking-I/O thread pool, off Swift's cooperative pool.
/// Folders emptied by `delete` are left in place: removing them would race with a `put` into
/// the same folder, and an empty folder costs nothing.
package struct LocalMediaStore: MediaStore {
    /// The folder everything lives under; created on the first `put`.
    package let root: String

    package init(root: String) {
        var root = root
        while root.count > 1, root.hasSuffix("/") {
            root.removeLast()
        }
        self.root = root.isEmpty ? "." : root
    }

    package func put(_ data: Data, key: String, contentType: String) async throws {
        try MediaRules.validate(key: key)
        try MediaRules.validate(contentType: contentType)
        let location = self.location(of: key)
        let header = LocalMediaFile.header(contentType: contentType)
        try await NIOThreadPool.singleton.runIfActive {
            try LocalMediaFile.writeObject(header: header, data: data, to: location.path, in: location.folder)
        }
    }

    package func get(key: String) async throws -> StoredMedia? {
        try MediaRules.validate(key: key)
        let path = location(of: key).path
        let contents = try await NIOThreadPool.singleton.runIfActive {
            try LocalMediaFile.readObject(at: path)
        }
        guard let contents else { return nil }
        guard let media = LocalMediaFile.decode(contents) else {
            throw MediaStoreError.corruptObject(key: key)
        }
        return media
    }

    package func delete(key: String) async throws {
        try MediaRules.validate(key: key)
        let path = location(of: key).path
        try await NIOThreadPool.singleton.runIfActive {
            try LocalMediaFile.removeObject(at: path)
        }
    }

    /// The object's file and the folder it lives in. Only called with validated keys, which are
    /// relative and free of `.`, `..` and empty segments, so the path always stays below `root`.
    private func location(of key: String) -> (folder: String, path: String) {
        let path = root + "/" + key
        guard let lastSlash = key.lastIndex(of: "/") else {
            return (folder: root, path: path)
        }
        return (folder: root + "/" + String(key[..<lastSlash]), path: path)
    }
}

/// The on-disk format and the POSIX calls behind `LocalMediaStore`. Blocking; call it from a
/// thread that may block.
enum LocalMediaFile {
    /// First line of every file, so a file the store did not write is recognised as such.
    static let formatLine = "pawpack-media 1"

    static func header(contentType: String) -> Data {
        Data("\(formatLine)\n\(contentType)\n".utf8)
    }

    /// The object in a file's contents, or nil when they are not in the format.
    static func decode(_ contents: Data) -> StoredMedia? {
        let newline = UInt8(ascii: "\n")
        guard let firstEnd = contents.firstIndex(of: newline),
            String(decoding: contents[contents.startIndex..<firstEnd], as: UTF8.self) == formatLine,
            let secondEnd = contents[(firstEnd + 1)...].firstIndex(of: newline)
        else { return nil }
        let contentType = String(decoding: contents[(firstEnd + 1)..<secondEnd], as: UTF8.self)
        guard MediaRules.isValid(contentType: contentType) else { return nil }
        return StoredMedia(data: Data(contents[(secondEnd + 1)...]), contentType: contentType)
    }

    /// Writes `header` then `data` to a new temporary file in `folder`, flushes it to disk and
    /// renames it to `path`, replacing what was there. On failure the temporary file is removed
    /// and the old object, if any, is untouched.
    static func writeObject(header: Data, data: Data, to path: String, in folder: String) throws {
        do {
            // Readable by the server's own user only: members' photos are served through it.
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw MediaStoreError.fileSystem("cannot create folder \(folder): \(error)")
        }

        // A fixed-length name: "." + the object's name + a suffix could pass the file name limit.
        let temporary = folder + "/.pawpack-" + UUID().uuidString + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw failure("create", temporary, errno)
        }
        var renamed = false
        defer {
            if !renamed {
                _ = unlink(temporary)
            }
        }

        do {
            try writeAll(header, to: descriptor, path: temporary)
            try writeAll(data, to: descriptor, path: temporary)
            // Without this the rename can reach the disk before the data does, and a power cut
            // would leave the new name on an empty or partial file.
            guard fsync(descriptor) == 0 else {
                throw failure("flush", temporary, errno)
            }
        } catch {
            _ = close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else {
            throw failure("close", temporary, errno)
        }
        guard rename(temporary, path) == 0 else {
            throw failure("rename to", path, errno)
        }
        renamed = true
        syncFolder(folder)
    }

    /// The whole file, or nil when there is no file at `path` (or a folder is there: a folder
    /// holds other keys, it is not an object).
    static func readObject(at path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR || code == EISDIR {
                return nil
            }
            throw failure("open", path, code)
        }
        defer { _ = close(descriptor) }

        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { chunk in
                read(descriptor, chunk.baseAddress, chunk.count)
            }
            if count > 0 {
                contents.append(buffer, count: count)
                continue
            }
            if count == 0 {
                break
            }
            let code = errno
            if code == EINTR {
                continue
            }
            if code == EISDIR {
                return nil
            }
            throw failure("read", path, code)
        }
        return contents
    }

    /// Removes the file; a missing file (or a folder in its place) is not an error.
    static func removeObject(at path: String) throws {
        guard unlink(path) != 0 else { return }
        let code = errno
        if code == ENOENT || code == ENOTDIR {
            return
        }
        // Linux says EISDIR for a folder, macOS EPERM.
        if code == EISDIR || code == EPERM, isFolder(path) {
            return
        }
        throw failure("delete", path, code)
    }

    private static func writeAll(_ bytes: Data, to descriptor: Int32, path: String) throws {
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws -> Void in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    let code = errno
                    if code == EINTR {
                        continue
                    }
                    throw failure("write", path, code)
                }
                offset += written
            }
        }
    }

    /// Makes the rename itself durable. Best effort: some file systems refuse to sync folders,
    /// and the object is complete either way.
    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = close(descriptor)
    }

    private static func isFolder(_ path: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder.boolValue
    }

    private static func failure(_ operation: String, _ path: String, _ code: Int32) -> MediaStoreError {
        .fileSystem("\(operation) \(path) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
