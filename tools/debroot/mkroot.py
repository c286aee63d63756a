#!/usr/bin/env python3
"""Build the Debian root of `make run`: build/debroot/root.cpio (newc, uncompressed).

  tools/debroot/mkroot.py [--packages FILE] [--cache DIR] [-o FILE]

1. Resolve: the packages of tools/debroot/packages.txt and their Depends/Pre-Depends, as apt
   sees them for Debian 12 amd64: `apt-get -s install` against an empty dpkg status in a
   private directory, so nothing on the host is installed or changed.  The result is written
   to CACHE/resolved.txt (PACKAGE=VERSION ARCH, one a line); offline, with every .deb of the
   last resolution in the cache, that list is used again.
2. Download: `apt-get download PACKAGE=VERSION` for the files the cache lacks
   (build/debroot/debs, kept across builds and `make clean` of the rest).
3. Unpack: every package's data with `dpkg-deb --fsys-tarfile`, read as a tar stream into a
   staging tree in memory; maintainer scripts are never run.  Paths are merged-/usr as on a
   fresh Debian 12 (bin, sbin, lib, lib64 are symlinks into usr/); documentation, man and info
   pages and message translations are left out (copyright files stay); a tar hard link
   becomes a relative symlink (one copy of the bytes).
4. Configure by hand what the maintainer scripts would do and what matters to a shell session:
   users and groups, hostname, hosts, a resolv.conf stub, /etc/profile and root's dot files
   from base-files, the alternatives symlinks (vi, awk, cc, pager, ...), the empty system
   directories and /init (docs/linux/debian-root.md says why each).
5. Write the newc archive (tools/linuxref/newc.py's records).  With --page-align every file's
   data starts at a page boundary of the archive (the name is padded with NULs, which readers
   ignore), for a loader that maps the module's pages as they are; lx copies file pages into
   a process today, and the padding only spreads the headers over more pages (slower, see
   docs/linux/debian-root.md), so it is off by default.  Reproducible: sorted, mtime 0.

Nothing of Debian's lands in the repository; the binaries run only inside lx (or the Linux
guest of tools/linuxref).
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))
import newc  # noqa: E402

DEFAULT_LIST = HERE / "packages.txt"
DEFAULT_CACHE = ROOT / "build" / "debroot" / "debs"
DEFAULT_OUT = ROOT / "build" / "debroot" / "root.cpio"
PAGE = 4096
PATH_MAX = 4096

MERGED_USR = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
DROP_PREFIXES = ("usr/share/man/", "usr/share/info/", "usr/share/locale/", "usr/share/lintian/",
                 "usr/share/bug/", "usr/share/gtk-doc/")

# The alternatives the packages' postinst scripts would register (update-alternatives), as
# plain symlinks: link -> target (absolute paths inside the root).
ALTERNATIVES = {
    "/usr/bin/vi": "/usr/bin/vim.tiny",
    "/usr/bin/vim": "/usr/bin/vim.tiny",
    "/usr/bin/view": "/usr/bin/vim.tiny",
    "/usr/bin/editor": "/usr/bin/vim.tiny",
    "/usr/bin/ex": "/usr/bin/vim.tiny",
    "/usr/bin/rview": "/usr/bin/vim.tiny",
    "/usr/bin/awk": "/usr/bin/gawk",
    "/usr/bin/nawk": "/usr/bin/gawk",
    "/usr/bin/cc": "/usr/bin/gcc",
    "/usr/bin/c89": "/usr/bin/c89-gcc",
    "/usr/bin/c99": "/usr/bin/c99-gcc",
    "/usr/bin/cpp": "/usr/bin/cpp-12",
    "/usr/bin/pager": "/usr/bin/less",
    "/usr/bin/which": "/usr/bin/which.debianutils",
    "/usr/bin/lzma": "/usr/bin/xz",
    "/usr/bin/unlzma": "/usr/bin/unxz",
    "/usr/bin/lzcat": "/usr/bin/xzcat",
}

PASSWD = """\
root:x:0:0:root:/root:/bin/bash
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin
bin:x:2:2:bin:/bin:/usr/sbin/nologin
sys:x:3:3:sys:/dev:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
"""
GROUP = """\
root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
kmem:x:15:
staff:x:50:
users:x:100:
nogroup:x:65534:
"""
SHADOW = "".join(f"{line.split(':')[0]}:{'' if line.startswith('root') else '*'}:19700:0:99999:7:::\n"
                 for line in PASSWD.splitlines())
INIT = """\
#!/bin/bash
# /init: pid 1 of lx on the Debian root (tools/debroot/mkroot.py).  Mount /proc, run the
# optional hook /etc/init.d/rcS (tests add one in a second archive), then give the console a
# login shell as a session leader with the console as its controlling terminal (job control).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
export TERM=${PECAN_TERM:-xterm} SHELL=/bin/bash
umask 022
mount -t proc proc /proc 2>/dev/null || echo "init: cannot mount /proc" >&2
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /dev/pts 2>/dev/null ||
    echo "init: cannot mount /dev/pts" >&2
