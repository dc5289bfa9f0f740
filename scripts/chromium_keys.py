#!/usr/bin/env python3
"""Presses keys on a page in headless Chromium, as a person at a laptop would, through the
DevTools protocol (a minimal WebSocket client on the standard library: no package), and prints
what the page shows after each key. For the editor's page's keyboard test.

    chromium_keys.py URL EXPRESSION KEY...

After the page has loaded, and after each KEY (ArrowRight, ArrowLeft, ArrowDown, ArrowUp, Space,
or a letter), it waits until EXPRESSION (JavaScript returning a string) gives a new value, or 5 s
pass, and prints one JSON line {"key": KEY, "value": VALUE}.
"""

import base64
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

CODES = {"ArrowRight": "ArrowRight", "ArrowLeft": "ArrowLeft", "ArrowDown": "ArrowDown", "ArrowUp": "ArrowUp", "Space": "Space"}


class DevTools:
    def __init__(self, ws_url):
        host, path = ws_url[len("ws://"):].split("/", 1)
        name, port = host.rsplit(":", 1)
        self.sock = socket.create_connection((name, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host, key)).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(4096)
        self.buffer = self.buffer.split(b"\r\n\r\n", 1)[1]
        self.ident = 0

    def call(self, method, **params):
        self.ident += 1
        payload = json.dumps({"id": self.ident, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        size = struct.pack("!BH", 0x80 | 126, len(payload)) if len(payload) > 125 else bytes([0x80 | len(payload)])
        self.sock.sendall(b"\x81" + size + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            message = self.receive()
            if message.get("id") == self.ident:
                return message

    def receive(self):
        def need(count):
            while len(self.buffer) < count:
                self.buffer += self.sock.recv(65536)
        need(2)
        length, offset = self.buffer[1] & 0x7F, 2
        if length == 126:
            need(4)
            length, offset = struct.unpack("!H", self.buffer[2:4])[0], 4
        elif length == 127:
            need(10)
            length, offset = struct.unpack("!Q", self.buffer[2:10])[0], 10
        need(offset + length)
        data, self.buffer = self.buffer[offset:offset + length], self.buffer[offset + length:]
        return json.loads(data)

    def evaluate(self, expression):
        answer = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return answer.get("result", {}).get("result", {}).get("value")

    def press(self, key):
        text = " " if key == "Space" else (key if len(key) == 1 else "")
        name = " " if key == "Space" else key
        code = CODES.get(key, "Key" + key.upper())
        self.call("Input.dispatchKeyEvent", type="keyDown", key=name, code=code, text=text)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=name, code=code)


def main():
    url, expression, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    port = 9222 + os.getpid() % 1000
    profile = tempfile.mkdtemp(prefix="chromium-keys-")
    chrome = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               "--remote-debugging-port=%d" % port, "--user-data-dir=" + profile, "about:blank"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        targets = []
        while time.time() < deadline and not targets:
            try:
                targets = [t for t in json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port))
                           if t["type"] == "page"]
            except OSError:
                time.sleep(0.1)
        tools = DevTools(targets[0]["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Page.navigate", url=url)

        def settle(previous):
            deadline = time.time() + 5
            value = tools.evaluate(expression)
            while (value is None or value == previous) and time.time() < deadline:
                time.sleep(0.05)
                value = tools.evaluate(expression)
            return value

        value = settle(None)
        print(json.dumps({"key": None, "value": value}), flush=True)
        for key in keys:
            tools.press(key)
            value = settle(value)
            print(json.dumps({"key": key, "value": value}), flush=True)
    finally:
        chrome.kill()
        chrome.wait()


if __name__ == "__main__":
    main()
