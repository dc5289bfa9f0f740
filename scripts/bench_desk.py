"""The `desk` case of scripts/bench.py (issue 48): field relays sending into a desk relay's HTTP
inbox, on loopback.

- shutter to gallery through a desk: single 8 MB shots on a 10 MB/s camera link, the field relay
  sending straight to the gallery, then the same field relay sending to a desk relay
  (`relay run --http`) that sends to the same gallery; p50 of each and the difference (target:
  the desk adds at most 0.1 s on loopback).
- 8 field relays at once: each a hot folder of 8 MB JPEGs, all dropped at once, uploading into
  one desk whose own destination is closed (so its uploads stay out of it); MB/s until the desk
  has every photo committed, against the copy limit (the same bytes over a loopback socket into
  fsynced files, scripts/socket_copy.c), and the desk's peak memory.
"""

import os
import time

from bench import LINK, MB, Camera, Gallery, Relay, make_jpegs, quiet_disk, single_shots, socket_copy, wait_for
from peers import ready_line

TOKEN = "bench-desk-token-0123456789"


def desk(work, url, *extra):
    relay = Relay(work, url, env={"DESK_TOKEN": TOKEN})
    relay.start("--http", "127.0.0.1:0", "--http-user", "field:DESK_TOKEN", "--retry-base", "60", *extra)
    port = ready_line(relay.log, r"http: listening on 127\.0\.0\.1:(\d+)", timeout=120)
    return relay, "http://127.0.0.1:%s" % port


def field(work, url):
    """A field relay whose destination is `url`/upload with the desk's token."""
    return Relay(work, url, config=("--header", "Authorization: Bearer ${DESK_TOKEN}"), env={"DESK_TOKEN": TOKEN})


def latency(work, shots, through_desk):
    gallery = Gallery(os.path.join(work, "gallery-side"))
    camera = Camera(work, 0, 8 * MB, rate=LINK)
    hub = None
    url = gallery.url
    if through_desk:
        hub, url = desk(os.path.join(work, "desk"), gallery.url)
    relay = field(os.path.join(work, "field"), url)
    relay.start("--camera", "ptpip://" + camera.address)
    ready_line(relay.log, r"(connected to)", timeout=120)
    p50, _ = single_shots(gallery, camera, shots, spacing=2, timeout=60)
    for process in (relay, hub):
        if process:
            process.stop()
    camera.stop()
    gallery.stop()
    return p50


def many_fields(work, fields, photos, size):
    hub, url = desk(os.path.join(work, "desk"), "http://127.0.0.1:9")
    runners = []
    drops = []
    for index in range(fields):
        folder = os.path.join(work, "field-%d" % index)
        drop = os.path.join(folder, "drop")
        os.makedirs(drop)
        relay = field(folder, url)
        relay.start("--folder", drop, "--settle", "0.2")
        ready_line(relay.log, r"(relay: folder)", timeout=120)
        runners.append(relay)
        drops.append((make_jpegs(os.path.join(folder, "staging"), photos, size), drop))
    quiet_disk()
    started = time.time()
    for files, drop in drops:
        for path in files:
            os.rename(path, os.path.join(drop, os.path.basename(path)))
    total = fields * photos
    wait_for(lambda: hub.spooled() >= total, 900, 0.02)
    elapsed = time.time() - started
    peak, _ = hub.usage()
    for relay in runners + [hub]:
        relay.stop()
    return total * size / MB / elapsed, peak


def case_desk(work, quick):
    shots = 5 if quick else 15
    photos = 3 if quick else 8
    figures = {}
    direct = latency(os.path.join(work, "direct"), shots, False)
    via = latency(os.path.join(work, "via-desk"), shots, True)
    figures["field relay to gallery p50 s"] = direct
    figures["field relay to desk to gallery p50 s"] = via
    figures["added by the desk s"] = via - direct
    rate, peak = many_fields(os.path.join(work, "eight"), 8, photos, 8 * MB)
    figures["8 field relays into one desk MB/s"] = rate
    figures["copy limit MB/s"] = socket_copy(os.path.join(work, "copy"), 8 * photos, 8 * MB)
    figures["desk peak RSS MB"] = peak
    return figures
