#!/usr/bin/env bash
# Fuzzes relay's camera-facing decoders with libFuzzer (ASan on): the PTP/IP packet and stream
# readers, the Canon EOS and Nikon event-list parsers, DeviceInfo and ObjectInfo, SSDP messages
# and UPnP device descriptions, the FTP receiver's command parser, and the JPEG and RAW structure
# walkers that decide whether an upload is whole.
#   scripts/fuzz.sh                 each target for 600 s
#   SECONDS_PER_TARGET=60 scripts/fuzz.sh packets events
# Prints one line per target: executions, crashes (a crashing input is kept in Fuzz/.build/crashes).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
# install-deps.sh installs its own arguments too: the target names are not packages.
set --
# Sourced without this script's arguments (install-deps.sh takes extra packages from its own).
args=("$@")
set --
source scripts/install-deps.sh
set -- "${args[@]}"
seconds=${SECONDS_PER_TARGET:-600}
[ ${#targets[@]} -gt 0 ] || targets=(packets events deviceinfo objectinfo ssdp description ftp jpeg raw)
(cd Fuzz && swift build -c release -Xswiftc -sanitize=fuzzer,address >&2)
fuzzer=Fuzz/.build/release/PTPFuzz
mkdir -p Fuzz/.build/crashes
printf '%-11s %8s %14s %8s\n' target seconds executions crashes
for target in "${targets[@]}"; do
    work=Fuzz/.build/corpus/$target
    mkdir -p "$work"
    log=Fuzz/.build/fuzz-$target.log
    status=0
    FUZZ_TARGET=$target "$fuzzer" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="Fuzz/.build/crashes/$target-" "$work" "Fuzz/corpus/$target" >"$log" 2>&1 || status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(ls Fuzz/.build/crashes | grep -c "^$target-" || true)
    printf '%-11s %8s %14s %8s\n' "$target" "$seconds" "${runs:-?}" "$crashes"
    [ "$status" -eq 0 ] || echo "  $target: the fuzzer stopped with status $status; see $log" >&2
done
