import Vapor

extension Routes {
    /// The methods the routes serve `path` with: for the `Allow` header of a 405, when a path
    /// exists but not for the method asked. Empty when no route serves the path at all.
    func methods(serving path: String) -> [HTTPMethod] {
        let segments = path.split(separator: "/").map(String.init)
        // A path the routes name literally (`/v1/families/join`) is that resource alone, not
        // also an id of the route with a parameter in its place (`/v1/families/{familyId}`).
        var methods: [HTTPMethod] = []
        for method in self.methods(servingLiterally: path) where !methods.contains(method) { methods.append(method) }
        if methods.isEmpty {
            for route in all where Self.route(route.path, matches: segments) && !methods.contains(route.method) {
                methods.append(route.method)
            }
        }
        // Vapor answers HEAD wherever it answers GET.
        if methods.contains(.GET), !methods.contains(.HEAD) { methods.append(.HEAD) }
        return methods.sorted { $0.rawValue < $1.rawValue }
    }

    /// The methods of the routes whose every segment is `path`'s own (no parameter).
    func methods(servingLiterally path: String) -> [HTTPMethod] {
        let segments = path.split(separator: "/").map(String.init)
        return all.filter { route in
            route.path.count == segments.count
                && zip(route.path, segments).allSatisfy { component, segment in
                    if case .constant(let text) = component { text == segment } else { false }
                }
        }.map(\.method)
    }

    private static func route(_ components: [PathComponent], matches segments: [String]) -> Bool {
        var index = 0
        for component in components {
            switch component {
            case .catchall: return index < segments.count
            case .constant(let text): guard index < segments.count, segments[index] == text else { return false }
            case .parameter, .anything: guard index < segments.count else { return false }
            }
            index += 1
        }
        return index == segments.count
    }
}
