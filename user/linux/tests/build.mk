# user/linux/tests/build.mk: the Linux test programs of the lx personality.  Included by
# tools/build.mk.  These are Linux programs, not L4 programs: built with the host's Linux
# toolchains, static, once per C library, into $(BUILD)/linux/tests/<variant>/<program>:
#
#   glibc       gcc -static            (static glibc from libc6-dev)
#   glibc-pie   gcc -static-pie        (static-PIE: lx must relocate nothing, the program does)
#   musl        musl-gcc -static       (Debian's musl-tools)
#
# mkinitramfs.py puts them under /test/<variant>/ in the initramfs.  Never run on the host.

LINUX_TEST_DIR   := user/linux/tests
LINUX_TEST_NAMES := $(basename $(notdir $(wildcard $(LINUX_TEST_DIR)/*.c)))
LINUX_TEST_OUT   := $(BUILD)/linux/tests
LINUX_TEST_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -MMD -MP
MUSL_GCC         ?= musl-gcc

LINUX_TESTS := $(foreach v,glibc glibc-pie musl,$(addprefix $(LINUX_TEST_OUT)/$(v)/,$(LINUX_TEST_NAMES)))

.PHONY: linux-tests
linux-tests: $(LINUX_TESTS)

$(LINUX_TEST_OUT)/glibc/%: $(LINUX_TEST_DIR)/%.c $(LINUX_TEST_DIR)/build.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(LINUX_TEST_CFLAGS) -static -o $@ $<

$(LINUX_TEST_OUT)/glibc-pie/%: $(LINUX_TEST_DIR)/%.c $(LINUX_TEST_DIR)/build.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(LINUX_TEST_CFLAGS) -fPIE -static-pie -o $@ $<

$(LINUX_TEST_OUT)/musl/%: $(LINUX_TEST_DIR)/%.c $(LINUX_TEST_DIR)/build.mk
	@mkdir -p $(dir $@)
	@command -v $(MUSL_GCC) >/dev/null || { echo "$(MUSL_GCC) not found: install Debian's musl-tools (make deps)" >&2; exit 1; }
	@echo "  CC      $@"
	@$(MUSL_GCC) $(LINUX_TEST_CFLAGS) -static -o $@ $<
