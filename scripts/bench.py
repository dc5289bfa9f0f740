#!/usr/bin/env python3
"""relay's benchmarks: shutter to gallery, side by side with what a photographer would use
instead (gphoto2, with a curl hook for uploads), on this machine over loopback. The camera
simulator shapes the camera link (--rate-limit) and the local gallery the uplink (--rate-limit),
so every tool sees the same limits. Run through scripts/bench, which builds relay in release mode.

    scripts/bench [--quick] [--runs N] [CASE ...]   cases: throughput burst latency hotfolder memory
                                                    rendition slowuplink slowburst twodest s3 libgphoto2 ftp review
                                                    stamp desk editor

Prints a Markdown table (the median of the runs per figure) and writes it to BENCHMARKS.md.
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from peers import ready_line, wait_for
import json

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELAY = os.environ.get("RELAY_BIN", os.path.join(ROOT, ".build", "release", "relay"))
# The camera simulator's binary: relay's own unless an A/B run of two relays keeps one camera
# (RELAY_SIM_BIN=the newer build, RELAY_BIN=each build in turn).
SIM = os.environ.get("RELAY_SIM_BIN", RELAY)
GALLERY = os.path.join(ROOT, "scripts", "gallery.py")
SOCKET_COPY = os.environ.get("SOCKET_COPY_BIN", os.path.join(ROOT, ".build", "release", "socket_copy"))
FTP_CAMERA = os.path.join(ROOT, "scripts", "ftp_camera.py")
MB = 1_000_000
LINK = 10 * MB  # camera link and uplink of the shaped cases, bytes per second


class Gallery:
    def __init__(self, work, rate=None):
        os.makedirs(work, exist_ok=True)
        out = os.path.join(work, "gallery.out")
        args = [sys.executable, GALLERY, "--dir", os.path.join(work, "gallery"), "--port", "0"]
        if rate:
            args += ["--rate-limit", str(rate)]
        self.proc = subprocess.Popen(args, stdout=open(out, "w"), stderr=subprocess.DEVNULL)
        self.url = ready_line(out, r"listening on (http://\S+)", timeout=120)

    def count(self):
        with urllib.request.urlopen(self.url + "/api/photos", timeout=30) as answer:
            return len(json.load(answer))

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Camera:
    def __init__(self, work, photos, size, rate=None, profile="canon-eos", card=None):
        os.makedirs(work, exist_ok=True)
        out = os.path.join(work, "camera.out")
        args = [SIM, "camera-sim", "--profile", profile, "--port", "0", "--initial-photos", str(photos),
                "--photo-size", str(size), "--photo-dimensions", "2000x1500", "--property-every", "0",
                "--idle-timeout", "0"]
        if card:
            # Real photos: the card holds them at start, later shots reuse them under new names.
            args += ["--photos", card]
        if rate:
            args += ["--rate-limit", str(rate)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=open(out, "w"),
                                     stderr=open(os.path.join(work, "camera.log"), "w"), text=True)
        self.address = ready_line(out, r"listening on (\S+)", timeout=120)
        self.host, self.port = self.address.rsplit(":", 1)

    def shoot(self, count=1):
        self.proc.stdin.write("shoot %d\n" % count)
        self.proc.stdin.flush()

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class Relay:
    def __init__(self, work, url, config=(), env=None, path="/upload"):
        self.env = dict(os.environ, RELAY_HOME=os.path.join(work, "home"), **(env or {}))
        self.log = os.path.join(work, "relay.log")
        self.add_config(url + path, *config)
        self.proc = None

    def add_config(self, url, *config):
        subprocess.run([RELAY, "config", "add", "--url", url] + list(config), env=self.env, check=True,
                       capture_output=True)

    def start(self, *args):
        self.proc = subprocess.Popen([RELAY, "run"] + list(args), env=self.env,
                                     stdout=subprocess.DEVNULL, stderr=open(self.log, "a"))
        return self.proc

    def spooled(self):
        spool = os.path.join(self.env["RELAY_HOME"], "spool")
        return sum(1 for name in os.listdir(spool) if name.endswith(".json")) if os.path.isdir(spool) else 0

    def usage(self):
        """Peak RSS (MB) and CPU seconds so far."""
        with open("/proc/%d/status" % self.proc.pid) as f:
            peak = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1)) / 1024
        with open("/proc/%d/stat" % self.proc.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return peak, (int(fields[11]) + int(fields[12])) / ticks

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def gphoto2(camera, work, *args, hook=None):
    home = os.path.join(work, "gphoto-home")
    os.makedirs(home, exist_ok=True)
    downloads = os.path.join(work, "gphoto-downloads")
    os.makedirs(downloads, exist_ok=True)
    command = ["gphoto2", "--port", "ptpip:%s:%s:%s" % (camera.host, camera.port, camera.port)] + list(args)
    if hook:
        command += ["--hook-script", hook]
    return subprocess.Popen(command, cwd=downloads, env={"HOME": home, "LANG": "C", "PATH": os.environ["PATH"]},
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "gphoto2.log"), "w"))


def curl_hook(work, url):
    """The hook a photographer writes: upload each downloaded file with curl, then carry on."""
    path = os.path.join(work, "upload-hook.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n[ \"$ACTION\" = download ] || exit 0\n"
                "exec curl -sS -o /dev/null -F \"file=@$ARGUMENT;type=image/jpeg\" %s/upload\n" % url)
    os.chmod(path, 0o755)
    return path


# --- cases: each returns {figure name: value} for one run -----------------------------------


def quiet_disk():
    """Flushes every earlier write before a timed phase: gphoto2 does not fsync its files, nor
    does this script its test photos, and their writeback would otherwise slow whichever tool is
    measured next."""
    os.sync()


def case_throughput(work, quick):
    photos, size = (20, 8 * MB) if quick else (100, 8 * MB)
    figures = {}
    rate, total = spool_rate(work, photos, size, lambda camera: "ptpip://" + camera.address)
    figures["relay MB/s"] = rate
    # gphoto2 --get-all-files from the same card.
    camera = Camera(work, photos, size)
    quiet_disk()
    started = time.time()
    gphoto2(camera, work, "--get-all-files", "--force-overwrite").wait(timeout=1200)
    figures["gphoto2 MB/s"] = total / MB / (time.time() - started)
    camera.stop()
    # The limit: the same bytes through a plain socket into files, each fsynced; and the same
    # with each fsync overlapped with the next file, which a spool could do too.
    figures["limit MB/s"] = socket_copy(work, photos, total // photos)
    figures["copy, fsync overlapped MB/s"] = socket_copy(work, photos, total // photos, overlap=True)
    return figures


def spool_rate(work, photos, size, address):
    """relay takes every photo on the card of a new simulator into the spool (the upload target
    is closed, so uploads stay out of it); MB/s until the last is spooled, and the bytes."""
    camera = Camera(work, photos, size)
    relay = Relay(work, "http://127.0.0.1:9")
    quiet_disk()
    started = time.time()
    relay.start("--camera", address(camera), "--include-existing", "--retry-base", "60")
    wait_for(lambda: relay.spooled() >= photos, 600, 0.01)
    elapsed = time.time() - started
    spool = os.path.join(relay.env["RELAY_HOME"], "spool")
    total = sum(os.path.getsize(os.path.join(spool, n)) for n in os.listdir(spool) if n.endswith(".jpg"))
    relay.stop()
    camera.stop()
    return total / MB / elapsed, total


def case_libgphoto2(work, quick):
    """relay's libgphoto2 backend (`--camera gphoto2:ptpip:…`, the ptp2 driver USB cameras use)
    against relay's own PTP/IP backend, on the same card of the same simulator."""
    photos, size = (20, 8 * MB) if quick else (60, 8 * MB)
    own, _ = spool_rate(os.path.join(work, "ptpip"), photos, size, lambda camera: "ptpip://" + camera.address)
    through, _ = spool_rate(os.path.join(work, "libgphoto2"), photos, size,
                            lambda camera: "gphoto2:ptpip:%s:%s:%s" % (camera.host, camera.port, camera.port))
    return {"own PTP/IP MB/s": own, "libgphoto2 MB/s": through, "libgphoto2 / own": through / own}


