# tools/build.mk: the developer entry points (run, test, iso, debug, bench, deps).  Included by
# the top-level Makefile after the kernel and user fragments (KERNEL_BIN, USER_PROGRAMS).
#
#   make run    [RUN_ARGS=...]                     boot Pecan with lx on the Debian root into bash on
#                                                  the serial console of this terminal (builds it)
#   make run-busybox [RUN_ARGS="--memory 512"]     the same with the busybox initramfs
#   make debroot                                   build/debroot/root.cpio (tools/debroot/mkroot.py)
#   make demo   [RUN_ARGS="--iso"]                the native demo shell (user/demo/shell.c)
#   make test   [TEST_ARGS="--suite system -k boot"]   every test suite (tools/testsuite.py)
#   make unit                                      the host unit tests only
#   make iso                                       build/pecan.iso (GRUB, boots the demo)
#   make debug                                     QEMU waiting for gdb (gdb -x tools/gdbinit)
#   make bench                                     tools/bench.py, tools/cachebench.py (short)
#   make bench-cache                               tools/cachebench.py at length (two cache models)
#   make fuzz   [FUZZ_ARGS="--seeds 20 --budget 600"]   a fuzzing campaign (tools/fuzz.py)
#   make lxfuzz [LXFUZZ_ARGS="--seeds 100"]        lx's Linux-side fuzzer (tools/lxfuzz.py)
#   make deps                                      install missing Debian packages (tools/deps.sh)
#   make initramfs                                 build/linux/initramfs.cpio for the lx personality
#                                                  (downloads busybox-static; docs/linux.md)
#   make linux-compare                             lx against native Linux on the corpus of
#                                                  tests/linux (docs/linux/compare.md)
#   make debian-compare                            Debian's programs on lx against Linux, every
#                                                  case (docs/linux/debian-compare.md)
#
# run, test, debug and bench first run tools/deps.sh, then build through a sub-make, so that a
# fresh machine gets its compiler before anything is compiled.

ISO          := $(BUILD)/pecan.iso
DEMO_MODULES := $(BUILD)/user/sigma0.elf $(BUILD)/user/root.elf $(BUILD)/user/serial.elf \
                $(BUILD)/user/shell.elf
DEMO_CMDLINE ?=
QEMU_RUN     := $(PYTHON) tools/qemu_run.py
SUBMAKE      := $(MAKE) --no-print-directory -s
RUN_ARGS     ?=
TEST_ARGS    ?=
FUZZ_ARGS    ?=

.PHONY: programs fuzz demo

# `make run-busybox`: sigma0, the root task, the serial driver and lx, whose console is a tty on
# the driver (console=serial, docs/linux/tty.md), with the initramfs; pid 1 runs /init (through
# sh, so it needs no #! support), which starts a login shell with the console as its
# controlling terminal.  When the last process ends, lx ends QEMU (poweroff=1).
LX_RUN_MODULES := $(BUILD)/user/sigma0.elf $(BUILD)/user/root.elf $(BUILD)/user/serial.elf
LX_RUN_ARGS    ?= heap=64 heapx=1 poweroff=1 quiet=1 console=serial initrd=initramfs.cpio \
                  init=/bin/sh /init

# `make run`: the same on the Debian root (docs/linux/debian-root.md): /init (a bash script)
# starts `bash --login` as a session leader on the console.  Guest memory: the archive stays
# in the module (DEBROOT_MIB of it) and lx's pool (heap=) holds the processes and every file
# written; 512 MiB compiles a small program with gcc with room to spare.
DEBROOT         := $(BUILD)/debroot/root.cpio
DEBROOT_HEAP    ?= 512
DEBROOT_RUN_ARGS ?= heap=$(DEBROOT_HEAP) heapx=1 poweroff=1 quiet=1 console=serial \
                   initrd=root.cpio init=/init
# Guest MiB: heap= and the archive, with 160 MiB for the kernel, the servers and lx itself.
DEBROOT_MEMORY  = $$(( $(DEBROOT_HEAP) + 160 + $$(stat -c %s $(DEBROOT)) / 1048576 ))

# Every native program, in-system tests and benchmarks included.
programs: $(USER_PROGRAMS)

all: $(ISO)

deps:
	@PYTHON="$(PYTHON)" sh tools/deps.sh

run: deps
	@$(SUBMAKE) all
	@$(SUBMAKE) debroot
	@echo "  RUN     Pecan + lx: bash on the Debian root, $(DEBROOT_MEMORY) MiB; exit ends it, Ctrl-A x quits QEMU"
	@$(QEMU_RUN) --interactive --memory $(DEBROOT_MEMORY) --cmdline "$(DEMO_CMDLINE)" $(RUN_ARGS) \
	    $(KERNEL_BIN) $(LX_RUN_MODULES) "$(BUILD)/user/lx.elf:$(DEBROOT_RUN_ARGS)" "$(DEBROOT):data"

run-busybox: deps
	@$(SUBMAKE) all
	@$(SUBMAKE) initramfs
	@echo "  RUN     Pecan + lx: busybox sh on the console; exit ends it, Ctrl-A x quits QEMU"
	@$(QEMU_RUN) --interactive --memory 256 --cmdline "$(DEMO_CMDLINE)" $(RUN_ARGS) \
	    $(KERNEL_BIN) $(LX_RUN_MODULES) "$(BUILD)/user/lx.elf:$(LX_RUN_ARGS)" "$(INITRAMFS):data"

# The Debian root (docs/linux/debian-root.md): Debian 12's packages of tools/debroot/packages.txt
# and their dependencies, downloaded once into $(BUILD)/debroot/debs (apt; never installed on
# the host), unpacked with dpkg-deb and written as one newc archive.  Rebuilt when the list or
# the builder changes (not for each new Debian point release: `rm $(DEBROOT)` picks those up).
.PHONY: debroot run-busybox
debroot: $(DEBROOT)

