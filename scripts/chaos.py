#!/usr/bin/env python3
"""relay's fault suite: long runs against the camera simulator and the local gallery, with faults
injected, each checked photo by photo. Prints a table of figures per case (Markdown, for
RELIABILITY.md). Run through scripts/chaos.sh, which builds relay first.

    scripts/chaos.sh [--quick] [CASE ...]     cases: crash gallery camera disk soak rendition powerloss
                                              (default: all)

Every case counts, from the simulator's --export (what the camera made) and the gallery's own
records: photos sent, delivered, lost (made but not at the gallery, or different bytes) and
duplicated (the same photo stored twice: by content, and by Idempotency-Key).
"""

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

# A shell runs a background job (`scripts/chaos.sh … &`) with SIGINT ignored, and relay would
# inherit that: a SIGINT sent before relay has installed its handler was then lost, and relay
# did not stop (the matrix's "did not end within 60 s of SIGINT"). Python's own handler instead
# leaves every child the default action.
signal.signal(signal.SIGINT, signal.default_int_handler)

from peers import ready_line, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELAY = os.environ.get("RELAY_BIN", os.path.join(ROOT, ".build", "release", "relay"))
GALLERY = os.path.join(ROOT, "scripts", "gallery.py")


class Failure(Exception):
    pass


class Gallery:
    def __init__(self, work, port=0, faults=()):
        self.dir = os.path.join(work, "gallery")
        self.out = os.path.join(work, "gallery.out")
        self.faults = list(faults)
        self.start(port)

    def start(self, port):
        open(self.out, "w").close()
        self.proc = subprocess.Popen(
            [sys.executable, GALLERY, "--dir", self.dir, "--port", str(port), "--seed", "7"] + self.faults,
            stdout=open(self.out, "a"), stderr=subprocess.DEVNULL)
        self.url = ready_line(self.out, r"listening on (http://\S+)")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        self.proc.kill()
        self.proc.wait()

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=30) as answer:
            return json.load(answer)

    def photos(self):
        return self.get("/api/photos")

    def requests(self):
        return self.get("/api/requests")


