"""Host unit test of the cachesim plugin's cache model (tools/qemu_plugins/cachesim_model.h),
compiled with the host gcc (-Wall -Wextra -Werror, sanitizers where available) and run once per
case (tests/host/cachesim_test.c) (docs/cache-partitioning.md)."""
import pathlib

import pytest

from host_build import build_c_test, check_case, listed_cases

ROOT = pathlib.Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "tools" / "qemu_plugins"
CASES = ["test_geometry_is_checked", "test_sweeps", "test_lru_replaces_the_oldest_way",
         "test_colours_isolate"]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build_c_test(tmp_path_factory.mktemp("cachesim") / "cachesim_test",
                        [ROOT / "tests" / "host" / "cachesim_test.c"],
                        [PLUGINS, ROOT / "tests" / "host"])


def test_case_list_complete(program):
    assert listed_cases(program) == CASES


@pytest.mark.parametrize("case", CASES)
def test_cache_model(program, case):
    check_case(program, case, timeout=120)
