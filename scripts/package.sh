#!/usr/bin/env bash
# Builds relay's Debian package, dist/relay_VERSION_ARCH.deb: a release build with the Swift runtime
# linked in (--static-swift-stdlib), depending only on Debian's own libraries (libcurl, libgphoto2,
# libjpeg-turbo, OpenSSL, libmicrohttpd), so that no Swift toolchain is needed where it is installed.
#   scripts/package.sh                               build, then package
#   RELAY_PREBUILT=/path/to/relay scripts/package.sh package that binary instead of building
# The package holds /usr/bin/relay (stripped), its man page (help2man, from --help), its bash
# completion (`relay completion bash`), the systemd unit (not enabled), /etc/relay/relay.env.example
# and maintainer scripts that make the system user relay and /var/lib/relay (scripts/packaging/).
# On arm64 Debian with Swift's aarch64 toolchain the same script makes the arm64 package.
# Check it on a clean Debian: scripts/package-test.sh dist/relay_VERSION_ARCH.deb
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

prebuilt=${RELAY_PREBUILT:-}
if [ -n "$prebuilt" ]; then
    [ -x "$prebuilt" ] || { echo "RELAY_PREBUILT=$prebuilt is not an executable file" >&2; exit 1; }
    RELAY_DEPS_NO_SWIFT=1 source scripts/install-deps.sh package
else
    source scripts/install-deps.sh package
fi

