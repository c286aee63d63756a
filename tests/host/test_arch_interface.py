"""The arch interface rule (docs/architecture.md, "The arch interface"): generic kernel files
include no x86-64 header but api/arch.h and what it includes, and the build enforces it.

  test_generic_includes_resolve  every #include "..." of kernel/*.[ch] and kernel/kdb/ is
                                 found in kernel/, kernel/kdb/ or kernel/arch/x86_64/api/
  test_build_rejects_arch_header a generic file that includes frame.h does not compile with
                                 the flags kernel/build.mk gives generic files (make -n)
"""
import pathlib
import re
import shlex
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = ROOT / "kernel"
API = KERNEL / "arch" / "x86_64" / "api"
GENERIC = sorted(KERNEL.glob("*.[ch]")) + sorted((KERNEL / "kdb").glob("*.[ch]"))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def test_generic_includes_resolve():
    assert GENERIC
    bad = []
    for f in GENERIC:
        for name in INCLUDE.findall(f.read_text()):
            if not any((d / name).is_file() for d in (f.parent, KERNEL, API)):
                bad.append(f"{f.relative_to(ROOT)}: {name}")
    assert not bad, "generic files include arch-private headers:\n" + "\n".join(bad)


def test_build_rejects_arch_header(tmp_path):
    # The compile command make would run for a generic file, with the build's real flags.
    out = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), "build/kernel/lib.o"],
                         capture_output=True, text=True, check=True).stdout
    cmd = next(shlex.split(l) for l in out.splitlines() if "kernel/lib.c" in l and " -c " in l)
    assert "-Ikernel/arch/x86_64/api" in cmd and "-Ikernel/arch/x86_64" not in cmd
    probe = tmp_path / "probe.c"
    for header, ok in (("arch.h", True), ("frame.h", False), ("paging.h", False)):
        probe.write_text(f'#include "{header}"\nint probe_{ok:d};\n')
        args = [a if a != "kernel/lib.c" else str(probe) for a in cmd]
        args = [str(tmp_path / "probe.o") if a.endswith("lib.o") else a for a in args]
        args = [a for a in args if not a.startswith("-MMD") and a != "-MP"]
        r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
        assert (r.returncode == 0) == ok, f"{header}: {r.stderr}"
