#!/usr/bin/env python3
"""The power-loss suite: relay with its RELAY_HOME on a file system that models a power cut,
cut at random moments, on seven roads. Run through scripts/chaos.sh, which builds relay first:

    scripts/chaos.sh powerloss [--quick] [--model powerloss|lazyfs] [ROAD ...]
                                 roads: ptpip ftp folder two review inbox s3inbox (default: all)

A cut is what a venue box losing power does to relay: relay is killed (SIGKILL), every write
that was not made durable is dropped, the file system is mounted again, and relay is started
again. SIGKILL alone cannot show a missing fsync, since the page cache outlives the process.

Models (RELIABILITY.md says how each was built and run):
  powerloss  scripts/powerloss_fs.py (FUSE, fusepy): unsynced file data AND directory entries
             whose folder was not synced are dropped (the strict POSIX reading PostgreSQL's
             durable_rename and SQLite write for).
  lazyfs     LazyFS (github dsrhaslab/lazyfs, VLDB 2024), the file system Jepsen uses: its
             `lazyfs::clear-cache` drops unsynced file data; creates and renames are durable at
             once. Needs a built lazyfs binary in $LAZYFS_BIN (not packaged by Debian; see
             RELIABILITY.md); skipped without one.

Roads, each with its own gallery (scripts/gallery.py, which stores a photo once per
Idempotency-Key and answers a repeated key 200):
  ptpip   the camera simulator over PTP/IP, 600 kB photos over a 3 MB/s link: every photo shot
          must arrive;
  ftp     a camera's FTP client at about 3 MB/s sending each photo until relay answers 226 (and
          again after a cut, as a body does): every photo answered 226 must arrive, once;
  folder  a hot folder: every photo dropped must arrive;
  two     the PTP/IP camera and two destinations: every photo must reach both;
  review  the hot folder into a gallery that sends approved photos only, an editor approving
          each held photo with `relay review approve` as it comes in: every photo must arrive,
          and no approval whose command returned may be undone by a cut;
  inbox   a field relay PUTting each photo into relay's HTTP inbox at about 3 MB/s with one
          Idempotency-Key per photo, until relay answers 201 or 200 (and again after a cut):
          every photo answered must arrive, once;
  s3inbox a desk taking from an S3 bucket (`relay run --inbox`, issue 52): each photo PUT into
          SeaweedFS as a field relay leaves it, the desk reaching the store through
          scripts/cut_answer_proxy.py at about 3 MB/s (so that cuts fall inside its downloads):
          every photo must arrive, and its claim end `done` by this desk.
Cuts fall at random moments of shooting and delivering (inside downloads, uploads and commits:
each cut says which were under way), and two at each road's start around `relay config add`
(inside it, and right after it returned).

Figures per road: cuts (of them inside a download / an upload), photos, delivered, lost,
re-sent with the same key (the gallery already had it: answered 200), accepted twice under
different keys, and starts (relay came up after every cut). Targets: 0 lost, 0 under different
keys, at most 3 same-key re-sends a cut (per destination: each has its own 2 workers, and only an
upload in flight at the cut can be sent again), relay starts after every cut.
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import chaos
from chaos import Camera, Failure, Gallery, account
from chaos_matrix import Receiver, S3Destination, camera_photo, sha256
from peers import wait_for

ROOT = chaos.ROOT
POWERLOSS_FS = os.path.join(ROOT, "scripts", "powerloss_fs.py")


class PowerLossFS:
    """RELAY_HOME's file system under scripts/powerloss_fs.py; its durable image in /dev/shm."""

    name = "powerloss"

    def __init__(self, work):
        self.mount = os.path.join(work, "mnt")
        os.makedirs(self.mount)
        self.state = tempfile.mkdtemp(prefix="relay-powerloss-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        self.log = os.path.join(work, "powerloss_fs.log")
        self.proc = None
        self.start()

    def start(self):
        mounted = self.mounts()
        self.proc = subprocess.Popen([sys.executable, POWERLOSS_FS, self.mount, "--state", self.state],
                                     stdout=open(self.log, "a"), stderr=subprocess.STDOUT)
        if not wait_for(lambda: self.mounts() > mounted or self.proc.poll() is not None, 30, 0.05) or self.proc.poll() is not None:
            raise Failure("powerloss_fs did not mount (see %s)" % self.log)

    def mounts(self):
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return f.read().count("powerloss_fs: mounted")
        except FileNotFoundError:
            return 0

    def cut(self):
        """Drops every write that was not synced: the file system's process dies with its
        volatile state, and a new one mounts the durable image."""
        self.proc.kill()
        self.proc.wait()
        subprocess.run(["fusermount", "-u", "-z", self.mount], capture_output=True)
        self.start()

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        subprocess.run(["fusermount", "-u", "-z", self.mount], capture_output=True)
        shutil.rmtree(self.state, ignore_errors=True)


class LazyFS:
    """RELAY_HOME on LazyFS: a cut is `lazyfs::clear-cache` once relay is dead."""

    name = "lazyfs"

    def __init__(self, work):
        self.binary = os.environ.get("LAZYFS_BIN", "")
        self.mount = os.path.join(work, "mnt")
        self.root = os.path.join(work, "lazyfs-root")
        self.fifo = os.path.join(work, "lazyfs.fifo")
        self.done = os.path.join(work, "lazyfs-done.fifo")
        self.log = os.path.join(work, "lazyfs.log")
        for folder in (self.mount, self.root):
            os.makedirs(folder)
        os.mkfifo(self.fifo)
        os.mkfifo(self.done)
        # LazyFS handles no command until its completion FIFO has a reader.
        self.done_fd = os.open(self.done, os.O_RDONLY | os.O_NONBLOCK)
        config = os.path.join(work, "lazyfs.toml")
        with open(config, "w") as f:
            f.write('[faults]\nfifo_path="%s"\nfifo_path_completed="%s"\n[cache]\napply_eviction=false\n'
                    '[cache.simple]\ncustom_size="512mb"\nblocks_per_page=1\n[filesystem]\nlog_all_operations=false\nlogfile=""\n'
                    % (self.fifo, self.done))
        self.proc = subprocess.Popen(
            [self.binary, self.mount, "--config-path", config, "-o", "allow_other,modules=subdir,subdir=" + self.root, "-f"],
            stdout=open(self.log, "a"), stderr=subprocess.STDOUT,
            preexec_fn=lambda: __import__("resource").setrlimit(__import__("resource").RLIMIT_CORE, (0, 0)))
        if not wait_for(lambda: os.path.ismount(self.mount) or self.proc.poll() is not None, 30, 0.05) or self.proc.poll() is not None:
            raise Failure("lazyfs did not mount (see %s)" % self.log)

    def cut(self):
        with open(self.fifo, "w") as f:
            f.write("lazyfs::clear-cache\n")
        answer = b""
        deadline = time.time() + 10
        while b"finished::clear-cache" not in answer and time.time() < deadline:
            try:
                answer += os.read(self.done_fd, 4096)
            except BlockingIOError:
                time.sleep(0.01)
        if b"finished::clear-cache" not in answer:
            raise Failure("lazyfs did not confirm clear-cache (see %s)" % self.log)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        subprocess.run(["fusermount3", "-u", "-z", self.mount], capture_output=True)
        os.close(self.done_fd)


MODELS = {"powerloss": PowerLossFS, "lazyfs": LazyFS}


class Relay(chaos.Relay):
    """chaos.py's relay with RELAY_HOME on the cut file system; each start must come up."""

    def __init__(self, work, fs, env=None):
        super().__init__(work)
        self.home = os.path.join(fs.mount, "home")
        self.env["RELAY_HOME"] = self.home
        self.env.update(env or {})
        self.arguments = []
        self.ready = None

    def log_size(self):
        try:
            return os.path.getsize(self.log_path)
        except FileNotFoundError:
            return 0

    def come_up(self):
        """Starts `relay run` with the road's arguments; True once it is ready (its line in
        its log), False when it exits or stays silent for 30 s."""
        offset = self.log_size()
        self.start(*self.arguments)

        def ready():
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                f.seek(offset)
                return re.search(self.ready, f.read()) is not None or self.proc.poll() is not None
        return wait_for(ready, 30, 0.05) and self.proc.poll() is None


class SendingCamera:
    """A client on its own thread that sends each photo in turn until relay says it has it,
    trying again after any failure (relay gone in a cut), as a body or a field relay does, at
    about 3 MB/s so that cuts fall inside uploads too; its `Receiver` says where and how."""

    def __init__(self, work, receiver):
        self.receiver = receiver
        self.argument, self.env, self.ready = receiver.argument, receiver.env, receiver.ready
        self.card = os.path.join(work, "card")
        os.makedirs(self.card)
        self.photos = {}
        self.pending = []
        self.answered = set()
        self.lock = threading.Lock()
        self.stopped = False
        self.thread = threading.Thread(target=self.send_loop, daemon=True)
        self.thread.start()

    def shoot(self, index):
        name = "%s_%04d.JPG" % (self.receiver.prefix, index)
        digest = sha256(camera_photo(os.path.join(self.card, name), index, 600_000))
        with self.lock:
            self.photos[name] = digest
            self.pending.append(name)

    def send_loop(self):
        while not self.stopped:
            with self.lock:
                name = self.pending[0] if self.pending else None
            if name is None:
                time.sleep(0.05)
                continue
            if self.receiver.send(name, os.path.join(self.card, name)):
                with self.lock:
                    self.answered.add(name)
                    self.pending.remove(name)
            else:
                time.sleep(0.1)

    def made(self):
        """The photos relay answered for: those must arrive."""
        with self.lock:
            return {name: self.photos[name] for name in self.answered}

    def sent_all(self):
        with self.lock:
            return not self.pending

    def stop(self):
        self.stopped = True


class FolderCamera:
    """Tethering software writing into a hot folder (temporary name, then rename)."""

    def __init__(self, work):
        self.folder = os.path.join(work, "drop")
        os.makedirs(self.folder)
        self.argument = ["--folder", self.folder, "--settle", "0.3"]
        self.env = {}
        self.ready = r"watching for new photos|polled every"
        self.photos = {}

    def shoot(self, index):
        name = "IMG_%04d.JPG" % index
        temporary = os.path.join(self.folder, "." + name + ".part")
        self.photos[name] = sha256(camera_photo(temporary, index, 600_000))
        os.rename(temporary, os.path.join(self.folder, name))

    def made(self):
        return dict(self.photos)

    def sent_all(self):
        return True

    def stop(self):
        pass


class PTPIPCamera:
    """The simulator over PTP/IP; relay takes each shot as it is announced."""

    def __init__(self, work):
        self.camera = Camera(work, "generic", ["--photo-size", "600k", "--rate-limit", "3M"])
        self.argument = ["--camera", self.camera.url]
        self.env = {}
        self.ready = r"connected to"

    def shoot(self, index):
        self.camera.shoot()

    def made(self):
        return self.camera.made()

    def sent_all(self):
        return True

    def stop(self):
        self.camera.stop()


class S3InboxCamera:
    """Photos PUT into a SeaweedFS bucket under `field/` (boto3, a simple PUT: the ETag is the
    MD5, as a field relay's S3 destination leaves them), taken by the desk through a proxy that
    passes the store's answers on at about 3 MB/s. The store is not cut: it is another machine."""

    def __init__(self, work):
        self.store = S3Destination(work, folder="inbox-store")
        self.proxy = subprocess.Popen(
            [sys.executable, "-u", os.path.join(ROOT, "scripts", "cut_answer_proxy.py"), "--target",
             "127.0.0.1:%d" % self.store.ports[6], "--cut", "0", "--rate", "3000000"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = self.proxy.stdout.readline()
        if "listening" not in ready:
            raise Failure("cut_answer_proxy.py did not start")
        self.endpoint = "http://127.0.0.1:%d" % int(ready.rsplit(":", 1)[1])
        self.card = os.path.join(work, "card")
        os.makedirs(self.card)
        self.argument = ["--inbox", "inbox", "--inbox-every", "0.3"]
        self.env = {"AWS_ACCESS_KEY_ID": S3Destination.access, "AWS_SECRET_ACCESS_KEY": S3Destination.secret}
        self.ready = r"listed every"
        self.photos = {}

    def configure(self, relay):
        relay.run("config", "add", "--url", "s3://chaos/field/", "--endpoint", self.endpoint, "--note", "inbox")

    def shoot(self, index):
        name = "IMG_%04d.JPG" % index
        path = os.path.join(self.card, name)
        self.photos[name] = sha256(camera_photo(path, index, 600_000))
        with open(path, "rb") as f:
            self.store.client().put_object(Bucket="chaos", Key="field/" + name, Body=f.read())

    def made(self):
        return dict(self.photos)

    def sent_all(self):
        return True

    def problems(self):
        """Photos whose claim is not `done`: a desk that took a photo must have said so."""
        client = self.store.client()
        found = []
        for name in sorted(self.photos):
            try:
                state = json.loads(client.get_object(Bucket="chaos", Key="field/.relay/claims/%s.json" % name)["Body"].read())["state"]
            except Exception as error:  # noqa: BLE001 - a missing claim is the finding
                state = "missing (%s)" % type(error).__name__
            if state != "done":
                found.append("%s: claim %s" % (name, state))
        return found

    def stop(self):
        self.proxy.kill()
        self.store.stop()


def receiver_camera(kind):
    """A sending camera for one of relay's receivers, paced at about 3 MB/s."""
    return lambda work: SendingCamera(work, Receiver(kind, pause=0.02))


ROADS = {"ptpip": (PTPIPCamera, 1), "ftp": (receiver_camera("ftp"), 1), "folder": (FolderCamera, 1), "two": (PTPIPCamera, 2),
         "review": (FolderCamera, 1), "inbox": (receiver_camera("http"), 1), "s3inbox": (S3InboxCamera, 1)}


class Reviewer:
    """An editor approving held photos with `relay review approve` as they come in (the review
    road: the gallery sends approved photos only). An approval whose command returned is
    durable: after a cut, no photo it approved may be held again."""

    def __init__(self, relay):
        self.relay = relay
        self.approved = set()

    def held(self):
        import json
        answer = self.relay.run("review", "list", "--json", check=False)
        return [photo["name"] for photo in json.loads(answer.stdout)] if answer.returncode == 0 else []

    def approve_held(self):
        names = self.held()
        if names and self.relay.run("review", "approve", *names, check=False).returncode == 0:
            self.approved.update(names)

    def forgotten(self):
        """Photos whose acknowledged approval a cut undid (held again)."""
        return sorted(self.approved & set(self.held()))


def dedup_answers(gallery):
    """Uploads the gallery answered 200: it had that Idempotency-Key already (a same-key re-send)."""
    return sum(1 for entry in gallery.requests() if entry.get("status") == 200)


def under_way(relay, galleries):
    """What relay was doing at a cut's moment: a download (a photo in the spool's .incoming/, or
    an FTP upload arriving in ftp/partial/), an upload (a request the gallery has not answered)."""
    def holds(folder, suffix):
        try:
            return any(name.endswith(suffix) and ".rendition." not in name for _, _, names in os.walk(folder) for name in names)
        except OSError:
            return False
    downloading = holds(os.path.join(relay.home, "spool", ".incoming"), ".jpg") or holds(
        os.path.join(relay.home, "ftp", "partial"), ".part") or holds(os.path.join(relay.home, "inbox-partial"), ".part")
    uploading = any(entry.get("status") == "pending" for gallery in galleries for entry in gallery.requests())
    return downloading, uploading


def config_add_cuts(relay, fs, galleries, rng, extra=()):
    """Two cuts around the first `relay config add` of each destination: one while it runs (at
    a random moment), one right after it returned. A config whose add returned must be there
    after the cut; one cut inside its add may be there or not (the user adds it again).
    Returns the cuts made and problems seen."""
    problems = []
    cuts = 0
    for index, gallery in enumerate(galleries):
        label = "powerloss-%d" % index
        arguments = ["config", "add", "--url", gallery.url + "/upload", "--note", label] + list(extra)
        command = subprocess.Popen([chaos.RELAY] + arguments, env=relay.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0, 0.2))
        returned = command.poll() == 0
        if command.poll() is None:
            command.kill()
        command.wait()
        fs.cut()
        cuts += 1
        present = label in relay.run("config", "list", check=False).stdout
        if returned and not present:
            problems.append("config '%s' lost in a cut after its add returned" % label)
        if not present:
            relay.run(*arguments)
        fs.cut()
        cuts += 1
        if label not in relay.run("config", "list", check=False).stdout:
            problems.append("config '%s' lost in a cut right after its add" % label)
            relay.run(*arguments)
    return cuts, problems


def run_road(road, model, work, quick, seed):
    photos, cuts = (12, 5) if quick else (40, 15)
    spacing = 0.4
    rng = random.Random(seed)
    make_source, destinations = ROADS[road]
    fs = MODELS[model](work)
    source = None
    galleries = []
    relay = None
    try:
        for i in range(destinations):
            os.makedirs(os.path.join(work, "gallery-%d" % i))
        galleries = [Gallery(os.path.join(work, "gallery-%d" % i), faults=["--rate-limit", "2000000"]) for i in range(destinations)]
        source = make_source(work)
        relay = Relay(work, fs, source.env)
        reviewer = Reviewer(relay) if road == "review" else None
        setup_cuts, problems = config_add_cuts(relay, fs, galleries, rng, ["--send", "approved"] if reviewer else [])
        if hasattr(source, "configure"):
            source.configure(relay)
        relay.arguments = source.argument + [flag for i in range(destinations) for flag in ("--config", "powerloss-%d" % i)]
        relay.ready = source.ready
        starts = failed_starts = 0
        if relay.come_up():
            starts += 1
        else:
            failed_starts += 1
            problems.append("relay did not start before the first shot: %s" % relay.log()[-1500:])
        # Cuts at random moments of the shooting and of the delivery after it.
        span = photos * spacing + 4
        moments = sorted(rng.uniform(0, span) for _ in range(cuts))
        shot = made_cuts = in_download = in_upload = 0
        # Same-key re-sends of each destination within each cut's span: only an upload in flight
        # at the cut, whose answer relay could not record, is sent again.
        resends_per_cut = []
        before = [dedup_answers(g) for g in galleries]
        started = time.time()
        next_review = 0.0
        while shot < photos or made_cuts < cuts:
            now = time.time() - started
            if made_cuts < cuts and now >= moments[made_cuts]:
                downloading, uploading = under_way(relay, galleries)
                relay.kill()
                fs.cut()
                made_cuts += 1
                in_download += downloading
                in_upload += uploading
                if relay.come_up():
                    starts += 1
                else:
                    failed_starts += 1
                    problems.append("relay did not start after cut %d: %s" % (made_cuts, relay.log()[-1500:]))
                    relay.kill()
                    if not relay.come_up():
                        break
                after = [dedup_answers(g) for g in galleries]
                resends_per_cut += [now - then for now, then in zip(after, before)]
                before = after
                if reviewer and reviewer.forgotten():
                    problems.append("approvals lost in cut %d: %s" % (made_cuts, ", ".join(reviewer.forgotten())))
                    reviewer.approved -= set(reviewer.forgotten())
            elif reviewer and shot > 0 and now >= next_review:
                reviewer.approve_held()
                next_review = now + 0.5
            elif shot < photos and now >= shot * spacing:
                shot += 1
                source.shoot(shot)
            time.sleep(0.01)

        def done():
            made = source.made()
            if reviewer:
                reviewer.approve_held()
            return source.sent_all() and len(made) >= photos and all(
                account_of(source, g)["delivered"] >= len(made) for g in galleries)
        delivered_all = wait_for(done, 240, 0.5)
        resends_per_cut += [dedup_answers(g) - then for g, then in zip(galleries, before)]
        relay.kill(signal.SIGINT)
        figures = [account_of(source, g) for g in galleries]
        if hasattr(source, "problems"):
            problems += source.problems()
        made = len(source.made())
        total = {key: sum(f[key] for f in figures) for key in ("delivered", "lost", "dup_content", "dup_key", "stray")}
        resent = sum(dedup_answers(g) for g in galleries)
        all_cuts = setup_cuts + made_cuts
        ok = (delivered_all and made == photos and total["lost"] == 0 and total["dup_content"] == 0 and total["stray"] == 0
              and failed_starts == 0 and not problems and max(resends_per_cut) <= 3)
        return {
            "road": road + ("" if destinations == 1 else " (%d destinations)" % destinations),
            "cuts": "%d (%d at config add; %d in a download, %d in an upload)" % (all_cuts, setup_cuts, in_download, in_upload),
            "photos": made,
            "delivered": "%d of %d" % (total["delivered"], made * destinations),
            "delivered_count": total["delivered"],
            "deliveries": made * destinations,
            "stored_twice_by_key": total["dup_key"],
            "lost": total["lost"],
            "same_key": "%d (at most %d a cut%s)" % (resent, max(resends_per_cut), "" if destinations == 1 else " and destination"),
            "different_keys": total["dup_content"],
            "starts": "%d of %d" % (starts, starts + failed_starts),
            "result": "pass" if ok else "FAIL",
            "problems": problems,
        }
    finally:
        if relay:
            relay.kill()
        if source:
            source.stop()
        for gallery in galleries:
            gallery.stop()
        fs.close()


def account_of(source, gallery):
    """chaos.account for any source: photos made (or answered 226), delivered, lost, duplicated."""
    class Made:
        def made(self):
            return source.made()
    return account(Made(), gallery)


def run(roads, model, quick, report=print):
    """Runs each road on `model` and reports its table row by row; returns each road's figures
    (none when the model is not there)."""
    if model == "lazyfs" and not os.access(os.environ.get("LAZYFS_BIN", ""), os.X_OK):
        report("lazyfs: skipped (set LAZYFS_BIN to a built lazyfs binary; RELIABILITY.md says how to build one)")
        return []
    report("| model | road | cuts | photos | delivered | lost | re-sent, same key | twice, different keys | relay started | result |")
    report("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for index, road in enumerate(roads):
        work = tempfile.mkdtemp(prefix="relay-powerloss-%s-" % road)
        started = time.time()
        try:
            figures = run_road(road, model, work, quick, seed=3800 + index)
        except (Failure, RuntimeError) as error:
            figures = {"road": road, "result": "FAIL: %s" % error, "problems": []}
        seconds = time.time() - started
        results.append(figures)
        if figures["result"] != "pass":
            sys.stderr.write("%s: work folder kept at %s\n" % (road, work))
            for problem in figures.get("problems", []):
                sys.stderr.write("  %s\n" % problem)
        else:
            shutil.rmtree(work, ignore_errors=True)
        report("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%.0f s) |" % (
            model, figures["road"], figures.get("cuts", "-"), figures.get("photos", "-"), figures.get("delivered", "-"),
            figures.get("lost", "-"), figures.get("same_key", "-"), figures.get("different_keys", "-"),
            figures.get("starts", "-"), figures["result"], seconds))
        sys.stdout.flush()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="12 photos and 5 cuts a road (plus 2 at config add)")
    parser.add_argument("--model", choices=list(MODELS), action="append", help="default: powerloss, then lazyfs when built")
    parser.add_argument("roads", nargs="*", choices=[[]] + list(ROADS), default=[])
    args = parser.parse_args()
    models = args.model or ["powerloss", "lazyfs"]
    results = [figures for model in models for figures in run(args.roads or list(ROADS), model, args.quick)]
    sys.exit(0 if all(figures["result"] == "pass" for figures in results) else 1)


if __name__ == "__main__":
    main()
