#!/usr/bin/env python3
"""A stand-in for an Immich server's upload and album API, for relay's Immich destination tests.

STATE: groundwork for issue 51 (branch immich-standin). Standard library only. It mirrors the
contract relay depends on, as read in Immich's own server code (github.com/immich-app/immich,
read through the public code index, not run): no Immich runs here, so this is the peer the
tests talk to, and every handler below names the Immich file and function it mirrors. What it
does NOT do is listed under "Not mirrored" at the end of this docstring.

Sources (path @ commit read):
  server/src/controllers/asset-media.controller.ts  @ be1030980e00eb2128cbbc6e326a77517e6a571c
      uploadAsset (@Post(), lines 53-77 at that commit): 201, or 200 when the service says
      'duplicate'; checkExistingAssets (@Post('exist')) and checkBulkUpload
      (@Post('bulk-upload-check')), both @HttpCode(200). Newer versions (v2, seen in the index
      as forks' copies) add @Authenticated({ permission: Permission.AssetUpload, sharedLink })
      and the same answers.
  server/src/middleware/asset-upload.interceptor.ts @ 01cc6522119c7d07f9149d23154378e09572a52f
      (and its v2 form: `res.status(200); return of({ status: DUPLICATE, id })`): the
      x-immich-checksum header is looked up BEFORE the body is parsed; a hit answers 200
      {id, status:'duplicate'} with the stored asset's id. The header is never compared with
      the bytes: it is only a lookup key.
  server/src/middleware/file-upload.interceptor.ts  @ 054aa8e386027a6dc3f61e7af10f47bdb5cad03e
      multer fields assetData (max 1) and sidecarData (max 1); SHA-1 of the assetData bytes
      computed by the server while it streams (handleFile).
  server/src/services/asset-media.service.ts        @ 0069e6a71da53cabbffd35971918fb58092d0969
      canUploadFile (extension of body.filename || part filename must be an asset type, else
      400 'Unsupported file type NAME'), uploadAsset -> {id, status:'created'};
      handleUploadError: the (ownerId, checksum) unique constraint -> {status:'duplicate', id};
      requireQuota -> 400 'Quota has been exceeded!'; bulkUploadCheck -> results[] of
      {id, action:'accept'} | {id, action:'reject', reason:'duplicate', assetId, isTrashed};
      checkExistingAssets -> {existingIds} by (deviceId, deviceAssetIds).
  server/src/dtos/asset-media.dto.ts                @ be1030980e00eb2128cbbc6e326a77517e6a571c
      (v2 form seen in the index adds `filename`, `visibility`, `metadata`): deviceAssetId,
      deviceId (IsNotEmpty IsString), fileCreatedAt, fileModifiedAt (ValidateDate: ISO 8601
      string), duration? (string), isFavorite? ('true'/'false'), livePhotoVideoId? (uuid).
  server/src/validation.ts                          @ 0330d0119a182bcc20226e8e52e193cad5deeb69
      ValidateDate: not an ISO date string -> 400 '<key> must be a date string';
      FileNotEmptyValidator: 'Field(s) assetData should not be empty'; UUIDParamDto (uuid v4).
  server/src/utils/request.ts                       @ 1f4563e749461177d2dc834de0079d31521933bf
      fromChecksum: base64 when the text is 28 characters long, else hex.
  server/src/utils/mime-types.ts                    @ 06c83fa6a8d2198f3973843ce0975cb4d8183edc
      the asset extensions (image + video), copied below as data.
  server/src/services/auth.service.ts               @ 037072b5cccc96e13d6af3bbd20ded97ddb650b8
      validate: x-api-key header or ?apiKey=; none -> 401 'Authentication required';
      unknown -> 401 'Invalid API key'; a key without the route's permission -> 403
      'Missing required permission: <perm>'.
  server/src/middleware/global-exception.filter.ts  @ 8ab33b40dabab988923ca73644cea35e6959daa0
      error JSON: {message, error, statusCode, correlationId} (Nest's HttpException body plus
      statusCode and correlationId).
  server/src/controllers/album.controller.ts        @ 037072b5cccc96e13d6af3bbd20ded97ddb650b8
  server/src/services/album.service.ts              @ 037072b5cccc96e13d6af3bbd20ded97ddb650b8
      GET /albums (own albums; ?assetId= filters), POST /albums {albumName, assetIds?} (201),
      GET /albums/:id, PUT /albums/:id/assets {ids} -> BulkIdResponseDto[] (200);
      an unknown album -> 400 'Album not found'. Album names are NOT unique in Immich.
  server/src/utils/asset.util.ts                    @ 01809e3046e042f5fc8991919e988677311b7ea6
      addAssets: per id {id, success:true} | {id, success:false, error:'duplicate'} (already
      in the album) | {id, success:false, error:'no_permission'} (not the caller's, or unknown).
  server/src/dtos/asset-ids.response.dto.ts         @ 11755e5a53ea488626c401b6331f224080d5fe4f
      BulkIdErrorReason: duplicate, no_permission, not_found, unknown, validation.

    python3 scripts/immich_standin.py --dir DIR --api-key KEY [--api-key KEY2 ...]
                                      [--host 127.0.0.1] [--port 0] [fault flags]

Each --api-key is its own user (de-duplication is per user, as in Immich). A key may be given
as KEY:PERM,PERM to hold only those permissions (e.g. `k:asset.upload` cannot create albums).
When ready it prints exactly one line: `immich stand-in listening on http://HOST:PORT`.

Routes (all JSON; the Immich routes answer errors in Immich's shape):
  POST /api/assets                    multipart upload (assetData, sidecarData, text fields)
  POST /api/assets/bulk-upload-check  {assets:[{id, checksum}]} -> {results:[...]}
  POST /api/assets/exist              {deviceId, deviceAssetIds:[...]} -> {existingIds:[...]}
  GET  /api/assets/:id                a subset of AssetResponseDto (id, deviceAssetId, ...)
  GET  /api/albums                    own albums (?assetId=UUID: those holding it)
  POST /api/albums                    {albumName, description?, assetIds?} -> 201 album
  GET  /api/albums/:id                one album, with its assets' ids in assetIds (stand-in
                                      field) and assetCount
  PUT  /api/albums/:id/assets         {ids:[...]} -> [{id, success, error?}]
  GET  /api/server/ping               {res:'pong'} (no auth, as in Immich's server.controller)
  GET  /api/users/me                  {id, email, name} (a key check)
  GET  /__standin/state               test only: {assets, albums, requests, attempts, faults}
  GET|POST /__standin/faults          read or change the faults (camelCase keys of the flags)

Faults apply to POST /api/assets after auth and after the body is read, in this order:
--delay, --drop-first (cut, nothing stored), --fail-first/--fail-rate (answer --fail-status,
nothing stored), then the upload is handled as Immich would, then --lose-first (stored, then
the connection is cut without an answer). "First N" counts attempts per deviceAssetId since
the stand-in started (relay's key), like gallery.py counts per Idempotency-Key.
--album-fail-first N answers the first N PUT /api/albums/:id/assets with --fail-status.
--quota BYTES gives every user a storage quota (400 'Quota has been exceeded!').
--max-body BYTES answers 413 with an nginx-style HTML page, as a reverse proxy in front of
Immich would (Immich itself sets no upload size limit; its multer has no `limits`).

State (assets, albums) is kept in DIR/state.json and the files in DIR/upload/USER/, so a
restarted stand-in knows what it holds, as a real Immich (a database) would.

Not mirrored (say so if a test depends on one):
  - Immich answers a checksum-header hit before reading the body (the interceptor runs before
    multer); the stand-in reads the whole body first, then answers the same 200.
  - Validation messages are class-validator's texts for the fields relay sends; a newer
    zod-based Immich words them differently (status 400 is the same).
  - No thumbnails, metadata extraction, shared links, sessions, trash endpoints; an asset's
    isTrashed can only be set through POST /__standin/trash {id} (so a test can show that a
    trashed asset still answers 'duplicate', as Immich's lookup ignores deletedAt).
  - Sidecar files are stored but not checked beyond their extension (.xmp).
"""

