"""Host tests for the lx personality's initramfs (tools/initramfs/, user/linux/tests/).

No network: the busybox package is a fake .deb built here with dpkg-deb, holding a fake binary
with an applet table.  The Linux test programs are built with the real build rules (make
linux-tests into a temporary BUILD) and checked as ELF files; they are never run on the host.
One test boots Debian's kernel in QEMU with a real initramfs, only when both downloads are
already cached (build/linuxref/vmlinuz and build/linux/debs/busybox-static.deb)."""

import os
import shutil
import stat
import struct
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
sys.path.insert(0, str(ROOT / "tools" / "linuxref"))

import applets  # noqa: E402
import linuxref_run  # noqa: E402
import mkinitramfs  # noqa: E402
import newc  # noqa: E402

FAKE_APPLETS = sorted(["[", "[[", "ash", "cat", "ls", "sh", "test", "vi"] +
                      [f"tool{i:02d}" for i in range(20)])
TEST_PROGRAMS = ("auxv", "hello", "mem")
CACHED_KERNEL = ROOT / "build" / "linuxref" / "vmlinuz"
CACHED_BUSYBOX = ROOT / "build" / "linux" / "debs" / "busybox-static.deb"


def applet_table(names):
    return b"".join(n.encode() + b"\0" for n in names) + b"\0"


def fake_busybox(names=FAKE_APPLETS):
    # Sorted C strings around the table must not be taken for it.
    return (b"\x7fELF\0\0\0usage\0aa\0bb\0cc\0\0\x01\x02" + b"\0" + applet_table(names)
            + b"/var/log/wtmp\0-/bin/sh\0" + bytes(range(256)))


def make_deb(tmp: Path, pkg: str, files: dict) -> Path:
    tree = tmp / f"{pkg}-tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(
        f"Package: {pkg}\nVersion: 1.0\nArchitecture: amd64\nMaintainer: test <t@example>\n"
        "Description: fake package for tests\n")
    for path, data in files.items():
        p = tree / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        p.chmod(0o755)
    debs = tmp / "debs"
    debs.mkdir(exist_ok=True)
    deb = debs / f"{pkg}.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "--build", str(tree), str(deb)],
                   check=True, capture_output=True)
    return deb


def fake_tests(tmp: Path) -> Path:
    tests = tmp / "tests"
    for v in mkinitramfs.TEST_VARIANTS:
        (tests / v).mkdir(parents=True)
        for p in TEST_PROGRAMS:
            (tests / v / p).write_bytes(b"\x7fELF " + f"{v}/{p}".encode())
            (tests / v / f"{p}.d").write_text("dependency file, not a program\n")
    return tests


@pytest.fixture
def inputs(tmp_path):
    make_deb(tmp_path, "busybox-static", {
        "bin/busybox": fake_busybox(),
        "usr/share/doc/busybox-static/copyright": b"not wanted\n",
        "usr/share/initramfs-tools/conf-hooks.d/busybox": b"not wanted\n",
    })
    return tmp_path / "debs", fake_tests(tmp_path)


def build(inputs, out: Path):
    debs, tests = inputs
    mkinitramfs.build(debs, tests, out)
    return {e.name: e for e in newc.unpack(out.read_bytes())}


# ---------------------------------------------------------------- the applet list

def test_applets_found_in_noise():
    assert applets.applet_names(fake_busybox()) == FAKE_APPLETS


def test_applets_longest_sorted_table_wins():
    short = applet_table(["sh"] + [f"x{i:02d}" for i in range(25)])
    assert len(FAKE_APPLETS) > 26
    assert applets.applet_names(short + b"\x01\0" + applet_table(FAKE_APPLETS)) == FAKE_APPLETS
    assert applets.applet_names(applet_table(FAKE_APPLETS) + b"\x01\0" + short) == FAKE_APPLETS
    # An out-of-order name cuts the run: only the (too short) part after it ends the table.
    cut = applet_table(FAKE_APPLETS[:-2] + ["aaa"] + FAKE_APPLETS[-2:])
    with pytest.raises(applets.AppletError):
        applets.applet_names(cut)


