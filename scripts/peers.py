"""Helpers shared by scripts/chaos.py and scripts/bench.py: waiting for a condition, and for the
line a peer process (gallery, camera simulator, relay) prints when it is ready."""

import os
import re
import threading
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


def end_with_parent():
    """Ends this process (from a daemon thread) once the process that started it is gone, so
    that a test or script that dies without stopping its peers leaves none behind. Linux tells a
    child nothing when its parent ends, so the parent is looked at once a second."""
    parent = os.getppid()

    def watch():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()