[ -x /etc/init.d/rcS ] && /etc/init.d/rcS
cd /root
exec setsid --ctty /bin/bash --login </dev/ttyS0 >/dev/ttyS0 2>&1
"""


class Tree:
    """The staging tree: path (no leading '/') -> newc.Entry, parents implied."""

    def __init__(self) -> None:
        self.entries: dict[str, newc.Entry] = {}

    def add(self, e: newc.Entry) -> None:
        old = self.entries.get(e.name)
        if old and stat.S_ISDIR(old.mode) and stat.S_ISDIR(e.mode):
            return
        self.entries[e.name] = e

    def mkdirs(self, path: str, perm: int = 0o755) -> None:
        parts = path.split("/")
        for k in range(1, len(parts) + 1):
            p = "/".join(parts[:k])
            if p not in self.entries:
                self.entries[p] = newc.directory(p, perm)

    def file(self, path: str, data: str | bytes, perm: int = 0o644) -> None:
        self.mkdirs(os.path.dirname(path))
        self.entries[path] = newc.regular(path, data.encode() if isinstance(data, str) else data, perm)

    def symlink(self, path: str, target: str) -> None:
        self.mkdirs(os.path.dirname(path))
        self.entries[path] = newc.symlink(path, target)


def read_list(path: Path) -> list[str]:
    names = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(line.split()[0])
    return names


def apt_private(cache: Path) -> list[str]:
    """apt options for a private, empty dpkg status: resolution installs nothing."""
    state = cache.parent / "apt"
    (state / "cache").mkdir(parents=True, exist_ok=True)
    status = state / "status"
    if not status.exists():
        status.write_text("")
    return ["-o", f"Dir::State::status={status}", "-o", f"Dir::Cache={state / 'cache'}",
            "-o", "Debug::NoLocking=1", "-o", "APT::Install-Recommends=false",
            "-o", "APT::Install-Suggests=false", "-o", "APT::Architecture=amd64"]


def deb_name(pkg: str, ver: str, arch: str) -> str:
    return f"{pkg}_{ver.replace(':', '%3a')}_{arch}.deb"


def resolve(names: list[str], cache: Path) -> list[tuple[str, str, str]]:
    lock = cache / "resolved.txt"
    r = subprocess.run(["apt-get", "-s", *apt_private(cache), "install", *names],
                       capture_output=True, text=True)
    got = re.findall(r"^Inst (\S+) \((\S+) .*\[(\S+)\]\)", r.stdout, re.M)
    if r.returncode == 0 and got:
        lock.write_text("".join(f"{p}={v} {a}\n" for p, v, a in got))
        return got
    if lock.exists():
        print(f"mkroot: apt cannot resolve now ({r.stderr.strip()[:200]}); using {lock}",
              file=sys.stderr)
        out = []
        for line in lock.read_text().splitlines():
            pv, a = line.split()
            p, v = pv.split("=", 1)
            out.append((p, v, a))
        return out
    sys.exit(f"mkroot: apt-get cannot resolve the package list:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")


def download(pkgs: list[tuple[str, str, str]], cache: Path) -> None:
    missing = [f"{p}={v}" for p, v, a in pkgs if not (cache / deb_name(p, v, a)).exists()]
    if not missing:
        return
    print(f"mkroot: downloading {len(missing)} packages into {cache}", file=sys.stderr)
    part = cache / "partial"
    part.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["apt-get", "download", *missing], cwd=part, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"mkroot: apt-get download failed (no network to the Debian mirror?):\n"
                 f"{r.stderr[-2000:]}")
    for f in part.glob("*.deb"):
        f.rename(cache / f.name)        # complete files only: a failure keeps the cache usable


def canonical(name: str) -> str | None:
    """The staging path of a tar member ('./bin/ls' -> 'usr/bin/ls'); None to leave it out."""
    p = os.path.normpath(name).lstrip("/")
    if p in ("", "."):
        return None
    top = p.split("/", 1)[0]
    if top in MERGED_USR:
        p = "usr/" + p
    parts = p.split("/")
    if parts[:3] == ["usr", "share", "doc"]:    # the directories and copyright files only
        return p if len(parts) <= 4 or len(parts) == 5 and parts[4] == "copyright" else None
    if any(p.startswith(d) or p + "/" == d for d in DROP_PREFIXES):
        return None
    return p


def link_target_in_root(target: str, at: str) -> str:
    """A symlink's target rewritten for merged /usr when it is absolute."""
    if target.startswith("/"):
        t = target.lstrip("/")
        if t.split("/", 1)[0] in MERGED_USR:
            t = "usr/" + t
        return "/" + t
    return target


