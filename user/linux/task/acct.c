/* BSD process accounting, version 3 (acct(2), acct(5); Linux 6.1's kernel/acct.c, which
 * Debian's 6.1 builds with CONFIG_BSD_PROCESS_ACCT_V3): acct(path) names a regular file, and
 * from then on every process that ends appends one struct acct_v3 to it; acct(NULL) stops,
 * and, as Linux's acct_pin_kill, the caller's own record so far is the file's last.  One file
 * for the system (Linux's is per pid namespace; lx has one).  docs/linux/system.md. */
#include "task/acct.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "syscalls/fs_common.h"
#include "task/cputime.h"
#include "task/process.h"
#include "task/thread.h"
#include "time/clock.h"
#include "tty/tty.h"
#include "vfs/file.h"
#include "vfs/permission.h"
#include "vfs/vfs.h"
#include <string.h>

#define CAP_SYS_PACCT 20
#define ACCT_VERSION  3
#define AHZ           100           /* the record's clock ticks per second */

#define AFORK 0x01                  /* forked and never exec'd */
#define ASU   0x02                  /* used superuser privileges (not tracked by lx) */
#define ACORE 0x08                  /* dumped core */
#define AXSIG 0x10                  /* killed by a signal */

typedef uint16_t comp_t;            /* 3-bit base-8 exponent, 13-bit mantissa */

struct acct_v3 {
    char ac_flag, ac_version;
    uint16_t ac_tty;
    uint32_t ac_exitcode, ac_uid, ac_gid, ac_pid, ac_ppid, ac_btime;
    uint32_t ac_etime;              /* an IEEE single in user space */
    comp_t ac_utime, ac_stime, ac_mem, ac_io, ac_rw, ac_minflt, ac_majflt, ac_swaps;
    char ac_comm[16];
};
_Static_assert(sizeof(struct acct_v3) == 64, "acct(5)'s record");

static struct file *acct_file;      /* NULL: accounting is off */

/* acct(5)'s comp_t: the value shifted right three bits at a time until it fits 13 bits,
 * rounding by the last bit shifted out; all ones when the exponent does not fit. */
static comp_t encode_comp(uint64_t v)
{
    unsigned exp = 0;
    bool round = false;
    while (v > 0x1fff) {
        round = v & 4;
        v >>= 3;
        exp++;
    }
    if (round && ++v > 0x1fff) {
        v >>= 3;
        exp++;
    }
    return exp > 7 ? (comp_t)~0u : (comp_t)(exp << 13 | v);
}

/* A non-negative integer as an IEEE single (ac_etime), its mantissa truncated. */
static uint32_t encode_float(uint64_t v)
{
    if (!v)
        return 0;
    unsigned exp = 190;             /* 127 + 63: the value's top bit moved to bit 63 */
    while (!(v >> 63)) {
        v <<= 1;
        exp--;
    }
    return ((uint32_t)(v >> 40) & 0x7fffff) | exp << 23;   /* the leading 1 implied */
}

static uint64_t ns_to_ahz(uint64_t ns)
{
    return ns / (1000000000ull / AHZ);
}

/* Linux's fill_ac and do_acct_process for p; flags and code as acct_collect gathered them. */
static void write_record(struct process *p, unsigned flags, uint32_t code, bool ended)
{
    struct acct_v3 ac;
    memset(&ac, 0, sizeof ac);
    ac.ac_version = ACCT_VERSION;
    struct thread *t = list_first(&p->threads, struct thread, proc_link);
    if (t)
        memcpy(ac.ac_comm, t->comm, sizeof ac.ac_comm - 1);
    uint64_t run = lx_now() - p->start_us * 1000, elapsed = ns_to_ahz(run);
    ac.ac_etime = encode_float(elapsed);
    int64_t btime = (int64_t)(clock_realtime() / 1000000000ull) - (int64_t)(elapsed / AHZ);
    ac.ac_btime = btime < 0 ? 0 : btime > 0xffffffffll ? 0xffffffffu : (uint32_t)btime;
    unsigned tty = tty_nr_of(p);
    ac.ac_tty = (uint16_t)(((tty >> 8) & 0xff) << 8 | (tty & 0xff));
    if (ended) {
        uint64_t user = cpu_process_user_ns(p), all = cpu_process_ns(p);
        ac.ac_utime = encode_comp(ns_to_ahz(user));
        ac.ac_stime = encode_comp(ns_to_ahz(all - user));
        struct mm *mm = t ? t->mm : NULL;
        uint64_t vsize = 0;
        for (struct region *r = mm ? mm_first(mm) : NULL; r; r = vma_next(r))
            vsize += r->end - r->start;
        ac.ac_mem = encode_comp(vsize / 1024);
    }
    ac.ac_flag = (char)flags;
    ac.ac_exitcode = code;
    ac.ac_uid = p->cred.uid;
    ac.ac_gid = p->cred.gid;
    ac.ac_pid = (uint32_t)process_pid(p);
    ac.ac_ppid = (uint32_t)process_ppid(p);
    /* opened O_APPEND: the position does not matter */
    struct uio_seg seg = { (l4_word_t)&ac, sizeof ac };
    struct uio u;
    uio_init(&u, NULL, &seg, 1);
    l4_word_t pos = 0;
    vfs_rw(NULL, acct_file, &u, &pos, true, false);
}

void acct_process(struct process *p, struct exit_status status)
{
    if (!acct_file)
        return;
    unsigned flags = 0;
    if (!p->execed)
        flags |= AFORK;
    if (status.kind == EXIT_KILLED)
        flags |= AXSIG | (status.core ? ACORE : 0);
    write_record(p, flags, (uint32_t)exit_status_word(status), true);
}

/* The file is given up: the caller's record so far is its last (Linux's acct_pin_kill). */
static void acct_off(struct thread *t)
{
    if (!acct_file)
        return;
    write_record(t->proc, 0, 0, false);
    file_put(acct_file);
    acct_file = NULL;
}

long sys_acct(struct thread *t, const struct sysargs *a)
{
    if (!vfs_capable(t, CAP_SYS_PACCT))
        return -EPERM;
    if (!a->a[0]) {
        acct_off(t);
        return 0;
    }
    int e = get_path(t, a->a[0], path1);
    if (e)
        return e;
    if (!path1[0])
        return -ENOENT;
    struct file *f = vfs_open(t, NULL, path1, O_WRONLY | O_APPEND | O_LARGEFILE, 0, &e);
    if (!f)
        return e;
    if (!S_ISREG(f->inode->mode)) {
        file_put(f);
        return -EACCES;
    }
    if (!f->ops->write) {
        file_put(f);
        return -EIO;
    }
    acct_off(t);
    acct_file = f;
    return 0;
}
