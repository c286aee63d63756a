#!/bin/bash
# Fetch Debian 12's stock amd64 kernel image for the native-Linux reference
# guest, WITHOUT installing it on the host: apt-get download + dpkg-deb -x.
#
# Result: build/linuxref/vmlinuz (plus build/linuxref/kernel-version).
# Idempotent: the .deb and the extracted tree are cached under build/linuxref/;
# a second run with the same resolved version does nothing.
#
# Usage: tools/linuxref/fetch_kernel.sh [--force]
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/build/linuxref"
META=linux-image-amd64

die() { echo "fetch_kernel: ERROR: $*" >&2; exit 1; }
note() { echo "fetch_kernel: $*" >&2; }

force=0
[ "${1:-}" = "--force" ] && force=1

for tool in apt-cache apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || die "'$tool' not found (this script needs a Debian host with apt/dpkg)"
done

# linux-image-amd64 is a metapackage; its Depends names the real, versioned
# image package (e.g. linux-image-6.1.0-56-amd64). Pick it from apt-cache.
resolve() {
    apt-cache depends "$META" 2>/dev/null |
        awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-.*-amd64$/ { print $2; exit }'
}

pkg="$(resolve)"
if [ -z "$pkg" ]; then
    # Fresh machines have empty package lists; apt-cache then knows nothing.
    note "could not resolve $META with apt-cache; running 'apt-get update' once"
    mkdir -p "$OUT" || die "cannot create $OUT"
    if ! apt-get update >"$OUT/apt-update.log" 2>&1; then
        tail -n 15 "$OUT/apt-update.log" >&2
        die "'apt-get update' failed (see above: no network / not root / broken sources?)"
    fi
    pkg="$(resolve)"
    [ -n "$pkg" ] || die "'apt-cache depends $META' lists no linux-image-*-amd64 dependency (is this Debian 12 with main enabled?)"
fi

ver="$(apt-cache policy "$pkg" | awk '/Candidate:/ { print $2; exit }')"
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no installable candidate version for $pkg"

mkdir -p "$OUT/debs" || die "cannot create $OUT/debs"
stamp="$pkg=$ver"
if [ $force = 0 ] && [ -f "$OUT/vmlinuz" ] && [ "$(cat "$OUT/kernel-version" 2>/dev/null)" = "$stamp" ]; then
    note "up to date: $stamp -> build/linuxref/vmlinuz"
    exit 0
fi

# apt-get download writes <pkg>_<ver-with-colon-escaped>_amd64.deb into cwd.
deb="$(ls "$OUT/debs/${pkg}_"*"_amd64.deb" 2>/dev/null | head -n 1)"
if [ $force = 1 ] || [ -z "$deb" ] || ! dpkg-deb -f "$deb" Version 2>/dev/null | grep -qxF "$ver"; then
    note "downloading $pkg=$ver"
    # Download into a scratch dir so a failure keeps the previous cache.
    rm -rf "$OUT/debs/dl" && mkdir -p "$OUT/debs/dl" || die "cannot create $OUT/debs/dl"
    if ! (cd "$OUT/debs/dl" && apt-get download "$pkg=$ver") >"$OUT/debs/download.log" 2>&1; then
        tail -n 15 "$OUT/debs/download.log" >&2
        if [ $force = 0 ] && [ -f "$OUT/vmlinuz" ]; then
            # Offline with an older cached kernel: keep working, but loudly.
            note "WARNING: 'apt-get download $pkg=$ver' failed (see above);" \
                 "keeping cached $(cat "$OUT/kernel-version" 2>/dev/null || echo 'unknown version')"
            exit 0
        fi
        die "'apt-get download $pkg=$ver' failed (see above; no network to the Debian mirror?)"
    fi
    new="$(ls "$OUT/debs/dl/${pkg}_"*"_amd64.deb" 2>/dev/null | head -n 1)"
    [ -n "$new" ] || die "apt-get download reported success but produced no ${pkg}_*.deb"
    rm -f "$OUT/debs/${pkg}_"*.deb
    mv "$new" "$OUT/debs/" && rmdir "$OUT/debs/dl" || die "cannot move $new into $OUT/debs"
    deb="$OUT/debs/$(basename "$new")"
fi

# Extract into a scratch dir first so an interrupted run never leaves a
# half-written tree behind that a later run would trust.
rm -rf "$OUT/pkg.tmp"
dpkg-deb -x "$deb" "$OUT/pkg.tmp" || die "'dpkg-deb -x $deb' failed"
img="$(ls "$OUT/pkg.tmp/boot/vmlinuz-"* 2>/dev/null | head -n 1)"
[ -n "$img" ] || die "$deb contains no boot/vmlinuz-*"
# Only boot/ is needed (the guest loads no modules); drop the ~400 MB of
# modules so build/ stays small.
find "$OUT/pkg.tmp" -mindepth 1 -maxdepth 1 ! -name boot -exec rm -rf {} +
rm -rf "$OUT/pkg" && mv "$OUT/pkg.tmp" "$OUT/pkg" || die "cannot move extracted tree into $OUT/pkg"
img="$OUT/pkg/boot/$(basename "$img")"

cp -f "$img" "$OUT/vmlinuz.tmp" && mv -f "$OUT/vmlinuz.tmp" "$OUT/vmlinuz" || die "cannot write $OUT/vmlinuz"
# Keep the config next to it: the README cites e.g. HZ and THP defaults.
cp -f "$OUT/pkg/boot/config-"* "$OUT/config" 2>/dev/null || true
echo "$stamp" >"$OUT/kernel-version"
note "ok: $stamp -> build/linuxref/vmlinuz ($(basename "$img"))"
