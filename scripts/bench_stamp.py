"""The `stamp` case of scripts/bench.py (issue 42): credit and caption written as photos stream.

- cost per photo: 45-megapixel camera JPEGs (about 20 MB, their own EXIF and XMP) dropped into
  a hot folder and delivered stamped; the CPU time of the stamp itself (the template filled, the
  header read and rewritten), as relay measures it on the worker thread and says at the end of
  the run (target: under 2 ms), and relay's peak memory with and without a template (no copy of
  the photo is made: the stamp sends a new header, then the file from its pixels on).
- shutter to gallery: single 8 MB shots on a 10 MB/s camera link and uplink (the latency case's
  setup), p50 with and without a template (target: within noise).
"""

import os
import re
import subprocess
import time

from bench import CARD, LINK, MB, RELAY, Camera, Gallery, Relay, camera_jpegs, single_shots, wait_for
from peers import ready_line

STAMP = ["creator=Jane Doe", "credit=Jane Doe / Studio", "copyright=© {year} Jane Doe", "caption={event}, {date} — frame {seq}",
         "event=Spring Gala", "city=Lyon", "keywords=gala,2026,press"]


def set_stamp(relay):
    subprocess.run([RELAY, "stamp", "set"] + STAMP, env=relay.env, check=True, capture_output=True)


def cost(work, photos, stamped):
    files = camera_jpegs(CARD, photos)
    gallery = Gallery(os.path.join(work, "gallery-side"))
    relay = Relay(work, gallery.url)
    if stamped:
        set_stamp(relay)
    drop = os.path.join(work, "drop")
    os.makedirs(drop)
    relay.start("--folder", drop, "--settle", "0.2")
    ready_line(relay.log, r"(relay: folder)", timeout=120)
    for path in files:
        os.link(path, os.path.join(drop, os.path.basename(path)))
    wait_for(lambda: gallery.count() >= photos, 900, 0.05)
    peak, _ = relay.usage()
    relay.stop()
    gallery.stop()
    with open(relay.log) as log:
        said = re.search(r"stamped (\d+) photo\(s\) \(([\d.]+) ms of CPU each\)", log.read())
    return float(said.group(2)) if said else None, peak


def latency(work, shots, stamped):
    gallery = Gallery(work, rate=LINK)
    camera = Camera(work, 0, 8 * MB, rate=LINK)
    relay = Relay(work, gallery.url)
    if stamped:
        set_stamp(relay)
    relay.start("--camera", "ptpip://" + camera.address)
    ready_line(relay.log, r"(connected to)", timeout=120)
    p50, _ = single_shots(gallery, camera, shots, spacing=3, timeout=60)
    relay.stop()
    camera.stop()
    gallery.stop()
    return p50


def case_stamp(work, quick):
    photos = 6 if quick else 20
    shots = 5 if quick else 15
    figures = {}
    _, plain_peak = cost(os.path.join(work, "plain"), photos, False)
    stamp_ms, stamped_peak = cost(os.path.join(work, "stamped"), photos, True)
    figures["stamp CPU ms per photo"] = stamp_ms
    figures["peak RSS MB without"] = plain_peak
    figures["peak RSS MB with"] = stamped_peak
    figures["shutter to gallery p50 s without"] = latency(os.path.join(work, "latency-plain"), shots, False)
    figures["shutter to gallery p50 s with"] = latency(os.path.join(work, "latency-stamped"), shots, True)
    return figures
