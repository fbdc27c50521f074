import Foundation

/// The contract as shipped with the package, so the server can serve it at `/openapi.yaml`.
public enum OpenAPIDocument {
    public static func yaml() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}