def test_applets_missing_table_is_an_error():
    with pytest.raises(applets.AppletError):
        applets.applet_names(b"\x7fELF\0hello\0world\0\0")
    with pytest.raises(applets.AppletError):
        # Sorted and long enough, but without a shell: not busybox's table.
        applets.applet_names(applet_table([f"tool{i:02d}" for i in range(30)]))


@pytest.mark.skipif(not CACHED_BUSYBOX.is_file(), reason="busybox-static not downloaded "
                    "(make initramfs)")
def test_applets_of_debian_busybox():
    data = mkinitramfs.deb_files(CACHED_BUSYBOX, ["bin/busybox"])["bin/busybox"]
    names = applets.applet_names(data)
    assert len(names) > 200
    assert names == sorted(names) and len(set(names)) == len(names)
    for n in ("sh", "ash", "ls", "vi", "sed", "awk", "cttyhack", "setsid", "mount", "reboot"):
        assert n in names


# ---------------------------------------------------------------- layout

def test_layout(inputs, tmp_path):
    ents = build(inputs, tmp_path / "initramfs.cpio")
    modes = {n: e.mode for n, e in ents.items()}
    for d, perm in (("bin", 0o755), ("dev", 0o755), ("etc", 0o755), ("proc", 0o555),
                    ("root", 0o700), ("tmp", 0o1777), ("test", 0o755), ("usr", 0o755)):
        assert modes[d] == stat.S_IFDIR | perm, d
    assert modes["bin/busybox"] == stat.S_IFREG | 0o755
    assert ents["bin/busybox"].data == fake_busybox()
    # One symlink per applet, /bin/sh among them, all to the binary beside them.
    for a in FAKE_APPLETS:
        assert modes[f"bin/{a}"] == stat.S_IFLNK | 0o777
        assert ents[f"bin/{a}"].data == b"busybox"
    bin_entries = {n for n in ents if n.startswith("bin/")}
    assert bin_entries == {"bin/busybox"} | {f"bin/{a}" for a in FAKE_APPLETS}
    assert (ents["sbin"].data, ents["usr/bin"].data, ents["usr/sbin"].data) == \
           (b"bin", b"../bin", b"../bin")
    # Only the named file of the package: no docs, no packaging hooks.
    assert not any(n.startswith("usr/share") for n in ents)


def test_init_and_etc(inputs, tmp_path):
    ents = build(inputs, tmp_path / "initramfs.cpio")
    init = ents["init"]
    assert init.mode == stat.S_IFREG | 0o755
    assert init.data.startswith(b"#!/bin/sh\n")
    assert b"/etc/init.d/rcS" in init.data
    assert ents["etc/passwd"].data.startswith(b"root:x:0:0:root:/root:/bin/sh\n")
    assert ents["etc/group"].data.startswith(b"root:x:0:")
    for f in ("passwd", "group", "profile"):
        assert ents[f"etc/{f}"].mode == stat.S_IFREG | 0o644


def test_devices(inputs, tmp_path):
    ents = build(inputs, tmp_path / "initramfs.cpio")
    want = {"console": (5, 1), "ttyS0": (4, 64), "tty": (5, 0), "null": (1, 3),
            "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9),
            "ptmx": (5, 2), "kmsg": (1, 11)}
    got = {n[4:]: (e.rdevmajor, e.rdevminor) for n, e in ents.items()
           if n.startswith("dev/") and n != "dev/pts"}
    assert got == want
    assert all(stat.S_ISCHR(ents[f"dev/{n}"].mode) for n in want)
    assert stat.S_ISDIR(ents["dev/pts"].mode)      # where /init mounts devpts


