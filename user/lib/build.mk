# user/lib/build.mk: libl4 (system-call wrappers, KIP/UTCB access, IPC helpers, sigma0
# client, kernel-debugger I/O, a small libc), crt0, and the user_program helper that every
# native program uses.  Included by the top-level Makefile (BUILD, CC, LD, FREESTANDING).

# All native L4 programs: freestanding, no SSE/x87 (FPU state stays out of measurements),
# no red zone (the system-call stubs push below RSP).
USER_CFLAGS := $(FREESTANDING) -Iinclude -Iuser/lib/include -mgeneral-regs-only -mcmodel=small
USER_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --build-id=none \
                -T user/lib/program.ld
USER_LIBGCC := $(shell $(CC) -print-libgcc-file-name)

LIBL4_SRC_DIR := user/lib
LIBL4_OBJ_DIR := $(BUILD)/user/lib
LIBL4_SOURCES := syscall.c init.c kip.c kdebug.c sigma0.c task.c serial.c \
                 printf.c stdio.c string.c strtol.c stdlib.c
LIBL4_OBJS    := $(addprefix $(LIBL4_OBJ_DIR)/,$(LIBL4_SOURCES:.c=.o))
LIBL4         := $(LIBL4_OBJ_DIR)/libl4.a
LIBL4_CRT0    := $(LIBL4_OBJ_DIR)/crt0.o

# The library itself must not have its copy/fill loops turned into calls to memcpy/memset.
LIBL4_CFLAGS := $(USER_CFLAGS) -fno-tree-loop-distribute-patterns

$(LIBL4_OBJS): $(LIBL4_OBJ_DIR)/%.o: $(LIBL4_SRC_DIR)/%.c
	@mkdir -p $(@D)
	@echo "  CC      $<"; $(CC) $(LIBL4_CFLAGS) -c $< -o $@

$(LIBL4_CRT0): $(LIBL4_SRC_DIR)/crt0.S
	@mkdir -p $(@D)
	@echo "  AS      $<"; $(CC) $(USER_CFLAGS) -c $< -o $@

$(LIBL4): $(LIBL4_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

.PHONY: libl4
libl4: $(LIBL4) $(LIBL4_CRT0)

# $(eval $(call user_program,NAME,SOURCES,LINK_BASE[,EXTRA_CFLAGS]))
#   Compiles SOURCES (.c or .S, paths relative to the repository root) into
#   $(BUILD)/<dir of source>/<name>.o (see user_obj) and links $(BUILD)/user/NAME.elf at virtual (and
#   physical) address LINK_BASE (hex) with crt0 first, then the objects, libl4.a and libgcc.
#   EXTRA_CFLAGS apply to this program's objects (an object shared by two programs is
#   compiled once, with the flags of the first program that names it).
#   Appends the ELF to USER_PROGRAMS.
USER_PROGRAMS ?=
USER_OBJ_CFLAGS :=

# Sources from outside user/ (the kernel's ELF parser in the root task) get their user-level
# objects under $(BUILD)/user/shared/: the kernel build has its own object of the same name.
user_obj = $(BUILD)/$(if $(filter user/%,$(1)),,user/shared/)$(basename $(1)).o

define user_object_rule
$(call user_obj,$(1)): $(1)
	@mkdir -p $$(@D)
	@echo "  CC      $$<"; $$(CC) $$(USER_CFLAGS) $$(USER_OBJ_CFLAGS) -c $$< -o $$@
$(if $(2),$(call user_obj,$(1)): USER_OBJ_CFLAGS := $(2))
endef

# One rule per object, however many programs name the source.
user_object = $(if $(USER_OBJ_DEFINED.$(1)),,$(eval USER_OBJ_DEFINED.$(1) := 1)$(eval $(call user_object_rule,$(1),$(2))))

define user_program
USER_PROGRAMS += $(BUILD)/user/$(1).elf
USER_PROGRAM_OBJS.$(1) := $(foreach s,$(2),$(call user_obj,$(s)))
$(foreach s,$(2),$(call user_object,$(s),$(4)))
$(BUILD)/user/$(1).elf: $(LIBL4_CRT0) $$(USER_PROGRAM_OBJS.$(1)) $(LIBL4) user/lib/program.ld
	@mkdir -p $$(@D)
	$$(LD) $$(USER_LDFLAGS) -Ttext-segment=$(3) -Map=$$@.map -o $$@ \
		$(LIBL4_CRT0) $$(USER_PROGRAM_OBJS.$(1)) $(LIBL4) $$(USER_LIBGCC)
endef