$(DEBROOT): tools/debroot/packages.txt tools/debroot/mkroot.py tools/linuxref/newc.py
	@$(PYTHON) tools/debroot/mkroot.py -o $(DEBROOT)

# The native demo: sigma0, the root task, the serial driver and the demo shell.
demo: deps
	@$(SUBMAKE) all
	@echo "  RUN     demo (sigma0 + root task); Ctrl-A x quits QEMU, Ctrl-A c is the QEMU monitor"
	@$(QEMU_RUN) --interactive --cmdline "$(DEMO_CMDLINE)" $(RUN_ARGS) $(KERNEL_BIN) $(DEMO_MODULES)

# The initramfs needs Debian's busybox-static from the network: without it the lx tests that
# boot busybox or the /test programs skip, and say so.
test: deps
	@$(SUBMAKE) all programs
	@$(SUBMAKE) linux-inputs || echo "  WARNING the lx initramfs or Debian's kernel is missing: the Linux comparison tests skip"
	@$(SUBMAKE) debroot || echo "  WARNING the Debian root is missing (apt, Debian's mirror): test_debroot skips"
	@$(PYTHON) tools/testsuite.py $(TEST_ARGS)

unit:
	@$(PYTHON) tools/testsuite.py --suite host $(TEST_ARGS)

iso: $(ISO)

# The demo ISO; tests build their own variants under $(BUILD)/ (tests/system/harness.py).
$(ISO): $(KERNEL_BIN) $(DEMO_MODULES) tools/mkiso.py tools/build.mk
	@$(PYTHON) tools/mkiso.py -o $@ --cmdline "$(DEMO_CMDLINE)" $(KERNEL_BIN) $(DEMO_MODULES)

debug: deps
	@$(SUBMAKE) all
	@echo "  DEBUG   QEMU halted at the first instruction, gdb stub on localhost:1234."
	@echo "          In another terminal: gdb -x tools/gdbinit   (Ctrl-A x quits QEMU)"
	@$(QEMU_RUN) --interactive --cmdline "$(DEMO_CMDLINE)" --qemu-arg=-s --qemu-arg=-S \
	    $(RUN_ARGS) $(KERNEL_BIN) $(DEMO_MODULES)

bench: deps
	@$(SUBMAKE) all programs
	@$(SUBMAKE) $(KT100_BIN)
	@$(PYTHON) tools/bench.py $(BENCH_ARGS)
	@$(PYTHON) tools/cachebench.py --periods 6

# The cache-partitioning experiment at length, with the default cache model and a Pentium-like
# one (docs/cache-partitioning.md).
bench-cache: deps
	@$(SUBMAKE) all programs $(KT100_BIN)
	@$(PYTHON) tools/cachebench.py --periods 50 --json $(BUILD)/cachebench/default.json
	@$(PYTHON) tools/cachebench.py --periods 50 --l1 8K:2:32 --l2 256K:1:32 --cost 1:0:5:30 \
		--rt-colours 0,1,2 --out-dir $(BUILD)/cachebench-p5 --json $(BUILD)/cachebench-p5/p5.json

# The system-call fuzzer with many seeds across the kernel configurations (docs/testing.md).
fuzz: deps
	@$(SUBMAKE) all programs
	@$(PYTHON) tools/fuzz.py $(FUZZ_ARGS)

# lx's Linux-side fuzzer over many seeds (docs/linux/robustness.md).
LXFUZZ_ARGS ?=
.PHONY: lxfuzz bench-cache
lxfuzz: deps
	@$(SUBMAKE) all programs
	@$(PYTHON) tools/lxfuzz.py $(LXFUZZ_ARGS)

# The lx personality's files (docs/linux.md, "Files: the initramfs").  Not part of `all`: it
# downloads Debian's busybox-static (cached under $(BUILD)/linux/; never installed on the host).
# fetch_deb.sh runs every time: without a newer candidate in apt's lists it does nothing, and
# mkinitramfs.py writes the same bytes for the same inputs.
include user/linux/tests/build.mk
include tests/linux/build.mk

INITRAMFS := $(BUILD)/linux/initramfs.cpio
.PHONY: initramfs
initramfs: $(LINUX_TESTS) $(CORPUS_BINS)
	@bash tools/initramfs/fetch_deb.sh busybox-static
	@$(PYTHON) tools/initramfs/mkinitramfs.py --corpus $(CORPUS_OUT) -o $(INITRAMFS)

# The Linux comparison corpus (docs/linux/compare.md): its programs, the initramfs that holds
# them and Debian's kernel for the reference side.  `make test` builds these first and goes on
# without them (the comparison tests then skip and say why); `make linux-compare` runs only the
# comparison.
.PHONY: linux-inputs
linux-inputs: initramfs
	@bash tools/linuxref/fetch_kernel.sh

linux-compare: deps
	@$(SUBMAKE) all programs linux-inputs
	@$(PYTHON) tools/testsuite.py --suite system -k test_lx_compare $(TEST_ARGS)

# The Debian-root comparison (docs/linux/debian-compare.md): `make test` runs its quick cases;
# this runs every case of tests/debian, the slow ones too (DEBIAN_COMPARE=all).
.PHONY: debian-compare
debian-compare: deps
	@$(SUBMAKE) all programs debroot
	@bash tools/linuxref/fetch_kernel.sh
	@DEBIAN_COMPARE=all $(PYTHON) tools/testsuite.py --suite system -k test_debian_compare $(TEST_ARGS)