def unpack(tree: Tree, deb: Path) -> None:
    proc = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)
    with tarfile.open(fileobj=proc.stdout, mode="r|") as tar:
        for m in tar:
            path = canonical(m.name)
            if path is None:
                continue
            perm = m.mode & 0o7777
            if m.isdir():
                tree.mkdirs(os.path.dirname(path))
                tree.add(newc.Entry(path, stat.S_IFDIR | perm, uid=m.uid, gid=m.gid))
            elif m.isreg():
                data = tar.extractfile(m).read()
                tree.mkdirs(os.path.dirname(path))
                tree.entries[path] = newc.Entry(path, stat.S_IFREG | perm, data, m.uid, m.gid)
            elif m.issym():
                tree.symlink(path, link_target_in_root(m.linkname, path))
            elif m.islnk():
                other = canonical(m.linkname)
                if other:
                    tree.symlink(path, os.path.relpath(other, os.path.dirname(path)))
    if proc.wait():
        sys.exit(f"mkroot: dpkg-deb --fsys-tarfile {deb} failed")


def configure(tree: Tree) -> None:
    for d in MERGED_USR:
        if d in ("lib32", "libx32"):
            continue
        tree.mkdirs(f"usr/{d}")
        tree.symlink(d, f"usr/{d}")
    for d, perm in (("proc", 0o555), ("sys", 0o555), ("dev", 0o755), ("run", 0o755),
                    ("root", 0o700), ("tmp", 0o1777), ("var/tmp", 0o1777), ("home", 0o755),
                    ("mnt", 0o755), ("var/log", 0o755), ("usr/local/bin", 0o755)):
        tree.mkdirs(d, perm)
        tree.entries[d] = newc.directory(d, perm)
    base = "usr/share/base-files/"
    for src, dst in (("profile", "etc/profile"), ("nsswitch.conf", "etc/nsswitch.conf"),
                     ("motd", "etc/motd"), ("dot.profile", "root/.profile")):
        if base + src in tree.entries:
            tree.file(dst, tree.entries[base + src].data)
    if "etc/skel/.bashrc" in tree.entries:
        tree.file("root/.bashrc", tree.entries["etc/skel/.bashrc"].data)
    tree.file("etc/passwd", PASSWD)
    tree.file("etc/group", GROUP)
    tree.file("etc/shadow", SHADOW, 0o640)
    tree.file("etc/hostname", "pecan\n")
    tree.file("etc/hosts", "127.0.0.1\tlocalhost\n127.0.1.1\tpecan\n::1\tlocalhost ip6-localhost\n")
    tree.file("etc/resolv.conf", "# lx has no network device yet: a stub\nnameserver 127.0.0.1\n")
    tree.symlink("etc/mtab", "../proc/self/mounts")
    # The serial console as a tty that can become the shell's controlling terminal and that
    # ttyname() finds (lx adds /dev/console and the memory devices itself).
    tree.entries["dev/ttyS0"] = newc.chardev("dev/ttyS0", 4, 64, 0o620)
    for link, target in ALTERNATIVES.items():
        if target.lstrip("/") in tree.entries and link.lstrip("/") not in tree.entries:
            tree.symlink(link.lstrip("/"), target)
    tree.file("init", INIT, 0o755)


