#!/bin/bash
# Fetch Debian packages for the lx initramfs WITHOUT installing them on the host: apt-get
# download, the way tools/linuxref/fetch_kernel.sh fetches the kernel.
#
#   tools/initramfs/fetch_deb.sh [--force] PACKAGE...
#
# Result per package: build/linux/debs/PACKAGE.deb and build/linux/debs/PACKAGE.version
# ("PACKAGE=VERSION", written last, so it marks a complete download).  Idempotent: a second run
# with the same candidate version in apt's lists does nothing.  Offline with a cached older
# version: keeps it, with a warning.  The package is not extracted here: mkinitramfs.py reads
# the files it needs from the .deb (dpkg-deb --fsys-tarfile), so no package tree lands under
# build/ (where a directory such as conf-hooks.d would look like a make dependency file).
# The binaries are never run on the host (they are Linux programs for the lx personality).
set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${LX_PKG_DIR:-$ROOT/build/linux}"

die() { echo "fetch_deb: ERROR: $*" >&2; exit 1; }
note() { echo "fetch_deb: $*" >&2; }

force=0
if [ "${1:-}" = "--force" ]; then force=1; shift; fi
[ $# -ge 1 ] || { echo "usage: tools/initramfs/fetch_deb.sh [--force] PACKAGE..." >&2; exit 2; }

for tool in apt-cache apt-get dpkg-deb; do
    command -v "$tool" >/dev/null || die "'$tool' not found (this needs a Debian host with apt/dpkg)"
done
mkdir -p "$OUT/debs" || die "cannot create $OUT"

candidate() {
    apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { print $2; exit }'
}

updated=0
fetch_one() {
    local pkg=$1 ver stamp new deb="$OUT/debs/$1.deb" tag="$OUT/debs/$1.version"
    ver="$(candidate "$pkg")"
    if { [ -z "$ver" ] || [ "$ver" = "(none)" ]; } && [ $updated = 0 ]; then
        # Fresh machines have empty package lists; apt-cache then knows nothing.
        note "apt knows no candidate for $pkg; running 'apt-get update' once"
        updated=1
        if ! apt-get update >"$OUT/apt-update.log" 2>&1; then
            tail -n 15 "$OUT/apt-update.log" >&2
            [ -f "$tag" ] && { note "WARNING: keeping cached $(cat "$tag")"; return 0; }
            die "'apt-get update' failed (see above: no network / not root / broken sources?)"
        fi
        ver="$(candidate "$pkg")"
    fi
    if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
        [ -f "$tag" ] && { note "WARNING: no candidate for $pkg; keeping cached $(cat "$tag")"; return 0; }
        die "no installable candidate version for $pkg (is this Debian 12 with main enabled?)"
    fi

    stamp="$pkg=$ver"
    if [ $force = 0 ] && [ -f "$deb" ] && [ "$(cat "$tag" 2>/dev/null)" = "$stamp" ]; then
        note "up to date: $stamp"
        return 0
    fi

    note "downloading $stamp"
    # A scratch directory, so that a failure keeps the previous cache.  apt-get download names
    # the file PACKAGE_VERSION_ARCH.deb (colon escaped); it is renamed to PACKAGE.deb.
    rm -rf "$OUT/debs/dl" && mkdir -p "$OUT/debs/dl" || die "cannot create $OUT/debs/dl"
    if ! (cd "$OUT/debs/dl" && apt-get download "$stamp") >"$OUT/debs/download.log" 2>&1; then
        tail -n 15 "$OUT/debs/download.log" >&2
        if [ $force = 0 ] && [ -f "$tag" ]; then
            note "WARNING: 'apt-get download $stamp' failed (see above); keeping cached $(cat "$tag")"
            return 0
        fi
        die "'apt-get download $stamp' failed (see above; no network to the Debian mirror?)"
    fi
    new="$(ls "$OUT/debs/dl/${pkg}_"*.deb 2>/dev/null | head -n 1)"
    [ -n "$new" ] || die "apt-get download reported success but produced no ${pkg}_*.deb"
    dpkg-deb -f "$new" Version | grep -qxF "$ver" || die "$new is not version $ver"
    rm -f "$tag"
    mv -f "$new" "$deb" && rmdir "$OUT/debs/dl" || die "cannot move $new to $deb"
    echo "$stamp" >"$tag"
    note "ok: $stamp -> ${deb#"$ROOT"/}"
}

for p in "$@"; do
    fetch_one "$p"
done
