// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Pawpack",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "PawpackCore", targets: ["PawpackCore"]),
        .library(name: "PawpackClient", targets: ["PawpackClient"]),
        .executable(name: "pawpack", targets: ["pawpack"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.57.0"),
        // The hot reads (`HotReads`) run SQLite's C API on connections of their own, through the
        // copy SQLiteNIO vendors (its `VaporCSQLite` module, which is no product and so cannot be
        // named below: pinning sqlite-nio pins it), and read rows as SQLiteKit's decoder does,
        // behind SQLKit's row protocol: held to the minor version they were written and checked against.
        .package(url: "https://github.com/vapor/sqlite-nio.git", .upToNextMinor(from: "1.13.2")),
        .package(url: "https://github.com/vapor/sqlite-kit.git", .upToNextMinor(from: "4.5.2")),
        .package(url: "https://github.com/vapor/sql-kit.git", .upToNextMinor(from: "3.36.0")),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/vapor/swift-openapi-vapor.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/websocket-kit.git", from: "2.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/JohnSundell/Plot.git", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // Push providers' tokens: APNs (ES256), FCM's service account (RS256), VAPID (ES256).
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    ],
    targets: [
        // Pure domain: every rule and algorithm, Foundation only, shared with clients.
        .target(name: "PawpackCore"),
        // The contract and the code swift-openapi-generator makes from it.
        .target(
            name: "PawpackAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            resources: [.copy("openapi.yaml")],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        // The public Swift SDK: URLSession on Apple platforms, AsyncHTTPClient elsewhere.
        .target(
            name: "PawpackClient",
            dependencies: [
                "PawpackCore", "PawpackAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession", condition: .when(platforms: applePlatforms)),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(platforms: otherPlatforms)),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: otherPlatforms)),
                // The realtime socket, the same client on every platform (Foundation's WebSocket
                // on Linux goes through a libcurl without ws/wss on Debian).
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ]
        ),
        .target(
            name: "PawpackServer",
            dependencies: [
                "PawpackCore", "PawpackAPI",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIVapor", package: "swift-openapi-vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Plot", package: "Plot"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            resources: [.copy("Resources/places.tsv"), .copy("Resources/postcodes.tsv"), .copy("Resources/web")]
        ),
        .executableTarget(
            name: "pawpack",
            dependencies: [
                "PawpackServer", "PawpackCore",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // `bench chat`'s thousands of realtime sockets.
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ]
        ),
        // What the test targets share: the production server started for a test (SQLite in
        // memory, or PostgreSQL when PAWPACK_TEST_POSTGRES_URL is set), HTTP and browser helpers,
        // and the owners, dogs and decks many tests start from.
        .target(
            name: "PawpackTestSupport",
            dependencies: [
                "PawpackServer", "PawpackCore", "PawpackAPI",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                // Test databases made from a migrated template (`MigratedTemplate`).
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "WebSocketKit", package: "websocket-kit"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                // The local push services: their certificate, tokens and decryption.
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "PawpackCoreTests", dependencies: ["PawpackCore"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "PawpackServerTests",
            dependencies: [
                "PawpackServer", "PawpackCore", "PawpackAPI", "PawpackTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The migrated schema, read by `MigratedSchemaTests` from the source tree.
            exclude: ["Schema"]
        ),
        .testTarget(
            name: "PawpackClientTests",
            dependencies: [
                "PawpackClient", "PawpackServer", "PawpackCore", "PawpackAPI", "PawpackTestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// Where the SDK's default transport is URLSession, and where it is AsyncHTTPClient.
var applePlatforms: [Platform] { [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst] }
var otherPlatforms: [Platform] { [.linux, .windows, .android, .openbsd, .wasi] }