def filler(size: int) -> bytes:
    """A record of exactly size bytes (a multiple of 4, over a page less a name) for the root."""
    fields = {k: 0 for k in newc._FIELDS}
    fields.update(mode=stat.S_IFDIR | 0o755, nlink=2, namesize=size - newc.HEADER_LEN)
    rec = newc._record(fields, b"." + b"\0" * (size - newc.HEADER_LEN - 2), b"")
    assert len(rec) == size
    return rec


def write_cpio(tree: Tree, out: Path, align: bool = False) -> tuple[int, int]:
    """Stream the archive, each file's data starting at a page boundary; (entries, bytes)."""
    tmp = out.with_suffix(".tmp")
    names = sorted(tree.entries, key=lambda p: p.split("/"))
    pos = 0
    with open(tmp, "wb") as f:
        for ino, name in enumerate(names, start=1):
            e = tree.entries[name]
            raw = name.encode()
            namesize = len(raw) + 1
            if align and stat.S_ISREG(e.mode) and e.data:
                # Pad the name with NULs until header + name ends on a page boundary.  A name
                # stays within PATH_MAX (Linux's and lx's limit): a larger gap is first filled
                # by an entry named "." (both unpackers leave the root as it is).
                pad = (-(pos + newc.HEADER_LEN + namesize)) % PAGE
                if namesize + pad > PATH_MAX:
                    fill = pad - pad % 4
                    f.write(filler(fill))
                    pos += fill
                    pad %= 4
                namesize += pad
            fields = dict(ino=ino, mode=e.mode, uid=e.uid, gid=e.gid,
                          nlink=2 if stat.S_ISDIR(e.mode) else 1, mtime=0,
                          filesize=len(e.data), devmajor=0, devminor=0,
                          rdevmajor=e.rdevmajor, rdevminor=e.rdevminor,
                          namesize=namesize, check=0)
            rec = newc._record(fields, raw + b"\0" * (namesize - len(raw) - 1), e.data)
            f.write(rec)
            pos += len(rec)
        zero = {k: 0 for k in newc._FIELDS}
        zero.update(nlink=1, namesize=len(newc.TRAILER) + 1)
        rec = newc._record(zero, newc.TRAILER.encode(), b"")
        f.write(rec)
        pos += len(rec)
        f.write(b"\0" * ((-pos) % 512))
    tmp.rename(out)
    return len(names), out.stat().st_size


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--packages", type=Path, default=DEFAULT_LIST)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("-o", "--output", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--page-align", dest="align", action="store_true",
                    help="every file's data at a page boundary of the archive (slower to "
                         "unpack today: lx copies file pages anyway; docs/linux/debian-root.md)")
    args = ap.parse_args(argv)
    for tool in ("apt-get", "dpkg-deb"):
        if subprocess.run(["which", tool], capture_output=True).returncode:
            sys.exit(f"mkroot: '{tool}' not found (this needs a Debian host with apt and dpkg)")
    args.cache.mkdir(parents=True, exist_ok=True)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    pkgs = resolve(read_list(args.packages), args.cache)
    download(pkgs, args.cache)
    tree = Tree()
    for p, v, a in pkgs:
        unpack(tree, args.cache / deb_name(p, v, a))
    configure(tree)
    n, size = write_cpio(tree, args.output, args.align)
    print(f"mkroot: {args.output.relative_to(ROOT) if args.output.is_relative_to(ROOT) else args.output}: "
          f"{len(pkgs)} packages, {n} entries, {size / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
