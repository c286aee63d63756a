# The kernel: generic code in kernel/, x86-64 code in kernel/arch/x86_64.
KERNEL_ARCH   := kernel/arch/x86_64
KERNEL_SRCS   := $(wildcard kernel/*.c kernel/kdb/*.c $(KERNEL_ARCH)/*.c $(KERNEL_ARCH)/*.S)
KERNEL_OBJS   := $(patsubst %,$(BUILD)/%.o,$(basename $(KERNEL_SRCS)))
KERNEL_CFLAGS := $(FREESTANDING) -mcmodel=kernel -mgeneral-regs-only -mno-sse -mno-mmx \
                 -Ikernel -I$(KERNEL_ARCH) -Iinclude $(KERNEL_EXTRA_CFLAGS)
KERNEL_ELF    := $(BUILD)/kernel.elf
KERNEL_BIN    := $(BUILD)/kernel.bin

all: $(KERNEL_BIN)

$(BUILD)/kernel/%.o: kernel/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(BUILD)/kernel/%.o: kernel/%.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(KERNEL_CFLAGS) -D__ASSEMBLER__ -c $< -o $@

$(KERNEL_ELF): $(KERNEL_OBJS) $(KERNEL_ARCH)/kernel.ld
	@echo "  LD      $@"
	@$(LD) -nostdlib -z max-page-size=4096 -z noexecstack --no-warn-rwx-segments \
	    -T $(KERNEL_ARCH)/kernel.ld -o $@ $(KERNEL_OBJS)

# The flat image QEMU -kernel and GRUB load through the multiboot a.out kludge.
$(KERNEL_BIN): $(KERNEL_ELF)
	@$(OBJCOPY) -O binary --remove-section=.bss $< $@
