"""Headless Chromium driven through its DevTools protocol, on the standard library alone: a
minimal WebSocket client (`DevTools`), and a browser of its own (`Chromium`: a temporary profile,
a debugging port chosen by Chromium, the whole browser killed on exit, or when this process dies)
with what the editor's page's tests and benchmarks do to it: a phone's screen, a venue's Wi-Fi,
taps, double taps, swipes, keys, typing, waiting for the page, screenshots.

    with cdp.Chromium() as browser:
        browser.emulate_phone()
        browser.emulate_wifi()
        browser.navigate(url)
        value, seconds = browser.wait_for("document.getElementById('count')?.textContent", 10)
        browser.click_selector(".photo img")
        browser.screenshot("/tmp/relay-status-shots/page.png")

Used by scripts/chromium_keys.py, scripts/chromium_desk.py and scripts/bench_review.py (the
`editor` case of scripts/bench.py).
"""

import atexit
import base64
import collections
import ctypes
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request

# `key` and `code` of the keys named by more than their letter (KeyboardEvent.key / .code), and
# the Windows virtual key code Chromium wants for those with a default action (Enter, Tab…).
CODES = {"ArrowRight": "ArrowRight", "ArrowLeft": "ArrowLeft", "ArrowDown": "ArrowDown", "ArrowUp": "ArrowUp", "Space": "Space"}
NAMED = {"Enter": ("Enter", "\r", 13), "Escape": ("Escape", "", 27), "Tab": ("Tab", "", 9), "Backspace": ("Backspace", "", 8),
         "Delete": ("Delete", "", 46), "Home": ("Home", "", 36), "End": ("End", "", 35), "PageDown": ("PageDown", "", 34),
         "PageUp": ("PageUp", "", 33)}

# What a phone of 390 × 844 CSS pixels says it is (Chromium on Android, as the engine is Chromium).
PHONE_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/124.0.0.0 Mobile Safari/537.36")


class DevToolsError(RuntimeError):
    pass