import argparse
import base64
import datetime
import hashlib
import json
import os
import random
import re
import socket
import string
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gallery import BadRequest as MultipartError, parse_multipart  # noqa: E402  (strict parser)
from peers import end_with_parent  # noqa: E402

MAX_CHUNK_LINE = 1024
HARD_MAX_BODY = 2 * 1024 * 1024 * 1024

# server/src/utils/mime-types.ts @ 06c83fa6: mimeTypes.isAsset = image or video extension.
IMAGE_EXTENSIONS = {
    ".3fr", ".ari", ".arw", ".cap", ".cin", ".cr2", ".cr3", ".crw", ".dcr", ".dng", ".erf",
    ".fff", ".iiq", ".k25", ".kdc", ".mrw", ".nef", ".nrw", ".orf", ".ori", ".pef", ".psd",
    ".raf", ".raw", ".rw2", ".rwl", ".sr2", ".srf", ".srw", ".x3f",
    ".avif", ".bmp", ".gif", ".heic", ".heif", ".hif", ".insp", ".jpe", ".jpeg", ".jpg",
    ".jxl", ".png", ".svg", ".tif", ".tiff", ".webp",
}
VIDEO_EXTENSIONS = {
    ".3gp", ".3gpp", ".avi", ".flv", ".insv", ".m2ts", ".m4v", ".mkv", ".mov", ".mp4", ".mpe",
    ".mpeg", ".mpg", ".mts", ".vob", ".webm", ".wmv",
}
SIDECAR_EXTENSIONS = {".xmp"}
VISIBILITIES = ("archive", "timeline", "hidden", "locked")  # AssetVisibility (v2 DTO)

FAULT_KEYS = {
    "dropFirst": int, "failFirst": int, "failRate": float, "failStatus": int, "loseFirst": int,
    "delay": float, "albumFailFirst": int, "quota": int, "maxBody": int,
}

UUID_V4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$", re.I)
HTTP_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
                413: "Payload Too Large", 500: "Internal Server Error", 502: "Bad Gateway",
                503: "Service Unavailable", 429: "Too Many Requests"}


class ImmichError(Exception):
    """An answer in the shape of Immich's GlobalExceptionFilter: {message, error, statusCode,
    correlationId} (server/src/middleware/global-exception.filter.ts @ 8ab33b40)."""

    def __init__(self, status, message):
        super().__init__(message if isinstance(message, str) else "; ".join(message))
        self.status = status
        self.message = message


class Dropped(Exception):
    """The connection is closed without an answer (a fault)."""


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def node_hex(text):
    """Buffer.from(text, 'hex') as Node decodes it: pairs up to the first that is not hex."""
    out = bytearray()
    for i in range(0, len(text) - 1, 2):
        pair = text[i:i + 2]
        if not all(c in string.hexdigits for c in pair):
            break
        out.append(int(pair, 16))
    return bytes(out)


