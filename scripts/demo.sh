#!/usr/bin/env bash
# relay's main job, live: photos land in a hot folder (as a camera's FTP upload would write
# them), relay takes each one and posts it to a local gallery, and you watch them arrive.
#   scripts/demo.sh                 20 photos, one a second
#   PHOTOS=50 INTERVAL=0.2 PORT=8080 scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh imagemagick fonts-dejavu-core
PHOTOS=${PHOTOS:-20}
INTERVAL=${INTERVAL:-1}
PORT=${PORT:-0}

swift build --product relay >&2
relay="$(swift build --show-bin-path)/relay"
out="$PWD/demo-out"
rm -rf "$out"
mkdir -p "$out/drop" "$out/gallery" "$out/home"
export RELAY_HOME="$out/home"

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

python3 scripts/gallery.py --dir "$out/gallery" --port "$PORT" >"$out/gallery.out" 2>"$out/gallery.log" &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$out/gallery.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$out/gallery.out")
[ -n "$url" ] || { echo "the gallery did not start:" >&2; cat "$out/gallery.log" >&2; exit 1; }
echo "gallery: $url  (open it in a browser: it refreshes itself)"

"$relay" config add --url "$url/upload" --note "demo gallery" --field event=demo
"$relay" run --folder "$out/drop" --settle 0.5 &
relay_pid=$!
pids+=($relay_pid)

convert_bin=$(command -v convert-im6.q16 || command -v convert)
for i in $(seq "$PHOTOS"); do
    name=$(printf "IMG_%04d.JPG" "$i")
    hue=$(( (i * 37) % 360 ))
    # Written under a temporary name and renamed, as FTP servers and tethering tools do.
    "$convert_bin" -size 1200x800 "gradient:hsl($hue,80%,55%)-hsl($(( (hue + 120) % 360 )),70%,25%)" \
        -font DejaVu-Sans -gravity center -pointsize 150 -fill white -annotate 0 "#$i" \
        -gravity south -pointsize 36 -annotate +0+40 "relay demo · $(date +%H:%M:%S)" \
        -quality 85 "jpg:$out/drop/.$name.part"
    mv "$out/drop/.$name.part" "$out/drop/$name"
    sleep "$INTERVAL"
done

count_photos() { python3 -c "import json,sys,urllib.request; print(len(json.load(urllib.request.urlopen(sys.argv[1]+'/api/photos'))))" "$url"; }
for _ in $(seq 120); do [ "$(count_photos)" -ge "$PHOTOS" ] && break; sleep 0.5; done
kill -INT "$relay_pid"; wait "$relay_pid" || true

echo
"$relay" history -n 10
echo
echo "$(count_photos) of $PHOTOS photos are in the gallery at $url (files in $out/gallery/photos)"
if [ -t 0 ] && [ -t 1 ]; then
    echo "the gallery keeps running: Ctrl-C to stop it"
    wait
fi
