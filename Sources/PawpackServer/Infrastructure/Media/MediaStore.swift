import Foundation

/// Bytes of one stored media object and how to serve them.
package struct StoredMedia: Sendable, Equatable {
    package var data: Data
    package var contentType: String

    package init(data: Data, contentType: String) {
        self.data = data
        self.contentType = contentType
    }
}

/// Where uploaded media lives: files under the data folder by default, S3-compatible object
/// storage when one machine is not enough. Keys are opaque, slash-separated, made by the
/// server (e.g. `pets/<pet-id>/<photo-id>.jpg`), never by users.
package protocol MediaStore: Sendable {
    /// Stores `data` under `key`, replacing what was there. Either the whole object is stored
    /// or nothing is.
    func put(_ data: Data, key: String, contentType: String) async throws
    /// The object, or nil when there is none.
    func get(key: String) async throws -> StoredMedia?
    /// Removes the object; removing a missing key is not an error.
    func delete(key: String) async throws
}
