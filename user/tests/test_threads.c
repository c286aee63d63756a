/* In-system test: thread and space management and scheduling system calls (contract §4.4):
 * ThreadControl, SpaceControl, ExchangeRegisters, Schedule, ThreadSwitch, ProcessorControl,
 * MemoryControl — their effects and their error codes. */
#include "testlib.h"
#include "testutil.h"
#include <string.h>

#define UTCB(i) (0xBF000000ul + (i) * 1024)

static volatile l4_word_t counter[4];
static volatile l4_word_t result[8];

static void spin0(void) { for (;;) counter[0]++; }
static void spin1(void) { for (;;) counter[1]++; }
static void sleeper(void) { l4_sleep_forever(); }

/* --- privilege ---------------------------------------------------------------------------- */

static void unprivileged_calls(void)
{
    l4_word_t me = l4_my_global_id(), old;
    result[0] = l4_thread_control(l4_global_id(l4_thread_no(me) + 100, 1), me, me, me, ~0ul);
    result[1] = l4_error_code();
    result[2] = l4_space_control(me, 0, 0, 0, 0, &old);
    result[3] = l4_error_code();
    result[4] = l4_processor_control(0, ~0ul, ~0ul, ~0ul);
    result[5] = l4_error_code();
    l4_set_mr(0, 0);
    result[6] = l4_memory_control(0, 0, 0, 0, 0);
    result[7] = l4_error_code();
    tu_report(1, 0);
    l4_sleep_forever();
}

TEST(privileged_calls_refused_elsewhere)
{
    l4_word_t t = tu_space_thread(unprivileged_calls, 100);
    l4_word_t from;
    tu_serve(&from);
    for (int i = 0; i < 8; i += 2) {
        CHECK_EQ(result[i], 0);
        CHECK_EQ(result[i + 1], L4_ERR_NO_PRIVILEGE);
    }
    tu_kill(t);
}

/* --- ThreadControl -------------------------------------------------------------------------- */

