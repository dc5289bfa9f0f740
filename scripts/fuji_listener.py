#!/usr/bin/env python3
"""A Fujifilm-like Wi-Fi peer for relay's tests: it answers a PTP/IP init request the way a
Fujifilm body's command port does, then says nothing more.

Fujifilm's protocol is PTP-like but not PTP/IP (libgphoto2 camlibs/ptp2/fujiptpip.c; the captured
exchange in libgphoto2 issue 517): the camera answers the init request with a 0x44-byte
InitCommandAck -- length, type 2, connection number 0, the camera's 16-byte GUID and its name in
UTF-16LE padded with zeros -- without the protocol version a standard ack ends with, and it opens no
event channel on the same port. A standard client that takes this for an InitCommandAck waits for
an event channel that never comes.

Usage: fuji_listener.py [--host 127.0.0.1] [--port 0]
Prints "fuji-listener listening on HOST:PORT" when ready; logs each client on stderr.
"""
import argparse
import socket
import struct
import sys
import threading

ACK_LENGTH = 0x44
NAME_BYTES = ACK_LENGTH - 8 - 4 - 16


def ack(name):
    encoded = name.encode("utf-16-le")[:NAME_BYTES - 2]
    body = struct.pack("<I", 0) + bytes(range(0xA0, 0xB0)) + encoded.ljust(NAME_BYTES, b"\0")
    return struct.pack("<II", ACK_LENGTH, 2) + body


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        piece = conn.recv(count - len(data))
        if not piece:
            return None
        data += piece
    return data


def serve(conn, peer):
    with conn:
        header = read_exactly(conn, 8)
        if header is None:
            return
        length, kind = struct.unpack("<II", header)
        if length < 8 or length > 4096 or read_exactly(conn, length - 8) is None:
            return
        print(f"fuji-listener: packet type {kind} ({length} bytes) from {peer[0]}:{peer[1]}", file=sys.stderr, flush=True)
        conn.sendall(ack("X-T4"))
        while conn.recv(4096):
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.host, args.port))
    listener.listen(8)
    host, port = listener.getsockname()
    print(f"fuji-listener listening on {host}:{port}", flush=True)
    while True:
        conn, peer = listener.accept()
        threading.Thread(target=serve, args=(conn, peer), daemon=True).start()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
