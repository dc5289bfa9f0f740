#!/usr/bin/env python3
"""relay's chaos matrix: every photo source against every destination kind, and all kinds
at once, each cell under repeated SIGKILLs of relay and the destination's own faults. Prints a
Markdown table for RELIABILITY.md. Run through `scripts/chaos.sh matrix [--quick] [CELL ...]`,
which builds relay first; a cell is SOURCE:DESTINATION, e.g. ptpip:s3, folder:all.

Sources: ptpip (the camera simulator over PTP/IP), gphoto2 (the same simulator through
libgphoto2), ftp (relay's FTP receiver, fed by a camera-like client that sends a photo again
until it gets 226), folder (a hot folder written the way FTP servers write), http (relay's HTTP
inbox, fed by a field relay's way of sending: a PUT with the same Idempotency-Key until it gets
201 or 200), s3inbox (an S3 bucket as the desks' inbox, issue 52: two field relays deliver to
SeaweedFS, two desks `relay run --inbox` take from it and are the relays SIGKILLed, SeaweedFS is
killed and started again; each photo must have one claim, done, and be taken by one desk).
Destinations: http (scripts/gallery.py answering 500, 429 with Retry-After and dropped
connections), s3 (SeaweedFS behind a front that answers a quarter of its PUTs 503 SlowDown, as S3
does when a prefix is busy, since SeaweedFS itself cannot be made to; and restarted mid-run), ftp
(vsftpd, killed with its sessions mid-run and started again), sftp (OpenSSH's sshd, killed with
its sessions and started again), dav (Apache httpd with mod_dav, killed and started again), wp (a
real WordPress, scripts/wordpress_site.py --no-image-sizes, behind scripts/cut_answer_proxy.py,
which loses its first three 201s after WordPress stored the photo, and PHP's server killed with its
workers and started again on the same site; photos go into the live post's gallery, --post),
immich (scripts/immich_standin.py: each photo's first upload cut before it is stored, its second
stored and the answer lost, a fifth answered 500; the stand-in killed and started again on its
state.json; photos go into one album), all (the seven at once, each with its faults).

Counted per destination, from what the source made (SHA-256 of each photo) and what the
destination stored: delivered, lost, duplicates by content (one photo under two names) and by
key (an Idempotency-Key stored twice, HTTP only), strays (anything the source never made) and
partial objects visible under a final name. WordPress is counted by its attachments (REST,
context=edit) with the SHA-256 of each one's file; its uploads folder must hold no other file (a
second copy would be NAME-1.jpg) and the live post's content must name every attachment once
(class="wp-image-ID"). Immich is counted by its assets (/__standin/state); it keeps one asset per
checksum, so its figure worth reading is the uploads it answered "duplicate" (re-sends relay's
question should have spared, in the faults column), and its album must be one, holding every asset
once. Photos are real JPEGs (Pillow), as WordPress reads each one's size. A cell passes with every
photo delivered to every destination, and 0 of everything else.
"""

import argparse
import ftplib
import glob
import hashlib
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos  # noqa: E402
from chaos import RELAY, Camera, Failure, Gallery  # noqa: E402
from peers import wait_for  # noqa: E402

