#!/usr/bin/env bash
# Installs what relay needs to build, test and demo on Debian: libcurl headers, pkg-config,
# gphoto2 (the interop judge), djpeg (checks the simulator's JPEGs decode), Python 3 (the local
# gallery), OpenSSL headers and lftp (the FTP receiver and a client of it). Sourced by test.sh and demo.sh.
# Only missing packages are installed, so a second run costs nothing.
set -euo pipefail

relay_need_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    if ((${#missing[@]})); then
        echo "installing: ${missing[*]}" >&2
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
}

relay_find_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || { echo "swift not found: install Swift 6 (e.g. to /opt/swift)" >&2; exit 1; }
    command -v python3 >/dev/null 2>&1 || relay_need_packages python3
}

relay_need_packages libcurl4-openssl-dev pkg-config ca-certificates gphoto2 libjpeg-turbo-progs libssl-dev lftp "$@"
relay_find_swift
