"""The insnprof QEMU plugin (tools/qemu_plugins/insnprof.c, docs/profiling.md) builds against
QEMU's plugin header, loads into the host's QEMU and profiles a small boot (sigma0 and
test_ipc on the release kernel): the kernel's IPC path is in the profile, named by
build/kernel.elf's symbols, and every class was entered."""
import os
import sys

import pytest

from harness import BUILD, ROOT, SIGMA0, require_built

sys.path.insert(0, str(ROOT / "tools"))
import insnprof  # noqa: E402
import qemu_run  # noqa: E402


@pytest.fixture(scope="module")
def profile(tmp_path_factory):
    try:
        plugin = insnprof.build_plugin()
    except RuntimeError as e:
        pytest.fail(str(e), pytrace=False)
    prog = BUILD / "user" / "test_ipc.elf"
    require_built(BUILD / "kernel.bin", SIGMA0, prog)
    out = tmp_path_factory.mktemp("insnprof") / "boot.txt"
    arg = insnprof.plugin_arg("linux", out, plugin)     # kernel, prog, libs: no lx here
    r = qemu_run.run(os.path.relpath(BUILD / "kernel.bin"),
                     [(os.path.relpath(SIGMA0), ""), (os.path.relpath(prog), "")],
                     cmdline="kdb=batch", icount=True, timeout=180, extra=["-plugin", arg])
    assert r.status == 1 and r.passed_all(), r.describe()
    assert out.is_file(), f"no profile written:\n{r.stderr}"
    return insnprof.load(out)


def test_profile_counts_kernel_and_user_instructions(profile):
    f = insnprof.fold(profile, insnprof.Symbols.from_elfs([BUILD / "kernel.elf"]),
                      named=("kernel",))
    assert f.insns["kernel"] > 100_000 and f.insns["other"] > 10_000, f.insns
    assert f.transitions["kernel"] > 100 and f.transitions["other"] > 100, f.transitions
    kernel_functions = {fn for (b, fn), v in f.functions.items() if b == "kernel" and v}
    assert any(fn.startswith("ipc") for fn in kernel_functions), sorted(kernel_functions)[:40]
