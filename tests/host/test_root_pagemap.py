"""Host unit test of root's page map (user/root/pagemap.c), compiled from the real source with
the host gcc (-Wall -Wextra -Werror, sanitizers where available) and run once per case
(tests/host/root_pagemap_test.c): first fit against a model, and a bound on the bitmap words
an allocation examines (the first version walked every used page on each of lx's heap
faults: docs/performance.md, the multi-user mix)."""
import pathlib

import pytest

from host_build import build_c_test, check_case, listed_cases

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "tests" / "host" / "root_pagemap_test.c", ROOT / "user" / "root" / "pagemap.c"]
CASES = ["test_first_fit_matches_model", "test_single_pages_after_an_early_free",
         "test_runs_over_a_small_hole", "test_full_and_edges",
         "test_coloured_pages", "test_coloured_search_cost"]


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return build_c_test(tmp_path_factory.mktemp("root-pagemap") / "root_pagemap_test", SOURCES,
                        [ROOT / "user" / "root", ROOT / "tests" / "host"])


def test_case_list_complete(program):
    assert listed_cases(program) == CASES


@pytest.mark.parametrize("case", CASES)
def test_pagemap(program, case):
    check_case(program, case, timeout=300)
