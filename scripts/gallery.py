#!/usr/bin/env python3
"""The local gallery: an HTTP receiver for relay's uploads, used by the tests and the live demo.

Standard library only. It is deliberately strict about what it accepts (a hand-written
multipart/form-data parser, whole JPEGs only) so that tests catch a client that is merely
"accepted by a lenient server", and it can be told to misbehave (fail, drop, delay, reject)
so that relay's retry rules are exercised against a real peer.

    python3 scripts/gallery.py --dir DIR [--host 127.0.0.1] [--port 0] [fault flags]

When ready it prints exactly one line to stdout: `gallery listening on http://HOST:PORT`.

Endpoints:
  POST|PUT|PATCH /upload[/...]  multipart/form-data (one file part with a filename and
                                Content-Type image/jpeg, text fields before or after it) or a
                                raw image/jpeg body (name from the last path segment after
                                /upload/, else the X-File-Name header, else photo.jpg).
                                201 with {id, name, bytes, sha256, duplicate} for a new photo,
                                200 with the stored photo's id for a repeated Idempotency-Key
                                (or the same name and content): nothing new is stored.
  GET /api/photos               JSON list of stored photos.
  GET /api/requests             JSON log of upload requests (every request except the
                                gallery's own read endpoints and /api/*): method, path,
                                idempotencyKey, status ("pending" while being answered,
                                then the status code or "dropped"), time (arrival) and
                                answeredAt (Unix seconds), clientPort, headers (names in
                                lower case), bodyBytes, receivedBytes (so far, while
                                it arrives).
  GET|POST /api/faults          read or change the fault settings (JSON, camelCase names of
                                the flags below; only the given keys change).
  GET /photos/NAME              a stored photo.
  GET /                         an HTML page of thumbnails that reloads itself every 2 s.

Faults apply to upload requests, after the body has been read, in this order: --delay, then
stall (--stall-rate: held --stall-seconds, then dropped), throttle (--throttle-rate: 429 with
Retry-After), drop (--drop-first, --drop-rate), then fail (--fail-first, --fail-rate), then the
upload is checked and stored, then --lose-first (stored, but the answer is lost), then answered.
"First N attempts" count per Idempotency-Key since the gallery started. The index of stored
photos is kept in DIR/index.jsonl, so a restarted gallery still knows them (and their keys).
"""

import argparse
import hashlib
import html
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from peers import end_with_parent

MAX_BODY = 256 * 1024 * 1024
MAX_CHUNK_LINE = 1024
UPLOAD_METHODS = ("POST", "PUT", "PATCH")
FAULT_KEYS = {
    "failRate": float, "failStatus": int, "failFirst": int, "dropFirst": int,
    "dropRate": float, "retryAfter": int, "delay": float, "rejectName": str,
    "rejectStatus": int, "loseFirst": int, "stallRate": float, "stallSeconds": float,
    "throttleRate": float,
}


