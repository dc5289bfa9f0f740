#!/usr/bin/env bash
# Runs every relay test on a fresh Debian machine: installs what the tests need (apt), builds,
# and runs `swift test` (unit tests, the local gallery, the camera simulator, gphoto2 interop).
set -euo pipefail
cd "$(dirname "$0")/.."
# Sourced without this script's arguments (install-deps.sh takes extra packages from its own).
args=("$@")
set --
source scripts/install-deps.sh
set -- "${args[@]}"
swift build --build-tests
swift test --skip-build "$@"
