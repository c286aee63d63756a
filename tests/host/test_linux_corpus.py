"""The Linux comparison corpus's tooling (tools/initramfs/corpus.py, docs/linux/compare.md):
the runner's console protocol as the parser reads it (lx's lines dropped, an added newline
taken back, a case that never ended, firmware noise before the first marker), the archive
entries and case list from a fake build, and the known-differences list naming only real
cases.  No QEMU, no Linux program run on the host."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "initramfs"))
sys.path.insert(0, str(ROOT / "tests" / "linux"))
import corpus  # noqa: E402
import known_differences as known  # noqa: E402


def test_parse_outputs_and_statuses():
    console = ("\x1b[2Jfirmware@@corpus-begin a/one\r\n"
               "hello\r\nlx: pid 3: system call 7 (poll) not implemented\r\nworld\r\n"
               "@@corpus-end a/one status=256 nl=1\r\n"
               "@@corpus-begin sh/two\nno newline\n@@corpus-end sh/two status=11 nl=0\n"
               "@@corpus-begin sh/empty\n@@corpus-end sh/empty status=0 nl=1\n"
               "lx: pid 1 exited with status 0\n@@corpus-done\n")
    results, done, hung = corpus.parse(console, skip_prefix="lx: ")
    assert done and hung == ""
    assert results["a/one"] == corpus.Outcome("hello\nworld\n", 256)
    assert results["sh/two"] == corpus.Outcome("no newline", 11)
    assert results["sh/empty"] == corpus.Outcome("", 0)


def test_parse_keeps_lx_lines_on_linux():
    console = "@@corpus-begin c\nlx: is output here\n@@corpus-end c status=0 nl=1\n@@corpus-done\n"
    results, done, _ = corpus.parse(console)
    assert results["c"].output == "lx: is output here\n" and done


def test_parse_a_case_that_never_ended():
    console = "@@corpus-begin a\nx\n@@corpus-end a status=0 nl=1\n@@corpus-begin b\nstuck\n"
    results, done, hung = corpus.parse(console)
    assert list(results) == ["a"] and not done and hung == "b"


def test_parse_end_marker_of_another_case_is_output():
    console = ("@@corpus-begin a\n@@corpus-end b status=0 nl=1\n"
               "@@corpus-end a status=0 nl=1\n@@corpus-done\n")
    results, _, _ = corpus.parse(console)
    assert results["a"].output == "@@corpus-end b status=0 nl=1\n"


def fake_corpus(tmp_path):
    d = tmp_path / "corpus"
    (d / "musl").mkdir(parents=True)
    (d / "glibc").mkdir()
    (d / "run").write_bytes(b"\x7fELF runner")
    for p in (corpus.SRC / "progs").glob("*.c"):
        for v in corpus.VARIANTS:
            (d / v / p.stem).write_bytes(f"{v} {p.stem}".encode())
    return d


def test_entries_and_case_list(tmp_path):
    d = fake_corpus(tmp_path)
    ents = {e.name: e for e in corpus.entries(d)}
    assert ents["test/corpus/run"].data == b"\x7fELF runner" and ents["test/corpus/run"].mode & 0o111
    lines = ents["test/corpus/cases"].data.decode().splitlines()
    names = [ln.split()[0] for ln in lines]
    assert names == sorted(names) and "sh/text" in names and "musl/files" in names
    assert "sh/text /bin/sh /test/corpus/sh/text.sh" in lines
    assert "glibc/files /test/corpus/glibc/files" in lines
    assert "test/corpus/data/greeting.txt" in ents
    assert ents["test/corpus/musl/files"].data == b"musl files"
    # Every archived case is one the comparison test collects, and nothing more.
    import newc
    blob = newc.pack(list(ents.values()))
    (tmp_path / "x.cpio").write_bytes(blob)
    assert corpus.archive_cases(tmp_path / "x.cpio") == names


def test_missing_build_is_an_error(tmp_path):
    d = fake_corpus(tmp_path)
    (d / "run").unlink()
    with pytest.raises(corpus.CorpusError, match="run missing"):
        corpus.entries(d)
    d = fake_corpus(tmp_path / "two")
    (d / "glibc" / "files").unlink()
    with pytest.raises(corpus.CorpusError, match="glibc/files missing"):
        corpus.entries(d)


def test_known_differences_name_real_cases():
    cases = {f"sh/{s.stem}" for s in (corpus.SRC / "scripts").glob("*.sh")}
    cases |= {f"{v}/{p.stem}" for p in (corpus.SRC / "progs").glob("*.c") for v in corpus.VARIANTS}
    for table in (known.MISSING, known.BUGS, known.NOT_RUN_ON_PECAN, known.NORMALISE):
        assert set(table) <= cases, sorted(set(table) - cases)
        assert all(table.values())
    # A case is in at most one of the lists of expected failures.
    assert not set(known.MISSING) & set(known.BUGS)
