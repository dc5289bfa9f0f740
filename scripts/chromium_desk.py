#!/usr/bin/env python3
"""Plays a list of steps on a page in headless Chromium (scripts/cdp.py), as an editor on a phone
at a venue would: by default the screen is a phone's (390 × 844 CSS pixels at 3×, touch input)
and the network a venue's Wi-Fi (20 Mbit/s each way, 40 ms added to each round trip). For the
editor's page's end-to-end tests.

    chromium_desk.py [--no-phone] [--no-wifi] [--mbit 20] [--rtt 40] URL STEP...

Each STEP is a JSON object, or a JSON array of them, or the path of a .json file holding one
(or `-`: read from stdin). The steps (selectors are CSS; `at` is a point as fractions of the
element's box, its centre by default):

    {"tap": SEL, "at": [0.5, 0.5]}         a finger's tap on the element (waits for it to be shown)
    {"double_tap": SEL, "at": [0.3, 0.4]}  two taps 80 ms apart
    {"click": SEL}                         a tap with the phone's screen, else a mouse click
    {"swipe": "left", "on": SEL}           a finger across 60 % of the element (default: the
                                           screen) toward the left, right, up or down; or
    {"swipe": [x0, y0, x1, y1]}            between two points (CSS pixels of the viewport)
    {"key": "ArrowRight"}                  a key pressed and released (Enter, Escape, Space,
                                           arrows, Tab, Backspace, or one character)
    {"type": SEL, "text": "..."}           the field focused, its text replaced by TEXT
    {"wait": EXPR, "timeout": 5}           until the JavaScript EXPR is truthy (default 5 s)
    {"eval": EXPR}                         EXPR's value (a promise is awaited)
    {"sleep": 0.3}                         seconds
    {"screenshot": PATH}                   the screen as a PNG
    {"measure": ["loupe-open", "loupe-shown"]}  seconds between the page's last two such marks
    {"resource": "review/view/"}           seconds the last fetch whose URL holds this took
    {"navigate": URL}                      another address

Any step may carry "label" (echoed back) and "timeout" (how long to wait for its element; 5 s).
Before the steps, the page is opened and its document parsed. One JSON line is printed per
step, the opening first as step 0:

    {"step": 1, "do": "tap", "label": null, "value": {"x": 97.5, "y": 180.0, "hit": true}, "seconds": 0.05}

`seconds` is how long the step took; for a wait, from the end of the step before (so a tap then
a wait times what the tap caused). A wait that times out, a missing element, or an eval that
throws prints {"step": N, "do": ..., "error": "..."}, says which step on stderr, and exits 1
without the steps after it. Bad arguments exit 2.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

ACTIONS = ("tap", "double_tap", "click", "swipe", "key", "type", "wait", "eval", "sleep", "screenshot", "measure",
           "resource", "navigate")


class StepFailed(Exception):
    pass


def read_steps(arguments):
    steps = []
    for argument in arguments:
        text = argument.strip()
        if text.startswith("{") or text.startswith("["):
            loaded = json.loads(text)
        elif argument == "-":
            loaded = json.load(sys.stdin)
        else:
            with open(argument, encoding="utf-8") as f:
                loaded = json.load(f)
        steps.extend(loaded if isinstance(loaded, list) else [loaded])
    for index, step in enumerate(steps, 1):
        kinds = [key for key in step if key in ACTIONS] if isinstance(step, dict) else []
        if len(kinds) != 1:
            raise ValueError("step %d (%s) must have exactly one of %s" % (index, json.dumps(step), ", ".join(ACTIONS)))
    return steps


def kind_of(step):
    return next(key for key in step if key in ACTIONS)


def shown(browser, selector, timeout):
    """Waits until the selector's element exists and has a size."""
    expression = ("(() => { const e = document.querySelector(%s); if (!e) return false; const r = e.getBoundingClientRect();"
                  " return r.width > 0 && r.height > 0; })()" % json.dumps(selector))
    try:
        browser.wait_for(expression, timeout)
    except TimeoutError:
        raise StepFailed("%s was not shown within %g s" % (selector, timeout))


def swipe_points(browser, step):
    direction = step["swipe"]
    if isinstance(direction, list):
        return direction
    if "on" in step:
        shown(browser, step["on"], step.get("timeout", 5))
        box = browser.box(step["on"])
    else:
        width, height = browser.viewport or tuple(browser.evaluate("[innerWidth, innerHeight]"))
        box = {"x": 0, "y": 0, "width": width, "height": height}
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    dx, dy = box["width"] * 0.3, box["height"] * 0.3
    moves = {"left": (cx + dx, cy, cx - dx, cy), "right": (cx - dx, cy, cx + dx, cy),
             "up": (cx, cy + dy, cx, cy - dy), "down": (cx, cy - dy, cx, cy + dy)}
    if direction not in moves:
        raise StepFailed("swipe %r: say left, right, up, down or [x0, y0, x1, y1]" % direction)
    return moves[direction]


