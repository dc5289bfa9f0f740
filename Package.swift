// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "relay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "relay", targets: ["relay"]),
        // For the libFuzzer targets in Fuzz/.
        .library(name: "PTPWire", targets: ["PTPWire"]),
        .library(name: "SSDPWire", targets: ["SSDPWire"]),
        .library(name: "FTPWire", targets: ["FTPWire"]),
    ],
    targets: [
        // libcurl through typed, non-variadic wrappers (curl_easy_setopt is variadic).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // OpenSSL (libcrypto's SHA-256) for the FTP receiver.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // Early writeback of spooled photos (sync_file_range on Linux), which Swift cannot call.
        .target(name: "CFileFlush"),
        // Pure PTP/IP and PTP codec: no I/O.
        .target(name: "PTPWire"),
        // Pure SSDP (UPnP discovery) messages and UPnP device descriptions: no I/O.
        .target(name: "SSDPWire"),
        // Pure FTP control-channel codec (commands, replies, addresses, virtual paths): no I/O.
        .target(name: "FTPWire"),
        // POSIX TCP and UDP sockets with timeouts on every connect, read and write.
        .target(name: "SocketIO"),
        // SSDP over UDP (searches, answers, announcements) and device descriptions over libcurl.
        .target(name: "SSDP", dependencies: ["SSDPWire", "SocketIO", "CCurl"]),
        // PTP/IP over sockets: the camera client (handshake, transactions, events) and discovery.
        .target(name: "PTPIP", dependencies: ["PTPWire", "SocketIO", "SSDP"]),
        // `relay camera-sim`: a PTP/IP camera over real sockets.
        .target(name: "CameraSim", dependencies: ["PTPWire", "SocketIO", "RelayCore", "SSDPWire"]),
        // Request configs, history, state files: pure models plus atomic JSON persistence.
        .target(name: "RelayCore"),
        // The durable bounded on-disk queue between tether and uploader.
        .target(name: "Spool", dependencies: ["RelayCore", "CFileFlush"]),
        // HTTP delivery through libcurl, request building and retry policy.
        .target(name: "Uploader", dependencies: ["CCurl", "RelayCore"]),
        // Photo sources: the hot folder and PTP/IP cameras (event sources, downloads, discovery).
        .target(name: "Tether", dependencies: ["RelayCore", "Spool", "PTPWire", "PTPIP"]),
        // `relay run --ftp`: cameras upload over FTP straight into the spool.
        .target(name: "FTPReceiver", dependencies: ["FTPWire", "SocketIO", "RelayCore", "Spool", "Tether", "COpenSSL"]),
        // `relay capture`: the timed-capture schedule and ledger (pure) and its controller.
        .target(name: "Capture", dependencies: ["RelayCore", "Spool", "Tether"]),
        // `relay run`: tether → spool → uploader → history.
        .target(name: "Pipeline", dependencies: ["RelayCore", "Spool", "Uploader", "Tether", "FTPReceiver"]),
        // Command-line parsing and the commands themselves.
        .target(name: "RelayCLI", dependencies: ["RelayCore", "Spool", "Uploader", "Tether", "Pipeline", "Capture", "CameraSim", "PTPIP", "SSDP", "FTPReceiver"]),
        .executableTarget(name: "relay", dependencies: ["RelayCLI"]),

        // Helpers shared by tests: peer processes (gallery, relay, gphoto2), temp dirs, ports.
        .target(name: "TestSupport", dependencies: ["RelayCore"], path: "Tests/TestSupport"),
        .testTarget(name: "PTPWireTests", dependencies: ["PTPWire", "RelayCore"]),
        .testTarget(name: "FTPWireTests", dependencies: ["FTPWire"]),
        .testTarget(name: "SSDPTests", dependencies: ["SSDPWire", "SSDP", "RelayCore"]),
        .testTarget(name: "CameraSimTests", dependencies: ["CameraSim", "PTPIP", "PTPWire", "SocketIO", "TestSupport", "relay"]),
        .testTarget(name: "UploaderTests", dependencies: ["Uploader", "RelayCore", "Spool", "TestSupport"]),
        .testTarget(name: "RelayCoreTests", dependencies: ["RelayCore"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "RelayCore", "Spool", "Uploader"]),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "RelayCore"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture"]),
        .testTarget(name: "TetherTests", dependencies: ["Tether", "PTPIP", "PTPWire", "RelayCore"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "relay"]),
    ]
)
