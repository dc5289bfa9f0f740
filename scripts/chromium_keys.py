#!/usr/bin/env python3
"""Presses keys on a page in headless Chromium, as a person at a laptop would, through the
DevTools protocol (scripts/cdp.py: a minimal WebSocket client on the standard library, no
package), and prints what the page shows after each key. For the editor's page's keyboard test.

    chromium_keys.py URL EXPRESSION KEY...

After the page has loaded, and after each KEY (ArrowRight, ArrowLeft, ArrowDown, ArrowUp, Space,
or a letter), it waits until EXPRESSION (JavaScript returning a string) gives a new value, or 5 s
pass, and prints one JSON line {"key": KEY, "value": VALUE}.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chromium  # noqa: E402


def main():
    url, expression, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    with Chromium() as tools:
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


if __name__ == "__main__":
    main()