work=$(mktemp -d /tmp/relay-package.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. The binary.
if [ -n "$prebuilt" ]; then
    cp "$prebuilt" "$work/relay"
else
    if commit=$(git rev-parse --short=12 HEAD 2>/dev/null); then
        [ -z "$(git status --porcelain)" ] || commit="$commit-dirty"
    else
        commit=unknown
    fi
    echo "building relay (release, Swift runtime linked in, commit $commit)…" >&2
    if ! swift build -c release --static-swift-stdlib --product relay \
        -Xcc "-DRELAY_COMMIT=\"$commit\"" >"$work/build.log" 2>&1; then
        cat "$work/build.log" >&2
        echo "swift build failed (output above)" >&2
        exit 1
    fi
    cp "$(swift build -c release --show-bin-path)/relay" "$work/relay"
fi
strip --strip-unneeded --remove-section=.comment "$work/relay"
bin="$work/relay"

version_line=$("$bin" --version 2>&1 | head -1) || { echo "\`relay --version\` failed: $version_line" >&2; exit 1; }
version=$(sed -n 's/^relay \([0-9][0-9A-Za-z.+~]*\)\([ (].*\)\{0,1\}$/\1/p' <<<"$version_line")
[ -n "$version" ] || { echo "cannot read the version from \`relay --version\`: '$version_line' (expected 'relay 1.2.3 …')" >&2; exit 1; }
arch=$(dpkg --print-architecture)

# Libraries that no Debian package holds (the Swift runtime of a build without
# --static-swift-stdlib, e.g. a debug build) would be missing where the package is installed.
foreign=()
while read -r library; do
    dpkg -S "$(readlink -f "$library")" >/dev/null 2>&1 || dpkg -S "$library" >/dev/null 2>&1 || foreign+=("$library")
done < <(ldd "$bin" | sed -n 's/.* => \(\/[^ ]*\) .*/\1/p')
if ldd "$bin" | grep -q "not found"; then
    echo "relay needs libraries that are not on this machine:" >&2
    ldd "$bin" | grep "not found" >&2
    exit 1
fi
shlibdeps_options=()
if ((${#foreign[@]})); then
    if [ -z "$prebuilt" ]; then
        echo "relay links ${#foreign[@]} libraries that no Debian package provides: ${foreign[*]}" >&2
        echo "(the release build should link the Swift runtime in: --static-swift-stdlib)" >&2
        exit 1
    fi
    echo "warning: RELAY_PREBUILT links ${#foreign[@]} libraries that no Debian package provides (in $(printf '%s\n' "${foreign[@]%/*}" | sort -u | paste -sd' ')): the package will not run where they are missing" >&2
    shlibdeps_options+=(--ignore-missing-info)
fi

# 2. The tree.
root="$work/root"
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/share/man/man1" \
    "$root/usr/share/doc/relay"
install -d -m 0750 "$root/etc/relay"
install -m 0755 "$bin" "$root/usr/bin/relay"

# The unit in the source tree starts /usr/local/bin/relay (a source install; its test checks that).
sed -e 's|^ExecStart=/usr/local/bin/relay |ExecStart=/usr/bin/relay |' \
    -e 's|^Documentation=.*|Documentation=man:relay(1) file:///usr/share/doc/relay/README.md|' \
    scripts/relay.service >"$root/lib/systemd/system/relay.service"
chmod 0644 "$root/lib/systemd/system/relay.service"
grep -q '^ExecStart=/usr/bin/relay run ' "$root/lib/systemd/system/relay.service" || {
    echo "scripts/relay.service: its ExecStart is no longer '/usr/local/bin/relay run …'; update scripts/package.sh's sed" >&2
    exit 1
}
install -m 0644 scripts/packaging/relay.env.example "$root/etc/relay/relay.env.example"
echo /etc/relay/relay.env.example >"$root/DEBIAN/conffiles"
install -m 0755 scripts/packaging/postinst scripts/packaging/postrm "$root/DEBIAN/"

# The man page, from --help: the help's headings (lines in capitals) are made "Heading:" lines,
# which help2man turns into sections; each usage line is a paragraph of its own.
mkdir -p "$work/h2m"
cat >"$work/h2m/relay" <<EOF
#!/bin/sh
if [ "\$1" = --help ]; then
    "$bin" --help | sed -E -e 's/^([A-Z][A-Z ]*[A-Z])\$/\\1:/' -e 's/^(  relay .*)\$/\\1\\n/'
else
    exec "$bin" "\$@"
fi
EOF
chmod 0755 "$work/h2m/relay"
help2man --no-info --locale=C.UTF-8 --section=1 --manual="User Commands" --version-string="$version" \
    --include=scripts/packaging/relay.h2m --output="$work/relay.1" "$work/h2m/relay" 2>"$work/help2man.log" || {
    cat "$work/help2man.log" >&2
    echo "help2man failed (output above)" >&2
    exit 1
}
gzip -9n <"$work/relay.1" >"$root/usr/share/man/man1/relay.1.gz"

# Bash completion: relay writes its own.
if ! "$bin" completion bash >"$work/completion" 2>"$work/completion.err" || [ ! -s "$work/completion" ]; then
    echo "\`relay completion bash\` failed: $(head -3 "$work/completion.err")" >&2
    exit 1
fi
bash -n "$work/completion" || { echo "\`relay completion bash\` wrote something bash cannot parse" >&2; exit 1; }
install -D -m 0644 "$work/completion" "$root/usr/share/bash-completion/completions/relay"

# Documentation.
install -m 0644 README.md "$root/usr/share/doc/relay/README.md"
install -m 0644 scripts/packaging/copyright "$root/usr/share/doc/relay/copyright"
date=$(git log -1 --format=%cD 2>/dev/null || date -R)
maintainer=$(sed -n 's/^Maintainer: //p' scripts/packaging/control)
{
    echo "relay ($version) unstable; urgency=medium"
    echo
    echo "  * Built by scripts/package.sh from ${commit:-a prebuilt binary: $version_line}."
    echo
    echo " -- $maintainer  $date"
} | gzip -9n >"$root/usr/share/doc/relay/changelog.gz"

# 3. The control file: Depends from the libraries relay links (dpkg-shlibdeps reads a debian/control,
# so it runs in a folder of its own, not in the repository).
mkdir -p "$work/shlibdeps/debian"
printf 'Source: relay\n\nPackage: relay\nArchitecture: any\n' >"$work/shlibdeps/debian/control"
if ! depends=$(cd "$work/shlibdeps" && dpkg-shlibdeps -O "${shlibdeps_options[@]}" -e"$root/usr/bin/relay" 2>"$work/shlibdeps.log"); then
    cat "$work/shlibdeps.log" >&2
    echo "dpkg-shlibdeps failed (output above)" >&2
    exit 1
fi
depends=$(sed -n 's/^shlibs:Depends=//p' <<<"$depends")
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies for relay" >&2; exit 1; }
# adduser: postinst makes the user relay.
depends="$depends, adduser"
(cd "$root" && find usr lib -type f | LC_ALL=C sort | xargs -d '\n' md5sum) >"$root/DEBIAN/md5sums"
installed_size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@INSTALLED_SIZE@|$installed_size|" \
    -e "s|@DEPENDS@|$depends|" scripts/packaging/control >"$root/DEBIAN/control"

# 4. The package.
mkdir -p dist
deb="dist/relay_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb ($(du -h "$deb" | cut -f1), relay $version for $arch)"
