"""The `review` case of scripts/bench.py (issue 40): photos held for approval.

- approval to gallery: a hot folder of 45-megapixel photos into a gallery that sends approved
  photos only, as 2048 px renditions (made while the photos wait). Each photo is approved on the
  editor's page (POST /review/decide) and timed until the gallery has it, beside the rendition's
  own upload time (relay's history) that the approval must not add more than 0.2 s to. The same
  with `relay review approve` (a process of its own, then the run's look at the journal).
- 2,000 held photos: how long the editor's page takes to open (the page and its first 60 photos'
  list), its first screen of 60 thumbnails cold and again warm, relay's memory, and its CPU while
  nothing happens but the open page asking for news every 0.8 s (issue 49: under 1 % of a core).
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

from bench import CARD, RELAY, ROOT, Gallery, Relay, camera_jpegs, free_port
from peers import ready_line, wait_for

TOKEN = "bench-editor"
WALL = "bench-wall"


def http(url, body=None):
    """Seconds and the answer's bytes of one request with the editor's token."""
    request = urllib.request.Request(url, data=body, headers={"Authorization": "Bearer " + TOKEN})
    started = time.time()
    with urllib.request.urlopen(request, timeout=60) as answer:
        data = answer.read()
    return time.time() - started, data


def held_list(base, limit=60):
    return json.loads(http(base + "/review.json?limit=%d" % limit)[1])


def history(relay):
    result = subprocess.run([RELAY, "history", "--json"], env=relay.env, capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def start_held_run(work, extra_config=(), extra_run=()):
    gallery = Gallery(os.path.join(work, "gallery-side"))
    relay = Relay(work, gallery.url, ["--note", "gallery", "--send", "approved"] + list(extra_config),
                  env={"RELAY_EDITOR_TOKEN": TOKEN, "RELAY_WALL_TOKEN": WALL})
    drop = os.path.join(work, "drop")
    os.makedirs(drop)
    port = free_port()
    relay.start("--folder", drop, "--settle", "0.2", "--status", str(port), *extra_run)
    ready_line(relay.log, r"(relay: folder)", timeout=120)
    return gallery, relay, drop, "http://127.0.0.1:%d" % port


def approvals(work, quick):
    photos = 4 if quick else 10
    files = camera_jpegs(CARD, photos)
    gallery, relay, drop, base = start_held_run(work, ["--max-edge", "2048"])
    for path in files:
        os.link(path, os.path.join(drop, os.path.basename(path)))
    # Held, and each rendition made while it waits.
    wait_for(lambda: held_list(base)["total"] == photos, 600, 0.2)
    spool = os.path.join(relay.env["RELAY_HOME"], "spool")
    wait_for(lambda: sum(name.endswith(".rendition.jpg") for name in os.listdir(spool)) == photos, 600, 0.2)
    ids = [photo["id"] for photo in reversed(held_list(base)["photos"])]
    # One thumbnail of a held 45-megapixel photo, cold (made from its 2048 px rendition).
    thumbnail, _ = http(base + "/review/thumb/%s.jpg" % ids[0])
    page, command, wall = [], [], []
    def on_wall(photo):
        with urllib.request.urlopen(base + "/wall.json?token=" + WALL, timeout=30) as answer:
            return any(picture["id"] == photo for picture in json.load(answer)["pictures"])
    for index, photo in enumerate(ids):
        before = gallery.count()
        started = time.time()
        if index % 2 == 0:
            http(base + "/review/decide", json.dumps({"ids": [photo], "decision": "approve"}).encode())
            series = page
        else:
            subprocess.run([RELAY, "review", "approve", photo], env=relay.env, capture_output=True, check=True)
            series = command
        wait_for(lambda: gallery.count() > before, 60, 0.002)
        series.append(time.time() - started)
        wait_for(lambda: on_wall(photo), 60, 0.01)
        wall.append(time.time() - started)
    uploads = [entry["durationSeconds"] for entry in history(relay) if entry.get("destination") in (None, "gallery")
               and entry["success"]]
    relay.stop()
    gallery.stop()
    upload = statistics.median(uploads)
    return {
        "approval (editor's page) to gallery p50 s": statistics.median(page),
        "approval (relay review) to gallery p50 s": statistics.median(command),
        "rendition upload p50 s": upload,
        "page approval - upload s": statistics.median(page) - upload,
        "thumbnail of a 45 MP photo, cold s": thumbnail,
        "approval to the wall's picture p50 s": statistics.median(wall),
    }


def small_jpegs(folder, count):
    """`count` decodable 640 × 427 JPEGs, each its own photo (the seed differs)."""
    os.makedirs(folder, exist_ok=True)
    first = os.path.join(folder, "seed.jpg")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "camera_jpeg.py"), first, "--width", "640", "--height", "427"],
                   check=True, capture_output=True)
    with open(first, "rb") as f:
        data = f.read()
    paths = []
    for index in range(count):
        path = os.path.join(folder, "HELD_%04d.JPG" % (index + 1))
        with open(path, "wb") as f:
            # A distinct comment after SOI makes each file (and its content key) different.
            f.write(data[:2] + b"\xff\xfe\x00\x08" + index.to_bytes(6, "big") + data[2:])
        paths.append(path)
    return paths


def idle_cpu(relay, base, seconds):
    """The share of one core relay uses while its editor's page is open and nothing happens: the
    page asks `review.json?since=` every 0.8 s, as its script does."""
    version = held_list(base)["version"]
    started, used = time.time(), relay.usage()[1]
    while time.time() - started < seconds:
        http(base + "/review.json?offset=0&limit=60&since=%d" % version)
        time.sleep(0.8)
    return (relay.usage()[1] - used) / (time.time() - started)


def two_thousand(work, quick):
    photos = 300 if quick else 2000
    files = small_jpegs(os.path.join(work, "source"), photos)
    gallery, relay, drop, base = start_held_run(work, extra_run=["--spool-max-photos", str(photos + 100)])
    for path in files:
        os.rename(path, os.path.join(drop, os.path.basename(path)))
    wait_for(lambda: held_list(base, 1)["total"] == photos, 900, 0.5)
    opened = []
    for _ in range(5):
        html, _ = http(base + "/review?token=" + TOKEN)
        listed, data = http(base + "/review.json?offset=0&limit=60")
        opened.append(html + listed)
    first = json.loads(data)["photos"]
    def screen():
        started = time.time()
        children = []
        for k in range(6):
            urls = [base + "/review/thumb/%s.jpg" % photo["id"] for photo in first[k::6]]
            children.append(subprocess.Popen(["curl", "-s", "-H", "Authorization: Bearer " + TOKEN]
                                             + [part for url in urls for part in ("-o", "/dev/null", url)]))
        for child in children:
            child.wait()
        return time.time() - started
    cold = screen()
    warm = screen()
    idle = idle_cpu(relay, base, 10 if quick else 30)
    peak, cpu = relay.usage()
    with open("/proc/%d/status" % relay.proc.pid) as f:
        rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024
    relay.stop()
    gallery.stop()
    return {
        "held photos": photos,
        "page opens (page + first 60 listed) p50 s": statistics.median(opened),
        "first 60 thumbnails cold s": cold,
        "first 60 thumbnails warm s": warm,
        "relay RSS MB": rss,
        "relay peak RSS MB": peak,
        "idle CPU, page open, % of a core": idle * 100,
    }


def case_review(work, quick):
    figures = approvals(os.path.join(work, "approvals"), quick)
    figures.update(two_thousand(os.path.join(work, "held"), quick))
    return figures
