#!/usr/bin/env bash
# A phone-sized screenshot of `relay run --status` during a simulated run, for a person to look
# at: the camera simulator, the local gallery and relay on loopback, a few shots, then headless
# Chromium. Usage: scripts/status-screenshot.sh [PNG] (default /tmp/relay-status-shots/run.png).
# Uses the relay built in .build/debug (swift build first) or $RELAY.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
relay=${RELAY:-$root/.build/debug/relay}
shot=${1:-/tmp/relay-status-shots/run.png}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# Waits up to 30 s for text $2 in file $1 and prints what follows it on its line.
after_line() {
    for _ in $(seq 300); do
        local line
        line=$(grep -m1 -o -F "$2" "$1" >/dev/null 2>&1 && grep -m1 -F "$2" "$1" || true)
        if [ -n "$line" ]; then echo "${line#*"$2"}"; return; fi
        sleep 0.1
    done
    echo "no '$2' in $1:" >&2
    cat "$1" >&2
    exit 1
}

python3 -u "$root/scripts/gallery.py" --dir "$work/gallery" --host 127.0.0.1 --port 0 >"$work/gallery.out" 2>&1 &
pids+=($!)
gallery=$(after_line "$work/gallery.out" "gallery listening on http://")

"$relay" camera-sim --profile canon-eos --host 127.0.0.1 --port 0 --photo-size 2M --battery 75 --card-shots 850 >"$work/sim.out" 2>"$work/sim.err" &
sim_pid=$!
pids+=($sim_pid)
sim=$(after_line "$work/sim.out" "camera-sim listening on ")
sim=${sim%% (profile*}

export RELAY_HOME="$work/home" RELAY_STATUS_TOKEN=look
"$relay" config add --url "http://$gallery/upload" --note "status screenshot" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$relay" run --camera "ptpip://$sim" --status "$port" >/dev/null 2>"$work/relay.err" &
pids+=($!)
after_line "$work/relay.err" "connected to" >/dev/null
for _ in 1 2 3 4 5; do
    kill -USR1 "$sim_pid"
    sleep 0.7
done
sleep 2
mkdir -p "$(dirname "$shot")"
profile="$work/chromium"
chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars --user-data-dir="$profile" \
    --virtual-time-budget=5000 --window-size=412,915 --screenshot="$shot" "http://127.0.0.1:$port/?token=look" 2>/dev/null
echo "status page screenshot: $shot"
