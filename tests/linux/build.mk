# tests/linux/build.mk: the Linux comparison corpus (docs/linux/compare.md).  Included by
# tools/build.mk.  Linux programs, never run on the host:
#
#   $(BUILD)/linux/corpus/run              the runner (musl, static)
#   $(BUILD)/linux/corpus/musl/<prog>      tests/linux/progs/<prog>.c, musl-gcc -static
#   $(BUILD)/linux/corpus/glibc/<prog>     the same, gcc -static (glibc)
#
# mkinitramfs.py --corpus puts them, the scripts (tests/linux/scripts/*.sh) and the data
# (tests/linux/data/) under /test/corpus/ with the case list /test/corpus/cases.

CORPUS_SRC    := tests/linux
CORPUS_OUT    := $(BUILD)/linux/corpus
CORPUS_NAMES  := $(basename $(notdir $(wildcard $(CORPUS_SRC)/progs/*.c)))
# -s: no symbol tables (the archive is a boot module that must fit a 128 MiB guest)
CORPUS_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -MMD -MP -s
CORPUS_BINS   := $(CORPUS_OUT)/run \
                 $(foreach v,musl glibc,$(addprefix $(CORPUS_OUT)/$(v)/,$(CORPUS_NAMES)))

.PHONY: linux-corpus linux-compare
linux-corpus: $(CORPUS_BINS)

$(CORPUS_OUT)/run: $(CORPUS_SRC)/run.c $(CORPUS_SRC)/build.mk
	@mkdir -p $(dir $@)
	@command -v $(MUSL_GCC) >/dev/null || { echo "$(MUSL_GCC) not found: install Debian's musl-tools (make deps)" >&2; exit 1; }
	@echo "  CC      $@"
	@$(MUSL_GCC) $(CORPUS_CFLAGS) -static -o $@ $<

$(CORPUS_OUT)/musl/%: $(CORPUS_SRC)/progs/%.c $(CORPUS_SRC)/build.mk
	@mkdir -p $(dir $@)
	@command -v $(MUSL_GCC) >/dev/null || { echo "$(MUSL_GCC) not found: install Debian's musl-tools (make deps)" >&2; exit 1; }
	@echo "  CC      $@"
	@$(MUSL_GCC) $(CORPUS_CFLAGS) -static -o $@ $<

$(CORPUS_OUT)/glibc/%: $(CORPUS_SRC)/progs/%.c $(CORPUS_SRC)/build.mk
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(CORPUS_CFLAGS) -static -o $@ $<
