# The kernel in four parts (docs/architecture.md, "The layers"): generic code in kernel/ and
# kernel/kdb/; the x86-64 instruction set in kernel/arch/x86_64; the X.2 binary interface on
# x86-64 (system calls, exception messages, I/O ports, the IPC fast paths) in
# kernel/glue/x2-x86_64; the PC around the CPU (interrupt controllers, timers, serial line,
# multiboot) in kernel/platform/pc.
KERNEL_ARCH     := kernel/arch/x86_64
KERNEL_GLUE     := kernel/glue/x2-x86_64
KERNEL_PLATFORM := kernel/platform/pc
KERNEL_LAYERS   := $(KERNEL_ARCH) $(KERNEL_GLUE) $(KERNEL_PLATFORM)
KERNEL_SRCS   := $(filter-out $(KERNEL_ARCH)/asm_offsets.c, \
                 $(wildcard kernel/*.c kernel/kdb/*.c $(foreach d,$(KERNEL_LAYERS),$(d)/*.c $(d)/*.S)))
KERNEL_OBJS   := $(patsubst %,$(BUILD)/%.o,$(basename $(KERNEL_SRCS)))
# Generic files (kernel/*.c, kernel/kdb/) see only the interface headers, the api/ directories
# of the layers (docs/architecture.md, "The arch interface"): any other header of a layer
# does not build there.  A layer sees its own directory and those below it: the ISA its own,
# the platform the ISA's too, the glue both.
KERNEL_CFLAGS_COMMON := $(FREESTANDING) -mcmodel=kernel -mgeneral-regs-only -mno-sse -mno-mmx
KERNEL_API_INC := $(foreach d,$(KERNEL_LAYERS),-I$(d)/api)
KERNEL_GENERIC_CFLAGS := $(KERNEL_CFLAGS_COMMON) -Ikernel $(KERNEL_API_INC) -Iinclude \
                 $(KERNEL_EXTRA_CFLAGS)
KERNEL_LAYER_CFLAGS = $(KERNEL_CFLAGS_COMMON) -Ikernel $(foreach d,$(1),-I$(d)) $(KERNEL_API_INC) \
                 -Iinclude -I$(BUILD)/kernel $(KERNEL_EXTRA_CFLAGS)
KERNEL_CFLAGS := $(call KERNEL_LAYER_CFLAGS,$(KERNEL_ARCH))
KERNEL_PLATFORM_CFLAGS := $(call KERNEL_LAYER_CFLAGS,$(KERNEL_ARCH) $(KERNEL_PLATFORM))
KERNEL_GLUE_CFLAGS := $(call KERNEL_LAYER_CFLAGS,$(KERNEL_ARCH) $(KERNEL_PLATFORM) $(KERNEL_GLUE))
KERNEL_ELF    := $(BUILD)/kernel.elf
KERNEL_BIN    := $(BUILD)/kernel.bin

# The debug kernel: the same sources with invariant checks at every kernel entry and exit
# (kernel/invariants.c); the tests boot it, the benchmarks the release kernel.
KDBG_OBJS     := $(patsubst %,$(BUILD)/kernel-debug/%.o,$(basename $(KERNEL_SRCS)))
KDBG_ELF      := $(BUILD)/kernel-debug.elf
KDBG_BIN      := $(BUILD)/kernel-debug.bin

# A release kernel with a 100 us tick, for the cache-partitioning benchmark only (its
# interrupter wakes every tick: docs/cache-partitioning.md); built on demand, not by `all`.
KT100_OBJS    := $(patsubst %,$(BUILD)/kernel-tick100/%.o,$(basename $(KERNEL_SRCS)))
KT100_ELF     := $(BUILD)/kernel-tick100.elf
KT100_BIN     := $(BUILD)/kernel-tick100.bin

all: $(KERNEL_BIN) $(KDBG_BIN)

# Structure offsets for assembly, generated from the C definitions.
ASM_OFFSETS := $(BUILD)/kernel/asm_offsets.h
$(ASM_OFFSETS): $(KERNEL_ARCH)/asm_offsets.c kernel/tcb.h kernel/space.h $(KERNEL_ARCH)/frame.h \
                $(KERNEL_ARCH)/api/arch.h
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$(CC) $(KERNEL_CFLAGS) -S $< -o $@.s
	@(echo "/* Generated from $<; do not edit. */"; \
	  sed -n 's/.*->\([A-Z_0-9]*\) \$$\{0,1\}\([-0-9]*\).*/#define \1 \2/p' $@.s) > $@

# The rules for one layer's C and assembly files: $(1) and $(2) as below, $(3) the layer's
# directory under kernel/, $(4) the variable with its flags.
define kernel_layer_rules
$$(BUILD)/$(1)kernel/$(3)/%.o: kernel/$(3)/%.c
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$<$(if $(1), ($(1:%/=%)))"
	@$$(CC) $$($(4)) $(2) -c $$< -o $$@

$$(BUILD)/$(1)kernel/$(3)/%.o: kernel/$(3)/%.S $$(ASM_OFFSETS)
	@mkdir -p $$(dir $$@)
	@echo "  AS      $$<$(if $(1), ($(1:%/=%)))"
	@$$(CC) $$($(4)) $(2) -D__ASSEMBLER__ -c $$< -o $$@
endef

# The two kernels are built alike: $(1) their objects' directory under $(BUILD), $(2) extra
# compiler flags, $(3) the objects, $(4) the ELF, $(5) the flat image that QEMU -kernel and
# GRUB load through the multiboot a.out kludge.
define kernel_image
$$(BUILD)/$(1)kernel/%.o: kernel/%.c
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$<$(if $(1), ($(1:%/=%)))"
	@$$(CC) $$(KERNEL_GENERIC_CFLAGS) $(2) -c $$< -o $$@

$(call kernel_layer_rules,$(1),$(2),arch,KERNEL_CFLAGS)
$(call kernel_layer_rules,$(1),$(2),platform,KERNEL_PLATFORM_CFLAGS)
$(call kernel_layer_rules,$(1),$(2),glue,KERNEL_GLUE_CFLAGS)

$(4): $(3) $$(KERNEL_ARCH)/kernel.ld
	@echo "  LD      $$@"
	@$$(LD) -nostdlib -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments \
	    -T $$(KERNEL_ARCH)/kernel.ld -o $$@ $(3)

$(5): $(4)
	@$$(OBJCOPY) -O binary --remove-section=.bss $$< $$@
endef

$(eval $(call kernel_image,,,$(KERNEL_OBJS),$(KERNEL_ELF),$(KERNEL_BIN)))
$(eval $(call kernel_image,kernel-debug/,-DCONFIG_INVARIANTS,$(KDBG_OBJS),$(KDBG_ELF),$(KDBG_BIN)))
$(eval $(call kernel_image,kernel-tick100/,-DCONFIG_TICK_US=100,$(KT100_OBJS),$(KT100_ELF),$(KT100_BIN)))
