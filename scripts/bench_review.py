"""The `review` case of scripts/bench.py (issue 40): photos held for approval.

- approval to gallery: a hot folder of 45-megapixel photos into a gallery that sends approved
  photos only, as 2048 px renditions (made while the photos wait). Each photo is approved on the
  editor's page (POST /review/decide) and timed until the gallery has it, beside the rendition's
  own upload time (relay's history) that the approval must not add more than 0.2 s to. The same
  with `relay review approve` (a process of its own, then the run's look at the journal).
- 2,000 held photos: how long the editor's page takes to open (the page and its first 60 photos'
  list), its first screen of 60 thumbnails cold and again warm, relay's memory, and its CPU while
  nothing happens but the open page asking for news every 0.8 s (issue 49: under 1 % of a core).

The `editor` case (issue 50, the editor's desk): the page in headless Chromium (scripts/cdp.py)
as a phone (390 × 844 at 3×, touch) on a venue's Wi-Fi (20 Mbit/s, 40 ms round trip), measured in
the browser:
- 2,000 held photos and the newest 20 of 45 megapixels: the first screen of thumbnails (from the
  navigation's start; target under 1 s), cold and again with relay's thumbnails made; the loupe's
  picture after a tap on a 45 MP photo's card (p50 of 10; target under 0.5 s); the 100 % crop
  after a double tap on the loupe's picture (p50 of 5; target under 0.8 s). Screenshots in
  /tmp/relay-status-shots/editor-*.png.
- shutter to gallery of 45 MP photos from the camera simulator (10 MB/s link) into a gallery that
  takes every photo, while another destination holds them for review: the editor idle (the page
  open) against stepping through the loupe (→ every 0.3 s, zooming every 4th); both p50 and the
  ratio (target at most 1.10).
Until the page has its loupe (#loupe), the loupe's figures are skipped with a message.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request

from bench import CARD, LINK, RELAY, ROOT, Camera, Gallery, Relay, camera_jpegs, free_port
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


# --- the editor's desk in a browser (issue 50): the `editor` case -----------------------------

SHOTS = "/tmp/relay-status-shots"

# A stand-in for the page's own script, added to each document before it (None: the page as relay
# serves it). Only for trying this case against a page without its loupe; the case never sets it.
INJECT = None

# The first screen of thumbnails: null until the list is shown and every thumbnail on the screen
# has loaded, then milliseconds since the navigation started: the page's "thumbs-first" mark if it
# sets one, else the latest response end of those thumbnails (resource timing), else now.
FIRST_SCREEN = """(() => {
  const count = document.getElementById('count');
  if (!count || !count.textContent.endsWith(' held')) return null;
  const mark = performance.getEntriesByName('thumbs-first', 'mark')[0];
  if (mark) return {ms: mark.startTime, by: 'mark', thumbnails: null};
  const shown = [...document.querySelectorAll('.photo img')].filter((img) => {
    const box = img.getBoundingClientRect();
    return box.width > 0 && box.bottom > 0 && box.top < innerHeight;
  });
  if (!shown.length || !shown.every((img) => img.complete && img.naturalWidth > 0)) return null;
  const wanted = new Set(shown.map((img) => img.currentSrc || img.src));
  const ends = performance.getEntriesByType('resource').filter((e) => wanted.has(e.name)).map((e) => e.responseEnd);
  return ends.length === wanted.size ? {ms: Math.max(...ends), by: 'resource timing', thumbnails: shown.length}
                                     : {ms: performance.now(), by: 'poll', thumbnails: shown.length};
})()"""

LISTED = "document.getElementById('count')?.textContent.endsWith(' held') && document.querySelectorAll('.photo').length > 0"


def big_jpegs(folder, count, prefix="BIG"):
    """`count` distinct 45-megapixel camera JPEGs (about 20 MB each): the bench's card
    (camera_jpegs) with a comment after SOI that differs, so each is a photo of its own."""
    os.makedirs(folder, exist_ok=True)
    sources = camera_jpegs(CARD, min(count, 10))
    paths = []
    for index in range(count):
        with open(sources[index % len(sources)], "rb") as f:
            data = f.read()
        path = os.path.join(folder, "%s_%04d.JPG" % (prefix, index + 1))
        with open(path, "wb") as f:
            f.write(data[:2] + b"\xff\xfe\x00\x08" + (index + 7919).to_bytes(6, "big") + data[2:])
        paths.append(path)
    return paths


def phone_browser():
    """Headless Chromium as an editor's phone on a venue's Wi-Fi (390 × 844 at 3×, touch; 20 Mbit/s,
    40 ms round trip), at nice 10: it shares this machine's cores with relay, where the editor's
    own phone would not."""
    import cdp
    browser = cdp.Chromium(nice=10)
    browser.emulate_phone(390, 844, 3)
    browser.emulate_wifi(20, 40)
    browser.command("Page.addScriptToEvaluateOnNewDocument", source="performance.setResourceTimingBufferSize(100000);")
    if INJECT:
        browser.command("Page.addScriptToEvaluateOnNewDocument", source=INJECT)
    return browser


def wifi_as_measured(browser, size=2_500_000):
    """What the emulated Wi-Fi gives in this browser: Mbit/s of one fetch of `size` bytes, and the
    milliseconds of a fetch of a few bytes, from a server of this process on loopback
    (Chromium's throttling runs on timers, and gives less than asked on a busy machine)."""
    import http.server
    import threading
    body = os.urandom(size)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            data = body if self.path.startswith("/blob") else b"<!DOCTYPE html><title>wifi</title>"
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream" if data is body else "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        browser.navigate("http://127.0.0.1:%d/" % server.server_port)
        timed = "(async () => { const t = performance.now(); await (await fetch(%s + Math.random())).arrayBuffer(); return performance.now() - t; })()"
        small = statistics.median(browser.evaluate(timed % js("/small?"), await_promise=True) for _ in range(3))
        large = browser.evaluate(timed % js("/blob?"), await_promise=True)
    finally:
        server.shutdown()
        server.server_close()
    return size * 8 / 1e6 / ((large - small) / 1000), small


def first_screen(browser, url):
    """Opens the page afresh (the browser's cache emptied); seconds from the navigation's start
    until its first screen of thumbnails has loaded, how that was read, and how many there were."""
    browser.navigate("about:blank")
    browser.clear_cache()
    browser.navigate(url)
    value, _ = browser.wait_for(FIRST_SCREEN, 120, 0.02)
    return value["ms"] / 1000, value["by"], value["thumbnails"]


def has_loupe(browser):
    return bool(browser.evaluate("!!document.getElementById('loupe')"))


def js(text):
    return json.dumps(text)


def close_loupe(browser):
    for _ in range(3):
        if not browser.evaluate("document.body.dataset.loupe"):
            return
        browser.press("Escape")
        try:
            browser.wait_for("!document.body.dataset.loupe", 2)
        except TimeoutError:
            pass
    raise RuntimeError("the loupe did not close on Escape")


def open_loupe(browser, photo):
    """Taps the photo's card in the grid; (the page's seconds from the tap handled to its picture
    loaded, from its marks, or None; seconds from the tap's dispatch to the picture shown, read
    from here; the picture's fetch, from resource timing)."""
    browser.evaluate("performance.clearMarks('loupe-open'); performance.clearMarks('loupe-shown'); true")
    browser.click_selector(".photo[data-id=%s] img" % js(photo), touch=True)
    _, own = browser.wait_for("document.getElementById('loupe-img')?.dataset.shown === %s" % js(photo), 20, 0.005)
    page = browser.measure("loupe-open", "loupe-shown")
    return page, own, browser.resource_seconds("review/view/%s" % photo)


def zoom(browser, photo, at=(0.3, 0.4)):
    """A double tap on the loupe's picture; (page seconds from its marks or None, seconds from
    here, the crop's fetch)."""
    browser.evaluate("performance.clearMarks('crop-asked'); performance.clearMarks('crop-shown'); true")
    x, y = browser.point("#loupe-img", at)
    browser.double_tap(x, y)
    _, own = browser.wait_for("document.getElementById('loupe-crop')?.dataset.shown === %s" % js(photo), 20, 0.005)
    return browser.measure("crop-asked", "crop-shown"), own, browser.resource_seconds("review/crop/%s" % photo)


def wait_renditions(relay, at_least, timeout=900):
    """Until the spool holds `at_least` renditions and no more are being made (2 s unchanged)."""
    spool = os.path.join(relay.env["RELAY_HOME"], "spool")

    def made():
        return sum(name.endswith(".rendition.jpg") for name in os.listdir(spool))
    wait_for(lambda: made() >= at_least, timeout, 0.5)
    last, since = made(), time.time()
    while time.time() - since < 2:
        time.sleep(0.5)
        if made() != last:
            last, since = made(), time.time()


def skipped(what):
    sys.stderr.write("editor: skipped %s: the page has no #loupe yet (issue 50's loupe is not on this build's page)\n" % what)


def desk_page(work, quick):
    """2,000 held photos (small) and the newest 20 of 45 megapixels, held for a gallery sending
    2048 px renditions (made while they wait): the first screen of thumbnails, cold and warm;
    the loupe's picture after a tap on a 45 MP photo; the 100 % crop after a double tap."""
    small, big = (300, 6) if quick else (2000, 20)
    files = small_jpegs(os.path.join(work, "source"), small)
    large = big_jpegs(os.path.join(work, "source-45mp"), big)
    gallery, relay, drop, base = start_held_run(work, ["--max-edge", "2048"], ["--spool-max-photos", str(small + big + 100)])
    for path in files:
        os.rename(path, os.path.join(drop, os.path.basename(path)))
    wait_for(lambda: held_list(base, 1)["total"] == small, 900, 0.5)
    for path in large:
        os.rename(path, os.path.join(drop, os.path.basename(path)))
    wait_for(lambda: held_list(base, 1)["total"] == small + big, 900, 0.5)
    wait_renditions(relay, big)
    figures = {"held photos": small + big, "of them 45 MP": big}
    url = base + "/review?token=" + TOKEN
    browser = phone_browser()
    try:
        figures["emulated Wi-Fi as measured, Mbit/s (asked 20)"], figures["a small fetch, ms (asked 40 round trip)"] = \
            wifi_as_measured(browser)
        cold, how, count = first_screen(browser, url)
        browser.screenshot(os.path.join(SHOTS, "editor-grid.png"))
        warm = [first_screen(browser, url)[0] for _ in range(3)]
        figures["first screen of thumbnails, cold (relay makes them) s"] = cold
        figures["first screen of thumbnails, relay's made, browser cache empty p50 s"] = statistics.median(warm)
        sys.stderr.write("editor: first screen read by %s (%s thumbnails)\n" % (how, count if count is not None else "?"))
        sys.stderr.write("editor: screenshot %s\n" % os.path.join(SHOTS, "editor-grid.png"))
        if not has_loupe(browser):
            skipped("the loupe's picture and the 100 % crop")
            return figures
        # Every tap fetches: nothing from an earlier look or a fetch ahead.
        browser.command("Network.setCacheDisabled", cacheDisabled=True)
        order = browser.evaluate("[...document.querySelectorAll('.photo[data-id]')].map((c) => c.dataset.id)")
        names = {photo["id"]: photo["name"] for photo in held_list(base, 200)["photos"]}
        largest = [photo for photo in order if names.get(photo, "").startswith("BIG_")]
        # Every other one, from the bottom up: none was the neighbour of one opened before it, in
        # case the page fetches ahead on either side.
        tapped = list(reversed(largest[::2]))
        taps, crops = [], []
        for index, photo in enumerate(tapped):
            taps.append(open_loupe(browser, photo))
            if index == 0:
                browser.screenshot(os.path.join(SHOTS, "editor-loupe.png"))
            if index < (2 if quick else 5):
                crops.append(zoom(browser, photo))
                if index == 0:
                    browser.screenshot(os.path.join(SHOTS, "editor-crop.png"))
            close_loupe(browser)
        browser.command("Network.setCacheDisabled", cacheDisabled=False)
        sys.stderr.write("editor: screenshots %s, %s\n" % (os.path.join(SHOTS, "editor-loupe.png"), os.path.join(SHOTS, "editor-crop.png")))

        def median(samples, which):
            values = [sample[which] for sample in samples if sample[which] is not None]
            return statistics.median(values) if values else float("nan")
        figures["taps (45 MP photos)"] = len(taps)
        figures["loupe picture after a tap p50 s (page marks)"] = median(taps, 0)
        figures["loupe picture after a tap p50 s (tap dispatched to picture shown)"] = median(taps, 1)
        figures["loupe picture fetch p50 s"] = median(taps, 2)
        figures["100 % crop of a 45 MP photo after a double tap p50 s (page marks)"] = median(crops, 0)
        figures["100 % crop, double tap dispatched to crop shown p50 s"] = median(crops, 1)
        figures["100 % crop fetch p50 s"] = median(crops, 2)
    finally:
        browser.close()
        relay.stop()
        gallery.stop()
    return figures


def shots_to_gallery(gallery, camera, shots, spacing=4, timeout=120):
    """Single shots, each once the last is in the gallery and at least `spacing` s apart; the
    seconds from each shutter to its photo in the gallery."""
    seconds = []
    for _ in range(shots):
        before = gallery.count()
        started = time.time()
        camera.shoot()
        if not wait_for(lambda: gallery.count() > before, timeout, 0.01):
            raise RuntimeError("a shot did not reach the gallery within %d s" % timeout)
        seconds.append(time.time() - started)
        time.sleep(max(0, spacing - (time.time() - started)))
    return seconds


def browse(browser, stop, steps, period=0.3, zoom_every=4):
    """An editor stepping through the loupe fast until `stop` is set: the newest held photo opened
    by a tap, then → every `period` s (← back once at the end of the first photos, and so on),
    zooming in and out again on every `zoom_every`-th; every step fetches (the browser's cache
    is off, as if each photo were new)."""
    browser.command("Network.setCacheDisabled", cacheDisabled=True)
    first = browser.evaluate("document.querySelector('.photo[data-id]')?.dataset.id")
    browser.click_selector(".photo[data-id=%s] img" % js(first), touch=True)
    span = max(2, min(20, browser.evaluate("document.querySelectorAll('.photo[data-id]').length")))
    position, direction = 0, 1
    while not stop.wait(period):
        if len(steps) % zoom_every == zoom_every - 1:
            browser.press("z")
            if stop.wait(period):
                break
            browser.press("z")
        if not 0 <= position + direction < span:
            direction = -direction
        browser.press("ArrowRight" if direction > 0 else "ArrowLeft")
        position += direction
        steps.append(browser.evaluate("document.body.dataset.loupe"))
    close_loupe(browser)
    browser.command("Network.setCacheDisabled", cacheDisabled=False)


def desk_delivery(work, quick):
    """Shutter to gallery while an editor browses: a camera (the simulator, 45 MP photos, 10 MB/s
    link) into relay sending every photo to one gallery ("live") and holding each for another
    (2048 px renditions, made while they wait); the page open in the browser, the editor idle
    or stepping through the loupe. Idle and busy alternate in blocks of shots."""
    import threading
    shots = 4 if quick else 12
    live = Gallery(os.path.join(work, "live-side"))
    held = Gallery(os.path.join(work, "held-side"))
    card = os.path.join(work, "card")
    os.makedirs(card)
    for path in camera_jpegs(CARD, 10):
        os.link(path, os.path.join(card, os.path.basename(path)))
    camera = Camera(work, 0, 200_000, rate=LINK, card=card)
    relay = Relay(work, held.url, ["--note", "gallery", "--send", "approved", "--max-edge", "2048"],
                  env={"RELAY_EDITOR_TOKEN": TOKEN})
    relay.add_config(live.url + "/upload", "--note", "live")
    port = free_port()
    relay.start("--camera", "ptpip://" + camera.address, "--include-existing", "--status", str(port),
                "--config", "gallery", "--config", "live")
    base = "http://127.0.0.1:%d" % port
    browser = None
    try:
        ready_line(relay.log, r"(connected to)", timeout=120)
        def taken():
            try:
                return live.count() >= 10 and held_list(base, 1)["total"] >= 10
            except OSError:
                return False
        wait_for(taken, 600, 0.5)
        wait_renditions(relay, 10)
        browser = phone_browser()
        browser.navigate(base + "/review?token=" + TOKEN)
        browser.wait_for(LISTED, 60)
        loupe = has_loupe(browser)
        if not loupe:
            skipped("the busy desk (stepping through the loupe)")
        idle, busy, steps = [], [], []
        cpu = {"idle": [0.0, 0.0, 0.0], "busy": [0.0, 0.0, 0.0]}
        for block in range(2):
            for phase in ("idle", "busy"):
                if phase == "busy" and not loupe:
                    continue
                stop, failed = threading.Event(), []

                def editing():
                    try:
                        browse(browser, stop, steps)
                    except Exception as error:  # said after the shots, not lost in the thread
                        failed.append(error)
                        stop.set()
                editor = threading.Thread(target=editing) if phase == "busy" else None
                relay_cpu, browser_cpu, started = relay.usage()[1], browser.cpu_seconds(), time.time()
                if editor:
                    editor.start()
                    time.sleep(1)
                try:
                    (busy if phase == "busy" else idle).extend(shots_to_gallery(live, camera, shots // 2))
                finally:
                    stop.set()
                    if editor:
                        editor.join(30)
                if failed:
                    raise RuntimeError("the editor's browsing failed: %r" % failed[0])
                spent = cpu[phase]
                spent[0] += relay.usage()[1] - relay_cpu
                spent[1] += browser.cpu_seconds() - browser_cpu
                spent[2] += time.time() - started
        figures = {"shutter to gallery, editor idle p50 s": statistics.median(idle),
                   "relay CPU, editor idle, % of a core": 100 * cpu["idle"][0] / cpu["idle"][2]}
        if loupe:
            figures["shutter to gallery, editor stepping through the loupe p50 s"] = statistics.median(busy)
            figures["busy / idle (target at most 1.10)"] = statistics.median(busy) / statistics.median(idle)
            figures["loupe steps while busy"] = len(steps)
            figures["pictures and crops fetched while busy"] = browser.evaluate(
                "performance.getEntriesByType('resource').filter((e) => /review\\/(view|crop)\\//.test(e.name)).length")
            figures["relay CPU, editor busy, % of a core"] = 100 * cpu["busy"][0] / cpu["busy"][2]
            figures["browser CPU, editor busy, % of a core"] = 100 * cpu["busy"][1] / cpu["busy"][2]
        return figures
    finally:
        if browser:
            browser.close()
        relay.stop()
        camera.stop()
        live.stop()
        held.stop()


def case_editor(work, quick):
    figures = desk_page(os.path.join(work, "page"), quick)
    figures.update(desk_delivery(os.path.join(work, "delivery"), quick))
    return figures
