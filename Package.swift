// swift-tools-version:6.0
import PackageDescription

/// Optimized in debug builds too: renditions resample photos pixel by pixel in Swift in many
/// end-to-end tests, and unoptimized they were half of those tests' CPU (the module is small, so
/// optimizing it costs the build nothing measurable).
let optimizedForTests: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "relay",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "relay", targets: ["relay"]),
        // For the libFuzzer targets in Fuzz/.
        .library(name: "PTPWire", targets: ["PTPWire"]),
        .library(name: "SSDPWire", targets: ["SSDPWire"]),
        .library(name: "FTPWire", targets: ["FTPWire"]),
        .library(name: "PhotoMetadata", targets: ["PhotoMetadata"]),
    ],
    targets: [
        // libcurl through typed, non-variadic wrappers (curl_easy_setopt is variadic).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
        ),
        // libgphoto2, for USB cameras and any other port it opens (issue 19).
        .systemLibrary(
            name: "CGPhoto2",
            pkgConfig: "libgphoto2",
            providers: [.apt(["libgphoto2-dev"]), .brew(["libgphoto2"])]
        ),
        // libjpeg-turbo's libjpeg API: renditions decoded as photos arrive and encoded as their
        // rows are made (through CJPEGStream only).
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]
        ),
        // OpenSSL: SHA-256 (RelayCore: S3 checksums, received photos), FTPS and its certificate.
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl"])]
        ),
        // libmicrohttpd, the embedded web server of the status page (issue 20).
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        // libqrencode: the QR code of the status page's address, for a phone (issue 31).
        .systemLibrary(
            name: "CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"]), .brew(["qrencode"])]
        ),
        // Early writeback of spooled photos (sync_file_range on Linux), which Swift cannot call.
        .target(name: "CFileFlush"),
        .target(name: "CBuildInfo"),
        // A libjpeg decoder fed as the file arrives and an encoder writing strip by strip, their
        // setjmp error handling kept in C.
        .target(name: "CJPEGStream", dependencies: ["CJPEG"]),
        // Pure PTP/IP and PTP codec: no I/O.
        .target(name: "PTPWire"),
        // Pure SSDP (UPnP discovery) messages and UPnP device descriptions: no I/O.
        .target(name: "SSDPWire"),
        // Pure FTP control-channel codec (commands, replies, addresses, virtual paths): no I/O.
        .target(name: "FTPWire"),
        // POSIX TCP and UDP sockets with timeouts on every connect, read and write.
        .target(name: "SocketIO", dependencies: ["RelayCore"]),
        // SSDP over UDP (searches, answers, announcements) and device descriptions over libcurl.
        .target(name: "SSDP", dependencies: ["SSDPWire", "SocketIO", "CCurl"]),
        // PTP/IP over sockets: the camera client (handshake, transactions, events) and discovery.
        .target(name: "PTPIP", dependencies: ["PTPWire", "SocketIO", "SSDP", "RelayCore"]),
        // `relay camera-sim`: a PTP/IP camera over real sockets.
        .target(
            name: "CameraSim", dependencies: ["CommandLineOptions", "PTPWire", "SocketIO", "RelayCore", "SSDPWire", "PhotoMetadata"]),
        // libgphoto2 cameras: port strings and errors (pure), one owner thread per camera.
        .target(name: "GPhoto2", dependencies: ["CGPhoto2", "RelayCore"]),
        // Request configs, history, state files: pure models plus atomic JSON persistence.
        .target(name: "RelayCore", dependencies: ["COpenSSL"]),
        // What a run tells the world, as typed events: the bus, the JSON form, the console's
        // wording and the state the progress line, status page and metrics read (pure).
        .target(name: "RunEvents", dependencies: ["RelayCore"]),
        // `relay run --status`: the live status page, /metrics and /healthz, from the run's events.
        .target(name: "StatusPage", dependencies: ["RunEvents", "RelayCore", "Rendition", "PhotoMetadata", "CMicroHTTPD", "CQREncode"]),
        // The durable bounded on-disk queue between tether and uploader.
        .target(name: "Spool", dependencies: ["RelayCore", "CFileFlush"]),
        // What a photo's own header says (pure): its JPEG segments, EXIF directories, and the
        // identity the camera wrote into it; whether a RAW's structure is whole.
        .target(name: "PhotoMetadata", dependencies: ["RelayCore"]),
        // Credit and caption stamping: the template, IPTC IIM and XMP writers, and the header
        // rewriter that puts them in front of the camera's pixels.
        .target(name: "Stamp", dependencies: ["RelayCore", "PhotoMetadata", "COpenSSL"]),
        // Gallery-sized renditions: geometry, orientation, resampling and EXIF edits (pure), made
        // through libjpeg-turbo as the photo arrives.
        .target(
            name: "Rendition", dependencies: ["CJPEGStream", "RelayCore", "PhotoMetadata"],
            swiftSettings: optimizedForTests),
        // HTTP delivery through libcurl, request building and retry policy.
        .target(name: "Uploader", dependencies: ["CCurl", "RelayCore"]),
        // What every photo source shares: the PhotoSource contract, the seen-log, the spooled report.
        .target(name: "Intake", dependencies: ["RelayCore", "RunEvents", "Spool", "FTPWire", "PhotoMetadata", "COpenSSL"]),
        // `relay run --folder`: photos dropped into a folder.
        .target(name: "HotFolder", dependencies: ["Intake", "RelayCore", "RunEvents", "Spool"]),
        // Cameras: PTP/IP and libgphoto2 (event sources, downloads, discovery, pairing).
        .target(
            name: "Tether", dependencies: ["Intake", "RelayCore", "RunEvents", "Spool", "PTPWire", "PTPIP", "GPhoto2", "PhotoMetadata"]),
        // `relay run --ftp`: cameras upload over FTP straight into the spool.
        .target(
            name: "FTPReceiver",
            dependencies: ["FTPWire", "SocketIO", "RelayCore", "RunEvents", "Spool", "Intake", "PhotoMetadata", "COpenSSL"]),
        // `relay run --http`: other relays, phones and scripts send photos over HTTP into the spool.
        .target(name: "HTTPInbox", dependencies: ["CMicroHTTPD", "FTPWire", "SocketIO", "RelayCore", "RunEvents", "Spool", "Intake"]),
        // `relay capture`: the timed-capture schedule and ledger (pure) and its controller.
        .target(name: "Capture", dependencies: ["RelayCore", "RunEvents", "Spool", "Tether", "PTPWire"]),
        // An S3 bucket as a desk's inbox (issue 52): claims by conditional writes, decided as
        // values (pure), and the startup check that the store refuses a second claim.
        .target(name: "S3Inbox", dependencies: ["RelayCore", "Uploader", "Intake", "RunEvents", "Spool", "FTPWire"]),
        // `relay run`: tether → spool → uploader → history.
        .target(
            name: "Pipeline",
            dependencies: ["RelayCore", "RunEvents", "Spool", "Uploader", "Intake", "Rendition", "PhotoMetadata", "Stamp"]),
        // The command-line grammar every relay command and the camera simulator share: typed
        // options declared once for the parser, help and completion, and the exit codes.
        .target(name: "CommandLineOptions", dependencies: ["RelayCore"]),
        // The commands themselves.
        .target(
            name: "RelayCLI",
            dependencies: [
                "CommandLineOptions", "RelayCore", "Intake", "HotFolder", "RunEvents", "Spool", "Uploader", "Rendition", "Tether",
                "Pipeline", "Capture", "Stamp",
                "CameraSim", "PTPIP", "SSDP", "GPhoto2", "FTPReceiver", "HTTPInbox", "S3Inbox", "StatusPage", "CBuildInfo",
            ]),
        .executableTarget(name: "relay", dependencies: ["RelayCLI"]),

        // Helpers shared by tests: peer processes (gallery, relay, gphoto2), temp dirs, ports.
        .target(name: "TestSupport", dependencies: ["RelayCore", "Spool"], path: "Tests/TestSupport"),
        .testTarget(name: "PTPWireTests", dependencies: ["PTPWire", "RelayCore"]),
        .testTarget(name: "FTPWireTests", dependencies: ["FTPWire"]),
        .testTarget(name: "FTPReceiverTests", dependencies: ["FTPReceiver", "RelayCore"]),
        .testTarget(name: "HTTPInboxTests", dependencies: ["HTTPInbox", "RelayCore"]),
        .testTarget(name: "SSDPTests", dependencies: ["SSDPWire", "SSDP", "RelayCore"]),
        .testTarget(
            name: "CameraSimTests",
            dependencies: ["CameraSim", "CommandLineOptions", "PTPIP", "PTPWire", "SocketIO", "TestSupport", "PhotoMetadata", "relay"]),
        .testTarget(name: "UploaderTests", dependencies: ["Uploader", "RelayCore", "Spool", "TestSupport"]),
        .testTarget(name: "RelayCoreTests", dependencies: ["RelayCore"]),
        .testTarget(name: "S3InboxTests", dependencies: ["S3Inbox", "Uploader", "RelayCore", "TestSupport"]),
        .testTarget(name: "SpoolTests", dependencies: ["Spool", "RelayCore", "TestSupport"]),
        .testTarget(name: "RenditionTests", dependencies: ["Rendition", "RelayCore", "TestSupport"]),
        .testTarget(name: "PhotoMetadataTests", dependencies: ["PhotoMetadata", "TestSupport"]),
        .testTarget(name: "StampTests", dependencies: ["Stamp", "PhotoMetadata", "TestSupport"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture"]),
        .testTarget(name: "RunEventsTests", dependencies: ["RunEvents"]),
        .testTarget(name: "IntakeTests", dependencies: ["Intake", "RelayCore"]),
        .testTarget(name: "PipelineTests", dependencies: ["Pipeline", "RunEvents", "Spool", "Uploader", "Stamp", "TestSupport"]),
        .testTarget(name: "TetherTests", dependencies: ["Tether", "PTPIP", "PTPWire", "RelayCore", "TestSupport", "relay"]),
        .testTarget(name: "GPhoto2Tests", dependencies: ["GPhoto2"]),
        .testTarget(name: "StatusPageTests", dependencies: ["StatusPage", "RunEvents", "SocketIO", "TestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "RelayCore", "relay"]),
        .testTarget(name: "RelayCLITests", dependencies: ["RelayCLI", "CommandLineOptions", "RelayCore", "Tether"]),
    ]
)
