# Pecan: one non-recursive build.  Every part contributes a fragment (*/build.mk).
#   make            build kernel, user programs and the ISO
#   make run        boot Pecan with lx into bash on the Debian root (interactive serial console)
#   make run-busybox   the same into busybox sh
#   make demo       boot the native demo shell
#   make test       build and run every test suite
#   make bench      run the benchmarks beside native Linux and update docs/performance.md
#   make iso        build build/pecan.iso (GRUB)
#   make debug      boot under QEMU waiting for gdb (see tools/gdbinit)
#   make clean

BUILD     := build
CC        := gcc
LD        := ld
OBJCOPY   := objcopy
PYTHON    := python3
QEMU      := qemu-system-x86_64
GCC_INC   := $(shell $(CC) -print-file-name=include)

# Common flags for code that runs on Pecan (kernel and user level): freestanding, no host headers.
WARN      := -Wall -Wextra -Werror -Wno-unused-parameter
FREESTANDING := -std=gnu11 -ffreestanding -nostdinc -isystem $(GCC_INC) -fno-pic -fno-pie \
                -fno-stack-protector -fno-builtin -mno-red-zone -fno-asynchronous-unwind-tables \
                -fno-strict-aliasing -g -O2 $(WARN) -MMD -MP

.PHONY: all run run-busybox test bench iso debug clean deps unit
all:

include kernel/build.mk
include user/lib/build.mk
include user/build.mk
include tools/build.mk

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)

clean:
	rm -rf $(BUILD)
