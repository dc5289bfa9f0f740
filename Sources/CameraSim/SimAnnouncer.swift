import Foundation
import RelayCore
import SSDPWire
import SocketIO

/// The simulator's SSDP side (`--ssdp PORT`): answers M-SEARCH on UDP with a unicast answer,
/// as a Canon or Sony body does, and serves the UPnP device description its answer names over
/// a minimal HTTP responder (test equipment: one GET at a time, bounded reads, then close).
/// Nothing here touches the PTP/IP port, and every search answered is logged, so tests can show
/// that discovery cost the camera no session.
struct SimAnnouncer {
    let udp: UDPSocket
    let http: TCPListener
    let service: CameraServiceType
    let description: UPnPDeviceDescription
    let host: String
    let log: SimLog

    /// The path of the description, as Canon bodies serve theirs.
    static let descriptionPath = "/upnp/CameraDevDesc.xml"

    init(options: SimOptions, port: UInt16, service: CameraServiceType, log: SimLog) throws {
        udp = try UDPSocket(host: options.host, port: port)
        http = try TCPListener(host: options.host, port: 0)
        self.service = service
        host = options.host
        self.log = log
        let serial = options.profile.body.serialNumber
        description = UPnPDeviceDescription(
            friendlyName: options.profile.model, manufacturer: options.profile.manufacturer,
            modelName: options.profile.model, serialNumber: serial,
            udn: "uuid:00000000-0000-0000-0001-\(serial.utf8.map { String(format: "%02X", $0) }.joined().prefix(12))")
    }

    var location: String { "http://\(host):\(http.port)\(Self.descriptionPath)" }

    /// Serves searches and description requests on two threads until `stop`.
    func start(stop: StopFlag) {
        Thread { answerSearches(stop: stop) }.start()
        Thread { serveDescriptions(stop: stop) }.start()
    }

    private func answerSearches(stop: StopFlag) {
        while !stop.isStopped {
            guard let datagram = try? udp.receive(timeout: 0.2),
                let search = try? SSDPMessage(parsing: datagram.bytes), search.kind == .search,
                let wanted = search.header("st"), ["ssdp:all", "upnp:rootdevice", service.rawValue].contains(wanted)
            else { continue }
            let type = wanted == "ssdp:all" ? service.rawValue : wanted
            let answer = SSDPMessage.answer(
                type: type, location: location, uniqueServiceName: "\(description.udn)::\(type)",
                server: "relay camera-sim UPnP/1.0")
            do {
                try udp.send(answer.encoded(), to: datagram.host, port: datagram.port)
                log.info("ssdp: answered M-SEARCH for \(wanted) from \(datagram.host):\(datagram.port)")
            } catch {
                log.info("ssdp: cannot answer \(datagram.host):\(datagram.port): \(error)")
            }
        }
        udp.close()
    }

    private func serveDescriptions(stop: StopFlag) {
        while !stop.isStopped {
            guard let client = try? http.accept(timeout: 0.2) else { continue }
            defer { client.close() }
            var request: [UInt8] = []
            let deadline = SocketClock.now() + 2
            while request.count < 4096, !request.ends(with: Array("\r\n\r\n".utf8)), SocketClock.now() < deadline {
                guard let bytes = try? client.readSome(maxCount: 4096 - request.count, timeout: deadline - SocketClock.now()),
                    !bytes.isEmpty
                else { break }
                request += bytes
            }
            let firstLine = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
            let found = firstLine.hasPrefix("GET \(Self.descriptionPath) ")
            let body = found ? description.encoded() : Array("not found\n".utf8)
            let head =
                "HTTP/1.1 \(found ? "200 OK" : "404 Not Found")\r\nContent-Type: \(found ? "text/xml" : "text/plain")\r\n"
                + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            try? client.write(Array(head.utf8) + body, timeout: 2)
            log.info("ssdp: \(found ? "served the device description" : "answered 404") to \(client.peer) (\(firstLine))")
        }
        http.close()
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
