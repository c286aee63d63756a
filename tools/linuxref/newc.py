"""Minimal writer and reader for the cpio "newc" format (magic 070701), the
format the Linux kernel unpacks as an initramfs.

Written here so building the guest image needs no host cpio tool and no root
(device nodes such as /dev/console are just header fields). Output is
byte-for-byte reproducible: inode numbers are assigned in order and mtimes
are fixed.

Record layout: a 110-byte ASCII header (magic + 13 eight-digit hex fields),
the NUL-terminated name padded so header+name is a multiple of 4, then the
data padded to a multiple of 4. The archive ends with a "TRAILER!!!" record.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass

MAGIC = b"070701"
TRAILER = "TRAILER!!!"
_FIELDS = (
    "ino", "mode", "uid", "gid", "nlink", "mtime", "filesize",
    "devmajor", "devminor", "rdevmajor", "rdevminor", "namesize", "check",
)
HEADER_LEN = len(MAGIC) + 8 * len(_FIELDS)  # 110


@dataclass
class Entry:
    name: str  # path inside the archive, no leading "/"
    mode: int  # full st_mode: type bits | permission bits
    data: bytes = b""
    uid: int = 0
    gid: int = 0
    mtime: int = 0
    rdevmajor: int = 0
    rdevminor: int = 0


def _pad4(n: int) -> int:
    return (4 - n % 4) % 4


def directory(name: str, perm: int = 0o755) -> Entry:
    return Entry(name, stat.S_IFDIR | perm)


def regular(name: str, data: bytes, perm: int = 0o644) -> Entry:
    return Entry(name, stat.S_IFREG | perm, data)


def chardev(name: str, major: int, minor: int, perm: int = 0o600) -> Entry:
    return Entry(name, stat.S_IFCHR | perm, rdevmajor=major, rdevminor=minor)


def symlink(name: str, target: str) -> Entry:
    # newc stores a symlink's target as its file data.
    return Entry(name, stat.S_IFLNK | 0o777, target.encode())


def _record(fields: dict[str, int], name: bytes, data: bytes) -> bytes:
    for k, v in fields.items():
        if not 0 <= v <= 0xFFFFFFFF:
            raise ValueError(f"cpio field {k}={v} does not fit in 32 bits")
    hdr = MAGIC + b"".join(b"%08X" % fields[k] for k in _FIELDS)
    name_z = name + b"\0"
    return (hdr + name_z + b"\0" * _pad4(HEADER_LEN + len(name_z))
            + data + b"\0" * _pad4(len(data)))


def pack(entries: list[Entry]) -> bytes:
    """Serialize entries (in the given order) plus the trailer.

    Parents must precede their children: the kernel creates entries in
    archive order and does not create missing directories.
    """
    out = []
    seen = set()
    for ino, e in enumerate(entries, start=1):
        name = e.name.lstrip("/")
        if not name or name == TRAILER:
            raise ValueError(f"invalid cpio entry name {e.name!r}")
        if name in seen:
            raise ValueError(f"duplicate cpio entry {name!r}")
        seen.add(name)
        if stat.S_ISDIR(e.mode) and e.data:
            raise ValueError(f"directory {name!r} cannot have data")
        fields = dict(
            ino=ino, mode=e.mode, uid=e.uid, gid=e.gid,
            nlink=2 if stat.S_ISDIR(e.mode) else 1, mtime=e.mtime,
            filesize=len(e.data), devmajor=0, devminor=0,
            rdevmajor=e.rdevmajor, rdevminor=e.rdevminor,
            namesize=len(name.encode()) + 1, check=0,
        )
        out.append(_record(fields, name.encode(), e.data))
    zero = {k: 0 for k in _FIELDS}
    zero.update(nlink=1, namesize=len(TRAILER) + 1)
    out.append(_record(zero, TRAILER.encode(), b""))
    return b"".join(out)


def unpack(blob: bytes) -> list[Entry]:
    """Parse a newc archive (up to the trailer) back into entries."""
    entries = []
    pos = 0
    while True:
        if pos + HEADER_LEN > len(blob):
            raise ValueError(f"truncated cpio header at offset {pos}")
        if blob[pos:pos + 6] != MAGIC:
            raise ValueError(f"bad cpio magic at offset {pos}: {blob[pos:pos + 6]!r}")
        vals = {}
        for i, k in enumerate(_FIELDS):
            off = pos + 6 + 8 * i
            vals[k] = int(blob[off:off + 8], 16)
        name_start = pos + HEADER_LEN
        name_end = name_start + vals["namesize"]
        if name_end > len(blob) or blob[name_end - 1] != 0:
            raise ValueError(f"bad cpio name at offset {pos}")
        name = blob[name_start:name_end - 1].decode()
        data_start = name_end + _pad4(HEADER_LEN + vals["namesize"])
        data_end = data_start + vals["filesize"]
        if data_end > len(blob):
            raise ValueError(f"truncated cpio data for {name!r}")
        if name == TRAILER:
            return entries
        entries.append(Entry(
            name, vals["mode"], blob[data_start:data_end], vals["uid"],
            vals["gid"], vals["mtime"], vals["rdevmajor"], vals["rdevminor"],
        ))
        pos = data_end + _pad4(vals["filesize"])
