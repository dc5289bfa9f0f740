import Foundation
import SSDPWire
import SocketIO

/// Where SSDP searches are sent: the UPnP multicast group, or one host (a unicast search, which
/// a device answers the same way; tests use it where multicast is unavailable).
public struct SSDPTarget: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public static let multicast = SSDPTarget(host: SSDPMessage.multicastHost, port: SSDPMessage.multicastPort)

    public var isMulticast: Bool { self == .multicast }
    public var description: String { "\(host):\(port)" }

    /// Parses `HOST:PORT` (an IPv4 address and a port).
    public static func parse(_ text: String) -> SSDPTarget? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            return nil
        }
        let host = String(text[..<colon])
        guard host.split(separator: ".").count == 4, host.split(separator: ".").allSatisfy({ UInt8($0) != nil }) else {
            return nil
        }
        return SSDPTarget(host: host, port: port)
    }
}

/// How long and where to listen for cameras announcing themselves.
public struct SSDPSearchOptions: Sendable {
    public var targets: [SSDPTarget] = [.multicast]
    /// How long answers and announcements are collected. Devices answer within `maxWait`
    /// seconds of a search (UPnP's MX), so the window is a little longer.
    public var window = 2.0
    public var maxWait = 1
    /// What is searched for: everything (some bodies answer only `ssdp:all` or only their own
    /// type), then each camera service type.
    public var searchTypes = ["ssdp:all"] + CameraServiceType.allCases.map(\.rawValue)
    /// Limit of one device description download.
    public var descriptionTimeout = 2.0

    public init() {}
}

/// A camera that announced itself (answered a search or sent `NOTIFY ssdp:alive`), with what
/// its description says. No connection to its PTP/IP port was made.
public struct AnnouncedCamera: Sendable, Equatable {
    /// The camera's address (the host of its `LOCATION`, else the datagram's sender).
    public var host: String
    public var service: CameraServiceType
    public var location: String
    /// Nil when the description could not be read; `problem` says why.
    public var description: UPnPDeviceDescription?
    public var problem: String?
}

/// What one SSDP search found, and what kept it from listening everywhere it meant to.
public struct SSDPSearchResult: Sendable {
    public var cameras: [AnnouncedCamera]
    /// Problems worth a line on stderr (no multicast route, port 1900 taken); discovery goes on.
    public var notes: [String]
}

/// Sends SSDP searches, collects camera answers and announcements for a bounded window, and
/// reads each camera's description. Every wait is bounded; nothing here touches port 15740.
public enum SSDPSearch {
    public static func run(_ options: SSDPSearchOptions, shouldStop: @Sendable () -> Bool = { false }) -> SSDPSearchResult {
        var notes: [String] = []
        let searcher: UDPSocket
        do {
            searcher = try UDPSocket()
        } catch {
            return SSDPSearchResult(cameras: [], notes: ["SSDP: cannot open a UDP socket (\(error)); skipped"])
        }
        defer { searcher.close() }
        var sockets = [searcher]
        if options.targets.contains(where: \.isMulticast) {
            do {
                let listener = try UDPSocket(port: SSDPMessage.multicastPort, shared: true)
                try listener.join(group: SSDPMessage.multicastHost)
                sockets.append(listener)
            } catch {
                notes.append("SSDP: not listening for announcements (\(error)); answers to searches still count")
            }
        }
        defer { for socket in sockets.dropFirst() { socket.close() } }

        let started = SocketClock.now()
        let deadline = started + options.window
        // Searches go out twice (UDP may lose one), the second halfway through the window.
        var searchesDue = [started, started + options.window / 2]
        var found: [AnnouncedCamera] = []
        var sendFailures: Set<String> = []
        while !shouldStop(), SocketClock.now() < deadline {
            if let due = searchesDue.first, SocketClock.now() >= due {
                searchesDue.removeFirst()
                for target in options.targets {
                    for type in options.searchTypes {
                        let search = SSDPMessage.search(target: type, maxWait: options.maxWait, host: target.description)
                        do {
                            try searcher.send(search.encoded(), to: target.host, port: target.port)
                        } catch {
                            sendFailures.insert("SSDP: cannot search on \(target) (\(error))")
                        }
                    }
                }
            }
            let slice = min(0.05, max(0, deadline - SocketClock.now()))
            for socket in sockets {
                guard let datagram = try? socket.receive(timeout: slice / Double(sockets.count)) else { continue }
                if let camera = camera(in: datagram.bytes, from: datagram.host), !found.contains(where: { $0.host == camera.host }) {
                    found.append(camera)
                }
            }
        }
        notes += sendFailures.sorted()
        let described = found.map { camera in
            var camera = camera
            guard camera.problem == nil else { return camera }
            do throws(DescriptionFetchError) {
                camera.description = try DeviceDescriptionFetch.fetch(camera.location, timeout: options.descriptionTimeout)
            } catch {
                camera.problem = error.description
            }
            return camera
        }
        return SSDPSearchResult(cameras: described, notes: notes)
    }

    /// The camera a datagram from `sender` announces: an answer or an `ssdp:alive` for a camera
    /// service type with an http `LOCATION`; nil for searches, byebyes and everything that is
    /// not a camera. The camera's address is the sender's; a description elsewhere is not read
    /// (anything on the network may announce, and relay fetches only from the announcer).
    public static func camera(in bytes: [UInt8], from sender: String) -> AnnouncedCamera? {
        guard let message = try? SSDPMessage(parsing: bytes), message.kind != .search, message.isAlive,
            let service = CameraServiceType.of(message), let location = message.location,
            let url = URLComponents(string: location), url.scheme?.lowercased() == "http"
        else { return nil }
        var camera = AnnouncedCamera(host: sender, service: service, location: location)
        if url.host != sender {
            camera.problem = "its description is at another address (\(location)); not read"
        }
        return camera
    }
}
