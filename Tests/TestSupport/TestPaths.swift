import Foundation

/// Where things are when tests run: the repository, the built products, fresh scratch folders.
public enum TestPaths {
    /// The repository root (the folder holding Package.swift).
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// The folder that holds the built executables (`relay`) next to the test bundle.
    public static let productsDirectory: URL = {
        #if os(macOS)
            for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
                return bundle.bundleURL.deletingLastPathComponent()
            }
            return Bundle.main.bundleURL
        #else
            return Bundle.main.bundleURL
        #endif
    }()

    /// The `relay` executable built by SwiftPM for these tests.
    public static var relayExecutable: URL {
        productsDirectory.appendingPathComponent("relay")
    }

    /// A new empty folder under the system temporary directory, removed by the caller.
    public static func makeTemporaryDirectory(_ label: String = "relay-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
