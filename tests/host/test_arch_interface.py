"""The arch interface rule (docs/architecture.md, "The arch interface"): generic kernel files
reach the machine-dependent layers (kernel/arch/x86_64, kernel/glue/x2-x86_64,
kernel/platform/pc) only through their interface headers, in each layer's api/; the build
enforces the includes, and no generic file declares what a layer defines.

  test_generic_includes_resolve  every #include "..." of kernel/*.[ch] and kernel/kdb/ is
                                 found in kernel/, kernel/kdb/ or a layer's api/
  test_build_rejects_arch_header a generic file that includes frame.h, paging.h, intctl.h or
                                 syscall_nr.h does not compile with the flags kernel/build.mk
                                 gives generic files (make -n); arch.h, glue.h, platform.h and
                                 iospace.h do
  test_layers_see_below_only     the ISA's files do not see the glue's or the platform's
                                 headers, the platform's not the glue's
  test_generic_files_declare_in_headers
                                 no generic .c file declares a function or object of another
                                 file (gcc -aux-info of both kernels' generic files)
  test_arch_interface_declared_in_api_only
                                 no generic header declares a function or object that the
                                 layers define (their objects' symbols, their assembly's
                                 .global names): the api/ headers are the only declarations
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
APIS = [d / "api" for d in LAYERS]
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
    for header, ok in (("arch.h", True), ("glue.h", True), ("platform.h", True),
                       ("iospace.h", True), ("frame.h", False), ("paging.h", False),
                       ("intctl.h", False), ("syscall_nr.h", False)):
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


# --- declarations ---------------------------------------------------------------------------

AUX = re.compile(r"^/\* (?P<file>[^:]+):(?P<line>\d+):.(?P<kind>[CF]) \*/ (?P<decl>.*?);", re.M)
GLOBAL_ASM = re.compile(r"^\s*\.glob(?:a)?l\s+(\w+)", re.M)
EXTERN_OBJECT = re.compile(r"^\s*extern\s+[^;(]*?(\w+)\s*(?:\[[^\]]*\])?\s*(?:,[^;(]*)?;", re.M)


def kernel_compile_commands():
    """(source, kernel) -> the compile command make runs for it, for every object of the
    release and the debug kernel (invariants.c is empty in the release kernel)."""
    cmds = {}
    for elf in ("build/kernel.elf", "build/kernel-debug.elf"):
        out = subprocess.run(["make", "-n", "-B", "-C", str(ROOT), elf],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if " -c " in line:
                args = shlex.split(line)
                cmds[(args[args.index("-c") + 1], elf)] = args
    return cmds


def without_outputs(args):
    """A compile command without its object, dependency-file and -c arguments."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in ("-o", "-MF", "-MT"):
            skip = True
        elif a not in ("-c", "-MMD", "-MP"):
            out.append(a)
    return out


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def is_generic(path):
    path = (ROOT / path).resolve()
    return path.parent in (KERNEL, KERNEL / "kdb")


@pytest.fixture(scope="module")
def declarations(tmp_path_factory):
    """Every function declaration the generic files see (file, line, definition?, static?,
    name), and every global symbol the three layers define."""
    tmp = tmp_path_factory.mktemp("decl")
    cmds = kernel_compile_commands()
    decls, layer_symbols = set(), set()
    for i, ((src, _), args) in enumerate(sorted(cmds.items())):
        if is_generic(src):
            aux = tmp / f"{i}.aux"
            r = subprocess.run(without_outputs(args) + ["-fsyntax-only", "-aux-info", str(aux)],
                               cwd=ROOT, capture_output=True, text=True)
            assert r.returncode == 0, f"{src}: {r.stderr}"
            for m in AUX.finditer(aux.read_text()):
                name = re.search(r"(\w+)\s*\(", m["decl"]).group(1)
                decls.add((m["file"], int(m["line"]), m["kind"] == "F",
                           m["decl"].startswith("static"), name))
        elif src.endswith(".c"):
            obj = tmp / f"{i}.o"
            r = subprocess.run(without_outputs(args) + ["-c", "-o", str(obj)],
                               cwd=ROOT, capture_output=True, text=True)
            assert r.returncode == 0, f"{src}: {r.stderr}"
            nm = subprocess.run(["nm", "-g", "--defined-only", str(obj)], capture_output=True,
                                text=True, check=True).stdout
            layer_symbols |= {l.split()[-1] for l in nm.splitlines() if l.strip()}
        else:
            layer_symbols |= set(GLOBAL_ASM.findall((ROOT / src).read_text()))
    assert layer_symbols and decls
    return decls, layer_symbols


def test_generic_files_declare_in_headers(declarations):
    """A generic .c file declares nothing that lives in another file: shared declarations are
    in headers (main.c's arch prototypes and invariants.c's scheduler externs were not)."""
    decls, _ = declarations
    bad = sorted(f"{f}:{line}: {name}" for f, line, defn, static, name in decls
                 if f.endswith(".c") and is_generic(f) and not defn and not static)
    for f in GENERIC:
        if f.suffix == ".c":
            bad += [f"{rel(f)}: extern {name}" for name in
                    EXTERN_OBJECT.findall(strip_comments(f.read_text()))]
    assert not bad, "declarations outside headers:\n" + "\n".join(bad)


def test_arch_interface_declared_in_api_only(declarations):
    """Whatever a layer defines is declared, for generic code, in a layer's api/ header only:
    a generic header that declares a function or object of arch, glue or platform is a second
    interface beside the real one."""
    decls, layer_symbols = declarations
    bad = sorted({f"{f}:{line}: {name}" for f, line, defn, static, name in decls
                  if is_generic(f) and f.endswith(".h") and name in layer_symbols - C_LIBRARY})
    for f in GENERIC:
        if f.suffix == ".h":
            bad += [f"{rel(f)}: extern {name}" for name in
                    EXTERN_OBJECT.findall(strip_comments(f.read_text())) if name in layer_symbols]
    assert not bad, "arch/glue/platform symbols declared outside api/:\n" + "\n".join(bad)


# The C library's string functions are declared where generic code expects them (lib.h); the
# ISA implements two of them with string instructions (string.c).
C_LIBRARY = {"memcpy", "memset"}
