/// What a member is told when a photo is refused, for every area that takes photos (pets,
/// chats, moments and next profiles): the field is the form's part (`photo` unless said), the
/// numbers are the limits.
extension ImageSanitizerError {
    public func problem(limit: Int, field: String = "photo") -> Problem {
        switch self {
        case .tooLarge:
            Problem(
                status: 413, code: .payloadTooLarge, title: "Photo too large",
                detail: "Photos may be at most \(limit / 1_048_576) MB.",
                errors: [.init(field: field, message: "must be at most \(limit / 1_048_576) MB")])
        case .unsupportedType:
            Problem(
                status: 415, code: .unsupportedMediaType, title: "Not a photo we accept",
                detail: "Upload a JPEG, PNG, WebP or HEIC image.",
                errors: [.init(field: field, message: "must be a JPEG, PNG, WebP or HEIC image")])
        case .tooManyPixels(let width, let height):
            Problem(
                status: 422, code: .validationFailed, title: "Photo too large",
                detail: "This photo is \(width) × \(height) pixels; photos may be at most 12,000 pixels a side and 50 megapixels.",
                errors: [.init(field: field, message: "must be at most 12,000 pixels a side and 50 megapixels")])
        case .malformed:
            Problem(
                status: 422, code: .validationFailed, title: "Damaged image",
                detail: "The image could not be read; it may be damaged or cut short.",
                errors: [.init(field: field, message: "could not be read as an image")])
        }
    }
}
