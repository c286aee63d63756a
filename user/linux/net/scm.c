/* Control messages (docs/linux/sockets.md, "Control messages"): SCM_RIGHTS and
 * SCM_CREDENTIALS of a sendmsg into a struct sock_msg, with Linux's checks (__scm_send,
 * scm_check_creds), and a received message's control data out to the process as Linux's
 * scm_recv writes it: credentials first, then the files, each as a new fd; what does not
 * fit is dropped and MSG_CTRUNC says so. */
#include "net/socket.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <string.h>

#define SOL_SOCKET      1
#define SCM_RIGHTS      1
#define SCM_CREDENTIALS 2

struct cmsghdr {
    l4_word_t len;
    int level, type;
};
#define CMSG_ALIGN(n) (((n) + sizeof(long) - 1) & ~(sizeof(long) - 1))
#define CMSG_LEN(n)   (sizeof(struct cmsghdr) + (n))
#define CMSG_SPACE(n) (sizeof(struct cmsghdr) + CMSG_ALIGN(n))

void scm_fp_free(struct scm_fp *fp)
{
    if (!fp)
        return;
    for (unsigned k = 0; k < fp->count; k++)
        file_put(fp->fp[k]);
    kfree(fp);
}

struct scm_fp *scm_fp_dup(const struct scm_fp *fp)
{
    struct scm_fp *n = kmalloc(sizeof *n);
    if (!n)
        return NULL;
    memcpy(n, fp, sizeof *n);
    for (unsigned k = 0; k < n->count; k++)
        file_get(n->fp[k]);
    return n;
}

void scm_release(struct sock_msg *m)
{
    scm_fp_free(m->fp);
    m->fp = NULL;
}

/* Linux's scm_check_creds: a process may claim its own pid and ids; root any. */
static int check_creds(struct thread *t, const struct ucred *c)
{
    const struct cred *me = &t->proc->cred;
    bool admin = me->euid == 0;
    if ((c->pid == thread_pid(t) || admin) &&
        (c->uid == me->uid || c->uid == me->euid || c->uid == me->suid || admin) &&
        (c->gid == me->gid || c->gid == me->egid || c->gid == me->sgid || admin))
        return 0;
    return -EPERM;
}

static int take_fds(struct thread *t, const struct cmsghdr *c, struct sock_msg *m)
{
    long num = (long)(c->len - sizeof *c) / (long)sizeof(int);
    if (num <= 0)
        return 0;
    if (num > SCM_MAX_FD)
        return -EINVAL;
    if (!m->fp && !(m->fp = kmalloc(sizeof *m->fp)))
        return -ENOMEM;
    if (m->fp->count + num > SCM_MAX_FD)
        return -EINVAL;
    const int *fds = (const int *)(c + 1);
    for (long k = 0; k < num; k++) {
        struct file *f = fds[k] < 0 ? NULL : fd_get(t, fds[k]);
        if (!f)
            return -EBADF;
        file_get(f);
        m->fp->fp[m->fp->count++] = f;
    }
    return 0;
}

int scm_parse(struct thread *t, struct socket *s, const char *ctl, l4_word_t len,
              struct sock_msg *m)
{
    l4_word_t off = 0;
    int err = 0;
    while (len >= sizeof(struct cmsghdr) && off + sizeof(struct cmsghdr) <= len) {
        const struct cmsghdr *c = (const struct cmsghdr *)(ctl + off);
        if (c->len < sizeof *c || c->len > len - off) {
            err = -EINVAL;
            break;
        }
        if (c->level == SOL_SOCKET) {
            if (c->type == SCM_RIGHTS) {
                err = s->family == AF_UNIX ? take_fds(t, c, m) : -EINVAL;
            } else if (c->type == SCM_CREDENTIALS) {
                struct ucred cr;
                if (c->len != CMSG_LEN(sizeof cr)) {
                    err = -EINVAL;
                    break;
                }
                memcpy(&cr, c + 1, sizeof cr);
                if ((err = check_creds(t, &cr)))
                    break;
                if (!process_by_pid(cr.pid)) {
                    err = -ESRCH;
                    break;
                }
                if (cr.uid == ~0u || cr.gid == ~0u) {
                    err = -EINVAL;
                    break;
                }
                m->creds = cr;
                m->has_creds = true;
            } else {
                err = -EINVAL;
            }
            if (err)
                break;
        }
        off += CMSG_ALIGN(c->len);
    }
    if (err)
        scm_release(m);
    else if (m->fp && !m->fp->count)
        scm_release(m);
    return err;
}

