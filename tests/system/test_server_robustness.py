"""Bad input never breaks a server (user/tests/test_servers.c): booted with the real root task,
the serial driver and the test program as boot modules, the program sends the root task's
service, sigma0 and the serial driver hundreds of malformed and random messages and checks
after every fifty that each still does its job."""
import pytest

from harness import boot, cases_of, check_case, check_complete, kernel_trouble

SOURCE = "user/tests/test_servers.c"
MODULES = ["build/user/serial.elf", "build/user/test_servers.elf"]


def boot_servers():
    return boot("root", extra_modules=MODULES)


def test_run_completes():
    check_complete(boot_servers(), SOURCE)


def test_no_server_stopped():
    """No server thread faulted: the kernel halts a faulting thread without a handler and
    says so; the root task reports the faults of the tasks it pages that it cannot resolve
    (the test program's own fake fault messages are reported the same way, and are fine)."""
    result = boot_servers()
    assert "halted" not in result.output, result.describe()
    stopped = [l for l in result.output.splitlines()
               if "stays stopped" in l and "test_servers.elf" not in l]
    assert not stopped, "\n".join(stopped) + "\n" + result.describe()
    assert not kernel_trouble(result), result.describe()


@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case):
    check_case(boot_servers(), case, SOURCE)
