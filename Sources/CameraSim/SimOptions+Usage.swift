extension SimOptions {
    /// The usage text printed by `--help` and after a bad flag.
    public static let usage = """
        usage: relay camera-sim --profile \(SimProfile.allCases.map(\.rawValue).joined(separator: "|")) [options]

        A PTP/IP camera on a TCP port: serves one client session at a time, then the next.

          --host ADDRESS            address to listen on (default 127.0.0.1)
          --port N                  port (default 15740; 0 = any free port, printed when ready)
          --photos DIR              photos on the card at start (JPEG and RAW files of DIR); later
                                    shots reuse them in turn under new names
          --card DIR                the card, kept across runs: its photos are on the card at start,
                                    every shot is made fresh and written there, and file numbers
                                    (and the Nikon shutter count) go on after its highest, as a
                                    body's do after it is switched off and on
          --handle-base HEX         the first object handle given out after the body is switched on
                                    (default 0x1000): handles count up from it in card order, so a
                                    body restarted with a lower base gives new photos handles that
                                    earlier ones had (PTP promises a handle only for one session)
          --initial-photos N        generated photos on the card at start without --photos or --card
                                    (default 3)
          --photo-size BYTES        approximate size of each generated JPEG (default 200k)
          --photo-dimensions WxH    pixel size of generated JPEGs (default 640x480)
          --raw                     every shot also makes a RAW companion (.CR3, .NEF or .ARW)
          --raw-size BYTES          size of each RAW companion (default 400k)
          --shoot-every DURATION    shoot on a schedule (e.g. 2s, 500ms)
          --burst N                 frames per shot (default 1)
          --capture-to card|memory  canon-*: keep new shots in camera memory, announced with
                                    RequestObjectTransfer and removed after TransferComplete
                                    (default card; memory on canon-r5m2 and, always, sony)
          --export DIR              write a copy of every photo the simulator makes into DIR
          --seed N                  seed for photos and faults (default 1): same seed, same run
          --property-every DURATION canon-eos: report a property change (battery level) this often
                                    (default 20s; 0 never)
          --idle-timeout DURATION   drop a client that sent no operation for this long, as bodies
                                    do (default 30s; 0 never)
          --no-remote-capture       list no capture operation (a body that cannot be fired remotely)
          --exposure-mode M|S|A|P   the mode dial (default M): the shutter speed can be set in M and S;
                                    each shot's JPEG carries the speed in effect as EXIF ExposureTime
          --require-guid HEX        accept only this client GUID (32 hex digits), answering InitFail
                                    reason 1 to any other, as a paired body does
          --verbose                 log every operation on stderr
          --ssdp PORT               answer SSDP searches (M-SEARCH) on UDP HOST:PORT with a unicast answer naming
                                    the device description, served over HTTP on a free port of HOST (0 = any
                                    free UDP port; "camera-sim ssdp on HOST:PORT" is printed before the
                                    listening line); canon-eos announces ICPO-WFTEOSSystemService

        Shooting also happens when a client sends a capture operation (InitiateCapture,
        RemoteRelease, RemoteReleaseOn full press), on SIGUSR1 (one shot), and for each line
        "shoot" or "shoot N" read on stdin. A line "sleep DURATION" makes the camera drop its client
        and stop listening for that long, then wake with the same card (a body that powers down).
        A line "activate" lets a body that served its sessions (--sessions-per-activation) serve again.

        \(SimQuirks.usage)

        \(SimResourceOptions.usage)

        Faults:
          --rate-limit BYTES        send at most this many bytes per second
          --random-split            data phases in Data packets of random sizes, and every write
                                    cut into random small pieces
          --busy-after-connect DURATION  answer DeviceBusy for this long after the client connects
                                    (OpenSession, CloseSession and GetDeviceInfo are always answered)
          --busy-rate FRACTION      answer DeviceBusy to this fraction of operations
          --drop-after-bytes N      close the connection once N bytes were sent (once per run)
          --drop-during-transfer K  close the connection halfway through the K-th object
                                    transfer (once per run)
          --drop-every BYTES        close the connection each time this many more bytes were sent
                                    (e.g. 3M: a link that keeps failing in the middle of files)
          --property-flood N        canon-eos: put N property records in every GetEvent reply
          --lose-events FRACTION    never announce this fraction of new photos (they are on the card,
                                    for a listing to find)
          --capture-answers LETTERS how the camera answers its shutter releases, in turn: . as usual,
                                    B DeviceBusy, N OK but no photo (e.g. ..B.BBB); then as usual
          --hostile MODE            break the protocol on purpose: oversized-length, truncated-packet,
                                    wrong-transaction (answers to GetObjectInfo), malformed-strings
                                    (DeviceInfo), long-name, traversal-name (photo names), overlong-data
                                    (photo data longer than announced)
          --event-timeout DURATION  refuse a client whose event channel is not open within this
                                    time after the command handshake (default 10s)

        DURATION and BYTES are written as in every relay command: 500ms, 2s, 1.5m, 1h, 1d (a bare
        number is seconds); 200000, 200k, 5M (counted in thousands, as relay's log counts) or 256KiB
        (counted in 1024s).

        Prints "camera-sim listening on HOST:PORT (profile NAME)" when ready; stops on SIGINT or
        SIGTERM. Exit codes: 0 stopped, 2 bad flags, 1 cannot listen or read --photos.
        """
}
