#!/usr/bin/env bash
# Tests relay's Debian package on a clean Debian bookworm without any Swift toolchain:
#   sudo scripts/package-test.sh dist/relay_VERSION_ARCH.deb
# A minimal bookworm root (debootstrap --variant=minbase, from the mirror apt uses here) is made once
# and kept in /var/cache/relay-package-test/ (RELAY_PACKAGE_TEST_CACHE); each run installs the package
# with apt in a fresh copy of it, then checks: relay's libraries all come from Debian (ldd), relay
# --version, the man page, the bash completion, the user relay and /var/lib/relay, the unit not
# enabled; a simulated Canon EOS (relay camera-sim) shoots and `relay run`, as the user relay with the
# service's state folder, delivers the shots to the local gallery (scripts/gallery.py, on this
# machine: the root shares its network); `apt-get purge` keeps a state folder that is not empty and
# removes the user and an empty one. Prints one line per check and "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: sudo scripts/package-test.sh dist/relay_VERSION_ARCH.deb (made by scripts/package.sh)" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "scripts/package-test.sh needs root (debootstrap, chroot, mount): run it with sudo" >&2; exit 1; }
deb=$(realpath "$1")
deb_name=$(basename "$deb")
RELAY_DEPS_NO_SWIFT=1 source scripts/install-deps.sh package debootstrap python3

suite=bookworm
arch=$(dpkg --print-architecture)
cache=${RELAY_PACKAGE_TEST_CACHE:-/var/cache/relay-package-test}
base="$cache/$suite-minbase-$arch"
shots=5