/* Linux's put_cmsg: one control message at *pos of the room left (*room), cut short with
 * MSG_CTRUNC. */
static void put_cmsg(struct thread *t, struct sock_msg *m, l4_word_t *pos, l4_word_t *room,
                     int type, const void *data, l4_word_t n)
{
    l4_word_t cmlen = CMSG_LEN(n);
    if (!*pos || *room < sizeof(struct cmsghdr)) {
        m->flags |= MSG_CTRUNC;
        return;
    }
    if (*room < cmlen) {
        m->flags |= MSG_CTRUNC;
        cmlen = *room;
    }
    struct cmsghdr h = { cmlen, SOL_SOCKET, type };
    if (copy_to_user(t->mm, *pos, &h, sizeof h) ||
        copy_to_user(t->mm, *pos + sizeof h, data, cmlen - sizeof h))
        return;
    cmlen = CMSG_SPACE(n) < *room ? CMSG_SPACE(n) : *room;
    *pos += cmlen;
    *room -= cmlen;
}

/* Linux's scm_detach_fds: as many files as fit become fds; the rest are closed. */
static void detach_fds(struct thread *t, struct sock_msg *m, l4_word_t *pos, l4_word_t *room,
                       int flags)
{
    struct scm_fp *fp = m->fp;
    long fit = *pos && *room > sizeof(struct cmsghdr) ?
               (long)(*room - sizeof(struct cmsghdr)) / (long)sizeof(int) : 0;
    long fdmax = fit < (long)fp->count ? fit : (long)fp->count;
    long i;
    for (i = 0; i < fdmax; i++) {
        int fd = fd_unused(t, 0);
        if (fd < 0)
            break;
        if (copy_to_user(t->mm, *pos + sizeof(struct cmsghdr) + (l4_word_t)i * sizeof(int),
                         &fd, sizeof fd))
            break;
        file_get(fp->fp[i]);
        fd_install(t, fp->fp[i], (unsigned)fd, flags & MSG_CMSG_CLOEXEC);
    }
    if (i > 0) {
        struct cmsghdr h = { CMSG_LEN((l4_word_t)i * sizeof(int)), SOL_SOCKET, SCM_RIGHTS };
        if (!copy_to_user(t->mm, *pos, &h, sizeof h)) {
            l4_word_t cmlen = CMSG_SPACE((l4_word_t)i * sizeof(int));
            if (cmlen > *room)
                cmlen = *room;
            *pos += cmlen;
            *room -= cmlen;
        }
    }
    if (i < (long)fp->count || (fp->count && fdmax <= 0))
        m->flags |= MSG_CTRUNC;
    scm_release(m);                 /* the installed ones hold their own references */
}

int scm_emit(struct thread *t, struct socket *s, struct sock_msg *m, l4_word_t uctl,
             l4_word_t *len, int flags)
{
    l4_word_t pos = uctl, room = *len;
    if (SO_BOOL(s, SO_PASSCRED) && m->has_creds)
        put_cmsg(t, m, &pos, &room, SCM_CREDENTIALS, &m->creds, sizeof m->creds);
    if (m->fp)
        detach_fds(t, m, &pos, &room, flags);
    *len = pos - uctl;
    return 0;
}
