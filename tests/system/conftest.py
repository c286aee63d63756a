"""System tests: Pecan booted in QEMU (see harness.py and docs/testing.md)."""
import pytest

import harness


@pytest.fixture(scope="session", autouse=True)
def built_kernel():
    """Nothing is built here (make test builds first); without a kernel and sigma0 every system
    test fails with the same clear message."""
    harness.require_built(harness.KERNEL, harness.SIGMA0)
