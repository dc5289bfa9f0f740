"""Helpers shared by scripts/chaos.py and scripts/bench.py: waiting for a condition, and for the
line a peer process (gallery, camera simulator, relay) prints when it is ready."""

import re
import time


def wait_for(condition, timeout, step=0.2):
    """Polls `condition` every `step` seconds until it holds or `timeout` passes; returns it."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()


def ready_line(path, pattern, timeout=20):
    """Waits until the file at `path` matches `pattern`; returns the pattern's first group."""
    found = []

    def check():
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                match = re.search(pattern, f.read())
        except FileNotFoundError:
            return False
        if match:
            found.append(match.group(1))
        return bool(match)

    if not wait_for(check, timeout, 0.05):
        raise RuntimeError("no %r in %s" % (pattern, path))
    return found[0]