# The mirror apt uses on this machine (deb822 .sources or a sources.list line), for the suite and for
# its security updates.
host_uri() { # $1: suite
    local uri=""
    if compgen -G "/etc/apt/sources.list.d/*.sources" >/dev/null; then
        uri=$(awk -v suite="$1" 'BEGIN { RS = "" } {
            u = ""; s = ""; n = split($0, line, "\n")
            for (i = 1; i <= n; i++) {
                if (line[i] ~ /^URIs:/) { split(line[i], f, /[ \t]+/); u = f[2] }
                if (line[i] ~ /^Suites:/) s = line[i] " "
            }
            if (u != "" && index(s, " " suite " ")) { print u; exit }
        }' /etc/apt/sources.list.d/*.sources)
    fi
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
        uri=$(sed -e 's/\[[^]]*\]//' /etc/apt/sources.list | awk -v suite="$1" '$1 == "deb" && $3 == suite { print $2; exit }')
    fi
    echo "$uri"
}
mirror=${RELAY_DEBIAN_MIRROR:-$(host_uri "$suite")}
mirror=${mirror:-http://deb.debian.org/debian}
security=$(host_uri "$suite-security")
security=${security:-http://deb.debian.org/debian-security}

log_dir=$(mktemp -d /tmp/relay-package-test.XXXXXX)
# Runs a command with its output in a log; when it fails, prints the log and stops.
quietly() { # $1: log name, then the command
    local log="$log_dir/$1.log"
    shift
    if ! "$@" >"$log" 2>&1; then
        echo "\`$*\` failed:" >&2
        tail -n 40 "$log" >&2
        echo "(the whole output: $log)" >&2
        exit 1
    fi
}

# 1. The clean root, made once.
if [ ! -f "$base/.relay-package-test-ready" ]; then
    echo "making a minimal Debian $suite root in $base from $mirror (once; about a minute)…" >&2
    mkdir -p "$cache"
    rm -rf "$base" "$base.partial"
    quietly debootstrap debootstrap --variant=minbase "$suite" "$base.partial" "$mirror"
    {
        echo "deb $mirror $suite main"
        echo "deb $mirror $suite-updates main"
        echo "deb $security $suite-security main"
    } >"$base.partial/etc/apt/sources.list"
    # Nothing installed in the root starts a service.
    printf '#!/bin/sh\nexit 101\n' >"$base.partial/usr/sbin/policy-rc.d"
    chmod 0755 "$base.partial/usr/sbin/policy-rc.d"
    quietly apt-clean chroot "$base.partial" apt-get clean
    touch "$base.partial/.relay-package-test-ready"
    mv "$base.partial" "$base"
fi

# 2. A copy of it for this run; mounts and processes are undone on exit.
root="$cache/run.$$"
mounts=()
pids=()
gallery_pid=""
cleanup() {
    local status=$? pid link
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    # Whatever still runs inside this run's root was started by this script.
    for link in /proc/[0-9]*/root; do
        [ "$(readlink "$link" 2>/dev/null)" = "$root" ] || continue
        pid=${link#/proc/}; pid=${pid%/root}
        kill -KILL "$pid" 2>/dev/null || true
    done
    [ -z "$gallery_pid" ] || kill "$gallery_pid" 2>/dev/null || true
    local i
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" 2>/dev/null || true
    done
    if findmnt -rn -o TARGET | grep -q "^$root"; then
        echo "left $root in place: something is still mounted under it" >&2
    else
        rm -rf "$root"
    fi
    if [ "$status" -eq 0 ]; then rm -rf "$log_dir"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cp -a "$base" "$root"
mount_in() { # $1: source or type, $2: target in the root, then mount's options
    local what=$1 target="$root$2"
    shift 2
    mkdir -p "$target"
    mount "$@" "$what" "$target"
    mounts+=("$target")
}
mount_in proc /proc -t proc
mount_in sysfs /sys -t sysfs
mount_in /dev /dev --bind
mount_in /dev/pts /dev/pts --bind
mkdir -p "$cache/apt-archives/partial"
mount_in "$cache/apt-archives" /var/cache/apt/archives --bind
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
root_env=(/usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
    DEBIAN_FRONTEND=noninteractive)
in_root() { chroot "$root" "${root_env[@]}" "$@"; }
# Processes in the background are started with chroot itself, not through a function, so that $! is
# relay's own process id (chroot, env and setpriv exec): the signals below reach it.
as_relay=(setpriv --reuid=relay --regid=relay --init-groups env HOME=/var/lib/relay RELAY_HOME=/var/lib/relay)

# 3. The package, as a user installs it (no recommended packages: Depends must be enough).
echo "installing $deb_name in a clean $suite root…" >&2
cp "$deb" "$root/tmp/$deb_name"
quietly apt-update in_root apt-get update
quietly apt-install in_root apt-get install -y --no-install-recommends "/tmp/$deb_name"

passed=0
failed=0
check() { # $1: what, $2: detail, then the test command
    local what=$1 detail=$2
    shift 2
    if "$@" >/dev/null 2>&1; then
        passed=$((passed + 1))
        echo "ok    $what${detail:+: $detail}"
    else
        failed=$((failed + 1))
        echo "FAIL  $what${detail:+: $detail}"
    fi
}

ldd_output=$(in_root ldd /usr/bin/relay 2>&1 || true)
check "ldd /usr/bin/relay: every library found, none from a Swift toolchain" \
    "$(grep -E 'not found|/opt/swift|swift' <<<"$ldd_output" | head -3 | tr -s ' \t\n' ' ')" \
    bash -c '! grep -qE "not found|/opt/swift" <<<"$1"' _ "$ldd_output"
version=$(in_root relay --version 2>&1 || true)
check "relay --version" "$version" grep -qE '^relay [0-9]' <<<"$version"
check "man page" "/usr/share/man/man1/relay.1.gz" test -s "$root/usr/share/man/man1/relay.1.gz"
check "bash completion" "/usr/share/bash-completion/completions/relay" test -s "$root/usr/share/bash-completion/completions/relay"
check "user relay" "$(in_root getent passwd relay || true)" in_root getent passwd relay
check "user relay in plugdev (USB cameras)" "" bash -c 'chroot "$1" getent group plugdev | grep -qE "[:,]relay(,|$)"' _ "$root"
state=$(in_root stat -c '%U:%G %a' /var/lib/relay 2>&1 || true)
check "/var/lib/relay owned by relay, 0750" "$state" test "$state" = "relay:relay 750"
check "the unit is installed and not enabled" "" bash -c \
    'test -f "$1/lib/systemd/system/relay.service" && ! compgen -G "$1/etc/systemd/system/*.wants/relay.service" >/dev/null' _ "$root"

# 4. Photos from a simulated camera to the gallery, through the packaged relay.
wait_for() { # $1: seconds, then a test command; polls it
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}
gallery="$log_dir/gallery"
mkdir -p "$gallery"
python3 scripts/gallery.py --dir "$gallery" --port 0 >"$log_dir/gallery.out" 2>"$log_dir/gallery.log" &
gallery_pid=$!
wait_for 10 grep -qs "listening on" "$log_dir/gallery.out" || { echo "the gallery did not start:" >&2; cat "$log_dir/gallery.log" >&2; exit 1; }
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$log_dir/gallery.out")

chroot "$root" "${root_env[@]}" relay camera-sim --profile canon-eos --port 0 \
    >"$root/tmp/camera.out" 2>"$root/tmp/camera.log" </dev/null &
camera_pid=$!
pids+=("$camera_pid")
camera=""
if wait_for 15 grep -qs "listening on" "$root/tmp/camera.out"; then
    camera=$(sed -n 's/.*listening on \([^ ]*\) .*/\1/p' "$root/tmp/camera.out")
fi
check "relay camera-sim starts" "${camera:-$(head -3 "$root/tmp/camera.log" | tr '\n' ' ')}" test -n "$camera"

delivered=0
if [ -n "$camera" ]; then
    config_status=0
    config=$(in_root "${as_relay[@]}" relay config add --url "$url/upload" --note "package test" 2>&1) || config_status=$?
    check "relay config add (as the user relay)" "$(head -1 <<<"$config")" test "$config_status" -eq 0
    chroot "$root" "${root_env[@]}" "${as_relay[@]}" relay run --camera "ptpip://$camera" \
        >"$log_dir/relay.out" 2>"$log_dir/relay.log" </dev/null &
    relay_pid=$!
    pids+=("$relay_pid")
    if wait_for 30 grep -qs "connected to" "$log_dir/relay.log"; then
        # The photographer shoots: one frame per signal.
        for _ in $(seq "$shots"); do
            kill -USR1 "$camera_pid"
            sleep 0.3
        done
        count_photos() { find "$gallery/photos" -type f 2>/dev/null | wc -l; }
        enough_photos() { [ "$(count_photos)" -ge "$shots" ]; }
        wait_for 60 enough_photos || true
        delivered=$(count_photos)
    fi
    kill -INT "$relay_pid" 2>/dev/null || true
    relay_status=0
    wait "$relay_pid" || relay_status=$?
    check "relay run delivers $shots shots to the gallery" "$delivered of $shots in $gallery/photos" test "$delivered" -ge "$shots"
    check "relay run stops cleanly on SIGINT" "exit $relay_status" test "$relay_status" -eq 0
    [ "$delivered" -ge "$shots" ] || { echo "relay's log:" >&2; tail -n 20 "$log_dir/relay.log" >&2; }
fi
kill "$camera_pid" 2>/dev/null || true
wait "$camera_pid" 2>/dev/null || true

# 5. Purge: a state folder with files is kept (its spool may hold photos not delivered yet), and the
# user that owns it; an empty one goes, and so does the user.
# A photo not delivered yet, whatever the run above left.
touch "$root/var/lib/relay/undelivered.jpg"
quietly purge-kept in_root apt-get purge -y relay
check "purge keeps a /var/lib/relay that holds files, and the user relay" "" \
    bash -c 'test -n "$(ls -A "$1/var/lib/relay" 2>/dev/null)" && chroot "$1" getent passwd relay >/dev/null' _ "$root"
rm -rf "$root/var/lib/relay"
quietly reinstall in_root apt-get install -y --no-install-recommends "/tmp/$deb_name"
quietly purge-empty in_root apt-get purge -y relay
check "purge removes an empty /var/lib/relay and the user relay" "" \
    bash -c 'test ! -e "$1/var/lib/relay" && ! chroot "$1" getent passwd relay >/dev/null && ! chroot "$1" getent group relay >/dev/null' _ "$root"

echo "$passed passed, $failed failed"
if ((failed)); then
    echo "(logs: $log_dir)" >&2
    exit 1
fi
