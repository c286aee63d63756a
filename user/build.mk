# Native user-level programs: sigma0, the root task, drivers, tests and benchmarks.
# Link addresses: sigma0 and the root task run identity-mapped at their physical addresses
# (contract §7.2: sigma0 near 15 MiB, the root task from 16 MiB); programs the root task
# loads run in their own spaces at the usual 4 MiB.

$(eval $(call user_program,sigma0,user/sigma0/sigma0.c user/sigma0/regions.c,0xF00000))
$(eval $(call user_program,root,$(wildcard user/root/*.c) kernel/elf.c,0x1000000))
$(eval $(call user_program,serial,user/drivers/serial/serial.c,0x400000))
$(eval $(call user_program,shell,user/demo/shell.c,0x400000))



# In-system tests: each is a root task (module 1) using the test framework.
TESTLIB := user/tests/testlib.c user/tests/cmdline.c
$(eval $(call user_program,test_boot,user/tests/test_boot.c user/sigma0/regions.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_faults,user/tests/test_faults.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_ipc,user/tests/test_ipc.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_fuzz,user/tests/test_fuzz.c user/tests/fuzz_desc.c user/tests/fuzz_desc_thread.c user/tests/fuzz_segmodel.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_preemption,user/tests/test_preemption.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_sched,user/tests/test_sched.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_foreign,user/tests/test_foreign.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_channel,user/tests/test_channel.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_chanattack,user/tests/test_chanattack.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_cpustate,user/tests/test_cpustate.c user/tests/probe.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_propagation,user/tests/test_propagation.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_strings,user/tests/test_strings.c user/tests/testutil.c $(TESTLIB),0x1000000))

# Benchmarks (root tasks): see tools/bench.py.
$(eval $(call user_program,foreignbench,user/bench/foreign.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,pingpong,user/bench/pingpong.c user/bench/pistachio_loops.S user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_threads,user/tests/test_threads.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_fsbase,user/tests/test_fsbase.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_memory,user/tests/test_memory.c user/tests/agent.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,vmbench,user/bench/vmbench.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,unmapbench,user/bench/unmapbench.c user/tests/testutil.c $(TESTLIB),0x1000000))
# The real-time task of docs/cache-partitioning.md, linked apart from every other program's
# code (the cachesim plugin tells its instructions by address).
$(eval $(call user_program,rt_matmul,user/rt/rt_matmul.c,0x20000000))
$(eval $(call user_program,rt_flood,user/rt/rt_flood.c,0x28000000))
$(eval $(call user_program,test_irq,user/tests/test_irq.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_kmem,user/tests/test_kmem.c user/tests/agent.c user/tests/testutil.c $(TESTLIB),0x1000000))
$(eval $(call user_program,test_tcontrol,user/tests/test_tcontrol.c user/tests/testutil.c $(TESTLIB),0x1000000))
# Started by the root task as a boot module (not a root task itself).
$(eval $(call user_program,test_tasks,user/tests/test_tasks.c user/tests/testlib.c,0x400000))
$(eval $(call user_program,test_root_limits,user/tests/test_root_limits.c user/tests/testlib.c,0x400000))
$(eval $(call user_program,test_root_oom,user/tests/test_root_oom.c user/tests/testlib.c,0x400000))
$(eval $(call user_program,test_servers,user/tests/test_servers.c user/tests/testlib.c,0x400000))
$(eval $(call user_program,test_datamod,user/tests/test_datamod.c user/tests/testlib.c,0x400000))


# lx, the Linux server (docs/linux-server.md): a boot module started by the root task.  Its
# layers are folders (docs/linux-server.md §1); headers are included by their path from
# user/linux ("task/process.h").  tests/, selftest/ and fuzz/ hold Linux programs, not lx.
# Linked at 1 GiB, not 0x400000: there its code would share addresses with non-PIE Linux
# programs (gcc's cc1), which an instruction profile cannot tell apart (docs/profiling.md).
LX_LAYERS := lib log task park mm signal vfs fs/tmpfs fs/proc fs/dev fs/pipe fs/epoll fs/anon fs/devpts net net/unix net/inet net/netlink tty time ipc l4chan syscalls
$(eval $(call user_program,lx,$(wildcard user/linux/*.c $(LX_LAYERS:%=user/linux/%/*.c)),0x40000000,-Iuser/linux))

# lx's self-test program: a static Linux executable (freestanding, raw system calls, built
# with the host compiler for Linux, not for Pecan), booted as a data module.
LX_SELFTEST := $(BUILD)/linux/lxselftest.elf
$(LX_SELFTEST): user/linux/selftest/selftest.c $(wildcard user/linux/selftest/*.c)
	@mkdir -p $(@D)
	@echo "  CC      $<"; $(CC) -static -nostdlib -ffreestanding -fno-pie -no-pie -O2 \
		-fno-stack-protector -fno-builtin -Wall -Wextra -Werror -Wl,--build-id=none -o $@ $<
all: $(LX_SELFTEST)

# The Linux-side fuzzer (docs/linux/robustness.md): the same kind of program.
LX_FUZZ := $(BUILD)/linux/lxfuzz.elf
$(LX_FUZZ): user/linux/fuzz/lxfuzz.c
	@mkdir -p $(@D)
	@echo "  CC      $<"; $(CC) -static -nostdlib -ffreestanding -fno-pie -no-pie -O2 \
		-fno-stack-protector -fno-builtin -Wall -Wextra -Werror -Wl,--build-id=none -o $@ $<
all: $(LX_FUZZ)
# The same program as a static-PIE (ET_DYN without PT_INTERP; it has no relocations, so it
# runs wherever it is loaded): lx's loader puts it at ELF_ET_DYN_BASE (docs/linux/exec.md).
LX_SELFTEST_PIE := $(BUILD)/linux/lxselftest-pie.elf
$(LX_SELFTEST_PIE): user/linux/selftest/selftest.c $(wildcard user/linux/selftest/*.c)
	@mkdir -p $(@D)
	@echo "  CC      $< (static-pie)"; $(CC) -static-pie -fPIE -nostdlib -ffreestanding -O2 \
		-fno-stack-protector -fno-builtin -Wall -Wextra -Werror -Wl,--build-id=none -o $@ $<
all: $(LX_SELFTEST_PIE)

# Static-PIE C programs (user/linux/selftest/pie.c) where the host can build them: glibc's
# gcc -static-pie (rcrt1.o), and musl's rcrt1.o linked by hand (Debian's musl-gcc wrapper
# makes a -static-pie binary that still wants libc.so and the dynamic linker).
ifneq ($(wildcard $(shell $(CC) -print-file-name=rcrt1.o)),)
LX_PIE_GLIBC := $(BUILD)/linux/pie-glibc.elf
$(LX_PIE_GLIBC): user/linux/selftest/pie.c
	@mkdir -p $(@D)
	@echo "  CC      $< (glibc static-pie)"; $(CC) -static-pie -fPIE -O2 -Wall -Wextra -Werror -o $@ $<
all: $(LX_PIE_GLIBC)
endif
# The same program dynamically linked against glibc (a PIE with PT_INTERP): the test puts
# the host's ld.so and libc.so.6 (Debian's libc6) into its initramfs.
ifneq ($(wildcard $(shell $(CC) -print-file-name=libc.so.6)),)
LX_DYN_GLIBC := $(BUILD)/linux/dyn-glibc.elf
$(LX_DYN_GLIBC): user/linux/selftest/pie.c
	@mkdir -p $(@D)
	@echo "  CC      $< (glibc dynamic)"; $(CC) -fPIE -pie -O2 -Wall -Wextra -Werror -o $@ $<
all: $(LX_DYN_GLIBC)
endif
MUSL_LIB := /usr/lib/x86_64-linux-musl
ifneq ($(and $(shell command -v musl-gcc),$(wildcard $(MUSL_LIB)/rcrt1.o)),)
LX_PIE_MUSL := $(BUILD)/linux/pie-musl.elf
$(LX_PIE_MUSL): user/linux/selftest/pie.c
	@mkdir -p $(@D)
	@echo "  CC      $< (musl static-pie)"; musl-gcc -fPIE -O2 -Wall -Wextra -Werror -static-pie \
		-nostartfiles -Wl,-static -Wl,--no-dynamic-linker -Wl,-z,text -o $@ $(MUSL_LIB)/rcrt1.o \
		$(MUSL_LIB)/crti.o $(shell $(CC) -print-file-name=crtbeginS.o) $< \
		$(shell $(CC) -print-file-name=crtendS.o) $(MUSL_LIB)/crtn.o
all: $(LX_PIE_MUSL)
endif
all: $(USER_PROGRAMS)

# A static glibc program for lx's test, where the host compiler has a static glibc; the
# test that boots it is skipped where it is not built.
ifneq ($(wildcard $(shell $(CC) -print-file-name=libc.a)),)
LX_GLIBC_HELLO := $(BUILD)/linux/glibc_hello.elf
$(LX_GLIBC_HELLO): user/linux/selftest/glibc_hello.c
	@mkdir -p $(@D)
	@echo "  CC      $<"; $(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<
all: $(LX_GLIBC_HELLO)
# The cache-hostile Linux load of docs/cache-partitioning.md (run by lx, never on the host).
LX_CACHEHOG := $(BUILD)/linux/cachehog.elf
$(LX_CACHEHOG): user/rt/cachehog.c
	@mkdir -p $(@D)
	@echo "  CC      $<"; $(CC) -static -O2 -Wall -Wextra -Werror -o $@ $<
all: $(LX_CACHEHOG)
endif
