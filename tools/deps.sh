#!/bin/sh
# tools/deps.sh: make sure the Debian packages Pecan's build, QEMU runs and tests need are
# installed.  Used by `make run`, `make test` (and `make deps`).
#
#   tools/deps.sh [--bench]
#
# --bench adds what only `make bench` needs (python3-matplotlib, for the plots); tools/bench.py
# runs `tools/deps.sh --bench` itself when no Python it can use imports matplotlib, so the
# other targets never pull it in.
#
# Checks every package with dpkg-query; pytest counts as present when `$PYTHON -m pytest`
# works (a pip-installed pytest on a development machine is fine), matplotlib when
# `$PYTHON -c 'import matplotlib'` does.  Nothing missing: no apt call at all.  Something
# missing: as root, apt-get install it (apt-get update first only if apt does not know a
# package yet, or once more if the install fails); otherwise print the missing packages and
# the command that installs them, and fail.
set -eu

PYTHON=${PYTHON:-python3}

# Debian package names.  gdb is for `make debug`, grub-*/xorriso/mtools for the GRUB ISO,
# musl-tools (musl-gcc) and libc6-dev's static glibc for the Linux test programs of the lx
# personality, dpkg for taking Debian packages apart into its initramfs.
PACKAGES="make gcc binutils libc6-dev python3 qemu-system-x86 grub-pc-bin grub-common \
xorriso mtools gdb musl-tools dpkg"
BENCH=0
case "${1:-}" in
    "") ;;
    --bench) BENCH=1 ;;
    *) echo "usage: tools/deps.sh [--bench]" >&2; exit 2 ;;
esac

installed() {
    dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'
}

have_pytest() {
    "$PYTHON" -m pytest --version >/dev/null 2>&1
}

have_matplotlib() {
    "$PYTHON" -c 'import matplotlib' >/dev/null 2>&1
}

missing=""
for p in $PACKAGES; do
    installed "$p" || missing="$missing $p"
done
have_pytest || installed python3-pytest || missing="$missing python3-pytest"
# Debian's python3-matplotlib serves /usr/bin/python3; bench.py plots with that interpreter
# when $PYTHON is another one, so the package alone is enough.
if [ $BENCH = 1 ]; then
    have_matplotlib || installed python3-matplotlib || missing="$missing python3-matplotlib"
fi
missing=${missing# }

if [ -z "$missing" ]; then
    have_pytest || {
        echo "deps: python3-pytest is installed, but '$PYTHON -m pytest' does not work;" >&2
        echo "deps: set PYTHON to the interpreter that has pytest (e.g. make test PYTHON=/usr/bin/python3)" >&2
        exit 1
    }
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing Debian packages: $missing" >&2
    echo "deps: install them with:" >&2
    echo "    sudo apt-get install -y --no-install-recommends $missing" >&2
    exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# An apt without package lists (fresh container) knows none of them: update first.
for p in $missing; do
    if ! apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
        echo "deps: apt-get update"
        apt-get update -q
        break
    fi
done
echo "deps: installing $missing"
# shellcheck disable=SC2086  # word splitting of the package list is intended
if ! apt-get install -y -q --no-install-recommends $missing; then
    echo "deps: install failed; retrying after apt-get update"
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
fi

for p in $missing; do
    if [ "$p" = python3-pytest ]; then
        have_pytest && continue
        echo "deps: python3-pytest is installed, but '$PYTHON -m pytest' does not work;" >&2
        echo "deps: set PYTHON to the interpreter that has pytest (e.g. PYTHON=/usr/bin/python3)" >&2
        exit 1
    fi
    installed "$p" || { echo "deps: $p is still not installed" >&2; exit 1; }
done