SOURCES = ["ptpip", "gphoto2", "ftp", "folder", "http", "s3inbox"]
DESTINATIONS = ["http", "s3", "ftp", "sftp", "dav", "wp", "immich", "all"]
KINDS = ["http", "s3", "ftp", "sftp", "dav", "wp", "immich"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def files_under(root):
    """{relative path: sha256} of every regular file under root."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as f:
                found[os.path.relpath(path, root)] = sha256(f.read())
    return found


def kill_tree(pid):
    """SIGKILL to a server and everything under it (a session process outlives its listener)."""
    children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    for child in children:
        kill_tree(int(child))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# --- destinations ----------------------------------------------------------------------------


class HTTPDestination:
    kind = "http"
    fault = "500s, 429s, drops"

    def __init__(self, work):
        os.makedirs(os.path.join(work, "http"))
        self.gallery = Gallery(os.path.join(work, "http"), faults=[
            "--fail-rate", "0.2", "--drop-rate", "0.1", "--throttle-rate", "0.1", "--retry-after", "1"])

    def config(self):
        return ["--url", self.gallery.url + "/upload", "--note", "http"], {}

    def disturb(self):
        pass

    def stored(self):
        """[(name, sha256, key)] of what the destination shows."""
        return [(p["name"], p["sha256"], p.get("idempotencyKey")) for p in self.gallery.photos()]

    def stop(self):
        self.gallery.stop()


class SlowDownFront:
    """In front of SeaweedFS's S3 port: passes every request through unchanged (the Host header
    included, so the SigV4 signature still holds), except that about a quarter of PUTs get what a
    busy S3 prefix answers, 503 SlowDown, after their body was read."""

    BODY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
            b"<Message>Please reduce your request rate.</Message></Error>")

    def __init__(self, backend_port, seed):
        import http.client
        import http.server
        import threading
        front = self
        self.backend_port = backend_port
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.slowdowns = 0

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status, headers, body):
                self.send_response(status)
                for name, value in headers:
                    if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)
                self.close_connection = True

            def relay(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with front.lock:
                    slow = self.command == "PUT" and front.random.random() < 0.25
                    front.slowdowns += slow
                if slow:
                    return self.answer(503, [("Content-Type", "application/xml")], front.BODY)
                headers = {name: value for name, value in self.headers.items() if name.lower() not in ("expect", "connection")}
                try:
                    backend = http.client.HTTPConnection("127.0.0.1", front.backend_port, timeout=60)
                    backend.request(self.command, self.path, body=body, headers=headers)
                    answer = backend.getresponse()
                    data = answer.read()
                    backend.close()
                except OSError:
                    return self.answer(503, [], b"SeaweedFS is down")
                self.answer(answer.status, answer.getheaders(), data)

            do_GET = do_PUT = do_POST = do_HEAD = do_DELETE = relay

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


class S3Destination:
    kind = "s3"
    access, secret = "CHAOSKEY", "chaos-secret"

    @property
    def fault(self):
        return "%d PUTs answered 503 SlowDown, SeaweedFS restarted" % self.front.slowdowns
    access, secret = "CHAOSKEY", "chaos-secret"

    def __init__(self, work, folder="s3"):
        self.dir = os.path.join(work, folder)
        os.makedirs(os.path.join(self.dir, "data"))
        identities = {"identities": [{"name": "relay", "credentials": [{"accessKey": self.access, "secretKey": self.secret}],
                                      "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}
        with open(os.path.join(self.dir, "s3.json"), "w") as f:
            json.dump(identities, f)
        self.ports = [free_port() for _ in range(10)]
        self.start()
        self.client().create_bucket(Bucket="chaos")
        self.front = SlowDownFront(self.ports[6], seed=len(work))

    def start(self):
        p = self.ports
        self.proc = subprocess.Popen([
            shutil.which("weed"), "server", "-dir=" + os.path.join(self.dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-master.telemetry=false", "-master.port=%d" % p[0], "-master.port.grpc=%d" % p[1], "-volume.port=%d" % p[2],
            "-volume.port.grpc=%d" % p[3], "-volume.max=50", "-master.volumeSizeLimitMB=64", "-filer",
            "-filer.port=%d" % p[4], "-filer.port.grpc=%d" % p[5], "-s3", "-s3.port=%d" % p[6], "-s3.port.grpc=%d" % p[7],
            "-s3.port.iceberg=%d" % p[8], "-s3.port.lance=%d" % p[9], "-s3.config=" + os.path.join(self.dir, "s3.json"),
        ], cwd=self.dir, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "weed.log"), "a"))
        if not wait_for(lambda: self.answers(), 60, 0.3):
            raise Failure("SeaweedFS did not start")

    def answers(self):
        try:
            self.client().list_buckets()
            return True
        except Exception:  # noqa: BLE001 - not up yet
            return False

    def client(self):
        import boto3
        from botocore.config import Config
        return boto3.client("s3", endpoint_url="http://127.0.0.1:%d" % self.ports[6], aws_access_key_id=self.access,
                            aws_secret_access_key=self.secret, region_name="us-east-1",
                            config=Config(retries={"max_attempts": 1}, connect_timeout=5, read_timeout=30))

    def config(self):
        return (["--url", "s3://chaos/photos", "--endpoint", "http://127.0.0.1:%d" % self.front.port, "--note", "s3"],
                {"AWS_ACCESS_KEY_ID": self.access, "AWS_SECRET_ACCESS_KEY": self.secret})

    def disturb(self):
        kill_tree(self.proc.pid)
        self.proc.wait()
        time.sleep(1)
        self.start()

    def stored(self):
        client = self.client()
        found = []
        for page in client.get_paginator("list_objects_v2").paginate(Bucket="chaos"):
            for item in page.get("Contents", []):
                body = client.get_object(Bucket="chaos", Key=item["Key"])["Body"].read()
                found.append((item["Key"], sha256(body), None))
        return found

    def stop(self):
        self.front.stop()
        kill_tree(self.proc.pid)


class FTPDestination:
    kind = "ftp"
    fault = "vsftpd killed and restarted"

    def __init__(self, work):
        self.dir = os.path.join(work, "vsftpd")
        self.root = os.path.join(self.dir, "root")
        os.makedirs(os.path.join(self.root, "upload"))
        os.chmod(os.path.join(self.root, "upload"), 0o777)
        self.port, low = free_port(), free_port()
        lines = ["listen=YES", "listen_ipv6=NO", "listen_address=127.0.0.1", "listen_port=%d" % self.port, "background=NO",
                 "anonymous_enable=YES", "no_anon_password=YES", "anon_root=" + self.root, "write_enable=YES",
                 "anon_upload_enable=YES", "anon_mkdir_write_enable=YES", "anon_other_write_enable=YES", "anon_umask=022",
                 "allow_writeable_chroot=YES", "local_enable=NO", "pasv_enable=YES", "pasv_address=127.0.0.1",
                 "pasv_min_port=%d" % low, "pasv_max_port=%d" % (low + 20), "seccomp_sandbox=NO", "xferlog_enable=NO"]
        self.conf = os.path.join(self.dir, "vsftpd.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.start()

    def start(self):
        self.proc = subprocess.Popen(["/usr/sbin/vsftpd", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(lambda: listening(self.port), 20, 0.1):
            raise Failure("vsftpd did not start")

    def config(self):
        return ["--url", "ftp://127.0.0.1:%d/upload/photos" % self.port, "--note", "ftp"], {}

    def disturb(self):
        kill_tree(self.proc.pid)
        self.proc.wait()
        self.start()

    def stored(self):
        return [(path, digest, None) for path, digest in files_under(os.path.join(self.root, "upload")).items()]

    def stop(self):
        kill_tree(self.proc.pid)


class SFTPDestination:
    kind = "sftp"
    fault = "sshd killed and restarted"

    def __init__(self, work):
        self.dir = os.path.join(work, "sshd")
        self.uploads = os.path.join(self.dir, "uploads")
        os.makedirs(self.uploads)
        host_key, self.user_key = os.path.join(self.dir, "host_key"), os.path.join(self.dir, "user_key")
        for key in (host_key, self.user_key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key], check=True)
        shutil.copy(self.user_key + ".pub", os.path.join(self.dir, "authorized_keys"))
        self.port = free_port()
        with open(host_key + ".pub") as f:
            public = " ".join(f.read().split()[:2])
        self.known_hosts = os.path.join(self.dir, "known_hosts")
        with open(self.known_hosts, "w") as f:
            f.write("[127.0.0.1]:%d %s\n" % (self.port, public))
        os.makedirs("/run/sshd", exist_ok=True)
        self.conf = os.path.join(self.dir, "sshd_config")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "Port %d" % self.port, "ListenAddress 127.0.0.1", "HostKey " + host_key,
                "PidFile " + os.path.join(self.dir, "sshd.pid"), "AuthorizedKeysFile " + os.path.join(self.dir, "authorized_keys"),
                "PermitRootLogin prohibit-password", "PasswordAuthentication no", "KbdInteractiveAuthentication no",
                "UsePAM no", "StrictModes no", "Subsystem sftp internal-sftp", ""]))
        self.start()

    def start(self):
        self.proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", self.conf],
                                     stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "sshd.log"), "a"))
        if not wait_for(lambda: listening(self.port), 20, 0.1):
            raise Failure("sshd did not start")

    def config(self):
        user = os.environ.get("USER") or "root"
        return ["--url", "sftp://%s@127.0.0.1:%d%s/photos" % (user, self.port, self.uploads), "--ssh-key", self.user_key,
                "--known-hosts", self.known_hosts, "--note", "sftp"], {}

    def disturb(self):
        kill_tree(self.proc.pid)
        self.proc.wait()
        self.start()

    def stored(self):
        return [(path, digest, None) for path, digest in files_under(self.uploads).items()]

    def stop(self):
        kill_tree(self.proc.pid)


class DAVDestination:
    kind = "dav"
    fault = "Apache killed and restarted"

    def __init__(self, work):
        # Apache serves as nobody (never as root): it must be able to walk down to the share.
        os.chmod(work, 0o755)
        self.dir = os.path.join(work, "dav")
        self.root = os.path.join(self.dir, "root")
        locks = os.path.join(self.dir, "locks")
        for folder in (self.root, locks):
            os.makedirs(folder)
            os.chmod(folder, 0o777)
        self.password = "chaos-dav-secret"
        hashed = subprocess.run(["openssl", "passwd", "-apr1", self.password], capture_output=True, text=True, check=True)
        with open(os.path.join(self.dir, "htpasswd"), "w") as f:
            f.write("photo:%s\n" % hashed.stdout.strip())
        self.port = free_port()
        modules = "/usr/lib/apache2/modules"
        user, group = ("nobody", "nogroup") if os.getuid() == 0 else (os.environ.get("USER", "nobody"), "nogroup")
        self.conf = os.path.join(self.dir, "httpd.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join([
                "ServerRoot " + self.dir, "ServerName 127.0.0.1", "Listen 127.0.0.1:%d" % self.port,
                "PidFile %s/httpd.pid" % self.dir, "DefaultRuntimeDir " + self.dir, "ErrorLog %s/error.log" % self.dir]
                + ["LoadModule %s_module %s/mod_%s.so" % (name, modules, name) for name in (
                    "mpm_event", "authz_core", "authn_core", "authn_file", "auth_basic", "authz_user", "dav", "dav_fs")]
                + ["User " + user, "Group " + group, "DAVLockDB %s/davlock" % locks, "DocumentRoot " + self.root,
                   "<Directory %s>" % self.root, "Dav On", "AllowOverride None", "AuthType Basic", 'AuthName "chaos"',
                   "AuthUserFile %s/htpasswd" % self.dir, "Require valid-user", "</Directory>", ""]))
        self.start()

    def start(self):
        self.proc = subprocess.Popen(["/usr/sbin/apache2", "-X", "-f", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_for(lambda: listening(self.port), 20, 0.1):
            raise Failure("apache2 did not start")

    def config(self):
        return (["--url", "dav://photo@127.0.0.1:%d/archive/{date}/{name}" % self.port, "--password", "${CHAOS_DAV_PASSWORD}",
                 "--note", "dav"], {"CHAOS_DAV_PASSWORD": self.password})

    def disturb(self):
        kill_tree(self.proc.pid)
        self.proc.wait()
        self.start()

    def stored(self):
        return [(path, digest, None) for path, digest in files_under(self.root).items()]

    def stop(self):
        kill_tree(self.proc.pid)


class WordPressDestination:
    """A real WordPress (scripts/wordpress_site.py, --no-image-sizes) reached through
    scripts/cut_answer_proxy.py, which loses its first few 201s after WordPress stored the photo
    (WordPress ignores Idempotency-Key: relay must ask for the attachment's slug before a re-send),
    and PHP's server killed with its workers half way and started again on the same site (the
    same command line, database and uploads). Photos go into the live post's gallery (--post),
    unless several relays deliver to the site (the S3 inbox's two desks): WordPress's posts have
    no ETag, so two relays writing one post can drop each other's photo (README, "one relay per
    live post"); they fill the media library, checked the same."""

    kind = "wp"
    cuts = 3

    def __init__(self, work, relays=1):
        self.live_post = relays == 1
        self.dir = os.path.join(work, "wordpress")
        self.log = open(os.path.join(work, "wordpress.log"), "ab")
        self.site = subprocess.Popen(
            [sys.executable, "-u", os.path.join(os.path.dirname(os.path.abspath(__file__)), "wordpress_site.py"),
             "--dir", self.dir, "--no-image-sizes", "--workers", "4"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.site.stdout.readline()
        if not line.startswith("{"):
            raise Failure("wordpress_site.py did not start (see wordpress.log)")
        self.info = json.loads(line)
        self.php_port = int(self.info["url"].rsplit(":", 1)[1].strip("/"))
        self.php_pid = self.info["php_pid"]
        # PHP's command line, environment (PHP_CLI_SERVER_WORKERS) and folder, to start it again.
        with open("/proc/%d/cmdline" % self.php_pid, "rb") as f:
            self.php_command = [part.decode() for part in f.read().split(b"\0") if part]
        with open("/proc/%d/environ" % self.php_pid, "rb") as f:
            self.php_env = dict(part.decode(errors="replace").split("=", 1) for part in f.read().split(b"\0") if b"=" in part)
        self.php_cwd = os.readlink("/proc/%d/cwd" % self.php_pid)
        self.restarted = None
        self.proxy = subprocess.Popen(
            [sys.executable, "-u", os.path.join(os.path.dirname(os.path.abspath(__file__)), "cut_answer_proxy.py"),
             "--target", "127.0.0.1:%d" % self.php_port, "--status", "201", "--cut", str(self.cuts), "--any-answer",
             "--rewrite-host"], stdout=subprocess.PIPE, stderr=self.log, text=True)
        ready = self.proxy.stdout.readline()
        if "listening" not in ready:
            raise Failure("cut_answer_proxy.py did not start")
        self.proxy_port = int(ready.rsplit(":", 1)[1])
        self.cut_lines = []
        import threading
        threading.Thread(target=lambda: self.cut_lines.extend(self.proxy.stdout), daemon=True).start()

    @property
    def fault(self):
        return "%d of WordPress's 201s lost after it stored the photo, PHP killed and restarted" % sum(
            1 for line in self.cut_lines if line.startswith("cut answer"))

    def config(self):
        post = ["--post", str(self.info["post_id"])] if self.live_post else []
        return (["--url", "wp://%s@127.0.0.1:%d/" % (self.info["user"], self.proxy_port), "--password", "${CHAOS_WP_PASSWORD}"]
                + post + ["--note", "wp"], {"CHAOS_WP_PASSWORD": self.info["app_password"]})

    def disturb(self):
        # PHP's master and its workers share a process group (wordpress_site.py's die_with_parent).
        try:
            os.killpg(self.php_pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_for(lambda: not listening(self.php_port), 10, 0.1)
        self.restarted = subprocess.Popen(self.php_command, env=self.php_env, cwd=self.php_cwd, stdin=subprocess.DEVNULL,
                                          stdout=self.log, stderr=self.log, start_new_session=True)
        if not wait_for(lambda: listening(self.php_port), 20, 0.1):
            raise Failure("PHP's server did not start again")

    def rest(self, route, **query):
        import base64
        import urllib.parse
        import urllib.request
        url = self.info["rest_root"] + route
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
        auth = base64.b64encode(("%s:%s" % (self.info["user"], self.info["app_password"])).encode()).decode()
        request = urllib.request.Request(url, headers={"Authorization": "Basic " + auth})
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.load(answer), answer.headers

    def attachments(self):
        found, page = [], 1
        while True:
            items, headers = self.rest("wp/v2/media", per_page=100, page=page, context="edit")
            found += items
            if page >= int(headers.get("X-WP-TotalPages") or 1):
                return found
            page += 1

    def stored(self):
        """[(file, sha256, None)] of each attachment, by the file WordPress keeps for it."""
        files = files_under(self.info["uploads"])
        return [(self.file_of(a), files.get(self.file_of(a), "missing"), None) for a in self.attachments()]

    @staticmethod
    def file_of(attachment):
        """The attachment's file under uploads, from its source_url (the photos are not images WordPress
        can read, so its media_details hold no `file`)."""
        import urllib.parse
        return urllib.parse.unquote(attachment["source_url"].split("/wp-content/uploads/", 1)[1])

    def problems(self):
        """Files in the uploads folder that are not an attachment's (a duplicate by content is
        two files with one SHA-256, WordPress naming the second NAME-1.jpg), and attachments not
        in the live post's gallery exactly once."""
        attachments = self.attachments()
        files = files_under(self.info["uploads"])
        named = {self.file_of(a) for a in attachments}
        found = []
        orphans = sorted(set(files) - named)
        if orphans:
            found.append("%d files in uploads without an attachment (%s)" % (len(orphans), ", ".join(orphans)))
        by_sha = {}
        for path, digest in files.items():
            by_sha.setdefault(digest, []).append(path)
        twice = [sorted(paths) for paths in by_sha.values() if len(paths) > 1]
        if twice:
            found.append("one photo in several files in uploads: %s" % "; ".join(" = ".join(p) for p in twice))
        if not self.live_post:
            return found
        post, _ = self.rest("wp/v2/posts/%d" % self.info["post_id"], context="edit", _fields="content")
        content = post["content"]["raw"]
        import re
        in_post = [int(n) for n in re.findall(r'class="wp-image-(\d+)"', content)]
        ids = {a["id"] for a in attachments}
        wrong = ["attachment %d %d times" % (i, in_post.count(i)) for i in sorted(ids) if in_post.count(i) != 1]
        wrong += ["wp-image-%d without an attachment" % i for i in sorted(set(in_post) - ids)]
        if wrong:
            found.append("live post's gallery: " + ", ".join(wrong))
        return found

    def stop(self):
        for proc in (self.proxy, self.restarted):
            if proc and proc.poll() is None:
                if proc is self.restarted:
                    kill_tree(proc.pid)
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                else:
                    proc.kill()
                proc.wait()
        if self.site.poll() is None:
            self.site.terminate()
            try:
                self.site.wait(30)
            except subprocess.TimeoutExpired:
                kill_tree(self.site.pid)


class ImmichDestination:
    """scripts/immich_standin.py, Immich's upload and album API as its server code has them: the
    first attempt of each photo cut before it is stored (--drop-first 1), the second stored and its
    answer lost (--lose-first 2), a fifth of the uploads answered 500 (--fail-rate 0.2), and the
    stand-in killed half way and started again on its state (DIR/state.json, as Immich's database).
    Immich de-duplicates by SHA-1 (relay sends x-immich-checksum), so two assets of one photo
    cannot be; uploads answered "duplicate" are counted as re-sends relay's question should have
    spared. Photos go into the album `Chaos`, which must be one album holding every asset once."""

    kind = "immich"
    key = "chaos-immich-key"
    album = "Chaos"

    def __init__(self, work):
        self.dir = os.path.join(work, "immich")
        self.log = open(os.path.join(work, "immich.log"), "ab")
        self.port = free_port()
        self.resends = self.earlier = 0
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            [sys.executable, "-u", os.path.join(os.path.dirname(os.path.abspath(__file__)), "immich_standin.py"),
             "--dir", self.dir, "--api-key", self.key, "--port", str(self.port), "--seed", str(self.port),
             "--drop-first", "1", "--lose-first", "2", "--fail-rate", "0.2"],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        if "listening" not in self.proc.stdout.readline():
            raise Failure("immich_standin.py did not start")

    @property
    def fault(self):
        return "first try of each photo cut, second's answer lost, 20 %% answered 500, stand-in restarted; %d re-sends answered duplicate" % (
            self.resends)

    def config(self):
        return (["--url", "immich://127.0.0.1:%d/" % self.port, "--header", "x-api-key: ${CHAOS_IMMICH_KEY}",
                 "--album", self.album, "--note", "immich"], {"CHAOS_IMMICH_KEY": self.key})

    @staticmethod
    def resends_in(state):
        return sum(1 for r in state["requests"] if str(r.get("outcome", "")).startswith("duplicate"))

    def disturb(self):
        try:
            self.earlier = self.resends_in(self.state())
        except OSError:
            pass
        kill_tree(self.proc.pid)
        self.proc.wait()
        self.start()

    def state(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        connection.request("GET", "/__standin/state")
        state = json.loads(connection.getresponse().read())
        connection.close()
        return state

    def stored(self):
        found = []
        for asset in self.state()["assets"]:
            with open(asset["originalPath"], "rb") as f:
                found.append((asset["originalFileName"], sha256(f.read()), None))
        return found

    def problems(self):
        state = self.state()
        self.resends = self.earlier + self.resends_in(state)
        albums = [a for a in state["albums"] if a["albumName"] == self.album]
        if len(albums) != 1:
            return ["%d albums named %s" % (len(albums), self.album)]
        held = albums[0]["assetIds"]
        ids = {a["id"] for a in state["assets"]}
        wrong = ["asset %s %d times" % (i, held.count(i)) for i in sorted(ids) if held.count(i) != 1]
        wrong += ["%s not an asset" % i for i in sorted(set(held) - ids)]
        return ["album %s: %s" % (self.album, ", ".join(wrong))] if wrong else []

    def stop(self):
        kill_tree(self.proc.pid)


DESTINATION_TYPES = {"http": HTTPDestination, "s3": S3Destination, "ftp": FTPDestination, "sftp": SFTPDestination,
                     "dav": DAVDestination, "wp": WordPressDestination, "immich": ImmichDestination}


# --- sources ---------------------------------------------------------------------------------


def camera_photo(path, seed, size):
    """A real JPEG of about `size` bytes (sensor-like noise, Pillow), different for every seed: a
    gallery that reads its photos (WordPress takes their width and height) must be able to."""
    import io
    from PIL import Image
    rng = random.Random(seed)
    side = int((size / 0.92) ** 0.5)
    encoded = io.BytesIO()
    Image.frombytes("RGB", (side, side), rng.randbytes(side * side * 3)).save(encoded, "JPEG", quality=90)
    data = encoded.getvalue()
    with open(path, "wb") as f:
        f.write(data)
    return data


class CameraSource:
    """The simulator; relay takes it over PTP/IP or through libgphoto2."""

    def __init__(self, work, via):
        self.camera = Camera(work, "generic", ["--photo-size", "150k"])
        host, port = self.camera.address.rsplit(":", 1)
        self.argument = ["--camera", self.camera.url if via == "ptpip" else "gphoto2:ptpip:%s:%s:%s" % (host, port, port)]
        self.ready = r"connected to"

    def shoot(self, index):
        self.camera.shoot()

    def made(self):
        return self.camera.made()

    def finish(self):
        pass

    def stop(self):
        self.camera.stop()


class FolderSource:
    def __init__(self, work):
        self.folder = os.path.join(work, "drop")
        os.makedirs(self.folder)
        self.argument = ["--folder", self.folder, "--settle", "0.3"]
        self.ready = r"relay: folder"
        self.photos = {}

    def shoot(self, index):
        name = "IMG_%04d.JPG" % index
        temporary = os.path.join(self.folder, "." + name + ".part")
        self.photos[name] = sha256(camera_photo(temporary, index, 150_000))
        os.rename(temporary, os.path.join(self.folder, name))

    def made(self):
        return dict(self.photos)

    def finish(self):
        pass

    def stop(self):
        pass


class SenderSource:
    """A client that sends each photo until relay says it has it (a camera whose upload was cut
    sends it again, as bodies do after a dropped link; a field relay retries with the same key).
    Its `Receiver` says where and how one photo is sent."""

    def __init__(self, work, receiver):
        self.receiver = receiver
        self.argument, self.env, self.ready = receiver.argument, receiver.env, receiver.ready
        self.files = os.path.join(work, "card")
        os.makedirs(self.files)
        self.photos = {}
        self.pending = []

    def shoot(self, index):
        name = "%s_%04d.JPG" % (self.receiver.prefix, index)
        self.photos[name] = sha256(camera_photo(os.path.join(self.files, name), index, 150_000))
        self.pending.append(name)
        self.send_pending(deadline=time.time() + 2)

    def send_pending(self, deadline):
        while self.pending and time.time() < deadline:
            if self.receiver.send(self.pending[0], os.path.join(self.files, self.pending[0])):
                self.pending.pop(0)
            else:
                time.sleep(0.2)

    def made(self):
        return dict(self.photos)

    def finish(self):
        self.send_pending(deadline=time.time() + 120)

    def stop(self):
        pass


class InboxSource:
    """An S3 bucket as the desks' inbox (issue 52): two field relays (`relay run --folder`, each
    photo written into its hot folder) deliver to `s3://chaos/field/{name}` on SeaweedFS through the
    SlowDown front (a quarter of their PUTs answered 503), and two desks (`relay run --inbox`,
    each its own RELAY_HOME and desk id) take from the bucket into the cell's destinations,
    through scripts/cut_answer_proxy.py at about 2 MB/s (600 kB photos: so that kills fall inside
    downloads). The
    desks are the relays SIGKILLed and started again; SeaweedFS is killed and started again on
    its data half way. Beyond the destinations' counts: every photo has one claim, `done`, and
    no photo is in both desks' histories (both desks send a photo with the same
    Idempotency-Key, which a gallery would fold into one)."""

    desks = 2

    def __init__(self, work):
        self.store = S3Destination(work, folder="inbox-store")
        self.proxy = subprocess.Popen(
            [sys.executable, "-u", os.path.join(os.path.dirname(os.path.abspath(__file__)), "cut_answer_proxy.py"),
             "--target", "127.0.0.1:%d" % self.store.ports[6], "--cut", "0", "--rate", "2000000"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        ready = self.proxy.stdout.readline()
        if "listening" not in ready:
            raise Failure("cut_answer_proxy.py did not start")
        self.proxy_port = int(ready.rsplit(":", 1)[1])
        self.env = {"AWS_ACCESS_KEY_ID": S3Destination.access, "AWS_SECRET_ACCESS_KEY": S3Destination.secret}
        self.argument = ["--inbox", "inbox", "--inbox-every", "0.3"]
        self.ready = "listed every"
        self.photos = {}
        self.fields = []
        for name in ("FA", "FB"):
            field = Relay(os.path.join(work, "field-" + name), self.env)
            field.drop = os.path.join(work, "field-" + name, "drop")
            os.makedirs(field.drop)
            field.run("config", "add", "--url", "s3://chaos/field/{name}", "--endpoint",
                      "http://127.0.0.1:%d" % self.store.front.port, "--note", "inbox")
            field.start("--folder", field.drop, "--settle", "0.3", "--config", "inbox")
            field.prefix = name
            self.fields.append(field)

    def configure(self, desk):
        desk.run("config", "add", "--url", "s3://chaos/field/", "--endpoint", "http://127.0.0.1:%d" % self.proxy_port,
                 "--note", "inbox")

    @property
    def fault(self):
        return "2 field relays; %d of their PUTs answered 503 SlowDown; SeaweedFS killed and restarted" % self.store.front.slowdowns

    def shoot(self, index):
        field = self.fields[index % 2]
        name = "%s_%04d.JPG" % (field.prefix, index)
        temporary = os.path.join(field.drop, "." + name + ".part")
        self.photos[name] = sha256(camera_photo(temporary, index, 600_000))
        os.rename(temporary, os.path.join(field.drop, name))

    def made(self):
        return dict(self.photos)

    def disturb(self):
        self.store.disturb()

    def finish(self):
        if not wait_for(lambda: all(field.spool_empty() for field in self.fields), 120, 0.5):
            raise Failure("the field relays did not deliver every photo to the bucket")

    def claims(self):
        """{photo key under field/: claim} of every claim in the bucket."""
        client = self.store.client()
        found = {}
        for page in client.get_paginator("list_objects_v2").paginate(Bucket="chaos", Prefix="field/.relay/claims/"):
            for item in page.get("Contents", []):
                body = client.get_object(Bucket="chaos", Key=item["Key"])["Body"].read()
                found[item["Key"][len("field/.relay/claims/"):-len(".json")]] = json.loads(body)
        return found

    def problems(self, desks):
        """Photos whose claim is missing, not done, or whose bytes two desks delivered."""
        found = []
        claims = self.claims()
        for name in sorted(self.photos):
            claim = claims.get(name)
            if not claim or claim.get("state") != "done":
                found.append("%s: claim %s" % (name, claim.get("state") if claim else "missing"))
        strays = sorted(set(claims) - set(self.photos))
        if strays:
            found.append("claims for photos never made: %s" % ", ".join(strays))
        delivered_by = [{record["fileName"] for record in json.loads(desk.run("history", "--json").stdout) if record["success"]}
                        for desk in desks]
        twice = sorted(set.intersection(*delivered_by)) if delivered_by else []
        if twice:
            found.append("taken by both desks: %s" % ", ".join(twice))
        for index, desk in enumerate(desks):
            if "may reach the gallery twice" in desk.log():
                found.append("desk %d lost a claim it had spooled (see its log)" % index)
        self.taken = "%s; downloads resumed after a kill: %d" % (
            " + ".join(str(len(names)) for names in delivered_by), sum(desk.log().count("download resumed at byte") for desk in desks))
        return found

    def stop(self):
        for field in self.fields:
            field.kill()
        self.proxy.kill()
        self.store.stop()


FTP_USER = ["--ftp-user", "camera:CHAOS_FTP_PASSWORD"], {"CHAOS_FTP_PASSWORD": "chaos-secret"}
HTTP_USER = ["--http-user", "field:CHAOS_HTTP_TOKEN"], {"CHAOS_HTTP_TOKEN": "chaos-http-token-0123"}


def ftp_store(port, name, path, pause=0.0):
    """A camera's STOR of one photo to relay's FTP receiver, `pause` seconds after each 64 kB (a
    camera's Wi-Fi); true once relay answered 226."""
    try:
        ftp = ftplib.FTP()
        ftp.connect("127.0.0.1", port, timeout=10)
        ftp.login("camera", "chaos-secret")
        with open(path, "rb") as f:
            answer = ftp.storbinary("STOR " + name, f, blocksize=65536, callback=lambda _: time.sleep(pause))
        try:
            ftp.quit()
        except (OSError, ftplib.Error):
            pass
        return answer.startswith("226")
    except (OSError, ftplib.Error, EOFError):
        return False


def inbox_put(port, name, path, pause=0.0):
    """A field relay's PUT of one photo to relay's HTTP inbox, with the same Idempotency-Key on
    every try and `pause` seconds after each 64 kB; true once relay answered 201 (or 200, an
    answer given before)."""
    with open(path, "rb") as f:
        body = f.read()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.putrequest("PUT", "/upload/" + name)
        for header, value in (("Authorization", "Bearer " + HTTP_USER[1]["CHAOS_HTTP_TOKEN"]), ("Idempotency-Key", "chaos-" + name),
                              ("Content-Type", "image/jpeg"), ("Content-Length", str(len(body)))):
            connection.putheader(header, value)
        connection.endheaders()
        for start in range(0, len(body), 65536):
            connection.send(body[start:start + 65536])
            time.sleep(pause)
        answer = connection.getresponse()
        answer.read()
        connection.close()
        return answer.status in (200, 201)
    except (OSError, http.client.HTTPException):
        return False


class Receiver:
    """One of relay's receivers as a sender sees it: the `relay run` flags that start it, what
    relay says once it listens, and how one photo is sent to it (`send`, true once relay said it
    has it), `pause` seconds after each 64 kB."""

    KINDS = {
        # A camera's FTP client, sending each photo until relay answers 226.
        "ftp": ("DSC", "--ftp", FTP_USER, r"ftp: listening", ftp_store),
        # A field relay or phone PUTting into the HTTP inbox, one Idempotency-Key per photo,
        # until relay answers 201 (or 200, an answer given before).
        "http": ("FLD", "--http", HTTP_USER, r"http: listening", inbox_put),
    }

    def __init__(self, kind, pause=0.0):
        self.prefix, flag, (user, self.env), self.ready, self.sender = self.KINDS[kind]
        self.port = free_port()
        self.argument = [flag, "127.0.0.1:%d" % self.port] + user
        self.pause = pause

    def send(self, name, path):
        return self.sender(self.port, name, path, self.pause)


# How many relays a source's cell runs, when more than one.
SOURCE_DESKS = {"s3inbox": InboxSource.desks}


def make_source(name, work):
    if name == "s3inbox":
        return InboxSource(work)
    if name in ("ptpip", "gphoto2"):
        return CameraSource(work, name)
    return FolderSource(work) if name == "folder" else SenderSource(work, Receiver(name))


# --- one cell --------------------------------------------------------------------------------


class Relay(chaos.Relay):
    """chaos.py's relay, with the environment its destinations need and its configs named."""

    def __init__(self, work, env):
        super().__init__(work)
        self.env.update(env)

    def start_with(self, arguments, configs):
        return self.start(*(arguments + [flag for config in configs for flag in ("--config", config)]))

    def interrupt(self, work, grace=60):
        """SIGINT, as Ctrl-C; False when relay is still running `grace` seconds later (its threads'
        stacks are then saved to WORK/relay-stacks.txt, and it is killed)."""
        if not self.proc or self.proc.poll() is not None:
            return True
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=grace)
            return True
        except subprocess.TimeoutExpired:
            with open(os.path.join(work, "relay-stacks.txt"), "w") as out:
                # Each thread's signal masks: a SIGINT blocked everywhere, or caught by nobody, shows here.
                for task in sorted(glob.glob("/proc/%d/task/*/status" % self.proc.pid)):
                    try:
                        with open(task) as status:
                            lines = [line for line in status if line.split(":")[0] in ("Name", "Pid", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")]
                        out.write("".join(lines) + "\n")
                    except OSError:
                        pass
                out.flush()
                if shutil.which("gdb"):
                    subprocess.run(["gdb", "-p", str(self.proc.pid), "-batch", "-ex", "thread apply all bt"],
                                   stdout=out, stderr=subprocess.STDOUT, timeout=120)
                else:
                    out.write("gdb is not installed: no stacks\n")
            self.kill()
            return False

    def spool_empty(self):
        result = subprocess.run([RELAY, "status", "--json"], env=self.env, capture_output=True, text=True, timeout=60)
        try:
            status = json.loads(result.stdout)
        except ValueError:
            return False
        return not status["queued"] and not status["inFlight"]


def account(made, stored, kind):
    """Per destination: delivered, lost, duplicates (content / key), strays, partials."""
    by_sha = {}
    for name, digest, _ in stored:
        by_sha.setdefault(digest, []).append(name)
    keys = [key for _, _, key in stored if key]
    made_shas = set(made.values())
    partial = [name for name, digest, _ in stored
               if digest not in made_shas and (os.path.basename(name).startswith(".") or name.endswith(".part"))]
    delivered = sum(1 for digest in made.values() if digest in by_sha)
    return {
        "delivered": delivered,
        "lost": len(made) - delivered,
        "dup_content": sum(len(names) - 1 for digest, names in by_sha.items() if digest in made_shas),
        "dup_key": len(keys) - len(set(keys)) if kind == "http" else 0,
        "strays": sum(1 for _, digest, _ in stored if digest not in made_shas) - len(partial),
        "partials": len(partial),
    }


def run_cell(source_name, destination_name, quick, seed):
    photos, kills = (8, 3) if quick else (24, 8)
    work = tempfile.mkdtemp(prefix="relay-matrix-%s-%s-" % (source_name, destination_name))
    rng = random.Random(seed)
    kinds = KINDS if destination_name == "all" else [destination_name]
    destinations = []
    source = None
    relays = []
    started = time.time()
    try:
        desks = SOURCE_DESKS.get(source_name, 1)
        destinations = [DESTINATION_TYPES[kind](work, relays=desks) if kind == "wp" else DESTINATION_TYPES[kind](work)
                        for kind in kinds]
        source = make_source(source_name, work)
        env = dict(getattr(source, "env", {}))
        for destination in destinations:
            env.update(destination.config()[1])
        # One relay, or a source's desks (the S3 inbox's two), each in a folder of its own.
        folders = [work] if desks == 1 else [os.path.join(work, "desk-%d" % i) for i in range(desks)]
        for folder in folders:
            os.makedirs(folder, exist_ok=True)
            relay = Relay(folder, env)
            relays.append(relay)
            for destination in destinations:
                relay.run("config", "add", *destination.config()[0])
            if hasattr(source, "configure"):
                source.configure(relay)
        arguments = source.argument
        for relay in relays:
            relay.start_with(arguments, [d.kind for d in destinations])
        for relay in relays:
            if not wait_for(lambda: source.ready in relay.log() or "connected" in relay.log(), 60, 0.2):
                raise Failure("relay did not start: " + relay.log()[-500:])
        # Kill moments over the shooting (of one relay, chosen at random), and one fault of each
        # destination (and of the source, when it has one) half way.
        span = photos * 0.4
        moments = sorted(rng.uniform(0.2, span) for _ in range(kills))
        disturbed = False
        shot = killed = 0
        clock = time.time()
        while shot < photos or killed < kills:
            now = time.time() - clock
            if killed < kills and now >= moments[killed]:
                relay = rng.choice(relays)
                relay.kill()
                killed += 1
                relay.start_with(arguments, [d.kind for d in destinations])
            elif not disturbed and now >= span / 2:
                for destination in destinations:
                    destination.disturb()
                if hasattr(source, "disturb"):
                    source.disturb()
                disturbed = True
            elif shot < photos and now >= shot * 0.4:
                shot += 1
                source.shoot(shot)
            else:
                time.sleep(0.02)
        source.finish()

        def stored(destination):
            """What the destination holds; a server still coming back is asked again."""
            for _ in range(30):
                try:
                    return destination.stored()
                except Exception:  # noqa: BLE001 - a restarted server answers errors for a moment
                    time.sleep(1)
            raise Failure("%s could not be listed" % destination.kind)

        def everything_delivered():
            made = source.made()
            if len(made) < photos:
                return False
            return all(account(made, stored(d), d.kind)["lost"] == 0 for d in destinations) and all(
                relay.spool_empty() for relay in relays)
        settled = wait_for(everything_delivered, 240 if quick else 600, 1.0)
        ended = all([relay.interrupt(folder) for relay, folder in zip(relays, folders)])
        made = source.made()
        figures = {d.kind: account(made, stored(d), d.kind) for d in destinations}
        # What a count of photos cannot show (a gallery's own structure: WordPress's uploads
        # folder and live post, Immich's album; the S3 inbox's claims and which desk took what).
        problems = ["%s: %s" % (d.kind, problem) for d in destinations if hasattr(d, "problems") for problem in d.problems()]
        if hasattr(source, "problems"):
            problems += ["%s: %s" % (source_name, problem) for problem in source.problems(relays)]
        ok = settled and ended and len(made) == photos and not problems and all(
            f["lost"] == 0 and f["dup_content"] == 0 and f["dup_key"] == 0 and f["strays"] == 0 and f["partials"] == 0
            for f in figures.values())
        faults = "%d SIGKILLs%s; %s" % (killed, "" if desks == 1 else " of %d desks" % desks,
                                        "; ".join(([source.fault] if hasattr(source, "fault") else []) + [d.fault for d in destinations]))
        if hasattr(source, "taken"):
            faults += "; photos taken by each desk: " + source.taken
        if problems:
            faults += "; " + "; ".join(problems)
        if not ended:
            faults += "; relay did not end within 60 s of SIGINT (stacks in relay-stacks.txt)"
        return {"made": len(made), "per": figures, "faults": faults, "result": "pass" if ok else "FAIL",
                "seconds": time.time() - started, "work": work}
    except Failure as error:
        return {"made": "-", "per": {}, "faults": "", "result": "FAIL: %s" % error, "seconds": time.time() - started, "work": work}
    finally:
        for relay in relays:
            relay.kill()
        if source:
            source.stop()
        for destination in destinations:
            destination.stop()


def cell_text(figures):
    return "%d / %d / %d·%d / %d / %d" % (figures["delivered"], figures["lost"], figures["dup_content"], figures["dup_key"],
                                         figures["strays"], figures["partials"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="8 photos and 3 kills a cell instead of 24 and 8")
    parser.add_argument("cells", nargs="*", help="SOURCE:DESTINATION (default: every cell)")
    args = parser.parse_args()
    cells = [tuple(cell.split(":", 1)) for cell in args.cells] or [(s, d) for s in SOURCES for d in DESTINATIONS]
    for source, destination in cells:
        if source not in SOURCES or destination not in DESTINATIONS:
            parser.error("unknown cell %s:%s (sources: %s; destinations: %s)" % (source, destination, ", ".join(SOURCES),
                                                                                 ", ".join(DESTINATIONS)))
    print("Each destination: delivered / lost / duplicates by content·key / strays / partial objects.")
    print()
    print("| source | destinations | photos made | %s | faults | result |" % " | ".join(KINDS))
    print("|" + " --- |" * (len(KINDS) + 5))
    failed = False
    for index, (source, destination) in enumerate(cells):
        figures = run_cell(source, destination, args.quick, seed=2026 + index)
        columns = [cell_text(figures["per"][kind]) if kind in figures["per"] else "" for kind in KINDS]
        print("| %s | %s | %s | %s | %s | %s (%.0f s) |" % (source, destination, figures["made"], " | ".join(columns),
                                                          figures["faults"], figures["result"], figures["seconds"]), flush=True)
        if figures["result"] != "pass":
            failed = True
            sys.stderr.write("%s:%s: work folder kept at %s\n" % (source, destination, figures["work"]))
        else:
            shutil.rmtree(figures["work"], ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
