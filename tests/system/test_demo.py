"""The demo that `make run` boots (sigma0 + build/user/root.elf) comes up cleanly, booted
non-interactively, both directly and from the demo ISO (build/pecan.iso, `make iso`)."""
import qemu_run
from harness import BUILD, boot, kernel_trouble, require_built

ISO = BUILD / "pecan.iso"


def check_demo(result):
    problems = kernel_trouble(result)
    lines = result.output.splitlines()
    if not any(line.startswith("Pecan 0.1") for line in lines):
        problems.append("no kernel banner `Pecan 0.1`")
    if not any(line.startswith("sigma0: serving") for line in lines):
        problems.append("no `sigma0: serving` line")
    # The demo root task ends the QEMU run itself, reporting success (isa-debug-exit 0).
    if result.status != 1:
        problems.append(f"QEMU exit status {result.status}, expected 1")
    assert not problems, "; ".join(problems) + "\n" + result.describe()


def test_demo_boots():
    check_demo(boot("root"))


def test_demo_iso_boots():
    require_built(ISO)
    check_demo(qemu_run.run(None, iso=ISO, timeout=60))