class BadRequest(Exception):
    """A request the gallery refuses; `status` is the HTTP answer (400 unless said)."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


class Dropped(Exception):
    """The connection is closed without an answer (a fault)."""


# ---------------------------------------------------------------------------------------------
# Parsing


def parse_header_params(value):
    """Splits `type; a=b; c="d"` into ('type', {'a': 'b', 'c': 'd'}), strictly."""
    params = {}
    i = value.find(";")
    main = (value if i < 0 else value[:i]).strip().lower()
    rest = "" if i < 0 else value[i + 1:]
    pos = 0
    while pos < len(rest):
        while pos < len(rest) and rest[pos] in " \t;":
            pos += 1
        if pos >= len(rest):
            break
        eq = rest.find("=", pos)
        if eq < 0:
            raise BadRequest("malformed header parameter in %r" % value)
        name = rest[pos:eq].strip().lower()
        if not name or any(c in name for c in ' \t";'):
            raise BadRequest("malformed header parameter name in %r" % value)
        pos = eq + 1
        if pos < len(rest) and rest[pos] == '"':
            pos += 1
            out = []
            while True:
                if pos >= len(rest):
                    raise BadRequest("unterminated quoted string in %r" % value)
                c = rest[pos]
                if c == "\\" and pos + 1 < len(rest):
                    out.append(rest[pos + 1])
                    pos += 2
                elif c == '"':
                    pos += 1
                    break
                else:
                    out.append(c)
                    pos += 1
            val = "".join(out)
        else:
            end = rest.find(";", pos)
            end = len(rest) if end < 0 else end
            val = rest[pos:end].strip()
            pos = end
        if name in params:
            raise BadRequest("duplicate header parameter %r" % name)
        params[name] = val
    return main, params


def parse_multipart(body, content_type):
    """Parses a multipart/form-data body strictly; returns a list of parts as dicts with
    name, filename (or None), contentType (or None) and data (bytes)."""
    _, params = parse_header_params(content_type)
    boundary = params.get("boundary")
    if not boundary:
        raise BadRequest("multipart/form-data without a boundary parameter")
    if len(boundary) > 70 or boundary.endswith(" "):
        raise BadRequest("invalid multipart boundary")
    dash = b"--" + boundary.encode("latin-1")
    if not body.startswith(dash + b"\r\n"):
        raise BadRequest("multipart body does not start with the boundary")
    delimiter = b"\r\n" + dash
    pos = len(dash) + 2
    parts = []
    while True:
        end = body.find(delimiter, pos)
        if end < 0:
            raise BadRequest("multipart body has no final delimiter")
        parts.append(parse_part(body[pos:end]))
        after = end + len(delimiter)
        tail = body[after:after + 2]
        if tail == b"--":
            break  # close delimiter; any epilogue is ignored, as RFC 2046 says
        if tail != b"\r\n":
            raise BadRequest("malformed multipart delimiter")
        pos = after + 2
    return parts


def parse_part(raw):
    head_end = raw.find(b"\r\n\r\n")
    if head_end < 0:
        if raw.startswith(b"\r\n"):
            head, data = b"", raw[2:]
        else:
            raise BadRequest("multipart part without a header/body separator")
    else:
        head, data = raw[:head_end], raw[head_end + 4:]
    headers = {}
    for line in head.split(b"\r\n") if head else []:
        if b":" not in line:
            raise BadRequest("malformed multipart part header")
        name, value = line.split(b":", 1)
        try:
            key = name.decode("ascii").strip().lower()
            text = value.decode("utf-8").strip()
        except UnicodeDecodeError:
            raise BadRequest("multipart part header is not valid text")
        if not key or key in headers:
            raise BadRequest("empty or repeated multipart part header")
        headers[key] = text
    disposition = headers.get("content-disposition")
    if disposition is None:
        raise BadRequest("multipart part without Content-Disposition")
    kind, params = parse_header_params(disposition)
    if kind != "form-data" or not params.get("name"):
        raise BadRequest("multipart part without a form-data name")
    filename = params.get("filename")
    if filename is not None:
        # curl and browsers escape these three characters this way inside the quoted name.
        for escaped, plain in (("%22", '"'), ("%0D", "\r"), ("%0A", "\n")):
            filename = filename.replace(escaped, plain)
    content_type = headers.get("content-type")
    return {
        "name": params["name"],
        "filename": filename,
        "contentType": content_type,
        "data": data,
    }


CUT = "cut"


def jpeg_image_end(data):
    """Where the primary image of a JPEG ends (just past its EOI), read by its structure (ITU-T
    T.81 annex B): segments skipped by their lengths, scans read to the marker that ends them.
    CUT when the structure is sound but the image is cut short; None when the structure cannot
    be followed."""
    if data[:2] != b"\xff\xd8":
        return None
    i, frame, scan = 2, False, False
    while True:
        if i + 1 >= len(data):
            return CUT
        if data[i] != 0xFF:
            return None
        code = data[i + 1]
        i += 2
        if code == 0xFF:
            i -= 1
            continue
        if code == 0xD9:
            return i if frame and scan else None
        if code in (0x00, 0xD8):
            return None
        if code == 0x01 or 0xD0 <= code <= 0xD7:
            continue
        if i + 2 > len(data):
            return CUT
        length = data[i] << 8 | data[i + 1]
        if length < 2:
            return None
        i += length
        if 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC):
            frame = True
        if code == 0xDA:
            if not frame:
                return None
            scan = True
            while True:  # entropy-coded data: FF 00 is data, FF D0-D7 a restart, FF FF fill
                i = data.find(b"\xff", i)
                if i < 0 or i + 1 >= len(data):
                    return CUT
                following = data[i + 1]
                if following == 0x00 or 0xD0 <= following <= 0xD7:
                    i += 2
                elif following == 0xFF:
                    i += 1
                else:
                    break


def is_whole_jpeg(data):
    """A whole JPEG: its image ends (what follows, a camera's trailer, is kept); a file whose
    structure cannot be read (the tests' filler fixtures) must end with FF D9."""
    if len(data) < 4 or data[:2] != b"\xff\xd8":
        return False
    end = jpeg_image_end(data)
    if end is None:
        return data[-2:] == b"\xff\xd9"
    return end != CUT


def safe_name(name, fallback="photo.jpg"):
    name = name.replace("\\", "/").split("/")[-1]
    out = "".join(c if (c.isascii() and (c.isalnum() or c in "._-")) else "_" for c in name)
    out = out.lstrip(".")[:120]
    return out if any(c not in "._-" for c in out) else fallback


# ---------------------------------------------------------------------------------------------
# State


class Gallery:
    """Everything the request threads share, under one lock."""

    def __init__(self, directory, faults, seed, rate_limit=None):
        self.photos_dir = os.path.join(directory, "photos")
        os.makedirs(self.photos_dir, exist_ok=True)
        self.lock = threading.Lock()
        self.photos = []
        self.by_key = {}
        self.attempts = {}
        self.requests = []
        # Session manifests POSTed to /manifests (relay's manifestUrl): the set is complete.
        self.manifests = []
        self.faults = faults
        self.random = random.Random(seed)
        self.next_id = 1
        # --rate-limit: the uplink, shared by every connection (a venue's upstream).
        self.rate_limit = rate_limit
        self.rate_lock = threading.Lock()
        self.link_free_at = 0.0
        # The index survives a restart, so a gallery that was down knows what it already has.
        self.index_path = os.path.join(directory, "index.jsonl")
        if os.path.exists(self.index_path):
            with open(self.index_path, encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        self.remember(json.loads(line))

    def remember(self, record):
        self.photos.append(record)
        if record.get("idempotencyKey"):
            self.by_key[record["idempotencyKey"]] = record
        self.next_id = max(self.next_id, int(record["id"]) + 1)

    # How long the uplink may have been idle and still carry at once what it could have carried
    # meanwhile: a router's queue, 20 ms deep. Without it, each wake-up a little late and each
    # piece's own handling would lose link time, and a busy uplink would carry less than its rate.
    QUEUE_SECONDS = 0.02

    def shape(self, count):
        """Waits as long as `count` bytes take on the shaped uplink (no wait without a limit)."""
        if not self.rate_limit:
            return
        with self.rate_lock:
            now = time.time()
            start = max(now - self.QUEUE_SECONDS, self.link_free_at)
            self.link_free_at = start + count / self.rate_limit
            wait = self.link_free_at - now
        if wait > 0:
            time.sleep(wait)

    def count_attempt(self, key):
        with self.lock:
            n = self.attempts.get(key, 0) + 1
            self.attempts[key] = n
            return n, dict(self.faults), self.random.random(), self.random.random(), self.random.random()

    def log_request(self, entry):
        with self.lock:
            entry["seq"] = len(self.requests) + 1
            self.requests.append(entry)

    def store(self, name, data, key, fields, parts):
        """Stores a photo unless it is a repeat; returns (record, duplicate)."""
        digest = hashlib.sha256(data).hexdigest()
        with self.lock:
            if key and key in self.by_key:
                return self.by_key[key], True
            name = safe_name(name)
            stem, ext = os.path.splitext(name)
            candidate, n = name, 1
            while True:
                existing = next((p for p in self.photos if p["name"] == candidate), None)
                if existing is None:
                    break
                if existing["sha256"] == digest:
                    if key:
                        self.by_key[key] = existing
                    return existing, True
                candidate = "%s-%d%s" % (stem, n, ext)
                n += 1
            path = os.path.join(self.photos_dir, candidate)
            temporary = path + ".part"
            with open(temporary, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(temporary, path)
            record = {
                "id": str(self.next_id),
                "name": candidate,
                "bytes": len(data),
                "sha256": digest,
                "idempotencyKey": key,
                "fields": fields,
                "parts": parts,
                "receivedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
            with open(self.index_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
                f.flush()
                os.fsync(f.fileno())
            self.remember(record)
            return record, False


# ---------------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The request log entry of the request being answered (read_body updates its receivedBytes).
    entry = None
    server_version = "relay-gallery/1"
    timeout = 120  # an idle kept-alive connection is closed after this

    # --- plumbing ---------------------------------------------------------------------------

    def log_message(self, fmt, *args):
        pass  # one line per request is written by log_line instead

    def log_line(self, status, extra=""):
        sys.stderr.write("%s %s %s -> %s%s\n" % (
            self.address_string(), self.command, self.path, status, extra))
        sys.stderr.flush()

    def send_json(self, status, obj, extra_headers=()):
        payload = json.dumps(obj, indent=None).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in extra_headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def handle_expect_100(self):
        """With --length-required, a chunked body is refused before it is sent, as nginx does."""
        chunked = (self.headers.get("Transfer-Encoding") or "").strip().lower() == "chunked"
        if chunked and self.server.gallery.faults.get("lengthRequired"):
            self.close_connection = True
            self.send_response(411)
            self.send_header("Content-Length", "0")
            self.send_header("Connection", "close")
            self.end_headers()
            return False
        return super().handle_expect_100()

    def read_body(self):
        """Reads the whole request body (Content-Length or chunked)."""
        encoding = self.headers.get("Transfer-Encoding")
        length = self.headers.get("Content-Length")
        if encoding is not None:
            if encoding.strip().lower() != "chunked" or length is not None:
                self.close_connection = True
                raise BadRequest("unsupported Transfer-Encoding %r" % encoding, 501)
            if self.server.gallery.faults.get("lengthRequired"):
                self.close_connection = True
                raise BadRequest("a Content-Length is required", 411)
            return self.read_chunked()
        if length is None:
            return b""
        if not length.strip().isdigit():
            self.close_connection = True
            raise BadRequest("invalid Content-Length")
        n = int(length)
        if n > MAX_BODY:
            self.close_connection = True
            raise BadRequest("body too large", 413)
        pieces, left = [], n
        while left > 0:
            # read1: what has arrived, so that receivedBytes follows the body as it comes.
            piece = self.rfile.read1(min(left, 64 * 1024))
            if not piece:
                break
            self.server.gallery.shape(len(piece))
            pieces.append(piece)
            left -= len(piece)
            if self.entry is not None:
                self.entry["receivedBytes"] = n - left
        data = b"".join(pieces)
        if len(data) != n:
            self.close_connection = True
            raise BadRequest("body shorter than Content-Length")
        return data

    def read_chunked(self):
        chunks, total = [], 0
        while True:
            line = self.rfile.readline(MAX_CHUNK_LINE + 1)
            if len(line) > MAX_CHUNK_LINE or not line.endswith(b"\r\n"):
                self.close_connection = True
                raise BadRequest("malformed chunk size line")
            size_text = line[:-2].split(b";", 1)[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                self.close_connection = True
                raise BadRequest("malformed chunk size")
            if size < 0 or total + size > MAX_BODY:
                self.close_connection = True
                raise BadRequest("body too large", 413)
            if size == 0:
                while True:  # trailers, then the empty line
                    trailer = self.rfile.readline(MAX_CHUNK_LINE + 1)
                    if trailer == b"\r\n":
                        return b"".join(chunks)
                    if not trailer.endswith(b"\r\n"):
                        self.close_connection = True
                        raise BadRequest("malformed chunked trailer")
            data = self.rfile.read(size)
            self.server.gallery.shape(len(data))
            if len(data) != size or self.rfile.read(2) != b"\r\n":
                self.close_connection = True
                raise BadRequest("truncated chunk")
            chunks.append(data)
            total += size

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise Dropped()

    # --- dispatch ---------------------------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def dispatch(self):
        gallery = self.server.gallery
        path = urllib.parse.urlsplit(self.path).path
        own_read = self.command in ("GET", "HEAD") and (
            path == "/" or path.startswith("/photos/"))
        entry = None
        if not own_read and not path.startswith("/api/"):
            entry = {
                "method": self.command,
                "path": self.path,
                "idempotencyKey": self.headers.get("Idempotency-Key"),
                "time": time.time(),
                "clientPort": self.client_address[1],
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "bodyBytes": None,
                "status": "pending",
            }
            # Logged on arrival, so a test can see a request that is still being answered.
            gallery.log_request(entry)
        self.entry = entry
        status = "?"
        try:
            status = self.route(gallery, path, entry)
        except Dropped:
            status = "dropped"
        except BadRequest as error:
            status = error.status
            try:
                self.send_json(error.status, {"error": str(error)})
            except OSError:
                status = "dropped"
                self.close_connection = True
        except (ConnectionError, socket.timeout):
            status = "dropped"
            self.close_connection = True
        finally:
            if entry is not None:
                with gallery.lock:
                    entry["status"] = status
                    entry["answeredAt"] = time.time()
            self.log_line(status, "" if entry is None or not entry["idempotencyKey"]
                          else " key=%s" % entry["idempotencyKey"])

    def route(self, gallery, path, entry):
        if path == "/api/photos" and self.command == "GET":
            with gallery.lock:
                photos = [dict(p) for p in gallery.photos]
            self.send_json(200, photos)
            return 200
        if path == "/api/requests" and self.command == "GET":
            with gallery.lock:
                requests = [dict(r) for r in gallery.requests]
            self.send_json(200, requests)
            return 200
        if path == "/api/manifests" and self.command == "GET":
            with gallery.lock:
                manifests = list(gallery.manifests)
            self.send_json(200, manifests)
            return 200
        if path == "/manifests" and self.command == "POST":
            return self.manifest(gallery, entry)
        if path == "/api/faults" and self.command in ("GET", "POST"):
            return self.faults(gallery)
        if path.startswith("/photos/") and self.command in ("GET", "HEAD"):
            return self.serve_photo(gallery, path[len("/photos/"):])
        if path == "/" and self.command in ("GET", "HEAD"):
            return self.serve_index(gallery)
        if path == "/upload" or path.startswith("/upload/"):
            if self.command not in UPLOAD_METHODS:
                body = self.read_body()
                entry["bodyBytes"] = len(body)
                self.send_json(405, {"error": "uploads use POST, PUT or PATCH"},
                               [("Allow", ", ".join(UPLOAD_METHODS))])
                return 405
            return self.upload(gallery, path, entry)
        body = self.read_body()
        if entry is not None:
            entry["bodyBytes"] = len(body)
        self.send_json(404, {"error": "no such endpoint"})
        return 404

    # --- endpoints --------------------------------------------------------------------------

    def manifest(self, gallery, entry):
        body = self.read_body()
        entry["bodyBytes"] = len(body)
        try:
            manifest = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise BadRequest("a manifest must be JSON")
        if not isinstance(manifest, dict) or not isinstance(manifest.get("photos"), list):
            raise BadRequest("a manifest is a JSON object with a photos list")
        with gallery.lock:
            gallery.manifests.append(manifest)
        self.send_json(201, {"photos": len(manifest["photos"])})
        return 201

    def faults(self, gallery):
        if self.command == "POST":
            body = self.read_body()
            try:
                changes = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise BadRequest("faults must be a JSON object")
            if not isinstance(changes, dict):
                raise BadRequest("faults must be a JSON object")
            cleaned = {}
            for key, value in changes.items():
                kind = FAULT_KEYS.get(key)
                if kind is None:
                    raise BadRequest("unknown fault %r (known: %s)" % (key, ", ".join(sorted(FAULT_KEYS))))
                if value is not None and not (isinstance(value, kind) or (kind is float and isinstance(value, int))):
                    raise BadRequest("fault %r must be %s or null" % (key, kind.__name__))
                if isinstance(value, bool):
                    raise BadRequest("fault %r must be %s or null" % (key, kind.__name__))
                cleaned[key] = value
            with gallery.lock:
                gallery.faults.update(cleaned)
        with gallery.lock:
            current = dict(gallery.faults)
        self.send_json(200, current)
        return 200

    def upload(self, gallery, path, entry):
        body = self.read_body()
        entry["bodyBytes"] = len(body)
        key = self.headers.get("Idempotency-Key")
        attempt, faults, roll_drop, roll_fail, roll_other = gallery.count_attempt(key)

        if faults.get("delay"):
            time.sleep(faults["delay"])
        stall, throttle = faults.get("stallRate") or 0, faults.get("throttleRate") or 0
        if roll_other < stall:
            time.sleep(faults.get("stallSeconds") or 60)
            self.drop()
        if roll_other - stall < throttle and roll_other >= stall:
            after = faults.get("retryAfter")
            self.send_json(429, {"error": "injected throttle", "attempt": attempt},
                           [("Retry-After", str(1 if after is None else after))])
            return 429
        if (faults.get("dropFirst") and attempt <= faults["dropFirst"]) or \
                (faults.get("dropRate") and roll_drop < faults["dropRate"]):
            self.drop()
        if (faults.get("failFirst") and attempt <= faults["failFirst"]) or \
                (faults.get("failRate") and roll_fail < faults["failRate"]):
            status = faults.get("failStatus") or 500
            extra = []
            if status in (429, 503) and faults.get("retryAfter") is not None:
                extra.append(("Retry-After", str(faults["retryAfter"])))
            self.send_json(status, {"error": "injected failure", "attempt": attempt}, extra)
            return status

        content_type = self.headers.get("Content-Type", "")
        kind, _ = parse_header_params(content_type) if content_type else ("", {})
        fields, parts = {}, []
        raw_taken = False
        if kind == "multipart/form-data":
            file_part = None
            for part in parse_multipart(body, content_type):
                parts.append(part["name"])
                if part["filename"] is not None:
                    if file_part is not None:
                        raise BadRequest("more than one file part")
                    file_part = part
                else:
                    try:
                        fields[part["name"]] = part["data"].decode("utf-8")
                    except UnicodeDecodeError:
                        raise BadRequest("text field %r is not UTF-8" % part["name"])
            if file_part is None:
                raise BadRequest("no file part (a part with a filename)")
            if not file_part["filename"]:
                raise BadRequest("file part with an empty filename")
            part_type = (file_part["contentType"] or "").split(";")[0].strip().lower()
            raw_taken = faults.get("acceptRaw") and part_type.startswith("image/x-")
            if part_type != "image/jpeg" and not raw_taken:
                raise BadRequest("file part Content-Type must be image/jpeg, got %r" % file_part["contentType"])
            name, data = file_part["filename"], file_part["data"]
        elif kind == "image/jpeg":
            segment = urllib.parse.unquote(path[len("/upload/"):]) if path.startswith("/upload/") else ""
            name = segment.split("/")[-1] or self.headers.get("X-File-Name") or "photo.jpg"
            data = body
        else:
            raise BadRequest("Content-Type must be multipart/form-data or image/jpeg, got %r" % content_type, 415)
        if not raw_taken and not is_whole_jpeg(data):
            raise BadRequest("the file is not a whole JPEG (must start FF D8 and its image end with FF D9)")
        reject = faults.get("rejectName")
        if reject and reject in name:
            status = faults.get("rejectStatus") or 400
            self.send_json(status, {"error": "file name rejected: %s" % name})
            return status

        record, duplicate = gallery.store(name, data, key, fields, parts)
        if faults.get("loseFirst") and attempt <= faults["loseFirst"]:
            self.drop()
        answer = {k: record[k] for k in ("id", "name", "bytes", "sha256")}
        answer["duplicate"] = duplicate
        status = 200 if duplicate else 201
        self.send_json(status, answer)
        return status

    def serve_photo(self, gallery, name):
        name = urllib.parse.unquote(name)
        with gallery.lock:
            known = any(p["name"] == name for p in gallery.photos)
        if not known:
            self.send_json(404, {"error": "no such photo"})
            return 404
        with open(os.path.join(gallery.photos_dir, name), "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return 200

    def serve_index(self, gallery):
        with gallery.lock:
            photos = list(reversed(gallery.photos))
        items = "\n".join(
            '<figure><a href="/photos/{0}"><img src="/photos/{0}" alt="{1}" loading="lazy"></a>'
            "<figcaption>{1}</figcaption></figure>".format(
                urllib.parse.quote(p["name"]), html.escape(p["name"]))
            for p in photos)
        page = (
            "<!doctype html><html><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"refresh\" content=\"2\"><title>relay gallery</title><style>"
            "body{font-family:sans-serif;background:#111;color:#eee;margin:1em}"
            "main{display:flex;flex-wrap:wrap;gap:8px}figure{margin:0}"
            "img{height:180px;display:block}figcaption{font-size:12px}</style></head><body>"
            "<h1>relay gallery</h1><p>%d photos</p><main>%s</main></body></html>"
        ) % (len(photos), items)
        data = page.encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return 200


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description="Local photo gallery for relay's tests and demo.")
    parser.add_argument("--dir", required=True, help="where photos are stored (DIR/photos)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--seed", type=int, default=0, help="seed for the random faults")
    parser.add_argument("--fail-rate", type=float, default=0.0, help="fraction of uploads answered with --fail-status")
    parser.add_argument("--fail-first", type=int, default=0, help="fail the first N attempts of each Idempotency-Key")
    parser.add_argument("--fail-status", type=int, default=500)
    parser.add_argument("--drop-first", type=int, default=0, help="drop the connection on the first N attempts of each key")
    parser.add_argument("--drop-rate", type=float, default=0.0, help="fraction of uploads dropped without an answer")
    parser.add_argument("--lose-first", type=int, default=0, help="store, then drop the answer, on the first N attempts of each key")
    parser.add_argument("--retry-after", type=int, default=None, help="Retry-After seconds on injected 429/503 answers")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering an upload")
    parser.add_argument("--rate-limit", type=float, default=None,
                        help="bytes per second all uploads share (an uplink's speed); e.g. 10000000")
    parser.add_argument("--stall-rate", type=float, default=0.0, help="fraction of uploads held --stall-seconds, then dropped")
    parser.add_argument("--stall-seconds", type=float, default=60.0)
    parser.add_argument("--throttle-rate", type=float, default=0.0, help="fraction of uploads answered 429 with Retry-After")
    parser.add_argument("--length-required", action="store_true",
                        help="answer 411 to a body without a Content-Length (chunked), as some servers do")
    parser.add_argument("--reject-name", default=None, help="reject files whose name contains this")
    parser.add_argument("--reject-status", type=int, default=400)
    parser.add_argument("--accept-raw", action="store_true",
                        help="take RAW files too (a file part of type image/x-…), stored as sent")
    args = parser.parse_args()

    faults = {
        "failRate": args.fail_rate, "failStatus": args.fail_status, "failFirst": args.fail_first,
        "dropFirst": args.drop_first, "dropRate": args.drop_rate, "retryAfter": args.retry_after,
        "delay": args.delay, "rejectName": args.reject_name, "rejectStatus": args.reject_status,
        "loseFirst": args.lose_first, "stallRate": args.stall_rate, "stallSeconds": args.stall_seconds,
        "throttleRate": args.throttle_rate, "acceptRaw": args.accept_raw,
        "lengthRequired": args.length_required,
    }
    end_with_parent()
    server = Server((args.host, args.port), Handler)
    server.gallery = Gallery(args.dir, faults, args.seed, args.rate_limit)
    host = args.host if ":" not in args.host else "[%s]" % args.host
    print("gallery listening on http://%s:%d" % (host, server.server_address[1]), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
