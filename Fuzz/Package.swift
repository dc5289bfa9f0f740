// swift-tools-version:6.0
// libFuzzer targets for relay's camera-facing decoders (and the FTP receiver's command parser). Built apart from relay (a fuzzer has no
// main of its own): see scripts/fuzz.sh and RELIABILITY.md.
import PackageDescription

let package = Package(
    name: "relay-fuzz",
    dependencies: [.package(name: "relay", path: "..")],
    targets: [
        .executableTarget(
            name: "PTPFuzz",
            dependencies: [
                .product(name: "PTPWire", package: "relay"), .product(name: "SSDPWire", package: "relay"),
                .product(name: "FTPWire", package: "relay"), .product(name: "PhotoMetadata", package: "relay"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ]
)
