/* Credentials (cred.c): who a process is, Linux's struct cred in the model of
 * docs/linux/users.md.  The real, effective, saved and file-system user and group ids, the
 * supplementary groups and the capability sets belong to the process (every thread of a
 * thread group has the same: Linux keeps them per thread, but glibc's and musl's set*id
 * broadcast each change to all threads, so per process is what a program sees).  The
 * capability sets move with the ids as Linux's setuid fix-ups move them; the bounding set is
 * always full and the ambient set empty. */
#ifndef LX_TASK_CRED_H
#define LX_TASK_CRED_H

#include <stdbool.h>
#include <stdint.h>

#define NGROUPS_MAX      65536
#define GROUPS_PER_PAGE  1024
#define GROUP_PAGES      (NGROUPS_MAX / GROUPS_PER_PAGE)

/* A supplementary group list, sorted and shared by reference (fork copies the pointer;
 * setgroups makes a new one).  Up to NGROUPS_MAX ids in pages of GROUPS_PER_PAGE. */
struct group_info {
    unsigned refs;
    unsigned n;
    uint32_t *page[GROUP_PAGES];
};

struct cred {
    unsigned uid, euid, suid, fsuid;
    unsigned gid, egid, sgid, fsgid;
    struct group_info *groups;      /* NULL: none */
    uint64_t cap_inh, cap_prm, cap_eff; /* inheritable, permitted, effective (bit n: cap n) */
    bool keepcaps;                  /* PR_SET_KEEPCAPS: permitted survives leaving uid 0 */
    bool no_new_privs;              /* prctl(PR_SET_NO_NEW_PRIVS): exec grants nothing */
    bool nondumpable;               /* Linux's mm dumpable flag, cleared: /proc/PID is root's,
                                       and only root may look inside (ptrace's rule) */
};

/* Capabilities (Linux 6.1 has 41: bits 0 to 40) and the ones lx checks. */
#define CAP_FULL_SET  ((1ull << 41) - 1)
#define CAP_FS_MASK   0x10800021full  /* Linux's CAP_FS_SET: CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH,
                                          FOWNER, FSETID, LINUX_IMMUTABLE, MKNOD, MAC_OVERRIDE */
enum {
    CAP_CHOWN = 0, CAP_DAC_OVERRIDE = 1, CAP_DAC_READ_SEARCH = 2, CAP_FOWNER = 3,
    CAP_FSETID = 4, CAP_KILL = 5, CAP_SETGID = 6, CAP_SETUID = 7, CAP_SETPCAP = 8,
    CAP_SYS_CHROOT = 18, CAP_SYS_PTRACE = 19, CAP_SYS_ADMIN = 21, CAP_SYS_NICE = 23, CAP_SYS_RESOURCE = 24,
    CAP_SYS_TIME = 25, CAP_MKNOD = 27,
};

static inline bool cred_capable(const struct cred *c, int cap)
{
    return (c->cap_eff >> cap) & 1;
}
void cred_init_root(struct cred *c);    /* the programs lx starts: root, every capability */
/* capset's change, with Linux's rules (cap_capset): 0 or -EPERM. */
int cred_capset(struct cred *c, uint64_t eff, uint64_t prm, uint64_t inh);
/* Linux's in_group_p: the file-system group or a supplementary one (in_egroup_p: egid). */
bool cred_in_group(const struct cred *c, unsigned gid);
bool cred_in_egroup(const struct cred *c, unsigned gid);
uint32_t groups_at(const struct group_info *g, unsigned k);

void cred_copy(struct cred *dst, const struct cred *src);  /* fork: the groups shared */
void cred_release(struct cred *c);                          /* the end of a process */

/* The set*id rules of Linux (kernel/sys.c) on c: 0, -EPERM, -EINVAL; c unchanged on error.
 * (unsigned)-1 means "unchanged" where Linux says so. */
int cred_setuid(struct cred *c, unsigned uid);
int cred_setgid(struct cred *c, unsigned gid);
int cred_setreuid(struct cred *c, unsigned r, unsigned e);
int cred_setregid(struct cred *c, unsigned r, unsigned e);
int cred_setresuid(struct cred *c, unsigned r, unsigned e, unsigned s);
int cred_setresgid(struct cred *c, unsigned r, unsigned e, unsigned s);
unsigned cred_setfsuid(struct cred *c, unsigned uid);      /* the old fsuid */
unsigned cred_setfsgid(struct cred *c, unsigned gid);
/* After a set*id or capset (old: before it): a change of the effective or file-system ids
 * makes the process non-dumpable, as Linux's commit_creds (suid_dumpable 0). */
void cred_changed(struct cred *c, const struct cred *old);
/* A new sorted list of n ids (the caller fills page by page with groups_alloc, then
 * groups_sort); setgroups installs it (its reference moves in). */
struct group_info *groups_alloc(unsigned n);
void groups_put(struct group_info *g);
void groups_sort(struct group_info *g);
void cred_set_groups(struct cred *c, struct group_info *g);

/* execve's change (Linux's bprm creds): set-user-ID / set-group-ID of the file (mode, uid,
 * gid) unless nosuid (the mount's MS_NOSUID or no_new_privs), then saved := effective and
 * fs := effective; every capability permitted for root (real or effective uid 0) and
 * effective for euid 0, none for others; keepcaps off.  unsafe (traced by a tracer that may
 * not trace the new ids): the set-ids are not taken, the real ids stay (Linux's
 * LSM_UNSAFE_PTRACE).  *secure: AT_SECURE (the ids changed, or would have). */
void cred_exec(struct cred *c, unsigned mode, unsigned fuid, unsigned fgid, bool nosuid,
               bool unsafe, bool *secure);

#endif
