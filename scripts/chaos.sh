#!/usr/bin/env bash
# relay's fault suite (see RELIABILITY.md): builds relay in release mode, then runs
# scripts/chaos.py against the camera simulator and the local gallery.
#   scripts/chaos.sh                 every case, full size (about 15 minutes)
#   scripts/chaos.sh --quick crash   fewer photos, shorter outages
#   scripts/chaos.sh matrix [--quick] [SOURCE:DESTINATION ...]
#                                    every source × every destination kind (scripts/chaos_matrix.py)
#   scripts/chaos.sh powerloss [--quick] [--model powerloss|lazyfs] [ROAD ...]
#                                    power cuts on seven roads (scripts/chaos_powerloss.py); its quick
#                                    form is also a case of `scripts/chaos.sh --quick`
set -euo pipefail
cd "$(dirname "$0")/.."
# Sourced without this script's arguments (install-deps.sh takes extra packages from its own).
args=("$@")
set --
source scripts/install-deps.sh
set -- "${args[@]}"
swift build -c release --product relay >&2
export RELAY_BIN="$(swift build -c release --show-bin-path)/relay"
if [ "${1:-}" = matrix ]; then
    shift
    exec python3 scripts/chaos_matrix.py "$@"
fi
if [ "${1:-}" = powerloss ]; then
    shift
    exec python3 scripts/chaos_powerloss.py "$@"
fi
exec python3 scripts/chaos.py "$@"