def from_checksum(text):
    """server/src/utils/request.ts fromChecksum: base64 when 28 characters long, else hex."""
    if len(text) == 28:
        try:
            return base64.b64decode(text + "=" * (-len(text) % 4), validate=False)
        except (ValueError, base64.binascii.Error):
            return b""
    return node_hex(text)


def parse_iso_date(key, value):
    """server/src/validation.ts ValidateDate: missing -> class-validator's two messages; not an
    ISO 8601 string (isDateString) -> 400 '<key> must be a date string'. Returns the date as
    Date.toISOString() gives it."""
    text = value.strip()
    if not re.match(r"^\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?$", text):
        raise ImmichError(400, "%s must be a date string" % key)
    candidate = text.replace("z", "Z").replace("t", "T")
    if candidate.endswith("Z"):
        candidate = candidate[:-1] + "+00:00"
    if re.search(r"[+-]\d{4}$", candidate):
        candidate = candidate[:-2] + ":" + candidate[-2:]
    elif re.search(r"[+-]\d{2}$", candidate) and "T" in candidate:
        candidate += ":00"
    try:
        parsed = datetime.datetime.fromisoformat(candidate)
    except ValueError:
        raise ImmichError(400, "%s must be a date string" % key)
    if parsed.tzinfo is None:
        # JavaScript's Date reads a date-time without an offset as local time; the stand-in
        # runs in UTC in the tests, so it reads it as UTC (documented, not mirrored exactly).
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    parsed = parsed.astimezone(datetime.timezone.utc)
    return parsed.isoformat(timespec="milliseconds").replace("+00:00", "Z")


# ---------------------------------------------------------------------------------------------
# State


class Store:
    """Users (one per API key), assets and albums, under one lock; saved to DIR/state.json."""

    def __init__(self, directory, keys, faults, seed):
        self.directory = directory
        self.upload_dir = os.path.join(directory, "upload")
        os.makedirs(self.upload_dir, exist_ok=True)
        self.lock = threading.Lock()
        self.faults = faults
        self.random = random.Random(seed)
        self.users = {}  # key -> user
        for index, (key, permissions) in enumerate(keys):
            user_id = str(uuid.uuid5(uuid.NAMESPACE_URL, "relay-immich-standin/" + key))
            self.users[key] = {
                "id": user_id, "email": "user%d@standin.local" % (index + 1),
                "name": "Stand-in user %d" % (index + 1), "permissions": permissions,
                "quotaUsageInBytes": 0,
            }
        self.assets = {}  # id -> asset record
        self.albums = {}  # id -> album record
        self.requests = []
        self.attempts = {}
        self.album_attempts = 0
        self.state_path = os.path.join(directory, "state.json")
        if os.path.exists(self.state_path):
            with open(self.state_path, encoding="utf-8") as f:
                saved = json.load(f)
            self.assets = {a["id"]: a for a in saved.get("assets", [])}
            self.albums = {a["id"]: a for a in saved.get("albums", [])}
            for user in self.users.values():
                user["quotaUsageInBytes"] = sum(
                    a["bytes"] for a in self.assets.values() if a["ownerId"] == user["id"])

    def save(self):
        """Writes the state atomically (called with the lock held)."""
        temporary = self.state_path + ".part"
        with open(temporary, "w", encoding="utf-8") as f:
            json.dump({"assets": list(self.assets.values()), "albums": list(self.albums.values())}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, self.state_path)

    def asset_by_checksum(self, owner_id, checksum):
        """AssetRepository.getUploadAssetIdByChecksum: owner and checksum, trashed included."""
        for asset in self.assets.values():
            if asset["ownerId"] == owner_id and asset["checksumHex"] == checksum.hex():
                return asset
        return None

    def count_attempt(self, key):
        with self.lock:
            n = self.attempts.get(key, 0) + 1
            self.attempts[key] = n
            return n, dict(self.faults), self.random.random()


