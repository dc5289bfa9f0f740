#!/usr/bin/env python3
"""Prints the ten slowest tests of a scripts/test.sh run, from swift test's xUnit file and the
XCTest log of the suites run one at a time, so that the next slow test is seen."""

import re
import sys
import xml.etree.ElementTree as ElementTree

times = []
try:
    for case in ElementTree.parse(sys.argv[1]).iter("testcase"):
        times.append((float(case.get("time") or 0), "%s.%s" % (case.get("classname"), case.get("name"))))
except (OSError, ElementTree.ParseError):
    pass
with open(sys.argv[2], errors="replace") as log:
    for line in log:
        match = re.match(r"Test Case '([\w.]+)\.(\w+)' (?:passed|failed) \(([\d.]+) seconds\)", line)
        if match:
            times.append((float(match.group(3)), "%s.%s" % (match.group(1), match.group(2))))
if times:
    print("slowest tests:")
    for seconds, name in sorted(times, reverse=True)[:10]:
        print("  %6.1f s  %s" % (seconds, name))
