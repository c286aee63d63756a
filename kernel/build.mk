# The kernel: generic code in kernel/, x86-64 code in kernel/arch/x86_64.
KERNEL_ARCH   := kernel/arch/x86_64
KERNEL_SRCS   := $(filter-out $(KERNEL_ARCH)/asm_offsets.c, \
                 $(wildcard kernel/*.c kernel/kdb/*.c $(KERNEL_ARCH)/*.c $(KERNEL_ARCH)/*.S))
KERNEL_OBJS   := $(patsubst %,$(BUILD)/%.o,$(basename $(KERNEL_SRCS)))
# Generic files (kernel/*.c, kernel/kdb/) see only the arch interface header and what it
# includes (api/: docs/architecture.md, "The arch interface"): an x86 header there does not
# build.  Arch files see the whole arch directory.
KERNEL_CFLAGS_COMMON := $(FREESTANDING) -mcmodel=kernel -mgeneral-regs-only -mno-sse -mno-mmx
KERNEL_GENERIC_CFLAGS := $(KERNEL_CFLAGS_COMMON) -Ikernel -I$(KERNEL_ARCH)/api -Iinclude \
                 $(KERNEL_EXTRA_CFLAGS)
KERNEL_CFLAGS := $(KERNEL_CFLAGS_COMMON) -Ikernel -I$(KERNEL_ARCH) -I$(KERNEL_ARCH)/api \
                 -Iinclude -I$(BUILD)/kernel $(KERNEL_EXTRA_CFLAGS)
KERNEL_ELF    := $(BUILD)/kernel.elf
KERNEL_BIN    := $(BUILD)/kernel.bin

# The debug kernel: the same sources with invariant checks at every kernel entry and exit
# (kernel/invariants.c); the tests boot it, the benchmarks the release kernel.
KDBG_OBJS     := $(patsubst %,$(BUILD)/kernel-debug/%.o,$(basename $(KERNEL_SRCS)))
KDBG_ELF      := $(BUILD)/kernel-debug.elf
KDBG_BIN      := $(BUILD)/kernel-debug.bin

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

# The two kernels are built alike: $(1) their objects' directory under $(BUILD), $(2) extra
# compiler flags, $(3) the objects, $(4) the ELF, $(5) the flat image that QEMU -kernel and
# GRUB load through the multiboot a.out kludge.
define kernel_image
$$(BUILD)/$(1)kernel/%.o: kernel/%.c
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$<$(if $(2), (debug))"
	@$$(CC) $$(KERNEL_GENERIC_CFLAGS) $(2) -c $$< -o $$@

$$(BUILD)/$(1)kernel/arch/%.o: kernel/arch/%.c
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$<$(if $(2), (debug))"
	@$$(CC) $$(KERNEL_CFLAGS) $(2) -c $$< -o $$@

$$(BUILD)/$(1)kernel/%.o: kernel/%.S $$(ASM_OFFSETS)
	@mkdir -p $$(dir $$@)
	@echo "  AS      $$<$(if $(2), (debug))"
	@$$(CC) $$(KERNEL_CFLAGS) $(2) -D__ASSEMBLER__ -c $$< -o $$@

$(4): $(3) $$(KERNEL_ARCH)/kernel.ld
	@echo "  LD      $$@"
	@$$(LD) -nostdlib -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments \
	    -T $$(KERNEL_ARCH)/kernel.ld -o $$@ $(3)

$(5): $(4)
	@$$(OBJCOPY) -O binary --remove-section=.bss $$< $$@
endef

$(eval $(call kernel_image,,,$(KERNEL_OBJS),$(KERNEL_ELF),$(KERNEL_BIN)))
$(eval $(call kernel_image,kernel-debug/,-DCONFIG_INVARIANTS,$(KDBG_OBJS),$(KDBG_ELF),$(KDBG_BIN)))