class DevTools:
    """One WebSocket connection to a DevTools target (`ws://host:port/devtools/page/…`). `call`
    sends a command and returns its whole answer (`{"id", "result"}` or `{"id", "error"}`);
    events that arrive meanwhile are kept in `events` (the last 1,000)."""

    def __init__(self, ws_url, timeout=30):
        host, path = ws_url[len("ws://"):].split("/", 1)
        name, port = host.rsplit(":", 1)
        self.sock = socket.create_connection((name, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, host, key)).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise DevToolsError("the DevTools endpoint closed the connection during the handshake")
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise DevToolsError("no WebSocket from %s: %s" % (ws_url, head.split(b"\r\n", 1)[0].decode(errors="replace")))
        self.ident = 0
        self.events = collections.deque(maxlen=1000)

    def send(self, payload, opcode=0x1):
        mask = os.urandom(4)
        if len(payload) < 126:
            size = bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            size = struct.pack("!BH", 0x80 | 126, len(payload))
        else:
            size = struct.pack("!BQ", 0x80 | 127, len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x80 | opcode]) + size + mask + masked)

    def call(self, method, **params):
        self.ident += 1
        self.send(json.dumps({"id": self.ident, "method": method, "params": params}).encode())
        while True:
            message = self.receive()
            if message.get("id") == self.ident:
                return message
            if "method" in message:
                self.events.append(message)

    def command(self, method, **params):
        """`call`, but the result alone, and a DevToolsError for an error answer."""
        answer = self.call(method, **params)
        if "error" in answer:
            raise DevToolsError("%s: %s" % (method, answer["error"].get("message", answer["error"])))
        return answer.get("result", {})

    def receive(self):
        def need(count):
            while len(self.buffer) < count:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise DevToolsError("the browser closed the DevTools connection")
                self.buffer += chunk
        message = b""
        while True:
            need(2)
            first, length, offset = self.buffer[0], self.buffer[1] & 0x7F, 2
            if length == 126:
                need(4)
                length, offset = struct.unpack("!H", self.buffer[2:4])[0], 4
            elif length == 127:
                need(10)
                length, offset = struct.unpack("!Q", self.buffer[2:10])[0], 10
            need(offset + length)
            data, self.buffer = self.buffer[offset:offset + length], self.buffer[offset + length:]
            opcode = first & 0x0F
            if opcode == 0x8:
                raise DevToolsError("the browser closed the DevTools connection")
            if opcode == 0x9:
                self.send(data, opcode=0xA)
                continue
            if opcode == 0xA:
                continue
            message += data
            if first & 0x80:
                return json.loads(message)

    def evaluate(self, expression, await_promise=False):
        """The value of a JavaScript expression in the page (returned by value), or None if it
        has none or throws."""
        params = {"expression": expression, "returnByValue": True}
        if await_promise:
            params["awaitPromise"] = True
        answer = self.call("Runtime.evaluate", **params)
        return answer.get("result", {}).get("result", {}).get("value")

    def press(self, key):
        """A key pressed and released: ArrowRight/Left/Down/Up, Space, Enter, Escape, Tab,
        Backspace, Delete, Home, End, PageUp, PageDown, or one character."""
        if key in NAMED:
            code, text, virtual = NAMED[key]
            self.call("Input.dispatchKeyEvent", type="keyDown", key=key, code=code, text=text, windowsVirtualKeyCode=virtual)
            self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=virtual)
            return
        text = " " if key == "Space" else (key if len(key) == 1 else "")
        name = " " if key == "Space" else key
        code = CODES.get(key, "Key" + key.upper())
        self.call("Input.dispatchKeyEvent", type="keyDown", key=name, code=code, text=text)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=name, code=code)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def _die_with_parent():
    """In the child before exec: SIGKILL once the process that started it is gone (Linux's
    PR_SET_PDEATHSIG), so a test killed mid-way leaves no browser behind."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
    except OSError:
        pass
    os.setpgrp()


class Chromium(DevTools):
    """A headless Chromium of its own, connected to its first tab. The browser runs in a process
    group of its own, killed (with its temporary profile removed) by `close`, on leaving a `with`,
    at this process's exit, or by the kernel if this process is killed. `nice` lowers the
    browser's priority (a benchmark's browser stands in for the editor's own phone)."""

    def __init__(self, extra_args=(), nice=0, binary="chromium", timeout=30):
        self.profile = tempfile.mkdtemp(prefix="relay-chromium-")
        self.proc = None
        self.touch = False
        self.viewport = None
        args = [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--remote-debugging-port=0",
                "--user-data-dir=" + self.profile] + list(extra_args) + ["about:blank"]

        def prepare():
            _die_with_parent()
            if nice:
                os.nice(nice)
        atexit.register(self.close)
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=prepare)
        # Chromium writes the port it chose (and its browser endpoint) once it listens.
        deadline = time.time() + timeout
        port, targets = None, []
        while time.time() < deadline and not targets:
            if self.proc.poll() is not None:
                self.close()
                raise DevToolsError("chromium exited with status %s before it listened" % self.proc.returncode)
            try:
                if port is None:
                    with open(os.path.join(self.profile, "DevToolsActivePort")) as f:
                        port = int(f.readline())
                with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=5) as answer:
                    targets = [t for t in json.load(answer) if t["type"] == "page"]
            except (OSError, ValueError):
                pass
            if not targets:
                time.sleep(0.05)
        if not targets:
            self.close()
            raise DevToolsError("chromium gave no page to drive within %d s" % timeout)
        self.port = port
        super().__init__(targets[0]["webSocketDebuggerUrl"], timeout=timeout)
        self.call("Page.enable")

    def close(self):
        if hasattr(self, "sock"):
            DevTools.close(self)
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                self.proc.kill()
            self.proc.wait()
        if self.profile:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def cpu_seconds(self):
        """CPU seconds (user + system) used so far by the browser's processes (its process group)."""
        total, ticks = 0, os.sysconf("SC_CLK_TCK")
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # fields[2] is the process group; [11], [12] utime and stime; [13], [14] the reaped children's.
            if int(fields[2]) == self.proc.pid:
                total += sum(int(fields[i]) for i in (11, 12, 13, 14))
        return total / ticks

    # --- emulation ------------------------------------------------------------------------

    def emulate_phone(self, width=390, height=844, dpr=3, agent=PHONE_AGENT):
        """A phone's screen: `width` × `height` CSS pixels at `dpr`, mobile viewport rules, touch
        input (so taps and swipes arrive as touch events) and a phone's user agent."""
        self.command("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=dpr, mobile=True,
                     screenWidth=width, screenHeight=height)
        self.command("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        self.command("Emulation.setEmitTouchEventsForMouse", enabled=True, configuration="mobile")
        self.command("Emulation.setUserAgentOverride", userAgent=agent, platform="Android")
        self.touch = True
        self.viewport = (width, height)

    def emulate_wifi(self, mbit=20, rtt_ms=40):
        """A venue's Wi-Fi: `mbit` Mbit/s each way and `rtt_ms` added to each round trip (every
        request of the page, loopback included, goes through Chromium's throttling)."""
        self.command("Network.enable")
        rate = mbit * 1_000_000 / 8
        self.command("Network.emulateNetworkConditions", offline=False, latency=rtt_ms, downloadThroughput=rate,
                     uploadThroughput=rate)

    def clear_cache(self):
        self.command("Network.enable")
        self.command("Network.clearBrowserCache")

    # --- the page ---------------------------------------------------------------------------

    def navigate(self, url, timeout=30):
        """Opens `url` and waits until its document is parsed (readyState interactive or
        complete); seconds taken."""
        started = time.time()
        answer = self.command("Page.navigate", url=url)
        if answer.get("errorText"):
            raise DevToolsError("navigating to %s: %s" % (url, answer["errorText"]))
        blank = url == "about:blank"
        self.wait_for("document.readyState !== 'loading'" + ("" if blank else " && location.href !== 'about:blank'"), timeout)
        return time.time() - started

    def evaluate_or_error(self, expression, await_promise=False):
        """(value, None), or (None, the exception's text) if the expression throws."""
        params = {"expression": expression, "returnByValue": True}
        if await_promise:
            params["awaitPromise"] = True
        answer = self.call("Runtime.evaluate", **params)
        if "error" in answer:
            return None, answer["error"].get("message", str(answer["error"]))
        result = answer.get("result", {})
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            return None, (details.get("exception", {}).get("description") or details.get("text", "exception"))
        return result.get("result", {}).get("value"), None

    def wait_for(self, expression, timeout=5, step=0.01):
        """Polls `expression` until it is truthy; (its value, seconds waited). A TimeoutError
        (carrying the last value) after `timeout` seconds."""
        # Truth is JavaScript's (an element, or {}, is true; "" and 0 are not); an element's value is true.
        wrapped = "((v) => [!!v, v instanceof Node ? true : v])((%s))" % expression.strip().rstrip(";")
        started = time.time()
        while True:
            answer = self.evaluate(wrapped)
            truth, value = answer if isinstance(answer, list) else (False, None)
            if truth:
                return value, time.time() - started
            if time.time() - started > timeout:
                error = TimeoutError("%r still %r after %g s" % (expression, value, timeout))
                error.last_value = value
                raise error
            time.sleep(step)

    def box(self, selector, scroll=True):
        """The element's box in CSS pixels of the viewport {x, y, width, height}, scrolled to the
        middle of the screen first (clear of sticky headers and bars); a LookupError if nothing
        matches or it has no size."""
        expression = ("(() => { const e = document.querySelector(%s); if (!e) return null; %s"
                      "const r = e.getBoundingClientRect(); return {x: r.left, y: r.top, width: r.width, height: r.height}; })()"
                      % (json.dumps(selector), "e.scrollIntoView({block: 'center', inline: 'center'});" if scroll else ""))
        box = self.evaluate(expression)
        if not box:
            raise LookupError("nothing on the page matches %s" % selector)
        if box["width"] <= 0 or box["height"] <= 0:
            raise LookupError("%s is not shown (no size)" % selector)
        return box

    def point(self, selector, at=(0.5, 0.5)):
        """The point at fractions `at` of the element's box (its centre by default)."""
        box = self.box(selector)
        return box["x"] + box["width"] * at[0], box["y"] + box["height"] * at[1]

    def hits(self, selector, x, y):
        """Whether the element at (x, y) is the selector's element or inside it (not covered)."""
        return bool(self.evaluate("(() => { const e = document.querySelector(%s), h = document.elementFromPoint(%f, %f);"
                                  " return !!(e && h && (e === h || e.contains(h))); })()" % (json.dumps(selector), x, y)))

    # --- input ------------------------------------------------------------------------------

    def _touch(self, kind, points):
        self.command("Input.dispatchTouchEvent", type=kind,
                     touchPoints=[{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 0} for x, y in points])

    def tap(self, x, y, hold=0.03):
        """A finger down and up at (x, y), CSS pixels of the viewport."""
        self._touch("touchStart", [(x, y)])
        time.sleep(hold)
        self._touch("touchEnd", [])

    def double_tap(self, x, y, gap=0.08):
        self.tap(x, y)
        time.sleep(gap)
        self.tap(x, y)

    def swipe(self, x0, y0, x1, y1, seconds=0.15, steps=8):
        """A finger put down at (x0, y0), moved to (x1, y1) in `steps` moves over `seconds`, lifted."""
        self._touch("touchStart", [(x0, y0)])
        for index in range(1, steps + 1):
            time.sleep(seconds / steps)
            self._touch("touchMove", [(x0 + (x1 - x0) * index / steps, y0 + (y1 - y0) * index / steps)])
        self._touch("touchEnd", [])

    def click(self, x, y):
        """A mouse click (left button) at (x, y)."""
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.command("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left" if kind != "mouseMoved" else "none",
                         clickCount=1 if kind != "mouseMoved" else 0)

    def click_selector(self, selector, at=(0.5, 0.5), touch=None):
        """A tap (with phone emulation) or a mouse click at the element's centre (or at fractions
        `at` of its box); the point and whether the element was on top there."""
        x, y = self.point(selector, at)
        on_top = self.hits(selector, x, y)
        if self.touch if touch is None else touch:
            self.tap(x, y)
        else:
            self.click(x, y)
        return {"x": round(x, 1), "y": round(y, 1), "hit": on_top}

    def type_text(self, selector, text, replace=True):
        """Focuses the field and types `text` into it (replacing what it held), as a keyboard's
        input would: input events, no key events."""
        found = self.evaluate("(() => { const e = document.querySelector(%s); if (!e) return false; e.focus();%s return true; })()"
                              % (json.dumps(selector), " if (e.select) e.select();" if replace else ""))
        if not found:
            raise LookupError("nothing on the page matches %s" % selector)
        if replace:
            self.command("Input.dispatchKeyEvent", type="keyDown", key="Delete", code="Delete", windowsVirtualKeyCode=46)
            self.command("Input.dispatchKeyEvent", type="keyUp", key="Delete", code="Delete", windowsVirtualKeyCode=46)
        if text:
            self.command("Input.insertText", text=text)
        return self.evaluate("document.querySelector(%s).value" % json.dumps(selector))

    # --- looking ----------------------------------------------------------------------------

    def screenshot(self, path):
        """The viewport as a PNG at `path` (its folder made); the file's size in bytes."""
        data = base64.b64decode(self.command("Page.captureScreenshot", format="png")["data"])
        folder = os.path.dirname(os.path.abspath(path))
        os.makedirs(folder, exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return len(data)

    def marks(self, name):
        """performance.now() of each `performance.mark(name)` so far, in milliseconds."""
        return self.evaluate("performance.getEntriesByName(%s, 'mark').map(m => m.startTime)" % json.dumps(name)) or []

    def measure(self, start, end):
        """Seconds from the last `start` mark to the last `end` mark after it, or None."""
        starts, ends = self.marks(start), self.marks(end)
        if not starts:
            return None
        later = [t for t in ends if t >= starts[-1]]
        return (later[0] - starts[-1]) / 1000 if later else None

    def resource_seconds(self, fragment):
        """Seconds the last fetch whose URL contains `fragment` took (request start to response
        end, from the page's resource timing), or None."""
        return self.evaluate("(() => { const e = performance.getEntriesByType('resource').filter(r => r.name.includes(%s)).pop();"
                             " return e ? (e.responseEnd - e.startTime) / 1000 : null; })()" % json.dumps(fragment))