def test_test_programs(inputs, tmp_path):
    ents = build(inputs, tmp_path / "initramfs.cpio")
    progs = sorted(n for n in ents if n.startswith("test/") and n.count("/") == 2)
    assert progs == sorted(f"test/{v}/{p}" for v in mkinitramfs.TEST_VARIANTS
                           for p in TEST_PROGRAMS)
    for n in progs:
        assert ents[n].mode == stat.S_IFREG | 0o755
        assert ents[n].data == b"\x7fELF " + n[5:].encode()


def test_order_owner_mtime(inputs, tmp_path):
    out = tmp_path / "initramfs.cpio"
    build(inputs, out)
    names = [e.name for e in newc.unpack(out.read_bytes())]
    assert names == sorted(names, key=lambda n: n.split("/"))
    seen = set()
    for n in names:
        parent = n.rpartition("/")[0]
        assert not parent or parent in seen, f"{n} before its directory"
        seen.add(n)
    assert all((e.mtime, e.uid, e.gid) == (0, 0, 0) for e in newc.unpack(out.read_bytes()))


def test_reproducible(inputs, tmp_path):
    a, b = tmp_path / "a.cpio", tmp_path / "sub" / "b.cpio"
    build(inputs, a)
    build(inputs, b)
    assert a.read_bytes() == b.read_bytes()


# ---------------------------------------------------------------- errors

def test_missing_package(tmp_path):
    (tmp_path / "debs").mkdir()
    with pytest.raises(mkinitramfs.BuildError, match="busybox-static.deb missing"):
        mkinitramfs.build(tmp_path / "debs", fake_tests(tmp_path), tmp_path / "x.cpio")
    assert not (tmp_path / "x.cpio").exists()


def test_package_without_busybox(tmp_path):
    make_deb(tmp_path, "busybox-static", {"bin/other": b"x"})
    with pytest.raises(mkinitramfs.BuildError, match="no regular file bin/busybox"):
        mkinitramfs.build(tmp_path / "debs", fake_tests(tmp_path), tmp_path / "x.cpio")


def test_corrupt_package(tmp_path):
    (tmp_path / "debs").mkdir()
    (tmp_path / "debs" / "busybox-static.deb").write_bytes(b"not an ar archive")
    with pytest.raises(mkinitramfs.BuildError, match="dpkg-deb"):
        mkinitramfs.build(tmp_path / "debs", fake_tests(tmp_path), tmp_path / "x.cpio")


def test_busybox_without_shell(tmp_path):
    make_deb(tmp_path, "busybox-static",
             {"bin/busybox": applet_table([f"tool{i:02d}" for i in range(30)])})
    with pytest.raises(applets.AppletError):
        mkinitramfs.build(tmp_path / "debs", fake_tests(tmp_path), tmp_path / "x.cpio")


def test_missing_test_variant(inputs, tmp_path, capsys):
    debs, tests = inputs
    shutil.rmtree(tests / "musl")
    with pytest.raises(mkinitramfs.BuildError, match="no test programs"):
        mkinitramfs.build(debs, tests, tmp_path / "x.cpio")
    assert mkinitramfs.main(["--debs", str(debs), "--tests", str(tests),
                             "-o", str(tmp_path / "x.cpio")]) == 1
    assert "no test programs" in capsys.readouterr().err


# ---------------------------------------------------------------- the reference run's pieces

def test_overlay_is_an_rcs_script():
    ents = newc.unpack(linuxref_run.overlay(["/test/musl/hello 3", "echo 'q'"]))
    assert [e.name for e in ents] == ["etc/init.d", "etc/init.d/rcS"]
    rcs = ents[1]
    assert rcs.mode == stat.S_IFREG | 0o755
    text = rcs.data.decode()
    assert text.startswith("#!/bin/sh\n") and text.rstrip().endswith("reboot -f")
    assert "sh -c '/test/musl/hello 3'" in text
    assert "sh -c 'echo '\"'\"'q'\"'\"''" in text


