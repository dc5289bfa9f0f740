#!/usr/bin/env bash
# relay's main job, live: a Wi-Fi camera (relay's built-in Canon EOS simulator, over real PTP/IP
# sockets) shoots, relay takes each new JPEG off it and posts it to a local gallery, and you
# watch them arrive. RAW companions stay on the camera.
#   scripts/demo.sh                 20 shots, one a second
#   PHOTOS=50 INTERVAL=0.5 PORT=8080 STATUS=0.0.0.0:8081 scripts/demo.sh
# relay's live status page (cameras, battery, queues, last uploads) is served too: its address is
# printed once relay starts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh demo
PHOTOS=${PHOTOS:-20}
INTERVAL=${INTERVAL:-1}
PORT=${PORT:-0}
STATUS=${STATUS:-127.0.0.1:0}

echo "building relay…" >&2
build_log="$(mktemp)"
swift build --product relay >"$build_log" 2>&1 || { cat "$build_log" >&2; echo "swift build failed (above)" >&2; exit 1; }
rm -f "$build_log"
relay="$(swift build --show-bin-path)/relay"
out="$PWD/demo-out"
rm -rf "$out"
mkdir -p "$out/roll" "$out/gallery" "$out/home"
export RELAY_HOME="$out/home"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# The camera's pictures: each shot reuses the next one under the camera's own new file name.
convert_bin=$(command -v convert-im6.q16 || command -v convert)
echo "making $PHOTOS demo pictures…" >&2
for i in $(seq "$PHOTOS"); do
    hue=$(( (i * 37) % 360 ))
    "$convert_bin" -size 1600x1067 "gradient:hsl($hue,80%,55%)-hsl($(( (hue + 120) % 360 )),70%,25%)" \
        -font DejaVu-Sans -gravity center -pointsize 180 -fill white -annotate 0 "#$i" \
        -gravity south -pointsize 40 -annotate +0+50 "relay demo · shot $i" \
        -attenuate 0.4 +noise Gaussian -quality 90 "jpg:$out/roll/$(printf "ROLL_%04d.JPG" "$i")"
done

python3 scripts/gallery.py --dir "$out/gallery" --port "$PORT" >"$out/gallery.out" 2>"$out/gallery.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$out/gallery.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$out/gallery.out")
[ -n "$url" ] || { echo "the gallery did not start:" >&2; cat "$out/gallery.log" >&2; exit 1; }

"$relay" camera-sim --profile canon-eos --port 0 --photos "$out/roll" --raw --raw-size 2M \
    >"$out/camera.out" 2>"$out/camera.log" </dev/null &
camera_pid=$!
pids+=($camera_pid)
for _ in $(seq 100); do grep -q "listening on" "$out/camera.out" 2>/dev/null && break; sleep 0.1; done
camera=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$out/camera.out")
[ -n "$camera" ] || { echo "the camera simulator did not start:" >&2; cat "$out/camera.log" >&2; exit 1; }

echo "gallery: $url  (open it in a browser: it refreshes itself)"
echo "camera:  ptpip://$camera  (a simulated Canon EOS; its log is $out/camera.log)"
"$relay" config add --url "$url/upload" --note "demo gallery" --field event=demo
"$relay" run --camera "ptpip://$camera" --status "$STATUS" 2> >(tee "$out/relay.log" >&2) &
relay_pid=$!
pids+=($relay_pid)
for _ in $(seq 300); do grep -q "connected to" "$out/relay.log" 2>/dev/null && break; sleep 0.1; done
status_url=$(sed -n 's/.*status page at \(http[^ ;]*\).*/\1/p' "$out/relay.log")
echo "status:  ${status_url:-(not started, see $out/relay.log)}  (relay's live status page)"

# The photographer shoots: one frame (JPEG + RAW) per signal, as the shutter button would.
for _ in $(seq "$PHOTOS"); do
    kill -USR1 "$camera_pid"
    sleep "$INTERVAL"
done

count_photos() { python3 -c "import json,sys,urllib.request; print(len(json.load(urllib.request.urlopen(sys.argv[1]+'/api/photos'))))" "$url"; }
for _ in $(seq 120); do [ "$(count_photos)" -ge "$PHOTOS" ] && break; sleep 0.5; done
kill -INT "$relay_pid"; wait "$relay_pid" || true

echo
"$relay" history -n 10
echo
seconds=$(sed -n 's/.*, \([0-9.]*\)s from shutter to gallery.*/\1/p' "$out/relay.log" | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%s s median, %s s slowest", a[int((NR+1)/2)], a[NR]}')
echo "$(count_photos) of $PHOTOS photos are in the gallery at $url (files in $out/gallery/photos)"
echo "shutter to gallery: ${seconds:-n/a} (from the camera announcing the shot to the gallery's answer)"
if [ -t 0 ] && [ -t 1 ]; then
    echo "the gallery keeps running: Ctrl-C to stop it"
    wait
fi