# ---------------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "immich-standin/1"
    timeout = 120

    def log_message(self, fmt, *args):
        pass

    # --- plumbing ---------------------------------------------------------------------------

    def send_json(self, status, obj, extra_headers=()):
        payload = json.dumps(obj).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in extra_headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def send_error_json(self, error):
        # global-exception.filter.ts: {...HttpException body, statusCode, correlationId}
        body = {"message": error.message, "error": HTTP_REASONS.get(error.status, "Error"),
                "statusCode": error.status,
                "correlationId": "".join(random.choice(string.ascii_letters + string.digits) for _ in range(8))}
        self.send_json(error.status, body)

    def read_body(self, limit):
        encoding = self.headers.get("Transfer-Encoding")
        length = self.headers.get("Content-Length")
        if encoding is not None:
            if encoding.strip().lower() != "chunked" or length is not None:
                self.close_connection = True
                raise ImmichError(400, "unsupported Transfer-Encoding")
            return self.read_chunked(limit)
        if length is None:
            return b""
        if not length.strip().isdigit():
            self.close_connection = True
            raise ImmichError(400, "invalid Content-Length")
        n = int(length)
        if limit is not None and n > limit:
            self.too_large()
        data = self.rfile.read(n)
        if len(data) != n:
            self.close_connection = True
            raise Dropped()
        return data

    def read_chunked(self, limit):
        chunks, total = [], 0
        while True:
            line = self.rfile.readline(MAX_CHUNK_LINE + 1)
            if len(line) > MAX_CHUNK_LINE or not line.endswith(b"\r\n"):
                self.close_connection = True
                raise ImmichError(400, "malformed chunk size line")
            try:
                size = int(line[:-2].split(b";", 1)[0].strip(), 16)
            except ValueError:
                self.close_connection = True
                raise ImmichError(400, "malformed chunk size")
            if limit is not None and total + size > limit:
                self.too_large()
            if size == 0:
                while True:
                    trailer = self.rfile.readline(MAX_CHUNK_LINE + 1)
                    if trailer == b"\r\n":
                        return b"".join(chunks)
                    if not trailer.endswith(b"\r\n"):
                        self.close_connection = True
                        raise ImmichError(400, "malformed chunked trailer")
            data = self.rfile.read(size)
            if len(data) != size or self.rfile.read(2) != b"\r\n":
                self.close_connection = True
                raise Dropped()
            chunks.append(data)
            total += size

    def too_large(self):
        """--max-body: what nginx's client_max_body_size answers (HTML, then closes)."""
        page = (b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
                b"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n"
                b"</body>\r\n</html>\r\n")
        self.close_connection = True
        self.send_response(413)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(page)
        raise Dropped()  # already answered

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        raise Dropped()

    def read_json(self):
        body = self.read_body(HARD_MAX_BODY)
        if not body:
            return {}
        try:
            value = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            # Nest's body-parser: a malformed JSON body is a 400.
            raise ImmichError(400, "Unexpected token in JSON")
        return value

    def authenticate(self, permission):
        """auth.service.ts validate/validateApiKey/authenticate @ 037072b5: x-api-key header or
        ?apiKey= query; none -> 401 'Authentication required'; unknown -> 401 'Invalid API
        key'; a key lacking the route's permission -> 403 'Missing required permission: P'."""
        store = self.server.store
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        key = self.headers.get("x-api-key") or (query.get("apiKey") or [None])[0]
        if not key:
            raise ImmichError(401, "Authentication required")
        user = store.users.get(key)
        if user is None:
            raise ImmichError(401, "Invalid API key")
        granted = user["permissions"]
        if permission and granted is not None and "all" not in granted and permission not in granted:
            raise ImmichError(403, "Missing required permission: %s" % permission)
        return user

    # --- dispatch ---------------------------------------------------------------------------

    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_PATCH(self):
        self.dispatch()

    def dispatch(self):
        store = self.server.store
        path = urllib.parse.urlsplit(self.path).path
        entry = {"method": self.command, "path": self.path, "time": time.time(), "status": "pending",
                 "headers": {k.lower(): v for k, v in self.headers.items() if k.lower() != "x-api-key"}}
        if not path.startswith("/__standin/"):
            with store.lock:
                entry["seq"] = len(store.requests) + 1
                store.requests.append(entry)
        status = "?"
        try:
            status = self.route(store, path, entry)
        except Dropped:
            status = "dropped"
        except ImmichError as error:
            status = error.status
            try:
                self.send_error_json(error)
            except OSError:
                status = "dropped"
                self.close_connection = True
        except (ConnectionError, socket.timeout):
            status = "dropped"
            self.close_connection = True
        finally:
            with store.lock:
                entry["status"] = status
                entry["answeredAt"] = time.time()
            sys.stderr.write("%s %s -> %s\n" % (self.command, self.path, status))
            sys.stderr.flush()

    def route(self, store, path, entry):
        method = self.command
        if path == "/__standin/state" and method == "GET":
            return self.standin_state(store)
        if path == "/__standin/faults" and method in ("GET", "POST"):
            return self.standin_faults(store)
        if path == "/__standin/trash" and method == "POST":
            return self.standin_trash(store)
        if path == "/api/server/ping" and method == "GET":
            # server.controller.ts pingServer: no auth, {res: 'pong'}.
            self.send_json(200, {"res": "pong"})
            return 200
        if path == "/api/users/me" and method == "GET":
            return self.users_me(store)
        if path == "/api/assets" and method == "POST":
            return self.upload_asset(store, entry)
        if path == "/api/assets/bulk-upload-check" and method == "POST":
            return self.bulk_upload_check(store)
        if path == "/api/assets/exist" and method == "POST":
            return self.check_existing_assets(store)
        match = re.match(r"^/api/assets/([^/]+)$", path)
        if match and method == "GET":
            return self.get_asset(store, match.group(1))
        if path == "/api/albums" and method == "GET":
            return self.get_all_albums(store)
        if path == "/api/albums" and method == "POST":
            return self.create_album(store)
        match = re.match(r"^/api/albums/([^/]+)$", path)
        if match and method == "GET":
            return self.get_album_info(store, match.group(1))
        match = re.match(r"^/api/albums/([^/]+)/assets$", path)
        if match and method == "PUT":
            return self.add_assets_to_album(store, match.group(1))
        self.read_body(HARD_MAX_BODY)
        # Nest's NotFoundException for an unknown route.
        raise ImmichError(404, "Cannot %s %s" % (method, path))

    # --- Immich routes ----------------------------------------------------------------------

    def users_me(self, store):
        # user.controller.ts getMyUser (GET /users/me): the key's user (subset of the fields).
        user = self.authenticate("user.read")
        self.send_json(200, {"id": user["id"], "email": user["email"], "name": user["name"]})
        return 200

    def upload_asset(self, store, entry):
        """POST /api/assets: asset-media.controller.ts uploadAsset (@Post(), L53-77 @ be103098),
        with its interceptors in order: auth guard, AssetUploadInterceptor (checksum header),
        FileUploadInterceptor (multer, canUploadFile, SHA-1), ParseFilePipe
        (FileNotEmptyValidator(['assetData'])), the DTO's validation, then
        asset-media.service.ts uploadAsset / handleUploadError @ 0069e6a7."""
        user = self.authenticate("asset.upload")
        limit = store.faults.get("maxBody")
        body = self.read_body(limit if limit else HARD_MAX_BODY)
        entry["bodyBytes"] = len(body)

        content_type = self.headers.get("Content-Type", "")
        fields, file_parts, parse_error = {}, [], None
        if content_type.lower().startswith("multipart/form-data"):
            try:
                parts = parse_multipart(body, content_type)
            except MultipartError as error:
                # multer/busboy: a malformed multipart body is a 400 ('Malformed part header',
                # 'Unexpected end of form', ...), raised only after the checksum header lookup.
                parts, parse_error = [], ImmichError(400, str(error))
            for part in parts:
                if part["filename"] is None:
                    try:
                        fields[part["name"]] = part["data"].decode("utf-8")
                    except UnicodeDecodeError:
                        parse_error = parse_error or ImmichError(400, "field %s is not UTF-8" % part["name"])
                    continue
                # canUploadFile sees body.filename only if that field came BEFORE this part
                # (multer's fileFilter runs with the fields parsed so far).
                file_parts.append((part, fields.get("filename")))
        entry["deviceAssetId"] = fields.get("deviceAssetId")
        header = self.headers.get("x-immich-checksum")
        entry["checksumHeader"] = header

        key = fields.get("deviceAssetId") or "(none)"
        attempt, faults, roll = store.count_attempt(key)
        entry["attempt"] = attempt
        if faults.get("delay"):
            time.sleep(faults["delay"])
        if faults.get("dropFirst") and attempt <= faults["dropFirst"]:
            self.drop()
        if (faults.get("failFirst") and attempt <= faults["failFirst"]) or \
                (faults.get("failRate") and roll < faults["failRate"]):
            raise ImmichError(faults.get("failStatus") or 500,
                              "Internal server error" if (faults.get("failStatus") or 500) == 500
                              else "injected failure")

        # asset-upload.interceptor.ts: a known x-immich-checksum answers 200 duplicate with the
        # stored asset's id, before (and without) looking at the body. No comparison with the
        # bytes is made anywhere in Immich.
        if header:
            existing = None
            with store.lock:
                existing = store.asset_by_checksum(user["id"], from_checksum(header))
            if existing is not None:
                entry["outcome"] = "duplicate (checksum header)"
                # Test diagnostics only (Immich never looks): did the header name these bytes?
                sent = next((p for p, _ in file_parts if p["name"] == "assetData"), None)
                if sent is not None:
                    entry["sha1"] = hashlib.sha1(sent["data"]).hexdigest()
                    entry["checksumHeaderMatches"] = from_checksum(header) == bytes.fromhex(entry["sha1"])
                if faults.get("loseFirst") and attempt <= faults["loseFirst"]:
                    self.drop()
                self.send_json(200, {"status": "duplicate", "id": existing["id"]})
                return 200

        if parse_error is not None:
            raise parse_error
        files = {}
        for part, filename_field in file_parts:
            if part["name"] not in ("assetData", "sidecarData") or part["name"] in files:
                # multer.fields([{assetData, maxCount 1}, {sidecarData, maxCount 1}]): another
                # file field, or a second one -> MulterError 'Unexpected field' -> 400.
                raise ImmichError(400, "Unexpected field")
            name = filename_field or part["filename"]
            ext = os.path.splitext(name)[1].lower()
            allowed = (IMAGE_EXTENSIONS | VIDEO_EXTENSIONS) if part["name"] == "assetData" else SIDECAR_EXTENSIONS
            if ext not in allowed:
                raise ImmichError(400, "Unsupported file type %s" % name)  # canUploadFile
            files[part["name"]] = part

        if "assetData" not in files or not files["assetData"]["data"]:
            # ParseFilePipe(FileNotEmptyValidator(['assetData'])). (An empty part: multer still
            # stores a 0-byte file, and the validator only checks the field is present; the
            # stand-in refuses it too, as relay never sends one.)
            raise ImmichError(400, "Field(s) assetData should not be empty")

        # AssetMediaCreateDto (asset-media.dto.ts). class-transformer runs first: ValidateDate's
        # Transform throws '<key> must be a date string' for a value that is not an ISO date
        # (an empty one too); then class-validator collects every field's messages at once.
        dates = {}
        for name in ("fileCreatedAt", "fileModifiedAt"):
            if fields.get(name) is not None:
                dates[name] = parse_iso_date(name, fields[name] or "\0")
        errors = []
        for name in ("deviceAssetId", "deviceId"):
            value = fields.get(name)
            if value is None or value == "":
                errors += ["%s should not be empty" % name] + ([] if value == "" else ["%s must be a string" % name])
        for name in ("fileCreatedAt", "fileModifiedAt"):
            if name not in dates:
                errors += ["%s should not be empty" % name, "%s must be a Date instance" % name]
        is_favorite = fields.get("isFavorite")
        if is_favorite is not None and is_favorite not in ("true", "false"):
            errors.append("isFavorite must be a boolean value")
        visibility = fields.get("visibility")
        if visibility is not None and visibility not in VISIBILITIES:
            errors.append("visibility must be one of the following values: " + ", ".join(VISIBILITIES))
        live = fields.get("livePhotoVideoId")
        if live is not None and not UUID_V4.match(live):
            errors.append("livePhotoVideoId must be a UUID")
        if errors:
            raise ImmichError(400, errors)
        file_created_at, file_modified_at = dates["fileCreatedAt"], dates["fileModifiedAt"]
        if live is not None:
            with store.lock:
                motion = store.assets.get(live)
            if motion is None:
                raise ImmichError(400, "Live photo video not found")  # asset.util.ts onBeforeLink

        data = files["assetData"]["data"]
        digest = hashlib.sha1(data).digest()  # file-upload.interceptor.ts handleFile
        entry["sha1"] = digest.hex()
        if header:
            entry["checksumHeaderMatches"] = from_checksum(header) == digest

        with store.lock:
            # service.uploadAsset: requireQuota first, then create; the (ownerId, checksum)
            # unique constraint turns a second copy into {status:'duplicate', id} (200).
            quota = faults.get("quota")
            if quota is not None and quota < user["quotaUsageInBytes"] + len(data):
                raise ImmichError(400, "Quota has been exceeded!")
            existing = store.asset_by_checksum(user["id"], digest)
            if existing is not None:
                outcome, answer = "duplicate (checksum constraint)", {"status": "duplicate", "id": existing["id"]}
                status = 200
            else:
                asset_id = str(uuid.uuid4())
                original_name = fields.get("filename") or files["assetData"]["filename"]
                ext = os.path.splitext(original_name)[1].lower()
                folder = os.path.join(store.upload_dir, user["id"])
                os.makedirs(folder, exist_ok=True)
                path = os.path.join(folder, asset_id + ext)
                with open(path + ".part", "wb") as f:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(path + ".part", path)
                sidecar = files.get("sidecarData")
                if sidecar is not None:
                    with open(os.path.join(folder, asset_id + ".xmp"), "wb") as f:
                        f.write(sidecar["data"])
                store.assets[asset_id] = {
                    "id": asset_id, "ownerId": user["id"],
                    "deviceAssetId": fields["deviceAssetId"], "deviceId": fields["deviceId"],
                    "fileCreatedAt": file_created_at, "fileModifiedAt": file_modified_at,
                    "localDateTime": file_created_at,
                    "originalFileName": original_name, "originalPath": path,
                    "type": "VIDEO" if ext in VIDEO_EXTENSIONS else "IMAGE",
                    "checksum": base64.b64encode(digest).decode("ascii"), "checksumHex": digest.hex(),
                    "bytes": len(data), "isFavorite": is_favorite == "true",
                    "visibility": visibility or "timeline", "duration": fields.get("duration") or None,
                    "livePhotoVideoId": live, "hasSidecar": sidecar is not None,
                    "isTrashed": False, "createdAt": now_iso(),
                    "fields": {k: v for k, v in fields.items()},
                }
                user["quotaUsageInBytes"] += len(data)
                store.save()
                outcome, answer, status = "created", {"id": asset_id, "status": "created"}, 201
        entry["outcome"] = outcome
        if faults.get("loseFirst") and attempt <= faults["loseFirst"]:
            self.drop()  # stored (or found), but the answer is lost
        self.send_json(status, answer)
        return status

    def bulk_upload_check(self, store):
        """POST /api/assets/bulk-upload-check: controller checkBulkUpload (@HttpCode(200)),
        asset-media.service.ts bulkUploadCheck @ 0069e6a7; AssetBulkUploadCheckDto validation
        (assets: array of {id: non-empty string, checksum: non-empty string})."""
        user = self.authenticate("asset.upload")
        dto = self.read_json()
        items = dto.get("assets") if isinstance(dto, dict) else None
        if not isinstance(items, list):
            raise ImmichError(400, ["assets must be an array"])
        errors = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                errors.append("assets.%d must be an object" % i)
                continue
            for name in ("id", "checksum"):
                value = item.get(name)
                if not isinstance(value, str) or value == "":
                    errors.append("assets.%d.%s should not be empty" % (i, name))
        if errors:
            raise ImmichError(400, errors)
        results = []
        with store.lock:
            for item in items:
                found = store.asset_by_checksum(user["id"], from_checksum(item["checksum"]))
                if found is not None:
                    results.append({"id": item["id"], "action": "reject", "reason": "duplicate",
                                    "assetId": found["id"], "isTrashed": found["isTrashed"]})
                else:
                    results.append({"id": item["id"], "action": "accept"})
        self.send_json(200, {"results": results})
        return 200

    def check_existing_assets(self, store):
        """POST /api/assets/exist: controller checkExistingAssets (@HttpCode(200), present at
        be103098 and in v2; absent from a v3-era copy seen in the index), service
        checkExistingAssets: ids of the caller's assets with that deviceId and one of the
        deviceAssetIds."""
        user = self.authenticate(None)
        dto = self.read_json()
        ids = dto.get("deviceAssetIds") if isinstance(dto, dict) else None
        device = dto.get("deviceId") if isinstance(dto, dict) else None
        errors = []
        if not isinstance(ids, list) or not ids:
            errors.append("deviceAssetIds should not be empty")
        elif not all(isinstance(x, str) and x for x in ids):
            errors.append("each value in deviceAssetIds should not be empty")
        if not device:
            errors.append("deviceId should not be empty")
        if errors:
            raise ImmichError(400, errors)
        with store.lock:
            existing = [a["deviceAssetId"] for a in store.assets.values()
                        if a["ownerId"] == user["id"] and a["deviceId"] == device and a["deviceAssetId"] in ids]
        self.send_json(200, {"existingIds": existing})
        return 200

    def get_asset(self, store, asset_id):
        """GET /api/assets/:id (asset.controller.ts getAssetInfo): a subset of AssetResponseDto.
        Not the caller's or unknown -> 400, as requireAccess answers."""
        user = self.authenticate("asset.read")
        if not UUID_V4.match(asset_id):
            raise ImmichError(400, ["id must be a UUID"])
        with store.lock:
            asset = store.assets.get(asset_id)
            if asset is None or asset["ownerId"] != user["id"]:
                raise ImmichError(400, "Not found or no asset.read access")
            answer = {k: asset[k] for k in (
                "id", "ownerId", "deviceAssetId", "deviceId", "fileCreatedAt", "fileModifiedAt",
                "localDateTime", "originalFileName", "type", "checksum", "isFavorite", "isTrashed",
                "visibility", "duration", "livePhotoVideoId")}
        self.send_json(200, answer)
        return 200

    def album_json(self, store, album, user):
        return {
            "id": album["id"], "ownerId": album["ownerId"], "albumName": album["albumName"],
            "description": album["description"], "createdAt": album["createdAt"],
            "updatedAt": album["updatedAt"], "albumThumbnailAssetId": album["albumThumbnailAssetId"],
            "shared": False, "hasSharedLink": False, "albumUsers": [],
            "owner": {"id": user["id"], "email": user["email"], "name": user["name"]},
            "assets": [], "assetCount": len(album["assetIds"]), "isActivityEnabled": True,
            "order": "desc",
            # Not in Immich's AlbumResponseDto (its `assets` is empty in these answers): the
            # stand-in's own field, for tests that count.
            "assetIds": list(album["assetIds"]),
        }

    def get_all_albums(self, store):
        """GET /api/albums: album.controller.ts getAllAlbums, album.service.ts getAll @ 037072b5
        (no ?shared: the caller's own albums; ?assetId=: the albums holding that asset)."""
        user = self.authenticate("album.read")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        asset_id = (query.get("assetId") or [None])[0]
        if asset_id is not None and not UUID_V4.match(asset_id):
            raise ImmichError(400, ["assetId must be a UUID"])
        self.read_body(HARD_MAX_BODY)
        with store.lock:
            albums = [self.album_json(store, a, user) for a in store.albums.values()
                      if a["ownerId"] == user["id"] and (asset_id is None or asset_id in a["assetIds"])]
        self.send_json(200, albums)
        return 200

    def create_album(self, store):
        """POST /api/albums: album.controller.ts createAlbum (201), album.service.ts create @
        037072b5: CreateAlbumDto {albumName: string, description?, assetIds?: uuid[]}; only the
        caller's assets are added (checkAccess AssetShare), others silently left out. Names are
        not unique: a second create with the same name makes a second album."""
        user = self.authenticate("album.create")
        dto = self.read_json()
        if not isinstance(dto, dict):
            raise ImmichError(400, ["albumName must be a string"])
        name = dto.get("albumName")
        if not isinstance(name, str):
            raise ImmichError(400, ["albumName must be a string"])
        description = dto.get("description", "")
        if not isinstance(description, str):
            raise ImmichError(400, ["description must be a string"])
        asset_ids = dto.get("assetIds") or []
        if not isinstance(asset_ids, list) or not all(isinstance(x, str) and UUID_V4.match(x) for x in asset_ids):
            raise ImmichError(400, ["each value in assetIds must be a UUID"])
        with store.lock:
            allowed = [x for x in dict.fromkeys(asset_ids)
                       if x in store.assets and store.assets[x]["ownerId"] == user["id"]]
            stamp = now_iso()
            album = {"id": str(uuid.uuid4()), "ownerId": user["id"], "albumName": name,
                     "description": description, "createdAt": stamp, "updatedAt": stamp,
                     "albumThumbnailAssetId": allowed[0] if allowed else None, "assetIds": allowed}
            store.albums[album["id"]] = album
            store.save()
            answer = self.album_json(store, album, user)
        self.send_json(201, answer)
        return 201

    def get_album_info(self, store, album_id):
        """GET /api/albums/:id: album.controller.ts getAlbumInfo, album.service.ts get."""
        user = self.authenticate("album.read")
        if not UUID_V4.match(album_id):
            raise ImmichError(400, ["id must be a UUID"])
        self.read_body(HARD_MAX_BODY)
        with store.lock:
            album = store.albums.get(album_id)
            if album is None or album["ownerId"] != user["id"]:
                raise ImmichError(400, "Not found or no album.read access")
            answer = self.album_json(store, album, user)
        self.send_json(200, answer)
        return 200

    def add_assets_to_album(self, store, album_id):
        """PUT /api/albums/:id/assets: album.controller.ts addAssetsToAlbum (200),
        album.service.ts addAssets @ 037072b5 (findOrFail -> 400 'Album not found'), then
        asset.util.ts addAssets @ 01809e30: per id, in the order sent, 'duplicate' if already in
        the album (or earlier in this request), 'no_permission' if not the caller's asset
        (unknown ids too), else success."""
        user = self.authenticate("albumAsset.create")
        if not UUID_V4.match(album_id):
            raise ImmichError(400, ["id must be a UUID"])
        dto = self.read_json()
        ids = dto.get("ids") if isinstance(dto, dict) else None
        if not isinstance(ids, list) or not all(isinstance(x, str) and UUID_V4.match(x) for x in ids):
            raise ImmichError(400, ["each value in ids must be a UUID"])
        with store.lock:
            store.album_attempts += 1
            attempt = store.album_attempts
            faults = dict(store.faults)
        if faults.get("albumFailFirst") and attempt <= faults["albumFailFirst"]:
            status = faults.get("failStatus") or 500
            raise ImmichError(status, "Internal server error" if status == 500 else "injected failure")
        with store.lock:
            album = store.albums.get(album_id)
            if album is None or album["ownerId"] != user["id"]:
                raise ImmichError(400, "Album not found")
            present = set(album["assetIds"])
            results = []
            for asset_id in ids:
                if asset_id in present:
                    results.append({"id": asset_id, "success": False, "error": "duplicate"})
                    continue
                asset = store.assets.get(asset_id)
                if asset is None or asset["ownerId"] != user["id"]:
                    results.append({"id": asset_id, "success": False, "error": "no_permission"})
                    continue
                present.add(asset_id)
                album["assetIds"].append(asset_id)
                results.append({"id": asset_id, "success": True})
            if any(r["success"] for r in results):
                album["updatedAt"] = now_iso()
                if album["albumThumbnailAssetId"] is None:
                    album["albumThumbnailAssetId"] = next(r["id"] for r in results if r["success"])
                store.save()
        self.send_json(200, results)
        return 200

    # --- test-only routes -------------------------------------------------------------------

    def standin_state(self, store):
        with store.lock:
            state = {
                "users": [{"id": u["id"], "email": u["email"], "quotaUsageInBytes": u["quotaUsageInBytes"]}
                          for u in store.users.values()],
                "assets": [{k: v for k, v in a.items() if k != "checksumHex"} for a in store.assets.values()],
                "albums": [dict(a) for a in store.albums.values()],
                "requests": [dict(r) for r in store.requests],
                "attempts": dict(store.attempts),
                "faults": dict(store.faults),
            }
        self.send_json(200, state)
        return 200

    def standin_faults(self, store):
        if self.command == "POST":
            changes = self.read_json()
            if not isinstance(changes, dict):
                raise ImmichError(400, "faults must be a JSON object")
            cleaned = {}
            for key, value in changes.items():
                kind = FAULT_KEYS.get(key)
                if kind is None:
                    raise ImmichError(400, "unknown fault %r (known: %s)" % (key, ", ".join(sorted(FAULT_KEYS))))
                if value is not None and (isinstance(value, bool) or not (
                        isinstance(value, kind) or (kind is float and isinstance(value, int)))):
                    raise ImmichError(400, "fault %r must be %s or null" % (key, kind.__name__))
                cleaned[key] = value
            with store.lock:
                store.faults.update(cleaned)
        with store.lock:
            current = dict(store.faults)
        self.send_json(200, current)
        return 200

    def standin_trash(self, store):
        dto = self.read_json()
        with store.lock:
            asset = store.assets.get(dto.get("id") if isinstance(dto, dict) else None)
            if asset is None:
                raise ImmichError(404, "no such asset")
            asset["isTrashed"] = True
            store.save()
        self.send_json(200, {"id": asset["id"], "isTrashed": True})
        return 200


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def parse_key(text):
    """KEY or KEY:PERM,PERM (a key limited to those permissions)."""
    if ":" in text:
        key, perms = text.split(":", 1)
        return key, {p.strip() for p in perms.split(",") if p.strip()}
    return text, None


