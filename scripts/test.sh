#!/usr/bin/env bash
# Runs every relay test on a fresh Debian machine: installs what the tests need (apt), builds,
# and runs `swift test` (unit tests, the local gallery, the camera simulator, gphoto2 interop).
#
# With no arguments, the tests run six at a time (they wait on processes and sockets as much as
# on the CPU: four at a time left a quarter of the machine idle; eight took no less time and
# stretched the CPU-bound tests, JPEG decoding and Chromium, past 10 s each). Two suites put
# simulated cameras at fixed loopback addresses on PTP/IP's port 15740 and scan ranges of them;
# they run one test at a time beside the rest, so that no scan finds another test's camera. With
# arguments (e.g. --filter X), `swift test` gets them as given.
set -euo pipefail
cd "$(dirname "$0")/.."
# Sourced with the set's name, so that it does not see this script's arguments (bash gives them back
# afterwards).
source scripts/install-deps.sh test
swift build --build-tests
if [ $# -gt 0 ]; then
    exec swift test --skip-build "$@"
fi
# The whole run checks the tree's formatting too (.swift-format); a file that drifted is named with
# its line (swift format format --in-place --recursive Sources Tests Package.swift fixes it).
swift format lint --strict --recursive --parallel Sources Tests Package.swift

# The tests' scratch folders on tmpfs when the machine has one: relay fsyncs every photo, its
# sidecar and its folder, and on a virtual disk those syncs were a tenth of the run. What a disk
# does that tmpfs does not (filling up, losing unsynced writes) is tested on mounts of its own.
scratch=""
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
    scratch="$(mktemp -d /dev/shm/relay-tests.XXXXXX)"
    # As /tmp is: the WebDAV tests' Apache runs as www-data.
    chmod 0755 "$scratch"
    export TMPDIR="$scratch"
fi

one_at_a_time=(EndToEndTests.DiscoveryTests EndToEndTests.CameraTetherTests)
bundle="$(swift build --show-bin-path)/relayPackageTests.xctest"
if [ ! -x "$bundle" ]; then
    # Not a runnable bundle (macOS): every test one at a time.
    exec swift test --skip-build
fi
serial_log="$(mktemp)"
xunit="$(mktemp --suffix=.xml)"
trap 'rm -f "$serial_log" "$xunit"; [ -z "$scratch" ] || rm -rf "$scratch"' EXIT
"$bundle" "$(IFS=,; echo "${one_at_a_time[*]}")" >"$serial_log" 2>&1 &
serial_pid=$!
skip="$(IFS='|'; echo "${one_at_a_time[*]##*.}")"
status=0
swift test --skip-build --parallel --num-workers 6 --skip "$skip" --xunit-output "$xunit" || status=$?
serial_status=0
wait "$serial_pid" || serial_status=$?
if [ "$serial_status" -ne 0 ]; then
    grep -E "error:|failed|Executed" "$serial_log" || tail -40 "$serial_log"
    status=$serial_status
else
    grep -E "^\s+Executed [0-9]+ tests" "$serial_log" | tail -1
fi
python3 scripts/slowest_tests.py "$xunit" "$serial_log"
exit "$status"
