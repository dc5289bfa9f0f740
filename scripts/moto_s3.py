#!/usr/bin/env python3
"""An S3 store for tests that need AWS's own answers: moto (PyPI `moto[server]`) in server mode,
on loopback, with a bucket made. SeaweedFS is relay's real S3 peer; moto is the second opinion
for what AWS answers to conditional writes (`If-None-Match: *`, `If-Match`), the inbox's claims.

    python3 scripts/moto_s3.py [--bucket inbox]... [--host 127.0.0.1] [--port 0]
                               [--conditional-writes aws|moto|501|ignored] [--verbose]

When ready it prints exactly one line to stdout:
`moto s3 listening on http://HOST:PORT (bucket inbox)`.

moto checks no signature: any access key and secret are taken (region us-east-1). Path-style
addressing (`http://HOST:PORT/BUCKET/KEY`) is what to use; virtual hosts need a name that
resolves to loopback.

--conditional-writes says how a PUT, a CompleteMultipartUpload or a DELETE that carries
If-None-Match or If-Match is answered:
  aws      as moto answers (the default): 412 PreconditionFailed when the condition fails, 404
           NoSuchKey for If-Match on a missing key. Such writes are also run one at a time here:
           moto checks the condition and then writes, with nothing in between holding others off,
           and two threads can both pass the check (AWS answers the loser 412 or 409).
  moto     as moto answers, without that lock: shows what the lock is for
           (scripts/s3_inbox_facts.py races two writes on it).
  501      a store without conditional writes that says so: 501 NotImplemented, nothing written.
  ignored  a store without conditional writes that does not say so (the dangerous one): the
           condition headers are dropped and the write is done.
The process ends by itself when the process that started it is gone (scripts/peers.py).
"""

import argparse
import logging
import sys
import threading
import urllib.request

from peers import end_with_parent

CONDITION_HEADERS = ("HTTP_IF_NONE_MATCH", "HTTP_IF_MATCH")
NOT_IMPLEMENTED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NotImplemented</Code>'
    b"<Message>A header you provided implies functionality that is not implemented</Message>"
    b"<Header>If-None-Match</Header><RequestId>moto-s3-py</RequestId></Error>"
)


class ConditionalWrites:
    """WSGI middleware in front of moto's app: applies --conditional-writes to PUT, POST (a
    CompleteMultipartUpload) and DELETE requests that carry a condition. GET and HEAD keep
    their conditions: a store without conditional writes still has conditional reads."""

    def __init__(self, app, mode):
        self.app = app
        self.mode = mode
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        conditional = environ.get("REQUEST_METHOD") in ("PUT", "POST", "DELETE") and any(
            name in environ for name in CONDITION_HEADERS
        )
        if not conditional or self.mode == "moto":
            return self.app(environ, start_response)
        if self.mode == "501":
            self.drain(environ)
            start_response("501 Not Implemented", [
                ("Content-Type", "application/xml"), ("Content-Length", str(len(NOT_IMPLEMENTED))),
            ])
            return [NOT_IMPLEMENTED]
        if self.mode == "ignored":
            for name in CONDITION_HEADERS:
                environ.pop(name, None)
            return self.app(environ, start_response)
        # aws: one conditional write at a time, answered whole (the body is read inside the lock).
        with self.lock:
            return list(self.app(environ, start_response))

    @staticmethod
    def drain(environ):
        """Reads the request body, so that the connection can carry the next request."""
        length = int(environ.get("CONTENT_LENGTH") or 0)
        stream = environ["wsgi.input"]
        while length > 0:
            chunk = stream.read(min(length, 1 << 16))
            if not chunk:
                break
            length -= len(chunk)


def main():
    parser = argparse.ArgumentParser(description="moto's S3 on loopback, for relay's tests.")
    parser.add_argument("--host", default="127.0.0.1", help="loopback only (127.0.0.1 or ::1)")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--bucket", action="append", default=None, help="a bucket to make (repeatable; default inbox)")
    parser.add_argument("--conditional-writes", choices=("aws", "moto", "501", "ignored"), default="aws")
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args()
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("--host must be a loopback address")
    buckets = args.bucket or ["inbox"]

    end_with_parent()
    # Imported after the watchdog: moto's import takes a second or two.
    from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.INFO if args.verbose else logging.WARNING)
    app = ConditionalWrites(DomainDispatcherApplication(create_backend_app), args.conditional_writes)
    server = make_server(args.host, args.port, app, threaded=True)
    port = server.server_address[1]
    host = args.host if ":" not in args.host else "[%s]" % args.host
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for bucket in buckets:
        request = urllib.request.Request("http://%s:%d/%s" % (host, port, bucket), method="PUT", data=b"")
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
    print("moto s3 listening on http://%s:%d (bucket %s)" % (host, port, ", ".join(buckets)), flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