def play(browser, step):
    """Runs one step; its value."""
    kind = kind_of(step)
    target = step[kind]
    timeout = step.get("timeout", 5)
    if kind in ("tap", "double_tap", "click"):
        shown(browser, target, timeout)
        at = tuple(step.get("at", (0.5, 0.5)))
        if kind == "click":
            return browser.click_selector(target, at)
        x, y = browser.point(target, at)
        hit = browser.hits(target, x, y)
        (browser.tap if kind == "tap" else browser.double_tap)(x, y)
        return {"x": round(x, 1), "y": round(y, 1), "hit": hit}
    if kind == "swipe":
        x0, y0, x1, y1 = swipe_points(browser, step)
        browser.swipe(x0, y0, x1, y1)
        return [round(v, 1) for v in (x0, y0, x1, y1)]
    if kind == "key":
        browser.press(target)
        return target
    if kind == "type":
        shown(browser, target, timeout)
        return browser.type_text(target, step.get("text", ""))
    if kind == "wait":
        try:
            value, _ = browser.wait_for(target, timeout)
        except TimeoutError as error:
            raise StepFailed("%s timed out after %g s (last value %s)" % (json.dumps(target), timeout,
                                                                         json.dumps(getattr(error, "last_value", None))))
        return value
    if kind == "eval":
        value, error = browser.evaluate_or_error(target, await_promise=True)
        if error:
            raise StepFailed("eval %s threw: %s" % (json.dumps(target), error))
        return value
    if kind == "sleep":
        time.sleep(float(target))
        return target
    if kind == "screenshot":
        return {"path": target, "bytes": browser.screenshot(target)}
    if kind == "measure":
        return browser.measure(target[0], target[1])
    if kind == "resource":
        return browser.resource_seconds(target)
    if kind == "navigate":
        return browser.navigate(target, timeout=max(timeout, 30))
    raise StepFailed("unknown step %s" % kind)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phone", dest="phone", action="store_true", default=True, help="a phone's screen (default)")
    parser.add_argument("--no-phone", dest="phone", action="store_false", help="a desktop window, mouse clicks")
    parser.add_argument("--wifi", dest="wifi", action="store_true", default=True, help="a venue's Wi-Fi (default)")
    parser.add_argument("--no-wifi", dest="wifi", action="store_false", help="the network as it is (loopback)")
    parser.add_argument("--mbit", type=float, default=20, help="Wi-Fi throughput each way, Mbit/s (20)")
    parser.add_argument("--rtt", type=float, default=40, help="round trip added by the Wi-Fi, ms (40)")
    parser.add_argument("--width", type=int, default=390)
    parser.add_argument("--height", type=int, default=844)
    parser.add_argument("--dpr", type=float, default=3)
    parser.add_argument("url")
    parser.add_argument("steps", nargs="*")
    args = parser.parse_args()
    try:
        steps = read_steps(args.steps)
    except (ValueError, OSError) as error:
        parser.error(str(error))

    with cdp.Chromium() as browser:
        if args.phone:
            browser.emulate_phone(args.width, args.height, args.dpr)
        if args.wifi:
            browser.emulate_wifi(args.mbit, args.rtt)
        started = time.time()
        try:
            browser.navigate(args.url)
        except (TimeoutError, cdp.DevToolsError) as error:
            print(json.dumps({"step": 0, "do": "navigate", "error": str(error)}), flush=True)
            sys.stderr.write("chromium_desk: opening %s failed: %s\n" % (args.url, error))
            return 1
        print(json.dumps({"step": 0, "do": "navigate", "label": None, "value": args.url,
                          "seconds": round(time.time() - started, 4)}), flush=True)
        for number, step in enumerate(steps, 1):
            kind = kind_of(step)
            started = time.time()
            try:
                value = play(browser, step)
            except (StepFailed, LookupError, cdp.DevToolsError, TimeoutError) as error:
                print(json.dumps({"step": number, "do": kind, "label": step.get("label"), "error": str(error)}), flush=True)
                sys.stderr.write("chromium_desk: step %d %s failed: %s\n" % (number, json.dumps(step), error))
                return 1
            print(json.dumps({"step": number, "do": kind, "label": step.get("label"), "value": value,
                              "seconds": round(time.time() - started, 4)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
