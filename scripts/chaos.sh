#!/usr/bin/env bash
# relay's fault suite (see RELIABILITY.md): builds relay in release mode, then runs
# scripts/chaos.py against the camera simulator and the local gallery.
#   scripts/chaos.sh                 every case, full size (about 15 minutes)
#   scripts/chaos.sh --quick crash   fewer photos, shorter outages
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-deps.sh
swift build -c release --product relay >&2
RELAY_BIN="$(swift build -c release --show-bin-path)/relay" exec python3 scripts/chaos.py "$@"