def test_parse_console():
    cmds = ["a", "b"]
    console = ("SeaBIOS\r\nBooting from ROM..\x1bc\x1b[2J@@lx-begin 0\r\nout a\r\n"
               "@@lx-end status=0\r\n@@lx-begin 1\r\nline1\r\n\r\nline3\r\n"
               "@@lx-end status=3\r\n@@lx-done\r\n[ 1.0] reboot: Restarting system\r\n")
    r = linuxref_run.parse(console, cmds)
    assert [(x.command, x.output, x.status) for x in r] == \
           [("a", "out a\n", 0), ("b", "line1\n\nline3\n", 3)]
    with pytest.raises(linuxref_run.RunError, match="ran 1 of 2"):
        linuxref_run.parse(console.split("@@lx-begin 1")[0], cmds)
    with pytest.raises(linuxref_run.RunError, match="did not finish"):
        linuxref_run.parse(console.replace("@@lx-done", ""), cmds)


# ---------------------------------------------------------------- the real programs

def elf_info(path: Path):
    """(e_type, has PT_INTERP) of an ELF64 file."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2
    e_type, = struct.unpack_from("<H", data, 16)
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    types = [struct.unpack_from("<I", data, phoff + i * phentsize)[0] for i in range(phnum)]
    return e_type, 3 in types  # PT_INTERP == 3


@pytest.fixture(scope="module")
def built_tests(tmp_path_factory):
    if shutil.which("musl-gcc") is None:
        pytest.fail("musl-gcc missing: install Debian's musl-tools (make deps)")
    build = tmp_path_factory.mktemp("build")
    # A make of its own, not a part of the make that may be running the tests.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    r = subprocess.run(["make", "-s", "-C", str(ROOT), f"BUILD={build}", "linux-tests"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return build / "linux" / "tests"


def test_programs_are_static(built_tests):
    # ET_EXEC for the static builds, ET_DYN (relocating itself) for static-PIE; no
    # interpreter in any of them: lx loads no dynamic linker.
    want = {"glibc": 2, "glibc-pie": 3, "musl": 2}
    for v, e_type in want.items():
        for p in TEST_PROGRAMS:
            assert elf_info(built_tests / v / p) == (e_type, False), f"{v}/{p}"


@pytest.mark.skipif(not (CACHED_KERNEL.is_file() and CACHED_BUSYBOX.is_file()),
                    reason="needs the cached Debian kernel and busybox-static "
                           "(tools/linuxref/fetch_kernel.sh, make initramfs)")
def test_programs_on_linux(built_tests, tmp_path):
    """Boot the reference kernel once with a real initramfs and run every program."""
    out = tmp_path / "initramfs.cpio"
    mkinitramfs.build(CACHED_BUSYBOX.parent, built_tests, out)
    cmds = []
    for v in mkinitramfs.TEST_VARIANTS:
        cmds += [f"/test/{v}/hello", f"/test/{v}/hello 3", f"/test/{v}/auxv one two",
                 f"/test/{v}/mem"]
    cmds.append("readlink /bin/sh; ls /bin | wc -l")
    res = linuxref_run.run_commands(cmds, CACHED_KERNEL, out, timeout=600)
    by_cmd = {r.command: r for r in res}
    for v in mkinitramfs.TEST_VARIANTS:
        assert (by_cmd[f"/test/{v}/hello"].output, by_cmd[f"/test/{v}/hello"].status) == \
               ("hello, world\n", 0)
        assert by_cmd[f"/test/{v}/hello 3"].status == 3
        auxv = by_cmd[f"/test/{v}/auxv one two"]
        assert auxv.status == 0, auxv.output
        assert f"argv[0]=/test/{v}/auxv\nargv[1]=one\nargv[2]=two\n" in auxv.output
        assert f"AT_EXECFN=/test/{v}/auxv\n" in auxv.output
        assert "AT_PAGESZ=4096\n" in auxv.output and "WRONG" not in auxv.output
        mem = by_cmd[f"/test/{v}/mem"]
        assert mem.status == 0 and "WRONG" not in mem.output, mem.output
    shell = by_cmd["readlink /bin/sh; ls /bin | wc -l"]
    assert shell.output.split()[0] == "busybox" and int(shell.output.split()[1]) > 200
