/* Credentials: Linux's set*id rules (kernel/sys.c), the supplementary groups, the change at
 * execve, and the capability sets with Linux's fix-ups (security/commoncap.c)
 * (docs/linux/users.md). */
#include "task/cred.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"

#define NOID 0xFFFFFFFFu            /* "unchanged" (and never a valid id) */

void cred_init_root(struct cred *c)
{
    *c = (struct cred){ .cap_prm = CAP_FULL_SET, .cap_eff = CAP_FULL_SET };
}

/* Linux's cap_emulate_setxuid: leaving uid 0 altogether drops every capability (unless
 * keepcaps keeps the permitted ones), leaving euid 0 the effective ones, and coming back to
 * euid 0 makes the permitted ones effective. */
static void fix_setuid(struct cred *c, const struct cred *old)
{
    bool was_root = !old->uid || !old->euid || !old->suid;
    if (was_root && c->uid && c->euid && c->suid && !c->keepcaps)
        c->cap_prm = c->cap_eff = 0;
    if (!old->euid && c->euid)
        c->cap_eff = 0;
    if (old->euid && !c->euid)
        c->cap_eff = c->cap_prm;
}

/* ... and for setfsuid: the file-system capabilities follow fsuid 0. */
static void fix_setfsuid(struct cred *c, unsigned old_fsuid)
{
    if (!old_fsuid && c->fsuid)
        c->cap_eff &= ~CAP_FS_MASK;
    if (old_fsuid && !c->fsuid)
        c->cap_eff |= c->cap_prm & CAP_FS_MASK;
}

int cred_capset(struct cred *c, uint64_t eff, uint64_t prm, uint64_t inh)
{
    if (!cred_capable(c, CAP_SETPCAP) && (inh & ~(c->cap_inh | c->cap_prm)))
        return -EPERM;
    if ((prm & ~c->cap_prm) || (eff & ~prm))
        return -EPERM;
    c->cap_eff = eff, c->cap_prm = prm, c->cap_inh = inh;
    return 0;
}

uint32_t groups_at(const struct group_info *g, unsigned k)
{
    return g->page[k / GROUPS_PER_PAGE][k % GROUPS_PER_PAGE];
}