def socket_copy(work, photos, size, overlap=False):
    """A plain copy of the same bytes (scripts/socket_copy.c): a sender process writes them to a
    loopback socket, the copier reads them with 1 MiB reads into one file per photo, each fsynced;
    with `overlap`, each file is fsynced by a second thread while the next one is received."""
    target = os.path.join(work, "copy-overlap" if overlap else "copy")
    os.makedirs(target, exist_ok=True)
    command = [SOCKET_COPY] + (["--overlap"] if overlap else []) + [target, str(size), str(photos)]
    quiet_disk()
    return float(subprocess.run(command, check=True, capture_output=True, text=True).stdout)


def shaped_setup(work, size, tool):
    """A gallery and an empty camera, both on 10 MB/s links, and `tool` (relay, or gphoto2 with
    a curl hook) waiting for the camera's new photos."""
    gallery = Gallery(work, rate=LINK)
    camera = Camera(work, 0, size, rate=LINK)
    if tool == "relay":
        runner = Relay(work, gallery.url)
        runner.start("--camera", "ptpip://" + camera.address)
        ready_line(runner.log, r"(connected to)", timeout=120)
    else:
        runner = gphoto2(camera, work, "--wait-event-and-download=600s", "--keep", hook=curl_hook(work, gallery.url))
        time.sleep(2)
    return gallery, camera, runner


def shaped_teardown(gallery, camera, runner):
    if isinstance(runner, Relay):
        runner.stop()
    else:
        runner.kill()
        runner.wait()
    camera.stop()
    gallery.stop()


def shaped_burst(work, photos, size, tool):
    """Shoots `photos` in 3 s on a 10 MB/s camera link with a 10 MB/s uplink; seconds from the
    first shot until the last photo is in the gallery, and relay's peak RSS and CPU."""
    gallery, camera, runner = shaped_setup(work, size, tool)
    usage = (0, 0)
    started = time.time()
    for _ in range(photos):
        camera.shoot()
        time.sleep(3.0 / photos)
    wait_for(lambda: gallery.count() >= photos, 900, 0.05)
    elapsed = time.time() - started
    if tool == "relay":
        usage = runner.usage()
    shaped_teardown(gallery, camera, runner)
    return elapsed, usage


def case_burst(work, quick):
    photos = 10 if quick else 30
    relay, _ = shaped_burst(os.path.join(work, "relay"), photos, 8 * MB, "relay")
    gphoto, _ = shaped_burst(os.path.join(work, "gphoto2"), photos, 8 * MB, "gphoto2")
    return {"relay s": relay, "gphoto2 + curl s": gphoto, "limit s": photos * 8 * MB / LINK}


