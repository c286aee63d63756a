"""The demo that `make demo` boots: sigma0, the root task, the user-level serial driver and the
demo shell (all modules started by the root task).  Driven through QEMU's real serial device:
typed lines reach the shell as receive interrupts (IRQ 4) delivered as IPC to the driver, and
its answers go out through the driver.  Booted directly and from the demo ISO."""
import qemu_run
from harness import BOOT_TIMEOUT, BUILD, LOGS, kernel_path, kernel_trouble, require_built

ISO = BUILD / "pecan.iso"
DEMO = [BUILD / "user" / n for n in ("sigma0.elf", "root.elf", "serial.elf", "shell.elf")]

# Each line is typed when the prompt appears (the UART holds only 16 bytes).
SESSION = [
    (r"pecan> ", "echo hello from the test\r"),
    (r"hello from the test\r?\n", ""),
    (r"pecan> ", "kip\r"),
    (r"user base \d+", ""),
    (r"pecan> ", "clock\r"),
    (r"\d+ us since boot", ""),
    (r"pecan> ", "no-such-command\r"),
    (r"unknown command 'no-such-command'", ""),
    (r"pecan> ", "exit\r"),
]


def check_demo(result):
    problems = kernel_trouble(result)
    out = result.output
    for expected in ("Pecan 0.1", "sigma0: serving", "root: started serial.elf",
                     "root: started shell.elf", "serial: COM1 driver ready",
                     "Pecan demo shell", "hello from the test", "user base", "us since boot",
                     "unknown command 'no-such-command'", "bye"):
        if expected not in out:
            problems.append(f"no `{expected}` in the output")
    if result.status != 1:          # the shell's `exit` ends the run through isa-debug-exit
        problems.append(f"QEMU exit status {result.status}, expected 1")
    assert not problems, "; ".join(problems) + "\n" + result.describe()


def _run(**kw):
    result = qemu_run.run(serial_input=SESSION, timeout=BOOT_TIMEOUT, **kw)
    LOGS.mkdir(parents=True, exist_ok=True)
    (LOGS / ("demo-iso.log" if kw.get("iso") else "demo.log")).write_text(result.output)
    return result


def test_demo_session():
    require_built(kernel_path(None), *DEMO)
    check_demo(_run(kernel=kernel_path(None), modules=[str(p) for p in DEMO]))


def test_demo_iso_session():
    require_built(ISO)
    check_demo(_run(kernel=None, iso=ISO))
