"""What the kernel gives a root task at boot (user/tests/test_boot.c), in four configurations:
128 and 256 MiB of RAM (the program checks the KIP memory descriptors against its argument
mem=<MiB>), on a CPU with NX/SMEP/SMAP (-cpu max) and one without SMEP/SMAP (-cpu qemu64)."""
import pytest

from harness import boot, cases_of, check_case, check_complete, kernel_lines

SOURCE = "user/tests/test_boot.c"
CONFIGS = [(128, "max"), (256, "max"), (128, "qemu64"), (256, "qemu64")]
CONFIG_IDS = [f"{cpu}-{mem}M" for mem, cpu in CONFIGS]
# What the kernel's `cpu:` log line must say about the protection features it found.
CPU_FLAGS = {"max": "nx=1 smep=1 smap=1", "qemu64": "smep=0 smap=0"}


def boot_config(memory, cpu):
    return boot("test_boot", f"mem={memory}", memory=memory, cpu=cpu)


@pytest.mark.parametrize("memory,cpu", CONFIGS, ids=CONFIG_IDS)
def test_run_completes(memory, cpu):
    check_complete(boot_config(memory, cpu), SOURCE)


@pytest.mark.parametrize("memory,cpu", CONFIGS, ids=CONFIG_IDS)
def test_cpu_features_logged(memory, cpu):
    result = boot_config(memory, cpu)
    lines = kernel_lines(result, "cpu:")
    assert any(CPU_FLAGS[cpu] in line for line in lines), (
        f"no `cpu:` line with {CPU_FLAGS[cpu]!r} for -cpu {cpu}:\n" + "\n".join(lines)
        + "\n" + result.describe())


@pytest.mark.parametrize("memory,cpu", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("case", cases_of(SOURCE))
def test_case(case, memory, cpu):
    check_case(boot_config(memory, cpu), case, SOURCE)