TEST(thread_control_errors)
{
    l4_word_t me = l4_my_global_id();
    l4_word_t t = tu_new_tid();
    /* dest must be a global id */
    CHECK_EQ(l4_thread_control(l4_my_local_id(), me, me, me, UTCB(100)), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    /* system threads cannot be touched */
    CHECK_EQ(l4_thread_control(l4_global_id(l4_kip_system_base() + 1, 1), me, me, me, UTCB(100)), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    /* create: scheduler nil -> invalid scheduler (the Manual's code) */
    CHECK_EQ(l4_thread_control(t, me, 0, me, UTCB(100)), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SCHED);
    /* create: space specifier names nobody */
    CHECK_EQ(l4_thread_control(t, l4_global_id(l4_kip_user_base() + 9000, 3), me, me, UTCB(100)), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SPACE);
    /* create active: UTCB outside the area, misaligned */
    CHECK_EQ(l4_thread_control(t, me, me, me, 0x10000000), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    CHECK_EQ(l4_thread_control(t, me, me, me, UTCB(100) + 8), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    /* create active on the UTCB of an active thread (ours): refused, ours stays intact */
    l4_word_t my_utcb = (l4_word_t)l4_utcb() - 0x200;
    CHECK_EQ(l4_thread_control(t, me, me, me, my_utcb), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    CHECK_EQ(l4_my_global_id(), me);
    /* create active in the new space of the same call: not initialised */
    CHECK_EQ(l4_thread_control(t, t, me, me, UTCB(0)), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SPACE);
    /* none of these created anything */
    l4_set_mr(0, 0);
    CHECK(l4_ipc_failed(l4_send_timeout(t, L4_ZERO_TIME)) && l4_ipc_last_error() == L4_IPC_NOPARTNER);
    /* a thread cannot delete itself; deleting nobody succeeds */
    CHECK_EQ(l4_thread_control(me, 0, 0, 0, ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_thread_control(t, 0, 0, 0, ~0ul), 1);
}

TEST(inactive_thread_then_activated)
{
    l4_word_t me = l4_my_global_id(), t = tu_new_tid();
    CHECK_EQ(l4_thread_control(t, me, me, 0, UTCB(101)), 1);    /* inactive: no pager */
    CHECK_EQ(tu_state(t), 1);                                   /* dead (not activated) */
    /* ExchangeRegisters does not work on it yet */
    CHECK_EQ(l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, NULL), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_thread_control(t, me, 0, me, ~0ul), 1);         /* activate: pager */
    CHECK_EQ(tu_state(t), 6);                                   /* waiting for its start */
    CHECK_EQ(l4_global_id_of(l4_local_id_of(t)), t);
    tu_start(t, spin0);
    counter[0] = 0;
    l4_thread_switch(t);                                        /* let it run a little */
    tu_kill(t);
}

TEST(version_change_renames_thread)
{
    l4_word_t me = l4_my_global_id();
    l4_word_t t = tu_thread(sleeper, 100);
    l4_word_t t2 = l4_global_id(l4_thread_no(t), 77);
    CHECK_EQ(l4_thread_control(t2, me, 0, 0, ~0ul), 1);         /* modify: new version */
    l4_set_mr(0, 0);
    CHECK(l4_ipc_failed(l4_send_timeout(t, L4_ZERO_TIME)));
    CHECK_EQ(l4_ipc_last_error(), L4_IPC_NOPARTNER);
    CHECK_EQ(l4_global_id_of(l4_local_id_of(t2)), t2);          /* MyGlobalId updated */
    tu_kill(t2);
}

TEST(pager_change_of_active_thread)
{
    l4_word_t me = l4_my_global_id();
    l4_word_t t = tu_thread(sleeper, 100);
    l4_word_t other = l4_sigma0_tid();
    CHECK_EQ(l4_thread_control(t, me, 0, other, ~0ul), 1);
    struct l4_exregs old;
    l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.pager, other);
    tu_kill(t);
}

/* --- SpaceControl ------------------------------------------------------------------------------ */

TEST(space_control_errors_and_results)
{
    l4_word_t me = l4_my_global_id(), t = tu_new_tid(), old = 1;
    CHECK_EQ(l4_thread_control(t, t, me, 0, ~0ul), 1);          /* new, uninitialised space */
    /* the UTCB area must hold at least one page */
    CHECK_EQ(l4_space_control(t, 0, l4_fpage_log2(0xBFF00000, 12), l4_fpage_log2(0xBF000000, 10), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    /* the KIP area may not overlap the UTCB area, nor lie outside the user area */
    CHECK_EQ(l4_space_control(t, 0, l4_fpage_log2(0xBF000000, 12), l4_fpage_log2(0xBF000000, 14), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_KIP_AREA);
    CHECK_EQ(l4_space_control(t, 0, l4_fpage_log2(0xFFFF900000000000ul, 12), l4_fpage_log2(0xBF000000, 14), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_KIP_AREA);
    CHECK_EQ(l4_space_control(t, 0, 0, l4_fpage_log2(0xBF000000, 14), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_KIP_AREA);
    /* no such space */
    CHECK_EQ(l4_space_control(l4_global_id(l4_kip_user_base() + 9001, 1), 0,
                              l4_fpage_log2(0xBFF00000, 12), l4_fpage_log2(0xBF000000, 12), 0, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_SPACE);
    /* success, old control 0; a second call keeps the areas */
    CHECK_EQ(l4_space_control(t, 0, l4_fpage_log2(0x10000000, 12), l4_fpage_log2(0x20000000, 14), 0, &old), 1);
    CHECK_EQ(old, 0);
    CHECK_EQ(l4_space_control(t, 0, l4_fpage_log2(0x30000000, 12), l4_fpage_log2(0x40000000, 14), 0, &old), 1);
    /* a thread can now be activated with a UTCB in the first area, not the second */
    CHECK_EQ(l4_thread_control(t, t, 0, me, 0x40000000), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_UTCB_AREA);
    CHECK_EQ(l4_thread_control(t, t, 0, me, 0x20000400), 1);
    tu_kill(t);
}

/* --- ExchangeRegisters ------------------------------------------------------------------------- */

static void report_sp_loop(void)
{
    l4_word_t sp;
    __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
    result[0] = sp;
    result[1] = l4_user_handle();
    for (;;)
        counter[2]++;
}

TEST(exchange_registers_reads_and_sets)
{
    l4_word_t t = tu_thread_create(100);
    CHECK(t != 0);
    static uint8_t stack[4096] __attribute__((aligned(16)));
    memset(stack, 0, sizeof(stack));
    struct l4_exregs old;
    /* Start it by ExchangeRegisters (R aborts the start wait), with SP, IP, FLAGS, handle. */
    l4_word_t ctl = L4_EXREGS_ABORT_RECV | L4_EXREGS_ABORT_SEND | L4_EXREGS_SET_SP | L4_EXREGS_SET_IP |
                    L4_EXREGS_SET_FLAGS | L4_EXREGS_SET_HANDLE | L4_EXREGS_SET_HALT;
    l4_word_t r = l4_exchange_registers(t, ctl, (l4_word_t)&stack[4096 - 8], (l4_word_t)report_sp_loop,
                                        0x8D5 | 0x3000, 0x1234, 0, &old);
    CHECK_EQ(r, l4_local_id_of(t));                  /* global given: local returned */
    CHECK_EQ(old.control & 2, 2);                    /* it was waiting (receive phase) */
    counter[2] = 0;
    while (counter[2] == 0)
        l4_thread_switch(t);
    CHECK_EQ(result[0], (l4_word_t)&stack[4096 - 8]);
    CHECK_EQ(result[1], 0x1234);
    /* Read back: flags keep IOPL 0 (only the user-modifiable bits were taken). */
    r = l4_exchange_registers(l4_local_id_of(t), 0, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(r, t);                                  /* local given: global returned */
    CHECK_EQ(old.flags & 0x3000, 0);
    CHECK_EQ(old.flags & 0x200, 0x200);
    CHECK_EQ(old.handle, 0x1234);
    CHECK_EQ(old.pager, l4_my_global_id());
    CHECK(old.ip >= (l4_word_t)report_sp_loop && old.ip < (l4_word_t)report_sp_loop + 64);
    tu_kill(t);
}

/* Issue 7: ExchangeRegisters on a thread that has received its start message but not run
 * yet.  Before the fix the start message's IP/SP overwrote what ExchangeRegisters set. */
static uint8_t settle_stack[4096] __attribute__((aligned(16)));
static void started_by_message(void) { result[3] = 0xBAD; l4_sleep_forever(); }
static void started_by_exregs(void)
{
    l4_word_t sp;
    __asm__ volatile("movq %%rsp, %0" : "=r"(sp));
    result[4] = sp;
    counter[3] = 1;
    l4_sleep_forever();
}

TEST(exchange_registers_after_start_message)
{
    result[3] = result[4] = 0;
    counter[3] = 0;
    l4_word_t t = tu_thread_create(10);             /* below us: it cannot run yet */
    CHECK(t != 0);
    tu_start(t, started_by_message);                /* received, not run */
    struct l4_exregs old;
    l4_word_t sp = (l4_word_t)&settle_stack[4096 - 8];
    l4_word_t r = l4_exchange_registers(t, L4_EXREGS_SET_SP | L4_EXREGS_SET_IP, sp,
                                        (l4_word_t)started_by_exregs, 0, 0, 0, &old);
    CHECK_EQ(r, l4_local_id_of(t));
    CHECK_EQ(old.ip, (l4_word_t)started_by_message);    /* the state it would have started in */
    CHECK_EQ(old.control & 6, 0);                       /* no longer in an IPC */
    for (unsigned i = 0; i < 1000 && counter[3] == 0; i++)
        l4_thread_switch(t);
    CHECK_EQ(counter[3], 1);                            /* it ran at the IP we set ... */
    CHECK_EQ(result[4], sp);                            /* ... on the stack we set */
    CHECK_EQ(result[3], 0);                             /* and never at the message's */
    tu_kill(t);
}

static void in_other_space(void) { l4_sleep_forever(); }

TEST(exchange_registers_errors)
{
    CHECK_EQ(l4_exchange_registers(0, 0, 0, 0, 0, 0, 0, NULL), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    l4_word_t t = tu_space_thread(in_other_space, 100);
    CHECK_EQ(l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, NULL), 0);     /* not our space */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_exchange_registers(l4_global_id(l4_kip_user_base() + 9002, 1), 0, 0, 0, 0, 0, 0, NULL), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    tu_kill(t);
}

TEST(halt_and_resume)
{
    l4_word_t t = tu_thread(spin1, 50);          /* runs whenever we block */
    counter[1] = 0;
    for (unsigned i = 0; i < 10 && counter[1] == 0; i++)
        l4_thread_switch(t);                     /* our slice, until it has counted */
    CHECK(counter[1] > 0);
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_HALT | L4_EXREGS_SET_HALT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 1, 0);
    tu_wait_blocked();                           /* it reaches user mode and stops there */
    l4_word_t c = counter[1];
    l4_sleep_us(5000);                           /* the CPU is free, and it still does not run */
    CHECK_EQ(counter[1], c);
    CHECK_EQ(tu_state(t), 2);
    l4_exchange_registers(t, 0, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 1, 1);                /* reported halted */
    l4_exchange_registers(t, L4_EXREGS_SET_HALT, 0, 0, 0, 0, 0, &old);     /* resume */
    for (unsigned i = 0; i < 10 && counter[1] == c; i++)
        l4_thread_switch(t);
    CHECK(counter[1] != c);
    tu_kill(t);
}

static void blocked_then_counts(void)
{
    l4_receive(tu_main_tid());
    for (;;)
        counter[3]++;
}

TEST(halt_while_in_ipc_takes_effect_after)
{
    l4_word_t t = tu_thread(blocked_then_counts, 50);
    tu_wait_blocked();
    struct l4_exregs old;
    l4_exchange_registers(t, L4_EXREGS_HALT | L4_EXREGS_SET_HALT, 0, 0, 0, 0, 0, &old);
    CHECK_EQ(old.control & 2, 2);                /* in a receive phase */
    CHECK_EQ(tu_state(t), 2);                    /* halt pending counts as halted */
    counter[3] = 0;
    l4_set_mr(0, 0);
    CHECK(!l4_ipc_failed(l4_send(t)));           /* its IPC completes ... */
    l4_sleep_us(3000);                           /* the CPU is free ... */
    CHECK_EQ(counter[3], 0);                     /* ... but it does not run */
    l4_exchange_registers(t, L4_EXREGS_SET_HALT, 0, 0, 0, 0, 0, &old);
    for (unsigned i = 0; i < 10 && counter[3] == 0; i++)
        l4_thread_switch(t);
    CHECK(counter[3] > 0);
    tu_kill(t);
}

/* --- Schedule, ThreadSwitch ----------------------------------------------------------------- */

TEST(schedule_results_and_errors)
{
    l4_word_t t = tu_thread(sleeper, 100), old = 0;
    tu_wait_blocked();
    CHECK_EQ(l4_schedule(t, ~0ul, ~0ul, 120, ~0ul, &old), 6);        /* waiting */
    /* old time control: a 10 ms slice, no total quantum */
    uint16_t slice = (uint16_t)(old >> 16);
    CHECK(l4_period_us(slice) >= 9000 && l4_period_us(slice) <= 10000, "slice %x", slice);
    CHECK_EQ((uint16_t)old, L4_NEVER);
    CHECK_EQ(l4_schedule(0, ~0ul, ~0ul, ~0ul, ~0ul, &old), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_THREAD);
    CHECK_EQ(l4_schedule(t, 0x8000 | (0x8000u << 16), ~0ul, ~0ul, ~0ul, &old), 0);   /* points */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    CHECK_EQ(l4_schedule(t, ~0ul, 1, ~0ul, ~0ul, &old), 0);                          /* CPU 1 */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    /* a new slice length shows up as the remaining slice */
    CHECK(l4_schedule(t, (l4_word_t)l4_period_from_us(2000) << 16 | 0xFFFF, ~0ul, ~0ul, ~0ul, &old));
    CHECK(l4_schedule(t, ~0ul, ~0ul, ~0ul, ~0ul, &old));
    CHECK_EQ(l4_period_us((uint16_t)(old >> 16)), 2000);
    CHECK_EQ(tu_state(l4_global_id(l4_kip_user_base() + 9003, 1)), 0);
    tu_kill(t);
}

static void mark_and_sleep(void)
{
    counter[0] = 1;
    l4_sleep_forever();
}

TEST(higher_priority_runs_first)
{
    /* A thread made ready at a higher priority than ours runs before we continue. */
    counter[0] = 0;
    l4_word_t t = tu_thread_create(254);
    l4_set_priority(l4_my_global_id(), 200);
    tu_start(t, mark_and_sleep);             /* it preempts us right away ... */
    l4_word_t seen = counter[0];             /* ... so this is already set */
    l4_set_priority(l4_my_global_id(), 255);
    CHECK_EQ(seen, 1);
    /* The other way round: a lower-priority thread waits until we block. */
    counter[0] = 0;
    l4_word_t u = tu_thread_create(100);
    tu_start(u, mark_and_sleep);
    CHECK_EQ(counter[0], 0);
    tu_wait_blocked();
    CHECK_EQ(counter[0], 1);
    tu_kill(t);
    tu_kill(u);
}

TEST(round_robin_within_a_priority)
{
    counter[0] = counter[1] = 0;
    l4_word_t a = tu_thread(spin0, 60), b = tu_thread(spin1, 60);
    l4_sleep_us(60000);                      /* several 10 ms slices */
    CHECK(counter[0] > 0 && counter[1] > 0, "a %lu b %lu", counter[0], counter[1]);
    tu_kill(a);
    tu_kill(b);
}

TEST(thread_switch_donates)
{
    counter[0] = 0;
    l4_word_t t = tu_thread(spin0, 10);     /* lower than us: runs only if we give it time */
    l4_thread_switch(t);
    CHECK(counter[0] > 0);
    l4_thread_switch(0);                     /* plain yield: returns */
    l4_thread_switch(l4_my_global_id());     /* to oneself: returns at once */
    tu_kill(t);
}

/* --- ProcessorControl, MemoryControl --------------------------------------------------------- */

TEST(processor_control)
{
    CHECK_EQ(l4_processor_control(0, ~0ul, ~0ul, ~0ul), 1);
    CHECK_EQ(l4_processor_control(1, ~0ul, ~0ul, ~0ul), 0);
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
}

static uint8_t attr_page[4096] __attribute__((aligned(4096)));

TEST(memory_control)
{
    attr_page[0] = 1;
    l4_set_mr(0, l4_fpage_log2((l4_word_t)attr_page, 12));
    CHECK_EQ(l4_memory_control(0, 5, 0, 0, 0), 1);          /* write-combining */
    l4_set_mr(0, l4_fpage_log2((l4_word_t)attr_page, 12));
    CHECK_EQ(l4_memory_control(0, 1, 0, 0, 0), 1);          /* back to write-back */
    l4_set_mr(0, l4_fpage_log2((l4_word_t)attr_page, 12) | 2);   /* selects attribute 2 */
    CHECK_EQ(l4_memory_control(0, 1, 1, 6, 1), 0);          /* 6 is not an attribute */
    CHECK_EQ(l4_error_code(), L4_ERR_INVALID_PARAM);
    attr_page[1] = 2;
    CHECK_EQ(attr_page[0] + attr_page[1], 3);
}

int main(void)
{
    tests_run("threads");
}
