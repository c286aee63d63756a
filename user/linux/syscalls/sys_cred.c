/* The identity calls: get*id, set*id, the supplementary groups, setfsuid/setfsgid and
 * capget/capset.  Thin: the rules are task/cred.c's (docs/linux/users.md). */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/cred.h"
#include "task/process.h"

static struct cred *cred_of(struct thread *t)
{
    return &t->proc->cred;
}

static unsigned arg_id(const struct sysargs *a, int k)
{
    return (unsigned)a->a[k];       /* uid_t: the low 32 bits, -1 "unchanged" */
}

long sys_getuid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return cred_of(t)->uid;
}

long sys_geteuid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return cred_of(t)->euid;
}

long sys_getgid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return cred_of(t)->gid;
}

long sys_getegid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return cred_of(t)->egid;
}

/* Every set*id goes through here: the rule of cred.c, then the dumpable rule. */
enum id_call { SETUID, SETGID, SETREUID, SETREGID, SETRESUID, SETRESGID, SETFSUID, SETFSGID };

static long set_ids(struct thread *t, const struct sysargs *a, enum id_call call)
{
    struct cred *c = cred_of(t), old = *c;
    unsigned x = arg_id(a, 0), y = arg_id(a, 1), z = arg_id(a, 2);
    long r = 0;
    switch (call) {
    case SETUID: r = cred_setuid(c, x); break;
    case SETGID: r = cred_setgid(c, x); break;
    case SETREUID: r = cred_setreuid(c, x, y); break;
    case SETREGID: r = cred_setregid(c, x, y); break;
    case SETRESUID: r = cred_setresuid(c, x, y, z); break;
    case SETRESGID: r = cred_setresgid(c, x, y, z); break;
    case SETFSUID: r = cred_setfsuid(c, x); break;
    case SETFSGID: r = cred_setfsgid(c, x); break;
    }
    cred_changed(c, &old);
    return r;
}

long sys_setuid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETUID); }
long sys_setgid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETGID); }
long sys_setreuid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETREUID); }
long sys_setregid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETREGID); }
long sys_setresuid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETRESUID); }
long sys_setresgid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETRESGID); }
long sys_setfsuid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETFSUID); }
long sys_setfsgid(struct thread *t, const struct sysargs *a) { return set_ids(t, a, SETFSGID); }

/* Three ids out in order, stopping at the first fault, as Linux's put_user chain. */
static long put_three(struct thread *t, const struct sysargs *a, unsigned r, unsigned e,
                      unsigned s)
{
    const uint32_t ids[3] = { r, e, s };
    for (int k = 0; k < 3; k++)
        if (copy_to_user(t->mm, a->a[k], &ids[k], sizeof ids[k]))
            return -EFAULT;
    return 0;
}

long sys_getresuid(struct thread *t, const struct sysargs *a)
{
    const struct cred *c = cred_of(t);
    return put_three(t, a, c->uid, c->euid, c->suid);
}

long sys_getresgid(struct thread *t, const struct sysargs *a)
{
    const struct cred *c = cred_of(t);
    return put_three(t, a, c->gid, c->egid, c->sgid);
}

long sys_getgroups(struct thread *t, const struct sysargs *a)
{
    int size = (int)a->a[0];
    const struct group_info *g = cred_of(t)->groups;
    unsigned n = g ? g->n : 0;
    if (size < 0)
        return -EINVAL;
    if (!size)
        return n;
    if (n > (unsigned)size)
        return -EINVAL;
    for (unsigned k = 0; k < n; k += GROUPS_PER_PAGE) {
        unsigned c = n - k < GROUPS_PER_PAGE ? n - k : GROUPS_PER_PAGE;
        if (copy_to_user(t->mm, a->a[1] + k * 4ul, g->page[k / GROUPS_PER_PAGE], c * 4ul))
            return -EFAULT;
    }
    return n;
}

