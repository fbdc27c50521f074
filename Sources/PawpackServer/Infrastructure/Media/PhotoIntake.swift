import Foundation
import Logging
import NIOPosix
import PawpackCore

/// The one way in for a photo, whichever area takes it (pets, chats, moments, and next
/// profiles): checked and cleaned on the image thread pool (the real type from the bytes, its
/// size and pixels bounded, metadata and GPS removed), stored, and removed again when the row
/// naming it does not commit or is deleted.
final class PhotoIntake: Sendable {
    let media: any MediaStore
    /// `Config.maximumUploadBytes`.
    let maximumBytes: Int
    /// Checking and cleaning takes milliseconds of CPU per photo, which must not hold an event
    /// loop (and every request on it) up.
    private let imageWork: NIOThreadPool
    private let logger: Logger

    init(media: any MediaStore, maximumBytes: Int, imageWork: NIOThreadPool, logger: Logger) {
        self.media = media
        self.maximumBytes = maximumBytes
        self.imageWork = imageWork
        self.logger = logger
    }

    /// The image checked and cleaned, or the problem to answer when it is not one we take.
    func cleaned(_ data: Data) async throws -> (format: ImageFormat, data: Data) {
        let sanitizer = ImageSanitizer(maximumBytes: maximumBytes)
        do {
            return try await imageWork.runIfActive { try sanitizer.sanitize(data) }
        } catch let error as ImageSanitizerError {
            throw error.problem(limit: maximumBytes)
        }
    }

    /// The image checked and cleaned, with its size; a refusal names `field`.
    func measured(_ data: Data, field: String) async throws -> ImageSanitizer.CleanedImage {
        let sanitizer = ImageSanitizer(maximumBytes: maximumBytes)
        do {
            return try await imageWork.runIfActive { try sanitizer.sanitizeMeasured(data) }
        } catch let error as ImageSanitizerError {
            throw error.problem(limit: maximumBytes, field: field)
        }
    }

    /// Stores an image already cleaned (`measured`) under `key` and its type's extension.
    func store(_ image: ImageSanitizer.CleanedImage, key: String) async throws -> Stored {
        let stored = Stored(
            key: key + "." + image.format.fileExtension, contentType: image.format.mimeType, byteCount: image.data.count)
        try await media.put(image.data, key: stored.key, contentType: stored.contentType)
        return stored
    }

    /// A photo as stored.
    struct Stored: Sendable {
        let key: String
        let contentType: String
        let byteCount: Int
    }

    /// Cleans the photo and stores it under `key` and its type's extension.
    func store(_ data: Data, key: String) async throws -> Stored {
        let image = try await cleaned(data)
        let stored = Stored(
            key: key + "." + image.format.fileExtension, contentType: image.format.mimeType,
            byteCount: image.data.count)
        try await media.put(image.data, key: stored.key, contentType: stored.contentType)
        return stored
    }

    /// Stores the photo, then runs `write`, which records it; when `write` fails, the stored file
    /// goes too: nothing half-way.
    func store<T>(_ data: Data, key: String, then write: (Stored) async throws -> T) async throws -> T {
        let stored = try await store(data, key: key)
        do {
            return try await write(stored)
        } catch {
            await remove([stored.key])
            throw error
        }
    }

    /// Removes stored files once the rows that named them are gone (files first would leave
    /// rows pointing at nothing on a rollback); a file that cannot be removed is logged.
    func remove(_ keys: [String]) async {
        for key in keys {
            do {
                try await media.delete(key: key)
            } catch {
                logger.error("could not remove media", metadata: ["key": .string(key), "error": "\(error)"])
            }
        }
    }
}