def main():
    parser = argparse.ArgumentParser(description="A stand-in for Immich's upload and album API (relay's tests).")
    parser.add_argument("--dir", required=True, help="where uploads and state.json are kept")
    parser.add_argument("--api-key", action="append", required=True,
                        help="an accepted x-api-key (repeat for more users); KEY:PERM,PERM limits it")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--drop-first", type=int, default=0,
                        help="cut the connection, storing nothing, on the first N attempts of each deviceAssetId")
    parser.add_argument("--fail-first", type=int, default=0,
                        help="answer --fail-status, storing nothing, on the first N attempts of each deviceAssetId")
    parser.add_argument("--fail-rate", type=float, default=0.0, help="fraction of uploads answered --fail-status")
    parser.add_argument("--fail-status", type=int, default=500)
    parser.add_argument("--lose-first", type=int, default=0,
                        help="store, then cut the connection without an answer, on the first N attempts of each deviceAssetId")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds to wait before answering an upload")
    parser.add_argument("--album-fail-first", type=int, default=0,
                        help="answer --fail-status to the first N PUT /api/albums/:id/assets")
    parser.add_argument("--quota", type=int, default=None, help="each user's storage quota in bytes")
    parser.add_argument("--max-body", type=int, default=None,
                        help="answer 413 (nginx's page) to an upload body larger than this, as a proxy would")
    args = parser.parse_args()

    faults = {
        "dropFirst": args.drop_first, "failFirst": args.fail_first, "failRate": args.fail_rate,
        "failStatus": args.fail_status, "loseFirst": args.lose_first, "delay": args.delay,
        "albumFailFirst": args.album_fail_first, "quota": args.quota, "maxBody": args.max_body,
    }
    end_with_parent()
    os.makedirs(args.dir, exist_ok=True)
    server = Server((args.host, args.port), Handler)
    server.store = Store(args.dir, [parse_key(k) for k in args.api_key], faults, args.seed)
    host = args.host if ":" not in args.host else "[%s]" % args.host
    print("immich stand-in listening on http://%s:%d" % (host, server.server_address[1]), flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