static bool groups_search(const struct group_info *g, unsigned gid)
{
    if (!g)
        return false;
    unsigned lo = 0, hi = g->n;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2, v = groups_at(g, mid);
        if (v == gid)
            return true;
        if (v < gid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

bool cred_in_group(const struct cred *c, unsigned gid)
{
    return c->fsgid == gid || groups_search(c->groups, gid);
}

bool cred_in_egroup(const struct cred *c, unsigned gid)
{
    return c->egid == gid || groups_search(c->groups, gid);
}

struct group_info *groups_alloc(unsigned n)
{
    struct group_info *g = kmalloc(sizeof *g);
    if (!g)
        return NULL;
    g->refs = 1;
    g->n = n;
    for (unsigned k = 0; k * GROUPS_PER_PAGE < n; k++)
        if (!(g->page[k] = page_alloc())) {
            groups_put(g);
            return NULL;
        }
    return g;
}

void groups_put(struct group_info *g)
{
    if (!g || --g->refs)
        return;
    for (unsigned k = 0; k < GROUP_PAGES && g->page[k]; k++)
        page_free(g->page[k]);
    kfree(g);
}

static void groups_swap(struct group_info *g, unsigned a, unsigned b)
{
    uint32_t *pa = &g->page[a / GROUPS_PER_PAGE][a % GROUPS_PER_PAGE];
    uint32_t *pb = &g->page[b / GROUPS_PER_PAGE][b % GROUPS_PER_PAGE];
    uint32_t v = *pa;
    *pa = *pb;
    *pb = v;
}

static void sift_down(struct group_info *g, unsigned root, unsigned n)
{
    for (unsigned child; (child = 2 * root + 1) < n; root = child) {
        if (child + 1 < n && groups_at(g, child + 1) > groups_at(g, child))
            child++;
        if (groups_at(g, root) >= groups_at(g, child))
            return;
        groups_swap(g, root, child);
    }
}

/* Heapsort: no recursion and no second buffer for up to 65536 ids. */
void groups_sort(struct group_info *g)
{
    for (unsigned k = g->n / 2; k-- > 0;)
        sift_down(g, k, g->n);
    for (unsigned end = g->n; end-- > 1;) {
        groups_swap(g, 0, end);
        sift_down(g, 0, end);
    }
}

void cred_set_groups(struct cred *c, struct group_info *g)
{
    groups_put(c->groups);
    c->groups = g;
}

void cred_copy(struct cred *dst, const struct cred *src)
{
    *dst = *src;
    if (dst->groups)
        dst->groups->refs++;
}

void cred_release(struct cred *c)
{
    groups_put(c->groups);
    c->groups = NULL;
}

/* --- set*id ---------------------------------------------------------------------------- */

int cred_setuid(struct cred *c, unsigned uid)
{
    struct cred old = *c;
    if (uid == NOID)
        return -EINVAL;
    if (cred_capable(c, CAP_SETUID))
        c->uid = c->suid = uid;
    else if (uid != c->uid && uid != c->suid)
        return -EPERM;
    c->euid = c->fsuid = uid;
    fix_setuid(c, &old);
    return 0;
}

int cred_setgid(struct cred *c, unsigned gid)
{
    if (gid == NOID)
        return -EINVAL;
    if (cred_capable(c, CAP_SETGID))
        c->gid = c->sgid = gid;
    else if (gid != c->gid && gid != c->sgid)
        return -EPERM;
    c->egid = c->fsgid = gid;
    return 0;
}

/* setreuid and setregid: the real id may become the effective one; the effective one any of
 * the three; the saved id follows the effective one when the real id is set or the effective
 * one moves off the real one. */
static int set_re(bool cap, unsigned *real, unsigned *eff, unsigned *saved, unsigned *fs,
                  unsigned r, unsigned e)
{
    unsigned nr = *real, ne = *eff, ns = *saved;
    if (r != NOID) {
        if (!cap && r != *real && r != *eff)
            return -EPERM;
        nr = r;
    }
    if (e != NOID) {
        if (!cap && e != *real && e != *eff && e != *saved)
            return -EPERM;
        ne = e;
    }
    if (r != NOID || (e != NOID && e != *real))
        ns = ne;
    *real = nr, *eff = ne, *saved = ns, *fs = ne;
    return 0;
}

int cred_setreuid(struct cred *c, unsigned r, unsigned e)
{
    struct cred old = *c;
    int err = set_re(cred_capable(c, CAP_SETUID), &c->uid, &c->euid, &c->suid, &c->fsuid, r, e);
    if (!err)
        fix_setuid(c, &old);
    return err;
}

int cred_setregid(struct cred *c, unsigned r, unsigned e)
{
    return set_re(cred_capable(c, CAP_SETGID), &c->gid, &c->egid, &c->sgid, &c->fsgid, r, e);
}

/* setresuid and setresgid: without the capability each new id is one of the three old. */
static int set_res(bool cap, unsigned *ids, unsigned *fs, const unsigned *want)
{
    if (!cap)
        for (int k = 0; k < 3; k++)
            if (want[k] != NOID && want[k] != ids[0] && want[k] != ids[1] &&
                want[k] != ids[2])
                return -EPERM;
    for (int k = 0; k < 3; k++)
        if (want[k] != NOID)
            ids[k] = want[k];
    *fs = ids[1];
    return 0;
}

int cred_setresuid(struct cred *c, unsigned r, unsigned e, unsigned s)
{
    struct cred old = *c;
    unsigned ids[3] = { c->uid, c->euid, c->suid }, want[3] = { r, e, s };
    int err = set_res(cred_capable(c, CAP_SETUID), ids, &c->fsuid, want);
    if (!err) {
        c->uid = ids[0], c->euid = ids[1], c->suid = ids[2];
        fix_setuid(c, &old);
    }
    return err;
}

int cred_setresgid(struct cred *c, unsigned r, unsigned e, unsigned s)
{
    unsigned ids[3] = { c->gid, c->egid, c->sgid }, want[3] = { r, e, s };
    int err = set_res(cred_capable(c, CAP_SETGID), ids, &c->fsgid, want);
    if (!err)
        c->gid = ids[0], c->egid = ids[1], c->sgid = ids[2];
    return err;
}

/* setfsuid/setfsgid: to one of the four ids (any with the capability); the old one back,
 * success or not, as Linux. */
unsigned cred_setfsuid(struct cred *c, unsigned uid)
{
    unsigned old = c->fsuid;
    if (uid != NOID && (cred_capable(c, CAP_SETUID) || uid == c->uid || uid == c->euid ||
                        uid == c->suid || uid == c->fsuid)) {
        c->fsuid = uid;
        fix_setfsuid(c, old);
    }
    return old;
}

unsigned cred_setfsgid(struct cred *c, unsigned gid)
{
    unsigned old = c->fsgid;
    if (gid != NOID && (cred_capable(c, CAP_SETGID) || gid == c->gid || gid == c->egid ||
                        gid == c->sgid || gid == c->fsgid))
        c->fsgid = gid;
    return old;
}

void cred_changed(struct cred *c, const struct cred *old)
{
    if (c->euid != old->euid || c->egid != old->egid || c->fsuid != old->fsuid ||
        c->fsgid != old->fsgid)
        c->nondumpable = true;
}

void cred_exec(struct cred *c, unsigned mode, unsigned fuid, unsigned fgid, bool nosuid,
               bool unsafe, bool *secure)
{
    bool changed = false;
    if (!nosuid && !c->no_new_privs) {
        if (mode & 04000) {
            changed |= c->euid != fuid;
            c->euid = fuid;
        }
        if ((mode & 02010) == 02010) {      /* set-group-ID with group execute */
            changed |= !cred_in_group(c, fgid);
            c->egid = fgid;
        }
    }
    if (changed && unsafe) {                /* cap_bprm_creds_from_file: the real ids */
        c->euid = c->uid;
        c->egid = c->gid;
    }
    c->suid = c->fsuid = c->euid;
    c->sgid = c->fsgid = c->egid;
    /* No file capabilities: root gets the bounding set (all), others nothing. */
    c->cap_prm = !c->euid || !c->uid ? CAP_FULL_SET : 0;
    c->cap_eff = !c->euid ? c->cap_prm : 0;
    c->keepcaps = false;
    c->nondumpable = c->euid != c->uid || c->egid != c->gid;   /* begin_new_exec's rule */
    *secure = changed || c->nondumpable;
}
