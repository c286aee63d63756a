"""The arch interface rule (docs/architecture.md, "The arch interface"): generic kernel files
include no header of the machine-dependent layers (kernel/arch/x86_64, kernel/glue/x2-x86_64,
kernel/platform/pc) but their interface headers, in each layer's api/, and the build enforces it.

  test_generic_includes_resolve  every #include "..." of kernel/*.[ch] and kernel/kdb/ is
                                 found in kernel/, kernel/kdb/ or a layer's api/
  test_build_rejects_arch_header a generic file that includes frame.h, paging.h, fastpath.h or
                                 intctl.h does not compile with the flags kernel/build.mk gives
                                 generic files (make -n)
  test_layers_see_below_only     the ISA's files do not see the glue's or the platform's
                                 headers, the platform's not the glue's
"""
import pathlib
import re
import shlex
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
KERNEL = ROOT / "kernel"
ARCH = KERNEL / "arch" / "x86_64"
GLUE = KERNEL / "glue" / "x2-x86_64"
PLATFORM = KERNEL / "platform" / "pc"
LAYERS = (ARCH, GLUE, PLATFORM)
APIS = [d / "api" for d in LAYERS if (d / "api").is_dir()]
GENERIC = sorted(KERNEL.glob("*.[ch]")) + sorted((KERNEL / "kdb").glob("*.[ch]"))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def rel(path):
    return str(path.relative_to(ROOT))


def compile_command(obj, src):
    """The compile command make would run for `src` (as `obj`), with the build's real flags."""
    out = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), obj],
                         capture_output=True, text=True, check=True).stdout
    return next(shlex.split(l) for l in out.splitlines() if src in l and " -c " in l)


def compiles(cmd, src, tmp_path, text):
    """Does `text` compile with the command make uses for `src`?"""
    probe = tmp_path / "probe.c"
    probe.write_text(text)
    args = [str(probe) if a == src else a for a in cmd]
    args = [str(tmp_path / "probe.o") if a.endswith(".o") else a for a in args]
    args = [a for a in args if not a.startswith("-MMD") and a != "-MP"]
    r = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    return r.returncode == 0, r.stderr


def test_generic_includes_resolve():
    assert GENERIC and APIS
    bad = []
    for f in GENERIC:
        for name in INCLUDE.findall(f.read_text()):
            if not any((d / name).is_file() for d in (f.parent, KERNEL, *APIS)):
                bad.append(f"{rel(f)}: {name}")
    assert not bad, "generic files include layer-private headers:\n" + "\n".join(bad)


def test_build_rejects_arch_header(tmp_path):
    cmd = compile_command("build/kernel/lib.o", "kernel/lib.c")
    incs = {a[2:] for a in cmd if a.startswith("-I")}
    assert {rel(d) for d in APIS} <= incs
    assert not {rel(d) for d in LAYERS} & incs, "generic files see a layer's own directory"
    for header, ok in (("arch.h", True), ("iospace.h", True), ("frame.h", False),
                       ("paging.h", False), ("intctl.h", False), ("syscall_nr.h", False)):
        good, err = compiles(cmd, "kernel/lib.c", tmp_path, f'#include "{header}"\nint probe;\n')
        assert good == ok, f"{header}: {err}"


@pytest.mark.parametrize("obj,src,hidden", [
    ("build/kernel/arch/x86_64/cpu.o", "kernel/arch/x86_64/cpu.c", ("intctl.h", "syscall_nr.h")),
    ("build/kernel/platform/pc/pic.o", "kernel/platform/pc/pic.c", ("syscall_nr.h",)),
])
def test_layers_see_below_only(tmp_path, obj, src, hidden):
    cmd = compile_command(obj, src)
    good, err = compiles(cmd, src, tmp_path, '#include "x86.h"\nint probe;\n')
    assert good, err
    for header in hidden:
        good, _ = compiles(cmd, src, tmp_path, f'#include "{header}"\nint probe;\n')
        assert not good, f"{src} sees {header}"
