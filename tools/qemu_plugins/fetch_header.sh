#!/bin/bash
# QEMU's plugin header (include/qemu/qemu-plugin.h) from the source package of the QEMU the
# host runs: Debian 12's qemu 1:7.2+dfsg-7+deb12u18.  The .dsc is pinned by its SHA-256; the
# orig tarball is checked against the .dsc's Checksums-Sha256.  Both are cached in
# build/qemu_plugins/src/ (a second run with the header present does nothing); only the header
# is extracted.  Not copied into the repository: QEMU's licence is not ours.
#
# Usage: tools/qemu_plugins/fetch_header.sh OUT_DIR   (writes OUT_DIR/qemu-plugin.h)
set -eu -o pipefail

VERSION=7.2+dfsg-7+deb12u18
UPSTREAM=7.2+dfsg
DSC_SHA256=6b6bd27b947ec89e40a1d6b26d9c9f3c698ca691da13163e0483f6061bbb20b3
MIRRORS=("http://deb.debian.org/debian/pool/main/q/qemu"
         "https://snapshot.debian.org/archive/debian/20250101T000000Z/pool/main/q/qemu")

out=${1:?usage: fetch_header.sh OUT_DIR}
cache="$(dirname "$out")/src"
die() { echo "fetch_header: ERROR: $*" >&2; exit 1; }
[ -f "$out/qemu-plugin.h" ] && exit 0
mkdir -p "$cache" "$out"

# fetch NAME SHA256: into the cache, from the first mirror that has it, checked
fetch() {
    local name=$1 sum=$2 m
    if [ -f "$cache/$name" ] && echo "$sum  $cache/$name" | sha256sum -c --status; then
        return 0
    fi
    for m in "${MIRRORS[@]}"; do
        echo "fetch_header: downloading $m/$name" >&2
        if curl -sSfL --retry 2 -o "$cache/$name.part" "$m/$name" &&
           echo "$sum  $cache/$name.part" | sha256sum -c --status; then
            mv "$cache/$name.part" "$cache/$name"
            return 0
        fi
    done
    rm -f "$cache/$name.part"
    die "$name: not downloadable or its SHA-256 is not $sum"
}

dsc="qemu_${VERSION}.dsc"
orig="qemu_${UPSTREAM}.orig.tar.xz"
fetch "$dsc" "$DSC_SHA256"
orig_sum=$(awk -v f="$orig" '/^Checksums-Sha256:/ {s = 1; next} /^[^ ]/ {s = 0}
                             s && $3 == f {print $1}' "$cache/$dsc")
[ -n "$orig_sum" ] || die "$dsc lists no SHA-256 for $orig"
fetch "$orig" "$orig_sum"
tar xJOf "$cache/$orig" --wildcards '*/include/qemu/qemu-plugin.h' > "$out/qemu-plugin.h.part"
[ -s "$out/qemu-plugin.h.part" ] || die "$orig has no include/qemu/qemu-plugin.h"
mv "$out/qemu-plugin.h.part" "$out/qemu-plugin.h"