long sys_setgroups(struct thread *t, const struct sysargs *a)
{
    struct cred *c = cred_of(t);
    int size = (int)a->a[0];
    if (!cred_capable(c, CAP_SETGID))
        return -EPERM;
    if ((unsigned)size > NGROUPS_MAX)
        return -EINVAL;
    struct group_info *g = size ? groups_alloc((unsigned)size) : NULL;
    if (size && !g)
        return -ENOMEM;
    for (unsigned k = 0; k < (unsigned)size; k += GROUPS_PER_PAGE) {
        uint32_t *pg = g->page[k / GROUPS_PER_PAGE];
        unsigned n = (unsigned)size - k < GROUPS_PER_PAGE ? (unsigned)size - k : GROUPS_PER_PAGE;
        if (copy_from_user(t->mm, pg, a->a[1] + k * 4ul, n * 4ul)) {
            groups_put(g);
            return -EFAULT;
        }
        for (unsigned j = 0; j < n; j++)
            if (pg[j] == 0xFFFFFFFFu) {
                groups_put(g);
                return -EINVAL;     /* not a valid id */
            }
    }
    if (g)
        groups_sort(g);
    cred_set_groups(c, g);
    return 0;
}

/* --- capabilities ---------------------------------------------------------------------- */

#define CAP_V1 0x19980330u
#define CAP_V2 0x20071026u
#define CAP_V3 0x20080522u

struct cap_header { uint32_t version; int pid; };
struct cap_data { uint32_t effective, permitted, inheritable; };

/* The header's version: how many data structs it means (1 or 2), or -EINVAL with the
 * version Linux prefers written back (-EFAULT if it cannot be). */
static int cap_version(struct thread *t, l4_word_t uhdr, unsigned *count)
{
    uint32_t v;
    if (copy_from_user(t->mm, &v, uhdr, sizeof v))
        return -EFAULT;
    if (v == CAP_V1) {
        *count = 1;
        return 0;
    }
    if (v == CAP_V2 || v == CAP_V3) {
        *count = 2;
        return 0;
    }
    v = CAP_V3;
    return copy_to_user(t->mm, uhdr, &v, sizeof v) ? -EFAULT : -EINVAL;
}

long sys_capget(struct thread *t, const struct sysargs *a)
{
    unsigned count;
    int e = cap_version(t, a->a[0], &count);
    if (!a->a[1] || e)
        return !a->a[1] && e == -EINVAL ? 0 : e;   /* a version probe */
    int pid;
    if (copy_from_user(t->mm, &pid, a->a[0] + 4, sizeof pid))
        return -EFAULT;
    if (pid < 0)
        return -EINVAL;
    struct process *p = pid ? process_by_pid(pid) : t->proc;
    if (!p)
        return -ESRCH;
    const struct cred *c = &p->cred;
    struct cap_data d[2] = {
        { (uint32_t)c->cap_eff, (uint32_t)c->cap_prm, (uint32_t)c->cap_inh },
        { (uint32_t)(c->cap_eff >> 32), (uint32_t)(c->cap_prm >> 32),
          (uint32_t)(c->cap_inh >> 32) },
    };
    return copy_to_user(t->mm, a->a[1], d, count * sizeof d[0]);
}

/* capset: the caller's own sets (another pid EPERM), bits past the last capability
 * ignored; the rules are task/cred.c's. */
long sys_capset(struct thread *t, const struct sysargs *a)
{
    unsigned count;
    int e = cap_version(t, a->a[0], &count);
    if (e)
        return e;
    int pid;
    if (copy_from_user(t->mm, &pid, a->a[0] + 4, sizeof pid))
        return -EFAULT;
    if (pid != 0 && pid != process_pid(t->proc))
        return -EPERM;
    struct cap_data d[2] = { 0 };
    if (copy_from_user(t->mm, d, a->a[1], count * sizeof d[0]))
        return -EFAULT;
    uint64_t eff = (d[0].effective | (uint64_t)d[1].effective << 32) & CAP_FULL_SET;
    uint64_t prm = (d[0].permitted | (uint64_t)d[1].permitted << 32) & CAP_FULL_SET;
    uint64_t inh = (d[0].inheritable | (uint64_t)d[1].inheritable << 32) & CAP_FULL_SET;
    return cred_capset(cred_of(t), eff, prm, inh);
}
