/* System calls of processes and their identity: exit, ids, uname, arch_prctl, limits
 * (the signal calls are in sys_signal.c). */
#include "syscalls/handlers.h"
#include "syscalls/handlers_more.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <string.h>

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004

/* exit ends the calling thread; the process with its last thread, with that thread's code
 * (a leader that ends first stays a zombie thread until then: task/exit.c). */
long sys_exit(struct thread *t, const struct sysargs *a)
{
    if (t->proc->nthreads > 1)
        thread_exit(t);
    else
        process_exit(t->proc, exit_status_code((int)a->a[0]));
    return LX_NOREPLY;
}

long sys_exit_group(struct thread *t, const struct sysargs *a)
{
    process_exit(t->proc, exit_status_code((int)a->a[0]));
    return LX_NOREPLY;
}

long sys_getpid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return thread_pid(t);
}

long sys_gettid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return t->tid->nr;
}

long sys_getppid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return process_ppid(t->proc);
}

long sys_set_tid_address(struct thread *t, const struct sysargs *a)
{
    t->clear_child_tid = a->a[0];
    return t->tid->nr;
}

long sys_set_robust_list(struct thread *t, const struct sysargs *a)
{
    if (a->a[1] != 24)              /* sizeof(struct robust_list_head) */
        return -EINVAL;
    t->robust_list = a->a[0];       /* walked when the thread ends (task/exit.c) */
    return 0;
}

/* The FS base through ExchangeRegisters (docs/x2-deviations.md: bit 14), which lx, the
 * handler of the process's space, may apply to its thread; the thread stays in its call. */
long sys_arch_prctl(struct thread *t, const struct sysargs *a)
{
    l4_word_t fs, gs;
    switch (a->a[0]) {
    case ARCH_SET_FS:
    case ARCH_SET_GS: {
        bool is_fs = a->a[0] == ARCH_SET_FS;
        if (a->a[1] >= LX_USER_END)
            return -EPERM;
        if (l4_exchange_bases(t->l4, is_fs ? L4_EXREGS_SET_FS_BASE : L4_EXREGS_SET_GS_BASE,
                              a->a[1], a->a[1], &fs, &gs) == L4_NILTHREAD)
            return -EPERM;
        return 0;
    }
    case ARCH_GET_FS:
    case ARCH_GET_GS:
        if (l4_exchange_bases(t->l4, 0, 0, 0, &fs, &gs) == L4_NILTHREAD)
            return -EINVAL;
        fs = a->a[0] == ARCH_GET_FS ? fs : gs;
        return copy_to_user(t->mm, a->a[1], &fs, sizeof fs);
    default:
        return -EINVAL;
    }
}

long sys_getrandom(struct thread *t, const struct sysargs *a)
{
    /* GRND_NONBLOCK, GRND_RANDOM, GRND_INSECURE; the pool never blocks (lib/random.c). */
    if (a->a[2] & ~7ul || (a->a[2] & 6) == 6)
        return -EINVAL;
    uint8_t buf[256];
    l4_word_t want = a->a[1] < 65536 ? a->a[1] : 65536, done = 0;
    while (done < want) {
        size_t n = want - done < sizeof buf ? want - done : sizeof buf;
        lx_random_bytes(buf, n);
        if (copy_to_user(t->mm, a->a[0] + done, buf, n))
            return done ? (long)done : -EFAULT;
        done += n;
    }
    return (long)done;
}