def single_shots(gallery, camera, shots, spacing, timeout):
    """Shoots `shots` single photos `spacing` seconds apart, each once the last is in the
    gallery; p50 and p95 of shutter to gallery."""
    seconds = []
    for shot in range(shots):
        started = time.time()
        camera.shoot()
        wait_for(lambda: gallery.count() > shot, timeout, 0.01)
        seconds.append(time.time() - started)
        time.sleep(max(0, spacing - (time.time() - started)))
    seconds.sort()
    return statistics.median(seconds), seconds[min(len(seconds) - 1, int(round(0.95 * (len(seconds) - 1))))]


def case_latency(work, quick):
    shots = 5 if quick else 20
    figures = {}
    for tool in ("relay", "gphoto2"):
        folder = os.path.join(work, tool)
        gallery, camera, runner = shaped_setup(folder, 8 * MB, tool)
        p50, p95 = single_shots(gallery, camera, shots, spacing=3, timeout=60)
        shaped_teardown(gallery, camera, runner)
        figures["%s p50 s" % tool] = p50
        figures["%s p95 s" % tool] = p95
    figures["download + upload s"] = 2 * 8 * MB / LINK
    return figures


# SOI, a JFIF APP0, a quantization table, a baseline frame and a scan header: what relay's FTP
# receiver and the gallery read as the start of a whole image, by its structure.
JPEG_HEAD = (b"\xff\xd8" + b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
             + b"\xff\xdb\x00\x43\x00" + b"\x01" * 64
             + b"\xff\xc0\x00\x0b\x08\x00\x08\x00\x08\x01\x01\x11\x00"
             + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00")


def make_jpegs(folder, count, size):
    """JPEG-structured files of `size` bytes (the header above, filler without FF, FF D9), as
    the gallery checks; each different."""
    os.makedirs(folder, exist_ok=True)
    body = os.urandom(size - len(JPEG_HEAD) - 2).replace(b"\xff", b"\xfe")
    paths = []
    for index in range(count):
        path = os.path.join(folder, "HOT_%04d.JPG" % (index + 1))
        with open(path, "wb") as f:
            f.write(JPEG_HEAD + body[:-4] + bytes(index // 254 ** k % 254 for k in (3, 2, 1, 0)) + b"\xff\xd9")
        paths.append(path)
    return paths


def drop_all(work, files, drop, arrived):
    """Renames `files` into the hot folder `drop` at once, finished elsewhere on the same disk as
    FTP servers do; seconds until `arrived()`."""
    staging = os.path.join(work, "staging")
    os.makedirs(staging)
    for path in files:
        os.link(path, os.path.join(staging, os.path.basename(path)))
    quiet_disk()
    started = time.time()
    for path in files:
        os.rename(os.path.join(staging, os.path.basename(path)), os.path.join(drop, os.path.basename(path)))
    wait_for(arrived, 900, 0.02)
    return time.time() - started


def case_hotfolder(work, quick):
    photos = 10 if quick else 40
    source = os.path.join(work, "source")
    files = make_jpegs(source, photos, 8 * MB)
    figures = {}
    # relay: the files appear in the hot folder at once (renamed in, as an FTP server finishes them).
    gallery = Gallery(os.path.join(work, "relay-side"))
    drop = os.path.join(work, "drop")
    os.makedirs(drop)
    relay = Relay(os.path.join(work, "relay-side"), gallery.url)
    relay.start("--folder", drop)
    ready_line(relay.log, r"(relay: folder)", timeout=120)
    time.sleep(0.5)
    figures["relay s"] = drop_all(work, files, drop, lambda: gallery.count() >= photos)
    # One more photo, written in place: from the file being closed to the gallery's answer.
    with open(files[0], "rb") as f:
        data = f.read()
    with open(os.path.join(drop, "ONE_0001.JPG"), "wb") as f:
        f.write(data[:-11] + b"ONE_PHOTO\xff\xd9")
    started = time.time()
    wait_for(lambda: gallery.count() >= photos + 1, 60, 0.005)
    figures["relay one photo s"] = time.time() - started
    relay.stop()
    gallery.stop()
    # curl, 2 in parallel, the same files.
    gallery = Gallery(os.path.join(work, "curl-side"))
    quiet_disk()
    started = time.time()
    subprocess.run("printf '%s\\n' " + " ".join(files) + " | xargs -P 2 -I{} curl -sS -o /dev/null -F 'file=@{};type=image/jpeg' "
                   + gallery.url + "/upload", shell=True, check=True)
    figures["curl ×2 s"] = time.time() - started
    gallery.stop()
    return figures


def case_seenlog(work, quick):
    """A hot folder whose seen-log holds a busy body's season (200,000 photos) against an empty
    one: seconds from relay's start to the upload of a photo waiting in the folder, and relay's peak
    RSS then. The first start after the lines were added reads them all and writes the log's
    index; the figure is the start after it (as every start is once a season's log has its index),
    and the first start's is given too."""
    import glob
    entries = 20000 if quick else 200000
    one = make_jpegs(os.path.join(work, "seen-photos"), 4, 2 * MB)
    figures = {}
    for count in (0, entries):
        label = "empty log" if count == 0 else "%d entries" % count
        folder = os.path.join(work, "seen-%d" % count)
        drop = os.path.join(folder, "drop")
        os.makedirs(drop)
        gallery = Gallery(folder)
        relay = Relay(folder, gallery.url)
        for run, photo in enumerate(one[:3]):
            shutil.copy(photo, os.path.join(drop, "SEEN_%04d.JPG" % run))
            started = time.time()
            relay.start("--folder", drop)
            wait_for(lambda: gallery.count() >= run + 1, 120, 0.005)
            seconds, peak = time.time() - started, relay.usage()[0]
            relay.stop()
            if run == 0 and count:
                # The season: lines as relay writes them, for photos long delivered.
                seen = glob.glob(os.path.join(relay.env["RELAY_HOME"], "seen", "*.jsonl"))[0]
                with open(seen, "a") as log:
                    for index in range(count):
                        log.write('{"key":"season|%d|2000000|1","file":"OLD_%06d.JPG","takenAt":0}\n' % (index, index))
            if run == 1 and count:
                figures["%s: first start after them, s" % label] = seconds
        figures["%s: start to first upload s" % label] = seconds
        figures["%s: peak RSS MB" % label] = peak
        gallery.stop()
    return figures


def case_memory(work, quick):
    photos = 4 if quick else 12
    elapsed, (peak, cpu) = shaped_burst(work, photos, 25 * MB, "relay")
    return {"photos of 25 MB": photos, "seconds": elapsed, "relay peak RSS MB": peak, "relay CPU s": cpu}


def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class VsftpdServer:
    """vsftpd taking anonymous uploads into `upload/` (the setup a photographer has today, with
    relay watching that folder)."""

    def __init__(self, work):
        import pwd
        root = os.path.join(work, "vsftpd-root")
        self.upload = os.path.join(root, "upload")
        os.makedirs(self.upload)
        os.makedirs(os.path.join(work, "vsftpd-empty"))
        ftp_user = pwd.getpwnam("ftp")
        os.chown(self.upload, ftp_user.pw_uid, ftp_user.pw_gid)
        os.chmod(root, 0o555)  # vsftpd refuses a writable chroot
        self.port = free_port()
        config = os.path.join(work, "vsftpd.conf")
        with open(config, "w") as f:
            f.write("listen=YES\nlisten_address=127.0.0.1\nlisten_port=%d\nbackground=NO\nanonymous_enable=YES\n"
                    "local_enable=NO\nwrite_enable=YES\nanon_upload_enable=YES\nanon_root=%s\nno_anon_password=YES\n"
                    "anon_umask=022\nseccomp_sandbox=NO\nxferlog_enable=NO\nsecure_chroot_dir=%s\n"
                    % (self.port, root, os.path.join(work, "vsftpd-empty")))
        self.proc = subprocess.Popen(["/usr/sbin/vsftpd", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: subprocess.run(["curl", "-s", "-o", "/dev/null", "ftp://127.0.0.1:%d/" % self.port]).returncode == 0, 30, 0.1)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def ftp_camera(port, user, files, folder="/", password="bench-secret", bind=None):
    """scripts/ftp_camera.py uploading `files` at the shaped camera link rate (from `bind`, a
    loopback address of its own, for one of several cameras)."""
    env = dict(os.environ, BENCH_FTP_PASSWORD=password)
    return subprocess.run([sys.executable, FTP_CAMERA, "--port", str(port), "--user", user, "--password-env",
                           "BENCH_FTP_PASSWORD", "--rate", str(LINK), "--folder", folder]
                          + (["--bind", bind] if bind else []) + files,
                          env=env, check=True, capture_output=True, text=True)


def case_ftp(work, quick):
    """A camera uploading over FTP at 10 MB/s to relay's receiver, against vsftpd writing into a
    folder that `relay run --folder` watches; the gallery's uplink is 10 MB/s in both. Then relay's
    peak RSS with 8 cameras uploading a 25 MB photo each at once."""
    photos = 10 if quick else 30
    shots = 3 if quick else 8
    files = make_jpegs(os.path.join(work, "card"), photos + shots, 8 * MB)
    figures = {}
    for setup in ("relay --ftp", "vsftpd + relay --folder"):
        folder = os.path.join(work, setup.split()[0])
        gallery = Gallery(folder, rate=LINK)
        relay = Relay(folder, gallery.url)
        vsftpd = None
        if setup == "relay --ftp":
            relay.env["RELAY_FTP_PASSWORD"] = "bench-secret"
            relay.start("--ftp", "127.0.0.1:0", "--ftp-user", "camera")
            port, user, target = int(ready_line(relay.log, r"ftp: listening on 127\.0\.0\.1:(\d+)", timeout=120)), "camera", "/"
        else:
            vsftpd = VsftpdServer(folder)
            relay.start("--folder", vsftpd.upload)
            ready_line(relay.log, r"(relay: folder)", timeout=120)
            port, user, target = vsftpd.port, "anonymous", "/upload"
        quiet_disk()
        started = time.time()
        ftp_camera(port, user, files[:photos], target)
        # The camera client's own time: its floor on this link, whatever the server.
        figures["%s burst, camera's last 226 s" % setup] = time.time() - started
        wait_for(lambda: gallery.count() >= photos, 600, 0.02)
        figures["%s burst s" % setup] = time.time() - started
        seconds = []
        for shot in range(shots):
            started = time.time()
            ftp_camera(port, user, [files[photos + shot]], target)
            wait_for(lambda: gallery.count() > photos + shot, 60, 0.01)
            seconds.append(time.time() - started)
        figures["%s one shot p50 s" % setup] = statistics.median(seconds)
        if setup == "relay --ftp":
            import threading
            big = make_jpegs(os.path.join(work, "card25"), 8, 25 * MB)
            # Eight bodies, each from an address of its own (relay takes 4 sessions per address).
            uploads = [threading.Thread(target=ftp_camera, args=(port, user, [path], "/big%d" % index),
                                        kwargs={"bind": "127.0.0.%d" % (index + 2)})
                       for index, path in enumerate(big)]
            for upload in uploads:
                upload.start()
            for upload in uploads:
                upload.join()
            wait_for(lambda: gallery.count() >= photos + shots + len(big), 600, 0.05)
            figures["relay --ftp peak RSS MB (8 parallel 25 MB uploads)"] = relay.usage()[0]
        relay.stop()
        if vsftpd:
            vsftpd.stop()
        gallery.stop()
    figures["burst limit s"] = photos * 8 * MB / LINK
    figures["one shot floor s (camera link, then uplink)"] = 2 * 8 * MB / LINK
    return figures


# --- renditions: a 45-megapixel camera JPEG to 2048 px ---------------------------------------

UPLINK_SLOW = 2 * MB  # a venue uplink
EDGE = 2048


def camera_jpegs(folder, count):
    """45-megapixel (8192 × 5464) camera-like JPEGs of about 20 MB (scripts/camera_jpeg.py), made
    once per bench run and kept in the system's temporary folder."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for index in range(count):
        path = os.path.join(folder, "R5_%04d.JPG" % (index + 1))
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "camera_jpeg.py"), path, "--seed", str(index + 1)],
                           check=True, capture_output=True)
        paths.append(path)
    return paths


CARD = os.path.join(tempfile.gettempdir(), "relay-bench-45mp")


def timed(command):
    """Wall-clock seconds and peak RSS (MB) of one command."""
    started = time.time()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.time() - started
    out = child.stdout.read()
    if status != 0:
        raise RuntimeError("%s failed: %s %s" % (command[0], out, child.stderr.read()))
    return elapsed, usage.ru_maxrss / 1024, out


def ssim(reference, candidate):
    """SSIM of two same-sized images (scikit-image's structural_similarity, on all three channels)."""
    import numpy
    from PIL import Image
    from skimage.metrics import structural_similarity
    a = numpy.asarray(Image.open(reference).convert("RGB"))
    b = numpy.asarray(Image.open(candidate).convert("RGB"))
    if a.shape != b.shape:
        return float("nan")
    return float(structural_similarity(a, b, channel_axis=2, data_range=255))


def side_by_side(paths, out):
    """A 600-pixel crop at 100 % from the middle of each result, side by side, to look at."""
    from PIL import Image
    crops = []
    for path in paths:
        image = Image.open(path).convert("RGB")
        w, h = image.size
        crops.append(image.crop((w // 2 - 300, h // 2 - 300, w // 2 + 300, h // 2 + 300)))
    sheet = Image.new("RGB", (600 * len(crops) + 10 * (len(crops) - 1), 600), "white")
    for index, crop in enumerate(crops):
        sheet.paste(crop, (index * 610, 0))
    sheet.save(out)


def case_rendition(work, quick):
    source = camera_jpegs(CARD, 1)[0]
    runs = 3 if quick else 7
    results = {}
    outputs = {"relay": os.path.join(work, "relay.jpg"), "vipsthumbnail": os.path.join(work, "vips.jpg"),
               "ImageMagick": os.path.join(work, "magick.jpg")}
    commands = {
        "relay": [RELAY, "rendition", source, "--max-edge", str(EDGE), "--quality", "85", "-o", outputs["relay"]],
        "vipsthumbnail": ["vipsthumbnail", source, "-s", str(EDGE), "-o", outputs["vipsthumbnail"] + "[Q=85]"],
        "ImageMagick": ["convert", source, "-resize", "%dx%d" % (EDGE, EDGE), "-quality", "85", outputs["ImageMagick"]],
    }
    inside = []
    for tool, command in commands.items():
        samples = []
        for _ in range(1 if tool == "ImageMagick" and quick else runs):
            elapsed, peak, out = timed(command)
            samples.append((elapsed, peak))
            found = re.search(r"in (\d+) ms", out) if tool == "relay" else None
            if found:
                inside.append(int(found.group(1)) / 1000)
        results["%s s" % tool] = statistics.median(s[0] for s in samples)
        results["%s peak RSS MB" % tool] = max(s[1] for s in samples)
    results["relay in-process s"] = statistics.median(inside)
    results["relay / vipsthumbnail"] = results["relay s"] / results["vipsthumbnail s"]
    results["ImageMagick / relay"] = results["ImageMagick s"] / results["relay s"]
    # The quality reference: ImageMagick's Lanczos resize of the same photo, kept lossless.
    reference = os.path.join(work, "reference.png")
    subprocess.run(["convert", source, "-filter", "Lanczos", "-resize", "%dx%d" % (EDGE, EDGE), reference], check=True)
    for tool in ("relay", "vipsthumbnail"):
        results["%s SSIM" % tool] = ssim(reference, outputs[tool])
    # What quality 85 itself costs: the reference encoded at 85 is the most any 85 can score. And
    # the resampling alone: relay's rendition at quality 100.
    ceiling = os.path.join(work, "reference-85.jpg")
    subprocess.run(["convert", reference, "-quality", "85", ceiling], check=True)
    results["reference at quality 85 SSIM"] = ssim(reference, ceiling)
    best = os.path.join(work, "relay-100.jpg")
    timed([RELAY, "rendition", source, "--max-edge", str(EDGE), "--quality", "100", "-o", best])
    results["relay at quality 100 SSIM"] = ssim(reference, best)
    sheet = os.path.join(tempfile.gettempdir(), "relay-rendition-side-by-side.png")
    side_by_side([outputs["relay"], outputs["vipsthumbnail"], outputs["ImageMagick"]], sheet)
    sys.stderr.write("side by side (relay | vipsthumbnail | ImageMagick): %s\n" % sheet)
    return results


def vips_curl_hook(work, url):
    """The hook a photographer writes for a slow uplink: resize with vipsthumbnail, upload with curl."""
    path = os.path.join(work, "rendition-hook.sh")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n[ \"$ACTION\" = download ] || exit 0\n"
                "out=\"${ARGUMENT%%.*}-2048.jpg\"\n"
                "vipsthumbnail \"$ARGUMENT\" -s %d -o \"$out[Q=85]\" || exit 1\n"
                "exec curl -sS -o /dev/null -F \"file=@$out;type=image/jpeg\" %s/upload\n" % (EDGE, url))
    os.chmod(path, 0o755)
    return path


def slow_setup(work, tool):
    """A gallery behind a 2 MB/s uplink, a camera with 45-megapixel photos on a 10 MB/s link, and
    `tool` (relay sending 2048-px renditions, or gphoto2 with a vipsthumbnail + curl hook)."""
    gallery = Gallery(work, rate=UPLINK_SLOW)
    card = os.path.join(work, "card")
    os.makedirs(card)
    for path in camera_jpegs(CARD, 3):
        os.link(path, os.path.join(card, os.path.basename(path)))
    camera = Camera(work, 0, 200_000, rate=LINK, card=card)
    if tool == "relay":
        runner = Relay(work, gallery.url, ["--max-edge", str(EDGE), "--quality", "85"])
        runner.start("--camera", "ptpip://" + camera.address)
        ready_line(runner.log, r"(connected to)", timeout=120)
    else:
        runner = gphoto2(camera, work, "--wait-event-and-download=900s", "--keep",
                         hook=vips_curl_hook(work, gallery.url))
        time.sleep(2)
    return gallery, camera, runner


def gallery_bytes(gallery):
    with urllib.request.urlopen(gallery.url + "/api/photos", timeout=30) as answer:
        return [photo["bytes"] for photo in json.load(answer)]


def case_slowuplink(work, quick):
    shots = 5 if quick else 20
    size = statistics.mean(os.path.getsize(p) for p in camera_jpegs(CARD, 3))
    figures = {}
    for tool in ("relay", "gphoto2"):
        folder = os.path.join(work, tool)
        gallery, camera, runner = slow_setup(folder, tool)
        p50, p95 = single_shots(gallery, camera, shots, spacing=4, timeout=120)
        sent = statistics.mean(gallery_bytes(gallery))
        shaped_teardown(gallery, camera, runner)
        figures["%s p50 s" % tool] = p50
        figures["%s p95 s" % tool] = p95
        if tool == "relay":
            figures["rendition KB"] = sent / 1000
    figures["download s"] = size / LINK
    figures["floor s (download + rendition upload)"] = size / LINK + figures["rendition KB"] * 1000 / UPLINK_SLOW
    figures["relay / gphoto2 hook"] = figures["relay p50 s"] / figures["gphoto2 p50 s"]
    return figures


def case_slowburst(work, quick):
    photos = 10 if quick else 30
    gallery, camera, runner = slow_setup(work, "relay")
    size = statistics.mean(os.path.getsize(p) for p in camera_jpegs(CARD, 3))
    started = time.time()
    for _ in range(photos):
        camera.shoot()
        time.sleep(3.0 / photos)
    wait_for(lambda: gallery.count() >= photos, 1800, 0.05)
    elapsed = time.time() - started
    peak, cpu = runner.usage()
    shaped_teardown(gallery, camera, runner)
    limit = photos * size / LINK
    return {"photos": photos, "photo MB": size / MB, "relay s": elapsed, "camera link limit s": limit,
            "relay / limit": elapsed / limit, "relay peak RSS MB": peak, "relay CPU s": cpu}


# --- destinations: S3 (SeaweedFS) beside the gallery -----------------------------------------

def free_port():
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SeaweedFS:
    """A SeaweedFS server with its S3 gateway on loopback, authentication on (as the tests run it)."""
    KEY, SECRET = "RELAYBENCHKEY", "relay-bench-secret"

    def __init__(self, work):
        data = os.path.join(work, "seaweedfs")
        os.makedirs(data)
        config = os.path.join(work, "s3.json")
        with open(config, "w") as f:
            json.dump({"identities": [{"name": "relay", "credentials": [{"accessKey": self.KEY, "secretKey": self.SECRET}],
                                       "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
        ports = [free_port() for _ in range(10)]
        self.port = ports[6]
        self.endpoint = "http://127.0.0.1:%d" % self.port
        self.proc = subprocess.Popen(
            ["weed", "server", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
             "-master.port=%d" % ports[0], "-master.port.grpc=%d" % ports[1], "-volume.port=%d" % ports[2],
             "-volume.port.grpc=%d" % ports[3], "-volume.max=50", "-master.volumeSizeLimitMB=256", "-filer",
             "-filer.port=%d" % ports[4], "-filer.port.grpc=%d" % ports[5], "-s3", "-s3.port=%d" % ports[6],
             "-s3.port.grpc=%d" % ports[7], "-s3.port.iceberg=%d" % ports[8], "-s3.port.lance=%d" % ports[9],
             "-s3.config=" + config], cwd=work, stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "weed.log"), "w"))

        def answers():
            try:
                urllib.request.urlopen(self.endpoint + "/", timeout=2)
            except urllib.error.HTTPError as error:
                return error.code == 403
            except OSError:
                return False
            return False
        wait_for(answers, 120, 0.2)
        import boto3
        import botocore.config
        self.client = boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=self.KEY,
                                   aws_secret_access_key=self.SECRET, region_name="us-east-1",
                                   config=botocore.config.Config(s3={"addressing_style": "path"}))

    def env(self):
        return {"AWS_ACCESS_KEY_ID": self.KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET}

    def bucket(self, name):
        self.client.create_bucket(Bucket=name)
        return name

    def count(self, bucket):
        return self.client.list_objects_v2(Bucket=bucket).get("KeyCount", 0)

    def stop(self):
        self.proc.kill()
        self.proc.wait()


class SharedUplink:
    """One venue uplink in front of several servers: a TCP proxy per server on loopback, all
    sending upstream (client to server) from one budget of `rate` bytes per second."""

    def __init__(self, rate, targets):
        import asyncio
        import threading
        self.rate = rate
        self.ports = [free_port() for _ in targets]
        self.loop = asyncio.new_event_loop()
        self.next_free = 0.0
        ready = threading.Event()

        async def pipe(reader, writer, shaped):
            try:
                while True:
                    data = await reader.read(64 * 1024)
                    if not data:
                        break
                    if shaped:
                        # Each chunk takes its turn on the one link: it leaves once the link has
                        # carried every earlier chunk at `rate`.
                        now = self.loop.time()
                        start = max(now, self.next_free)
                        self.next_free = start + len(data) / self.rate
                        await asyncio.sleep(self.next_free - now)
                    writer.write(data)
                    await writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                writer.close()

        def serve(host, port):
            async def handle(client_reader, client_writer):
                try:
                    server_reader, server_writer = await asyncio.open_connection(host, port)
                except OSError:
                    client_writer.close()
                    return
                await asyncio.gather(pipe(client_reader, server_writer, True), pipe(server_reader, client_writer, False))
            return handle

        async def start():
            for (host, port), listen in zip(targets, self.ports):
                await asyncio.start_server(serve(host, port), "127.0.0.1", listen)
            ready.set()

        def run():
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(start())
            self.loop.run_forever()
        threading.Thread(target=run, daemon=True).start()
        ready.wait(30)

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)


def case_twodest(work, quick):
    """The gallery's shutter-to-gallery with an S3 backup of every original on the same uplink."""
    shots = 5 if quick else 20
    figures = {}
    for variant in ("gallery alone", "with S3 backup, priority low", "with S3 backup, priority normal"):
        folder = os.path.join(work, variant.replace(" ", "-").replace(",", ""))
        os.makedirs(folder)
        gallery = Gallery(folder)
        store = SeaweedFS(folder)
        bucket = store.bucket("backup")
        gallery_host, gallery_port = gallery.url.rsplit("//", 1)[1].split(":")
        uplink = SharedUplink(LINK, [(gallery_host, int(gallery_port)), ("127.0.0.1", store.port)])
        camera = Camera(folder, 0, 8 * MB, rate=LINK)
        runner = Relay(folder, "http://127.0.0.1:%d" % uplink.ports[0], ["--note", "gallery"], env=store.env())
        configs = ["--config", "gallery"]
        if variant != "gallery alone":
            priority = "low" if "low" in variant else "normal"
            runner.add_config("s3://%s/{name}" % bucket, "--note", "backup", "--priority", priority,
                              "--endpoint", "http://127.0.0.1:%d" % uplink.ports[1])
            configs += ["--config", "backup"]
        runner.start("--camera", "ptpip://" + camera.address, *configs)
        ready_line(runner.log, r"(connected to)", timeout=120)
        p50, p95 = single_shots(gallery, camera, shots, spacing=2, timeout=60)
        if variant != "gallery alone":
            wait_for(lambda: store.count(bucket) >= shots, 120, 0.1)
        figures["%s p50 s" % variant] = p50
        figures["%s p95 s" % variant] = p95
        runner.stop()
        uplink.stop()
        camera.stop()
        store.stop()
        gallery.stop()
    figures["low / alone"] = figures["with S3 backup, priority low p50 s"] / figures["gallery alone p50 s"]
    return figures


def case_s3(work, quick):
    """Photos of 8 MB into one SeaweedFS bucket: relay (a hot folder to an s3:// config, 2 workers)
    against curl --aws-sigv4, 2 in parallel, the way scripts often stand in for `aws s3 cp`."""
    photos = 20 if quick else 100
    files = make_jpegs(os.path.join(work, "source"), photos, 8 * MB)
    store = SeaweedFS(work)
    figures = {}
    bucket = store.bucket("relay")
    drop = os.path.join(work, "drop")
    os.makedirs(drop)
    runner = Relay(work, "http://127.0.0.1:9", env=store.env())
    runner.add_config("s3://%s/{name}" % bucket, "--note", "s3", "--endpoint", store.endpoint)
    runner.start("--folder", drop, "--config", "s3")
    ready_line(runner.log, r"(relay: folder)", timeout=120)
    figures["relay s"] = drop_all(work, files, drop, lambda: store.count(bucket) >= photos)
    runner.stop()
    other = store.bucket("curl")
    quiet_disk()
    started = time.time()
    subprocess.run("printf '%s\\n' " + " ".join(files) + " | xargs -P 2 -I{} curl -sS --fail -o /dev/null "
                   "--aws-sigv4 aws:amz:us-east-1:s3 --user " + store.KEY + ":" + store.SECRET + " -T {} "
                   + store.endpoint + "/" + other + "/", shell=True, check=True)
    figures["curl --aws-sigv4 x2 s"] = time.time() - started
    stored = store.count(other)
    store.stop()
    if stored != photos:
        raise RuntimeError("curl stored %d of %d" % (stored, photos))
    total = photos * 8 * MB / MB
    figures["relay MB/s"] = total / figures["relay s"]
    figures["curl MB/s"] = total / figures["curl --aws-sigv4 x2 s"]
    figures["relay / curl time"] = figures["relay s"] / figures["curl --aws-sigv4 x2 s"]
    return figures


CASES = {"throughput": case_throughput, "burst": case_burst, "latency": case_latency,
         "hotfolder": case_hotfolder, "memory": case_memory, "rendition": case_rendition,
         "slowuplink": case_slowuplink, "slowburst": case_slowburst, "libgphoto2": case_libgphoto2, "ftp": case_ftp,
         "seenlog": case_seenlog,
         "twodest": case_twodest, "s3": case_s3,
         # Photos held for approval (issue 40): scripts/bench_review.py.
         "review": lambda work, quick: __import__("bench_review").case_review(work, quick),
         # Credit and caption stamping (issue 42): scripts/bench_stamp.py.
         "stamp": lambda work, quick: __import__("bench_stamp").case_stamp(work, quick),
         # Field relays into a desk's HTTP inbox (issue 48): scripts/bench_desk.py.
         "desk": lambda work, quick: __import__("bench_desk").case_desk(work, quick),
         # The editor's page in Chromium as a phone on Wi-Fi (issue 50): scripts/bench_review.py.
         "editor": lambda work, quick: __import__("bench_review").case_editor(work, quick),
         # WordPress's media library and a live post (issue 51): scripts/bench_wordpress.py.
         "wordpress": lambda work, quick: __import__("bench_wordpress").case_wordpress(work, quick),
         # A desk taking photos from an S3 bucket (issue 52): scripts/bench_inbox.py.
         "inbox": lambda work, quick: __import__("bench_inbox").case_inbox(work, quick)}


def machine():
    cores = os.cpu_count()
    with open("/proc/meminfo") as f:
        memory = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1)) / 1024 / 1024
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    gphoto = subprocess.run(["gphoto2", "--version"], capture_output=True, text=True).stdout.splitlines()
    return "%s, %d cores, %.0f GiB, %s; %s; %s" % (
        platform.platform(), cores, memory, (swift or ["swift ?"])[0], (gphoto or ["gphoto2 ?"])[0], "Python " + sys.version.split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer photos, one run (under a minute or two)")
    parser.add_argument("--runs", type=int, default=None, help="runs per case (default 3, 1 with --quick)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave BENCHMARKS.md alone")
    parser.add_argument("cases", nargs="*", choices=[[]] + list(CASES), default=[])
    args = parser.parse_args()
    runs = args.runs or (1 if args.quick else 3)
    rows = []
    for name in args.cases or list(CASES):
        results = []
        for run in range(runs):
            work = tempfile.mkdtemp(prefix="relay-bench-%s-" % name)
            try:
                results.append(CASES[name](work, args.quick))
            finally:
                shutil.rmtree(work, ignore_errors=True)
            sys.stderr.write("%s run %d: %s\n" % (name, run + 1, results[-1]))
        medians = {key: statistics.median(r[key] for r in results) for key in results[0]}
        rows.append((name, medians))
        print("%-10s %s" % (name, ", ".join("%s %.2f" % item for item in medians.items())), flush=True)
    table = ["| case | figure | median of %d run(s) |" % runs, "| --- | --- | --- |"]
    for name, medians in rows:
        for key, value in medians.items():
            table.append("| %s | %s | %s |" % (name, key, ("%.2f" % value) if isinstance(value, float) else value))
    stamp = "%s on %s" % (datetime.datetime.now().strftime("%Y-%m-%d %H:%M"), machine())
    command = "scripts/bench" + (" --quick" if args.quick else "") + ("" if not args.cases else " " + " ".join(args.cases))
    text = "\n".join(table)
    print(text)
    if not args.no_write:
        marker = "<!-- results -->"
        path = os.path.join(ROOT, "BENCHMARKS.md")
        with open(path, encoding="utf-8") as f:
            page = f.read()
        head = page.split(marker)[0]
        with open(path, "w", encoding="utf-8") as f:
            f.write(head + marker + "\n\n`%s`, %s\n\n%s\n" % (command, stamp, text))


if __name__ == "__main__":
    main()