class Camera:
    def __init__(self, work, profile, args=()):
        self.export = os.path.join(work, "export")
        self.out = os.path.join(work, "camera.out")
        self.log = open(os.path.join(work, "camera.log"), "w")
        self.proc = subprocess.Popen(
            [RELAY, "camera-sim", "--profile", profile, "--port", "0", "--initial-photos", "0",
             "--export", self.export] + list(args),
            stdin=subprocess.PIPE, stdout=open(self.out, "w"), stderr=self.log, text=True)
        self.address = ready_line(self.out, r"listening on (\S+)")
        self.url = "ptpip://" + self.address

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def shoot(self, count=1):
        self.send("shoot %d" % count)

    def made(self):
        """What the camera made: {name: sha256} of its JPEGs."""
        made = {}
        if os.path.isdir(self.export):
            for name in os.listdir(self.export):
                if name.upper().endswith(".JPG"):
                    with open(os.path.join(self.export, name), "rb") as f:
                        made[name] = hashlib.sha256(f.read()).hexdigest()
        return made

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Relay:
    def __init__(self, work):
        self.home = os.path.join(work, "home")
        self.env = dict(os.environ, RELAY_HOME=self.home)
        self.log_path = os.path.join(work, "relay.log")
        self.proc = None

    def run(self, *args, check=True):
        result = subprocess.run([RELAY] + list(args), env=self.env, capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise Failure("relay %s: %s" % (" ".join(args), result.stderr))
        return result

    def start(self, *args):
        self.proc = subprocess.Popen([RELAY, "run", "--retry-base", "0.1", "--retry-cap", "2"] + list(args),
                                     env=self.env, stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"))
        return self.proc

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=60)

    def log(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


def account(camera, gallery, renditions=None):
    """Photos made, delivered, lost and duplicated (by content, by key). With `renditions` (a
    photo's SHA-256 → its rendition's), a photo is delivered only when the gallery holds exactly
    one photo of its name, with its rendition's bytes, and duplicates are counted by name."""
    made = camera.made()
    photos = gallery.photos()
    grouped = {}
    for photo in photos:
        grouped.setdefault(photo["sha256" if renditions is None else "name"], []).append(photo)
    if renditions is None:
        delivered = sum(1 for sha in made.values() if sha in grouped)
        known = set(made.values())
    else:
        delivered = sum(1 for name, sha in made.items() if [p["sha256"] for p in grouped.get(name, [])] == [renditions.get(sha)])
        known = set(made)
    keys = [p["idempotencyKey"] for p in photos if p.get("idempotencyKey")]
    return {
        "made": len(made),
        "delivered": delivered,
        "lost": len(made) - delivered,
        "dup_content": sum(len(v) - 1 for v in grouped.values()),
        "dup_key": len(keys) - len(set(keys)),
        "stray": sum(1 for key in grouped if key not in known),
    }


def deliver_all(camera, gallery, expected, timeout):
    """Waits until the camera has made `expected` photos and every one is at the gallery."""
    def done():
        figures = account(camera, gallery)
        return figures["made"] >= expected and figures["delivered"] >= figures["made"]
    return wait_for(done, timeout, 0.5)


def check(figures, expected_made):
    ok = (figures["made"] == expected_made and figures["lost"] == 0 and figures["dup_content"] == 0
          and figures["dup_key"] == 0 and figures["stray"] == 0)
    figures["result"] = "pass" if ok else "FAIL"
    return figures


def config(relay, gallery, *extra):
    relay.run("config", "add", "--url", gallery.url + "/upload", "--note", "chaos", *extra)


def shoot_while_killing(relay, camera, photos, kills, spacing, rng):
    """Shoots `photos`, `spacing` seconds apart, while killing relay (SIGKILL) at `kills` random
    moments within that time and starting it again at once. Returns the kills made."""
    moments = sorted(rng.uniform(0, photos * spacing) for _ in range(kills))
    shot = killed = 0
    started = time.time()
    while shot < photos or killed < kills:
        now = time.time() - started
        if killed < kills and now >= moments[killed]:
            relay.kill()
            killed += 1
            relay.start("--camera", camera.url)
        elif shot < photos and now >= shot * spacing:
            camera.shoot()
            shot += 1
        time.sleep(0.01)
    return killed


# --- cases ----------------------------------------------------------------------------------


def case_crash(work, quick):
    """100 photos shot while relay is killed with SIGKILL at 20 random moments and restarted."""
    photos, kills = (30, 6) if quick else (100, 20)
    rng = random.Random(2026)
    gallery = Gallery(work)
    camera = Camera(work, "generic", ["--photo-size", "300k"])
    relay = Relay(work)
    config(relay, gallery)
    relay.start("--camera", camera.url)
    # The first connection leaves what is already on the card: shoot once relay is there.
    ready_line(relay.log_path, r"(connected to)")
    killed = shoot_while_killing(relay, camera, photos, kills, 0.25, rng)
    delivered = deliver_all(camera, gallery, photos, 180)
    relay.kill(signal.SIGINT)
    figures = check(account(camera, gallery), photos)
    figures["faults"] = "%d SIGKILLs" % killed
    if not delivered:
        figures["result"] = "FAIL"
    camera.stop()
    gallery.stop()
    return figures


def case_gallery(work, quick):
    """A gallery answering 500 to 30 %, dropping 10 %, stalling 5 % beyond the timeout and throttling
    with 429 + Retry-After; then down for 60 s and back."""
    photos, down = (20, 10) if quick else (60, 60)
    gallery = Gallery(work, faults=["--fail-rate", "0.3", "--drop-rate", "0.1", "--stall-rate", "0.05",
                                    "--stall-seconds", "8", "--throttle-rate", "0.1", "--retry-after", "2"])
    camera = Camera(work, "canon-eos", ["--photo-size", "200k"])
    relay = Relay(work)
    config(relay, gallery, "--timeout", "5")
    relay.start("--camera", camera.url)
    ready_line(relay.log_path, r"(connected to)")
    for _ in range(photos):
        camera.shoot()
        time.sleep(0.1)
    first = deliver_all(camera, gallery, photos, 300)
    requests = gallery.requests()
    # Retry-After: the next attempt for a key must come at least 2 s after the 429 was answered.
    gaps = []
    for index, entry in enumerate(requests):
        if entry["status"] == 429 and entry.get("answeredAt"):
            later = [r["time"] for r in requests[index + 1:] if r["idempotencyKey"] == entry["idempotencyKey"]]
            if later:
                gaps.append(later[0] - entry["answeredAt"])
    statuses = {}
    for entry in requests:
        statuses[str(entry["status"])] = statuses.get(str(entry["status"]), 0) + 1
    # Down: the gallery is stopped, photos are shot meanwhile, then it comes back on its port.
    port = gallery.port
    gallery.stop()
    for _ in range(photos // 2):
        camera.shoot()
        time.sleep(0.1)
    time.sleep(down)
    gallery.faults = []
    gallery.start(port)
    second = deliver_all(camera, gallery, photos + photos // 2, 300)
    relay.kill(signal.SIGINT)
    figures = check(account(camera, gallery), photos + photos // 2)
    figures["faults"] = "%d requests: %s; down %d s" % (
        len(requests), ", ".join("%s×%s" % (n, s) for s, n in sorted(statuses.items())), down)
    figures["retry_after"] = ("%d waits after 429, shortest %.2f s (asked: 2 s)" % (len(gaps), min(gaps))) if gaps else "no 429 retried"
    if not (first and second) or (gaps and min(gaps) < 2.0):
        figures["result"] = "FAIL"
    camera.stop()
    gallery.stop()
    return figures


def case_camera(work, quick):
    """A camera link that drops every 3 MB, splits packets at random, answers DeviceBusy in storms,
    and disappears for a minute."""
    photos, away = (12, 10) if quick else (40, 60)
    gallery = Gallery(work)
    camera = Camera(work, "canon-eos", ["--photo-size", "2M", "--drop-every", "3M", "--random-split",
                                        "--busy-rate", "0.2", "--seed", "3"])
    relay = Relay(work)
    config(relay, gallery)
    relay.start("--camera", camera.url, "--chunk-size", "512K")
    ready_line(relay.log_path, r"(connected to)")
    for index in range(photos):
        camera.shoot()
        time.sleep(0.3)
        if index == photos // 2:
            camera.send("sleep %d" % away)
    delivered = deliver_all(camera, gallery, photos, 300 + away)
    relay.kill(signal.SIGINT)
    log = relay.log()
    figures = check(account(camera, gallery), photos)
    figures["faults"] = "%d reconnects, %d resumed downloads, camera away %d s" % (
        log.count("trying again") + log.count("reconnecting"), log.count("resuming "), away)
    if not delivered:
        figures["result"] = "FAIL"
    camera.stop()
    gallery.stop()
    return figures


def case_disk(work, quick):
    """The spool on a 3 MiB tmpfs, a slow gallery: photos wait on the card, then all arrive."""
    photos = 8 if quick else 16
    relay = Relay(work)
    os.makedirs(relay.home, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", relay.home], capture_output=True)
    if mounted.returncode != 0:
        return {"result": "skipped (mounting a tmpfs needs root)"}
    try:
        gallery = Gallery(work, faults=["--delay", "0.5"])
        camera = Camera(work, "nikon", ["--photo-size", "700k"])
        config(relay, gallery)
        relay.start("--camera", camera.url, "--workers", "1")
        ready_line(relay.log_path, r"(connected to)")
        camera.shoot(photos)
        delivered = deliver_all(camera, gallery, photos, 300)
        relay.kill(signal.SIGINT)
        log = relay.log()
        figures = check(account(camera, gallery), photos)
        figures["faults"] = "%d photos of 700 kB through a 3 MiB spool disk; 'stays on the camera' said %d times" % (
            photos, log.count("stays on the camera"))
        if not delivered or "stays on the camera" not in log:
            figures["result"] = "FAIL"
        camera.stop()
        gallery.stop()
        return figures
    finally:
        subprocess.run(["umount", "-l", relay.home])


def case_rendition(work, quick):
    """Renditions made and sent while photos download, with relay killed (SIGKILL) at random
    moments: every shot's rendition reaches the gallery once, and it is exactly what
    `relay rendition` makes of the finished photo (a landscape one, sent as it is made, and a
    portrait one, sent once turned)."""
    photos, kills = (16, 5) if quick else (40, 12)
    rng = random.Random(30)
    card = os.path.join(work, "card")
    os.makedirs(card)
    for name, orientation, seed in (("A.JPG", "1", "51"), ("B.JPG", "6", "52")):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "camera_jpeg.py"), os.path.join(card, name),
                        "--width", "2400", "--height", "1600", "--orientation", orientation, "--seed", seed],
                       check=True, capture_output=True)
    gallery = Gallery(work)
    camera = Camera(work, "generic", ["--photos", card, "--rate-limit", "3M"])
    relay = Relay(work)
    expected = {}
    for name in ("A.JPG", "B.JPG"):
        out = os.path.join(work, "reference-" + name)
        relay.run("rendition", os.path.join(card, name), "--max-edge", "1024", "-o", out)
        with open(os.path.join(card, name), "rb") as f:
            original = hashlib.sha256(f.read()).hexdigest()
        with open(out, "rb") as f:
            expected[original] = hashlib.sha256(f.read()).hexdigest()
    config(relay, gallery, "--max-edge", "1024")
    relay.start("--camera", camera.url)
    ready_line(relay.log_path, r"(connected to)")
    killed = shoot_while_killing(relay, camera, photos, kills, 0.6, rng)

    delivered = wait_for(lambda: account(camera, gallery, expected)["delivered"] >= photos, 180, 0.5)
    relay.kill(signal.SIGINT)
    figures = check(account(camera, gallery, expected), photos)
    figures["faults"] = "%d SIGKILLs" % killed
    if not delivered:
        figures["result"] = "FAIL"
    camera.stop()
    gallery.stop()
    return figures


def proc_sample(pid):
    with open("/proc/%d/status" % pid) as f:
        status = f.read()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
    threads = int(re.search(r"Threads:\s+(\d+)", status).group(1))
    fds = len(os.listdir("/proc/%d/fd" % pid))
    return rss, threads, fds


def case_soak(work, quick):
    """2,000 photos: open files, threads and RSS sampled every second must not grow with the count."""
    photos = 300 if quick else 2000
    gallery = Gallery(work)
    camera = Camera(work, "generic", ["--photo-size", "60k"])
    relay = Relay(work)
    config(relay, gallery)
    proc = relay.start("--camera", camera.url)
    ready_line(relay.log_path, r"(connected to)")
    samples = []
    shot = 0
    while True:
        if shot < photos:
            camera.shoot(10)
            shot += 10
        delivered = len(gallery.photos())
        samples.append((delivered,) + proc_sample(proc.pid))
        if delivered >= photos:
            break
        time.sleep(0.5 if shot < photos else 1.0)
        if len(samples) > 4000:
            break
    relay.kill(signal.SIGINT)
    figures = check(account(camera, gallery), photos)
    quarter = max(1, len(samples) // 4)
    first, last = samples[:quarter], samples[-quarter:]

    def peak(rows, column):
        return max(row[column] for row in rows)

    def typical(rows, column):
        return statistics.median(row[column] for row in rows)

    # Threads and open files come and go with the photo in hand at the moment of a sample (its
    # file being written, its upload reading it): a leak moves the typical count, not one peak.
    figures["faults"] = "%d samples" % len(samples)
    figures["soak"] = ("RSS first quarter ≤ %.1f MB, last quarter ≤ %.1f MB; threads %d → %d; "
                       "open files %d → %d (peaks %d → %d)" % (
                           peak(first, 1) / 1024, peak(last, 1) / 1024, typical(first, 2), typical(last, 2),
                           typical(first, 3), typical(last, 3), peak(first, 3), peak(last, 3)))
    grew = (peak(last, 1) > peak(first, 1) * 1.25 + 4096 or typical(last, 2) > typical(first, 2) + 1
            or typical(last, 3) > typical(first, 3) + 1)
    if grew:
        figures["result"] = "FAIL"
    camera.stop()
    gallery.stop()
    return figures


def case_powerloss(work, quick):
    """RELAY_HOME on scripts/powerloss_fs.py, cut (SIGKILL + unsynced writes and names dropped +
    remount + start) at random moments on every road: scripts/chaos_powerloss.py, whose table
    goes to the notes."""
    import chaos_powerloss
    rows = []
    results = chaos_powerloss.run(list(chaos_powerloss.ROADS), "powerloss", quick, report=rows.append)
    passed = bool(results) and all(figures["result"] == "pass" for figures in results)
    return {
        "made": sum(figures.get("deliveries", 0) for figures in results),
        "delivered": sum(figures.get("delivered_count", 0) for figures in results),
        "lost": sum(figures.get("lost", 0) for figures in results),
        "dup_content": sum(figures.get("different_keys", 0) for figures in results),
        "dup_key": sum(figures.get("stored_twice_by_key", 0) for figures in results),
        "faults": "%d roads cut at random (scripts/chaos.sh powerloss)" % len(results),
        "powerloss": "\n" + "\n".join(rows),
        "result": "pass" if passed else "FAIL",
    }


CASES = {"crash": case_crash, "gallery": case_gallery, "camera": case_camera, "disk": case_disk, "soak": case_soak,
         "rendition": case_rendition, "powerloss": case_powerloss}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer photos and shorter outages (a few minutes in all)")
    parser.add_argument("cases", nargs="*", choices=[[]] + list(CASES), default=[])
    args = parser.parse_args()
    cases = args.cases or list(CASES)
    print("| case | photos made | delivered | lost | duplicates (content / key) | faults | result |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    notes = []
    failed = False
    for name in cases:
        work = tempfile.mkdtemp(prefix="relay-chaos-%s-" % name)
        started = time.time()
        try:
            figures = CASES[name](work, args.quick)
        except (Failure, RuntimeError) as error:
            figures = {"result": "FAIL: %s" % error}
        seconds = time.time() - started
        if figures.get("result") != "pass" and not figures.get("result", "").startswith("skipped"):
            failed = True
            sys.stderr.write("%s: work folder kept at %s\n" % (name, work))
        else:
            shutil.rmtree(work, ignore_errors=True)
        print("| %s | %s | %s | %s | %s / %s | %s | %s (%.0f s) |" % (
            name, figures.get("made", "-"), figures.get("delivered", "-"), figures.get("lost", "-"),
            figures.get("dup_content", "-"), figures.get("dup_key", "-"), figures.get("faults", ""),
            figures.get("result"), seconds), flush=True)
        for key in ("retry_after", "soak", "powerloss"):
            if key in figures:
                notes.append("- %s: %s" % (name, figures[key]))
    if notes:
        print()
        print("\n".join(notes))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
