"""Debian's programs on lx against Linux (issue 14 item 3; docs/linux/debian-compare.md): the
scripts of tests/debian run on the Debian root booted on Debian's own 6.1 kernel in QEMU and
on Pecan (lx with the same archive, build/debroot/compare.cpio, init=/test/debian/run); every
case's output and exit status must be the same.  Known differences are listed in
tests/debian/debian_differences.py: cases lx cannot pass yet are strict expected failures.

The Linux side is cached in build/debroot/compare/ (keyed by the root, the scripts, the
kernel and tools/debroot/debcompare.py), so it boots only when one of them changed.  `make
test` runs the cases without `# debian-compare: slow` on lx; `make debian-compare`
(DEBIAN_COMPARE=all) runs every case.  Without the Debian root everything skips; without
Debian's kernel the comparisons skip and the Pecan run is still checked."""
import os
import sys

import pytest

from harness import BUILD, ROOT, boot, kernel_trouble
from test_lx import LX

sys.path.insert(0, str(ROOT / "tools" / "debroot"))
sys.path.insert(0, str(ROOT / "tests" / "debian"))
import debcompare  # noqa: E402
import debian_differences as known  # noqa: E402

HEAP_MIB = 512
# The release kernel: the debug kernel's checks at every fault and IPC make lx several times
# slower (docs/linux/debian-root.md: 196 M against 41 M instructions to unpack the root), and
# test_debroot.py already runs the Debian root on the debug kernel.
KERNEL = None
ALL = os.environ.get("DEBIAN_COMPARE") == "all"
CASES = debcompare.case_names()
RUN_ON_PECAN = CASES if ALL else debcompare.case_names(slow=False)


def _param(case):
    marks = []
    if case not in RUN_ON_PECAN:
        marks.append(pytest.mark.skip(reason="slow: make debian-compare runs it"))
    elif why := known.expected_failure(case):
        marks.append(pytest.mark.xfail(reason=why, strict=True))
    return pytest.param(case, marks=marks)


def _require_root():
    if not debcompare.DEBROOT.is_file():
        pytest.skip("no Debian root (make debroot: needs apt and Debian's mirror once)")


@pytest.fixture(scope="module")
def pecan():
    """One boot of lx on the Debian root running the cases: (results, done, hung case,
    RunResult)."""
    _require_root()
    initrd = debcompare.make_initrd()
    memory = HEAP_MIB + 160 + initrd.stat().st_size // 2**20
    lists = "cases-all" if ALL else "cases"
    result = boot("root", cmdline="kdb=batch", timeout=1800 if ALL else 900, memory=memory,
                  kernel=KERNEL,
                  extra_modules=[(LX, f"heap={HEAP_MIB} heapx=1 poweroff=1 "
                                      f"initrd={initrd.name} init=/test/debian/run {lists}"),
                                 (initrd.relative_to(ROOT), "data")])
    debcompare.CACHE_DIR.mkdir(parents=True, exist_ok=True)
    (debcompare.CACHE_DIR / "pecan-console.log").write_text(
        f"# {result.duration:.1f} s, QEMU status {result.status}\n{result.output}")
    results, done, hung = debcompare.corpus.parse(result.output, skip_prefix="lx: ")
    return results, done, hung, result


@pytest.fixture(scope="module")
def linux():
    """The Linux reference (cached), or a skip that says why there is none."""
    _require_root()
    if not debcompare.DEFAULT_KERNEL.is_file():
        pytest.skip(f"{debcompare.DEFAULT_KERNEL.relative_to(ROOT)} missing (no network?): "
                    "tools/linuxref/fetch_kernel.sh fetches Debian's kernel")
    try:
        results, _info = debcompare.linux_reference()
    except debcompare.CompareError as e:
        pytest.fail(f"the Linux reference run failed: {e}", pytrace=False)
    return results


def test_debian_pecan_run_completes(pecan):
    """The runner got through every case (none hung) and lx ended cleanly: no kernel
    trouble, every page of its pool free again."""
    results, done, hung, result = pecan
    problems = kernel_trouble(result) + debcompare.corpus.run_problems(
        result.output, result.status, result.timed_out, results, done, hung, RUN_ON_PECAN,
        HEAP_MIB)
    assert not problems, "; ".join(problems) + "\n" + result.describe()


def test_debian_linux_reference_is_complete(linux):
    """Linux ran every case: a case the reference lacks could never be compared."""
    assert sorted(linux) == CASES, f"Linux results for {sorted(linux)}, cases {CASES}"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_debian_same_as_linux(case, pecan, linux):
    results, done, hung, result = pecan
    if case not in results:
        pytest.fail(f"{case} has no result on Pecan" + (f" (the run hung in {hung})" if hung
                                                       else "") + "\n" + result.describe(),
                    pytrace=False)
    why = debcompare.corpus.difference(case, linux[case], results[case],
                                       known.NORMALISE.get(case, ()))
    if why:
        pytest.fail(why, pytrace=False)
