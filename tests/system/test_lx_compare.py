"""lx against native Linux (issue 8 item 10; docs/linux/compare.md): the corpus of
tests/linux (busybox scripts, C programs built with musl and glibc) runs once on Debian's
kernel in QEMU and once on Pecan (lx with the same initramfs, init=/test/corpus/run); every
case's output and wait status must be the same.  Known differences are listed in
tests/linux/known_differences.py: cases lx cannot pass yet are strict expected failures.

The Linux side is cached in build/linux/compare/ (keyed by the initramfs, the kernel and
corpus.py), so it boots only when one of them changed.  Without the initramfs (make
initramfs) everything skips; without Debian's kernel the comparisons skip and the Pecan run is
still checked: every case ran to its end, lx ended with all its pages free."""
import sys

import pytest

from harness import BUILD, ROOT, boot, kernel_trouble
from test_lx import LX

sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
sys.path.insert(0, str(ROOT / "tests" / "linux"))
import corpus  # noqa: E402
import known_differences as known  # noqa: E402

INITRAMFS = BUILD / "linux" / "initramfs.cpio"
HEAP_MIB = 256                      # tlimits: 1,000 processes alive at once (as test_lx_many)


def source_cases():
    """The case names from the sources (collection must not depend on the build)."""
    names = [f"sh/{s.stem}" for s in (corpus.SRC / "scripts").glob("*.sh")]
    names += [f"{v}/{p.stem}" for p in (corpus.SRC / "progs").glob("*.c") for v in corpus.VARIANTS]
    return sorted(names)


CASES = source_cases()


def _param(case):
    why = known.expected_failure(case)
    return pytest.param(case, marks=pytest.mark.xfail(reason=why, strict=True)) if why else case


def _require_initramfs():
    if not INITRAMFS.is_file():
        pytest.skip(f"{INITRAMFS.relative_to(ROOT)} missing: make initramfs (downloads busybox)")
    try:
        in_archive = corpus.archive_cases(INITRAMFS)
    except corpus.CorpusError as e:
        pytest.skip(str(e))
    if sorted(in_archive) != CASES:
        pytest.fail(f"the initramfs holds other cases than tests/linux: run make initramfs "
                    f"(archive {sorted(in_archive)}, sources {CASES})", pytrace=False)


@pytest.fixture(scope="module")
def pecan():
    """One boot of lx running the whole corpus: (results, done, hung case, RunResult)."""
    _require_initramfs()
    skip = "".join(f" -x {c}" for c in sorted(known.NOT_RUN_ON_PECAN))
    result = boot("root", cmdline="kdb=batch", timeout=600, memory=1024,
                  extra_modules=[(LX, f"heap={HEAP_MIB} heapx=1 poweroff=1 "
                                      f"initrd=initramfs.cpio init=/test/corpus/run{skip}"),
                                 (INITRAMFS.relative_to(ROOT), "data")])
    # Its own copy of the log: the harness's name for it is shared with other lx boots.
    corpus.CACHE_DIR.mkdir(parents=True, exist_ok=True)
    (corpus.CACHE_DIR / "pecan-console.log").write_text(
        f"# {result.duration:.1f} s, QEMU status {result.status}\n{result.output}")
    results, done, hung = corpus.parse(result.output, skip_prefix="lx: ")
    return results, done, hung, result


@pytest.fixture(scope="module")
def linux():
    """The Linux reference (cached), or a skip that says why there is none."""
    _require_initramfs()
    if not corpus.DEFAULT_KERNEL.is_file():
        pytest.skip(f"{corpus.DEFAULT_KERNEL.relative_to(ROOT)} missing (no network?): "
                    "tools/linuxref/fetch_kernel.sh fetches Debian's kernel")
    try:
        results, _info = corpus.linux_reference(INITRAMFS)
    except corpus.CorpusError as e:
        pytest.fail(f"the Linux reference run failed: {e}", pytrace=False)
    return results


def test_pecan_run_completes(pecan):
    """The runner got through every case (none hung) and lx ended cleanly: no kernel
    trouble, every page of its pool free again."""
    results, done, hung, result = pecan
    expected = sorted(set(CASES) - set(known.NOT_RUN_ON_PECAN))
    problems = kernel_trouble(result) + corpus.run_problems(
        result.output, result.status, result.timed_out, results, done, hung, expected, HEAP_MIB)
    assert not problems, "; ".join(problems) + "\n" + result.describe()


def test_linux_reference_is_complete(linux):
    """Linux ran every case: a case the reference lacks could never be compared."""
    assert sorted(linux) == CASES, f"Linux results for {sorted(linux)}, cases {CASES}"


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_same_as_linux(case, pecan, linux):
    results, done, hung, result = pecan
    if case in known.NOT_RUN_ON_PECAN:
        pytest.fail(f"not run on Pecan: {known.NOT_RUN_ON_PECAN[case]}", pytrace=False)
    if case not in results:
        pytest.fail(f"{case} has no result on Pecan" + (f" (the run hung in {hung})" if hung
                                                       else "") + "\n" + result.describe(),
                    pytrace=False)
    why = corpus.difference(case, linux[case], results[case], known.NORMALISE.get(case, ()))
    if why:
        pytest.fail(why, pytrace=False)
