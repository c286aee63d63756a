/* In-system test: faults and exceptions of user threads stop only those threads (issue 2),
 * and reach an exception handler as IPC when there is one (contract §6.2). */
#include "testlib.h"
#include "testutil.h"
#include <string.h>

static void divide_by_zero(void)
{
    __asm__ volatile("xor %%ecx, %%ecx; mov $1, %%eax; xor %%edx, %%edx; div %%ecx"
                     ::: "rax", "rcx", "rdx");
    tu_report(1, 0);                    /* not reached */
}

static void no_pager_fault(void)
{
    l4_set_pager(0);
    (void)*(volatile char *)0x40000000;
}

static void jump_to_kernel(void)
{
    ((void (*)(void))0xFFFFFFFF80100000ul)();
}

static void privileged_instruction(void)
{
    __asm__ volatile("cli; hlt");
}

static void software_interrupt(void)
{
    __asm__ volatile("int $0x80");
}

static void write_kip(void)
{
    volatile l4_word_t *kip = l4_kip();
    kip[0] = 0;
}

/* A child in a fresh space that faults without a handler is halted; the kernel reports it. */
static void expect_halted(void (*fn)(void))
{
    l4_word_t t = tu_space_thread(fn, 100);
    CHECK(t != 0);
    CHECK_EQ(tu_wait_quiet(), 0);
    CHECK_EQ(tu_state(t), L4_SCHEDULE_INACTIVE);    /* halted */
    tu_kill(t);
}

TEST(divide_error_halts_thread)      { expect_halted(divide_by_zero); }
TEST(page_fault_without_pager_halts) { expect_halted(no_pager_fault); }
TEST(jump_into_kernel_halts)         { expect_halted(jump_to_kernel); }
TEST(privileged_instruction_halts)   { expect_halted(privileged_instruction); }
TEST(software_interrupt_halts)       { expect_halted(software_interrupt); }

TEST(kip_is_read_only)
{
    l4_word_t t = tu_space_thread(write_kip, 100);
    unsigned unanswered = tu_wait_quiet();
    CHECK_EQ(unanswered, 1);
    CHECK_EQ(tu_last_fault_from, t);
    CHECK_EQ(tu_last_fault_addr, 0xBFF00000);
    CHECK_EQ((tu_last_fault_tag >> 16) & 7, L4_W);
    tu_kill(t);
}

/* Exceptions with a handler: the handler gets the registers and may change them. */
static volatile l4_word_t handler_result;

static void faults_with_handler(void)
{
    l4_set_exception_handler(tu_main_tid());
    l4_word_t rax;
    /* ud2 with RAX = 42: the handler skips the instruction and adds 1000 to RAX. */
    __asm__ volatile("mov $42, %%rax; ud2; mov %%rax, %0" : "=r"(rax) :: "rax", "memory");
    tu_report(7, rax);
}

TEST(exception_ipc_round_trip)
{
    l4_word_t t = tu_space_thread(faults_with_handler, 100);
    l4_word_t from, tag = tu_serve(&from);
    CHECK_EQ(from, t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION), "tag %lx", tag);
    CHECK_EQ(l4_tag_u(tag), L4_EXC_WORDS);
    CHECK_EQ(l4_mr(L4_EXC_VECTOR), 6);  /* #UD */
    CHECK_EQ(l4_mr(L4_EXC_RAX), 42);
    uint8_t insn[2];
    memcpy(insn, (void *)l4_mr(L4_EXC_RIP), 2);
    CHECK(insn[0] == 0x0F && insn[1] == 0x0B, "MR1 is the address of the ud2");
    /* Reply: RIP past the ud2, RAX + 1000 (MR1..MR8). */
    l4_word_t rip = l4_mr(L4_EXC_RIP) + 2, rax = l4_mr(L4_EXC_RAX) + 1000;
    for (int i = L4_EXC_RIP + 1; i < L4_EXC_RAX; i++)
        l4_set_mr(i, l4_mr(i));
    l4_set_mr(0, l4_tag_make(0, L4_EXC_RAX, 0));
    l4_set_mr(L4_EXC_RIP, rip);
    l4_set_mr(L4_EXC_RAX, rax);
    tag = tu_serve_continue(l4_reply_wait(from, &from), &from);
    CHECK(!l4_ipc_failed(tag));
    CHECK_EQ(l4_tag_label(tag), 7);
    CHECK_EQ(l4_mr(1), 1042);
    tu_kill(t);
}

static void syscall_outside_stub(void)
{
    l4_set_exception_handler(tu_main_tid());
    __asm__ volatile("syscall" ::: "rcx", "r11", "memory");
}

TEST(syscall_outside_stubs_is_an_exception)
{
    l4_word_t t = tu_space_thread(syscall_outside_stub, 100);
    l4_word_t from, tag = tu_serve(&from);
    CHECK_EQ(from, t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION));
    CHECK_EQ(l4_mr(L4_EXC_VECTOR), 6);
    tu_kill(t);
}

static void plain_int3(void)
{
    l4_set_exception_handler(tu_main_tid());
    __asm__ volatile("int3; nop");
}

TEST(plain_int3_is_an_exception)
{
    l4_word_t t = tu_space_thread(plain_int3, 100);
    l4_word_t from, tag = tu_serve(&from);
    CHECK_EQ(from, t);
    CHECK(l4_tag_is_proto(tag, L4_PROTO_EXCEPTION));
    CHECK_EQ(l4_mr(L4_EXC_VECTOR), 3);
    tu_kill(t);
}

static void well_behaved(void)
{
    tu_report(9, 1234);
}

TEST(system_still_works_afterwards)
{
    l4_word_t t = tu_space_thread(well_behaved, 100);
    l4_word_t from, tag = tu_serve(&from);
    CHECK_EQ(from, t);
    CHECK_EQ(l4_tag_label(tag), 9);
    CHECK_EQ(l4_mr(1), 1234);
    tu_kill(t);
}

int main(void)
{
    tests_run("faults");
}
