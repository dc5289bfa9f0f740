import CommandLineOptions
import Foundation
import RelayCore
import SocketIO

/// `relay camera-sim`: parses flags, builds the card, listens, and serves clients until SIGINT or
/// SIGTERM, shooting on a schedule, on SIGUSR1 and on "shoot" lines from stdin.
public enum CameraSimCommand {
    /// Runs the simulator; returns the process exit code, with relay's meanings (0 stopped,
    /// 2 bad flags, 1 cannot listen or read the photos).
    public static func run(arguments: [String]) -> Int32 {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) {
            print(SimOptions.spec.help)
            return 0
        }
        let options: SimOptions
        do throws(CommandFailure) {
            options = try SimOptions.parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("relay camera-sim: \(error.message)\n\n\(SimOptions.spec.help)\n".utf8))
            return error.code.rawValue
        }
        let log = SimLog()
        signal(SIGPIPE, SIG_IGN)
        let card: CameraCard
        let listener: TCPListener
        do {
            if let export = options.exportDirectory {
                try FileManager.default.createDirectory(atPath: export, withIntermediateDirectories: true)
            }
            card = try CameraCard(options: options)
            listener = try TCPListener(host: options.host, port: options.port)
        } catch {
            log.info("\(error)")
            return 1
        }
        let stop = StopFlag()
        SignalWatch.watch([SIGINT, SIGTERM, SIGUSR1]) { number in
            if number == SIGUSR1 {
                let made = card.shoot(frames: options.burst)
                log.info("shot \(made.map(\.name).joined(separator: ", ")) (SIGUSR1)")
            } else {
                stop.stop()
            }
        }
        let power = SimPower()
        let activation = SimActivation(
            sessionsPerActivation: options.quirks.sessionsPerActivation
                ?? options.profile.sessionsPerActivationByDefault)
        startStdinReader(card: card, power: power, activation: activation, burst: options.burst, log: log)
        if let interval = options.shootEvery {
            startSchedule(every: interval, card: card, burst: options.burst, log: log, stop: stop)
        }
        if let port = options.ssdpPort, let service = options.profile.ssdpServiceType {
            do {
                let announcer = try SimAnnouncer(options: options, port: port, service: service, log: log)
                announcer.start(stop: stop)
                FileHandle.standardOutput.write(Data("camera-sim ssdp on \(options.host):\(announcer.udp.port)\n".utf8))
            } catch {
                log.info("cannot answer SSDP on \(options.host):\(port): \(error)")
                return 1
            }
        }
        // Written straight to the descriptor: tests read this line from a file while we run.
        FileHandle.standardOutput.write(
            Data(
                "camera-sim listening on \(options.host):\(listener.port) (profile \(options.profile.rawValue))\n".utf8))
        var server = SimServer(
            listener: listener, card: card, power: power, activation: activation, options: options,
            log: log, stop: stop)
        server.run()
        server.listener.close()
        log.info("stopped")
        return 0
    }

    private static func startSchedule(every interval: Double, card: CameraCard, burst: Int, log: SimLog, stop: StopFlag) {
        let thread = Thread {
            var next = SocketClock.now() + interval
            while !stop.isStopped {
                let wait = next - SocketClock.now()
                if wait > 0 {
                    usleep(useconds_t(min(wait, 0.2) * 1_000_000))
                    continue
                }
                let made = card.shoot(frames: burst)
                log.info("shot \(made.map(\.name).joined(separator: ", ")) (schedule)")
                next += interval
            }
        }
        thread.start()
    }

    /// "shoot" or "shoot N" on stdin takes one or N shots (each a burst when --burst is set);
    /// "sleep SECONDS" drops the client and stops listening for that long; "activate" lets a
    /// body that served its sessions serve again.
    private static func startStdinReader(
        card: CameraCard, power: SimPower, activation: SimActivation, burst: Int,
        log: SimLog
    ) {
        let thread = Thread {
            while let line = readLine() {
                let words = line.split(separator: " ")
                if words.first == "sleep", let seconds = DurationText.seconds(String(words.dropFirst().first ?? "")), seconds > 0,
                    seconds <= 3600
                {
                    if words.count == 2 {
                        power.sleep(seconds: seconds)
                        continue
                    }
                    if words.count == 4, words[2] == "before", words[3].hasPrefix("0x"), let code = UInt16(words[3].dropFirst(2), radix: 16)
                    {
                        power.sleep(seconds: seconds, before: code)
                        log.info("asleep for \(words[1]) at the next operation 0x\(String(code, radix: 16))")
                        continue
                    }
                }
                if words == ["activate"] {
                    activation.activate()
                    log.info("activated: serving sessions again")
                    continue
                }
                if let selection = Self.selection(words, card: card) {
                    log.info(selection)
                    continue
                }
                guard words.first == "shoot" else {
                    if !words.isEmpty {
                        log.info(
                            "stdin: unknown command '\(line)' (expected: shoot [N], sleep SECONDS [before CODE], activate, protect N, unprotect N, rate N K, transfer N)"
                        )
                    }
                    continue
                }
                let count = words.count > 1 ? min(max(Int(words[1]) ?? 1, 1), 1000) : 1
                for _ in 0..<count {
                    let made = card.shoot(frames: burst)
                    log.info("shot \(made.map(\.name).joined(separator: ", ")) (stdin)")
                }
            }
        }
        thread.start()
    }

    /// "protect N", "unprotect N", "rate N K", "transfer N": the photographer selecting shot N on
    /// the body (transfer: Canon's transfer button; other profiles raise nothing for it);
    /// what it did, for the log (nil when the line is none of these).
    static func selection(_ words: [Substring], card: CameraCard) -> String? {
        guard let verb = words.first, let number = words.dropFirst().first.flatMap({ Int($0) }) else { return nil }
        let changed: [SimObject]
        switch (verb, words.count) {
        case ("protect", 2): changed = card.setProtection(ofShot: number, true)
        case ("unprotect", 2): changed = card.setProtection(ofShot: number, false)
        case ("transfer", 2): changed = card.requestTransfer(ofShot: number)
        case ("rate", 3):
            guard let stars = Int(words[2]), (-1...5).contains(stars) else { return "stdin: rate N K takes K from -1 to 5" }
            changed = card.rate(shot: number, stars: stars)
        default: return nil
        }
        guard !changed.isEmpty else { return "stdin: no shot \(number) on the card" }
        return "\(verb) \(changed.map(\.name).joined(separator: ", "))"
    }
}
