/* In-system test: the foreign system-call ABI (docs/linux-abi.md).  A thread in a space with
 * the ABI switched on executes Linux-style `syscall` instructions; each becomes a message to
 * its pager (us), and our reply sets its registers. */
#include "testlib.h"
#include "testutil.h"
#include <l4/pecan.h>

/* What the foreign thread saw, written to shared memory (our image is mapped into it). */
static volatile l4_word_t seen_rax, seen_rcx, seen_r11, seen_rip, seen_fs, seen_step;
static volatile l4_word_t tls_word = 0x7153;

static inline l4_word_t linux_syscall(l4_word_t nr, l4_word_t a1, l4_word_t a2, l4_word_t a3,
                                      l4_word_t a4, l4_word_t a5, l4_word_t a6,
                                      l4_word_t *rcx, l4_word_t *r11)
{
    register l4_word_t r10 __asm__("r10") = a4;
    register l4_word_t r8 __asm__("r8") = a5;
    register l4_word_t r9 __asm__("r9") = a6;
    l4_word_t ret, c, f;
    __asm__ volatile("syscall\n\tmovq %%rcx, %1\n\tmovq %%r11, %2"
                     : "=a"(ret), "=r"(c), "=r"(f)
                     : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    *rcx = c;
    *r11 = f;
    return ret;
}

static void sleeper_fn(void)
{
    l4_sleep_forever();
}

static void after_jump(void)
{
    seen_step = 100;
    l4_word_t c, f;
    linux_syscall(60, 0, 0, 0, 0, 0, 0, &c, &f);
    for (;;)
        ;
}

static void foreign_thread(void)
{
    l4_word_t c, f;
    /* 1: a plain call, answered with RAX only. */
    seen_rax = linux_syscall(39, 11, 22, 33, 44, 55, 66, &c, &f);
    seen_rcx = c;
    seen_r11 = f;
    seen_step = 1;
    /* 2: our pager sets the FS base: %fs:0 then reads tls_word. */
    linux_syscall(158, 0x1002, (l4_word_t)&tls_word, 0, 0, 0, 0, &c, &f);
    l4_word_t v;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
    seen_fs = v;
    seen_step = 2;
    /* 3: a reply without words: RAX still holds the number. */
    seen_rax = linux_syscall(1234, 0, 0, 0, 0, 0, 0, &c, &f);
    seen_step = 3;
    /* 4: an exception without an exception handler goes to the pager. */
    __asm__ volatile("ud2");
    seen_step = 4;
    /* 5: the reply moves RIP. */
    linux_syscall(57, 0, 0, 0, 0, 0, 0, &c, &f);
    seen_step = 5;                          /* never: the reply jumps to after_jump */
    for (;;)
        ;
}

static l4_word_t start_foreign(void)
{
    l4_word_t t = tu_space_thread(foreign_thread, 100), old;
    if (!t)
        return 0;
    /* The thread has run only its image-premapping call to us so far: it now waits for the
     * start of its function, which tu_space_thread gave it; switch the ABI on meanwhile. */
    if (!l4_space_control(t, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0, &old))
        return 0;
    return t;
}

/* Receive the next message from t, serving its page faults. */
static l4_word_t next_from(l4_word_t t)
{
    l4_word_t from, tag = tu_serve(&from);
    return from == t ? tag : 0;
}

TEST(foreign_system_calls)
{
    l4_word_t t = start_foreign(), old;
    CHECK(t != 0);
    CHECK(l4_space_control(t, 0, 0, 0, 0, &old));
    CHECK_EQ(old, L4_SPACE_CTL_FOREIGN);

    /* 1 */
    l4_word_t tag = next_from(t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_tag_u(tag), L4_FSC_WORDS);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 39);
    CHECK_EQ(l4_mr(L4_FSC_RDI), 11); CHECK_EQ(l4_mr(L4_FSC_RSI), 22);
    CHECK_EQ(l4_mr(L4_FSC_RDX), 33); CHECK_EQ(l4_mr(L4_FSC_R10), 44);
    CHECK_EQ(l4_mr(L4_FSC_R8), 55);  CHECK_EQ(l4_mr(L4_FSC_R9), 66);
    l4_word_t rip = l4_mr(L4_FSC_RIP), rflags = l4_mr(L4_FSC_RFLAGS);
    CHECK(rip > (l4_word_t)foreign_thread && rip < (l4_word_t)foreign_thread + 4096);
    l4_set_mr(0, l4_tag_make(0, 1, 0));
    l4_set_mr(1, 4242);
    /* 2 */
    tag = l4_reply_wait(t, NULL);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(seen_step, 1);
    CHECK_EQ(seen_rax, 4242);
    CHECK_EQ(seen_rcx, rip);                /* as Linux: RCX = RIP, R11 = RFLAGS */
    CHECK_EQ(seen_r11, rflags);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 158);
    CHECK_EQ(l4_mr(L4_FSC_FS_BASE), 0);
    l4_word_t regs[L4_FSC_WORDS + 1];
    for (unsigned i = 1; i <= L4_FSC_WORDS; i++)
        regs[i] = l4_mr(i);
    regs[L4_FSC_RAX] = 0;
    regs[L4_FSC_FS_BASE] = regs[L4_FSC_RSI];    /* arch_prctl(ARCH_SET_FS, &tls_word) */
    l4_set_mr(0, l4_tag_make(0, L4_FSC_WORDS, 0));
    for (unsigned i = 1; i <= L4_FSC_WORDS; i++)
        l4_set_mr(i, regs[i]);
    /* 3 */
    tag = l4_reply_wait(t, NULL);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(seen_step, 2);
    CHECK_EQ(seen_fs, 0x7153);
    CHECK_EQ(l4_mr(L4_FSC_FS_BASE), (l4_word_t)&tls_word);   /* reported back */
    l4_set_mr(0, l4_tag_make(0, 0, 0));
    /* 4 */
    tag = l4_reply_wait(t, NULL);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION), "tag %lx", tag);
    CHECK_EQ(seen_step, 3);
    CHECK_EQ(seen_rax, 1234);
    CHECK_EQ(l4_mr(19), 6);                 /* #UD */
    /* Resume after the two-byte ud2: a reply with MR1 = RIP only. */
    l4_word_t ud_rip = l4_mr(1);
    l4_set_mr(0, l4_tag_make(0, 1, 0));
    l4_set_mr(1, ud_rip + 2);
    /* 5 */
    tag = l4_reply_wait(t, NULL);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(seen_step, 4);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 57);
    l4_set_mr(0, l4_tag_make(0, L4_FSC_RIP, 0));
    for (unsigned i = 1; i < L4_FSC_RIP; i++)
        l4_set_mr(i, l4_mr(i));
    l4_set_mr(L4_FSC_RIP, (l4_word_t)after_jump);
    tag = l4_reply_wait(t, NULL);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_FOREIGN_SYSCALL), "tag %lx", tag);
    CHECK_EQ(l4_mr(L4_FSC_RAX), 60);
    CHECK_EQ(seen_step, 100);
    tu_kill(t);
}

TEST(space_control_word_needs_apply_bit)
{
    l4_word_t t = tu_space_thread(sleeper_fn, 100), old;
    CHECK(t != 0);
    /* 0 (what X.2 programs pass) and bits without bit 63 change nothing. */
    CHECK(l4_space_control(t, L4_SPACE_CTL_FOREIGN, 0, 0, 0, &old));
    CHECK_EQ(old, 0);
    CHECK(l4_space_control(t, 0, 0, 0, 0, &old));
    CHECK_EQ(old, 0);
    CHECK(l4_space_control(t, L4_SPACE_CTL_APPLY | L4_SPACE_CTL_FOREIGN, 0, 0, 0, &old));
    CHECK(l4_space_control(t, L4_SPACE_CTL_APPLY, 0, 0, 0, &old));
    CHECK_EQ(old, L4_SPACE_CTL_FOREIGN);
    CHECK(l4_space_control(t, 0, 0, 0, 0, &old));
    CHECK_EQ(old, 0);
    tu_kill(t);
}

int main(void)
{
    tests_run("foreign");
}
