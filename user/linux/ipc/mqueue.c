/* POSIX message queues (mqueue.h), as Linux 6.1's ipc/mqueue.c behaves: a queue is an inode
 * of the mqueue file system (mode, owner and the VFS's permission check), named in one flat
 * directory (mode 01777: only the owner or root unlinks); its messages are kept in priority
 * order, FIFO within a priority; its size counts against RLIMIT_MSGQUEUE of the creator's
 * real user from creation until the inode goes.  A blocked send or receive parks on the
 * queue's wait queue and runs again at each change (a signal ends it with -ERESTARTSYS, as
 * Linux's wq_sleep); mq_notify's SIGEV_SIGNAL is queued as an SI_MESGQ siginfo
 * (signal/sigqueue.c) when a message arrives in an empty queue. */
#include "ipc/mqueue.h"
#include "fs/proc/proc.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "net/socket.h"
#include "net/netlink/netlink.h"
#include "park/park.h"
#include "signal/signal.h"
#include "signal/sigqueue.h"
#include "task/cred.h"
#include "task/pid.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/file.h"
#include "vfs/permission.h"
#include "vfs/poll.h"
#include <stdio.h>
#include <string.h>

#define MQUEUE_MAGIC   0x19800202
#define NAME_MAX       255
#define MQ_PRIO_MAX    32768
#define HARD_MSGMAX    65536
#define HARD_MSGSIZEMAX (16 * 1024 * 1024)
#define MSG_MSG_SIZE   48           /* Linux's struct msg_msg and posix_msg_tree_node: what */
#define TREE_NODE_SIZE 48           /* RLIMIT_MSGQUEUE counts besides the text */
#define FILENT_SIZE    80
#define SIGEV_SIGNAL   0
#define SIGEV_NONE     1
#define SIGEV_THREAD   2
#define RLIMIT_MSGQUEUE 12

static int msg_max = 10, msgsize_max = 8192, msg_default = 10, msgsize_default = 8192;
static int queues_max = 256;
static unsigned queues_count;

static struct sysctl mqueue_sysctls[] = {
    { .path = "fs/mqueue/msg_default", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &msg_default, .min = 1, .max = HARD_MSGMAX },
    { .path = "fs/mqueue/msg_max", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &msg_max, .min = 1, .max = HARD_MSGMAX },
    { .path = "fs/mqueue/msgsize_default", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &msgsize_default, .min = 128, .max = HARD_MSGSIZEMAX },
    { .path = "fs/mqueue/msgsize_max", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &msgsize_max, .min = 128, .max = HARD_MSGSIZEMAX },
    { .path = "fs/mqueue/queues_max", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &queues_max },
};
SYSCTL_TABLE(mqueue_sysctls)

/* A message's text is in pages of process memory; their addresses in tables of up to
 * TABLE_PAGES (one kmalloc object each, which is at most a page), so a message can be as
 * large as HARD_MSGSIZEMAX: 16 MiB is 4,096 pages in 8 tables. */
#define TABLE_PAGES    (LX_PAGE / sizeof(void *))
#define MAX_TABLES     ((HARD_MSGSIZEMAX / LX_PAGE + TABLE_PAGES - 1) / TABLE_PAGES)

struct mq_msg {
    struct mq_msg *next;
    unsigned prio;
    size_t len;
    unsigned npages;                /* of text; the tables hold that many addresses */
    void **tables[];
};

_Static_assert(sizeof(struct mq_msg) + MAX_TABLES * sizeof(void **) <= 4096,
               "a message's header is one kmalloc object");

static void **msg_page(struct mq_msg *m, unsigned i)
{
    return &m->tables[i / TABLE_PAGES][i % TABLE_PAGES];
}

#define NOTIFY_COOKIE_LEN 32        /* SIGEV_THREAD's cookie; its last byte says why: */
#define NOTIFY_WOKENUP    1
#define NOTIFY_REMOVED    2

struct mqueue {
    struct inode inode;             /* first */
    struct list link;               /* the names */
    char name[NAME_MAX + 1];
    struct mq_attr_k attr;
    struct mq_msg *msgs;            /* highest priority first, FIFO within one */
    unsigned long qsize;            /* QSIZE: the messages' bytes */
    struct waitq wait;              /* senders, receivers, pollers: any change wakes them */
    unsigned uid;                   /* the user its bytes count for ... */
    unsigned long bytes;            /* ... and how many */
    struct pid *notify_owner;       /* mq_notify's process (a reference), NULL: none */
    int notify, notify_signo;
    l4_word_t notify_value;
    struct socket *notify_sock;     /* SIGEV_THREAD: the C library's netlink socket (a
                                       reference) and the cookie it gets */
    uint8_t notify_cookie[NOTIFY_COOKIE_LEN];
};

static struct list queues = LIST_INIT(queues);

/* --- RLIMIT_MSGQUEUE: bytes per user -------------------------------------------------------- */

struct user_bytes {
    struct user_bytes *next;
    unsigned uid;
    unsigned long bytes;
};
static struct user_bytes *users;

static bool charge(unsigned uid, unsigned long n, uint64_t limit)
{
    struct user_bytes *u;
    for (u = users; u && u->uid != uid; u = u->next)
        ;
    if (!u) {
        if (!(u = kmalloc(sizeof *u)))
            return false;
        *u = (struct user_bytes){ .next = users, .uid = uid };
        users = u;
    }
    if (u->bytes + n > limit || u->bytes + n < n)
        return false;
    u->bytes += n;
    return true;
}

static void uncharge(unsigned uid, unsigned long n)
{
    for (struct user_bytes *u = users; u; u = u->next)
        if (u->uid == uid) {
            u->bytes -= n;
            return;
        }
}

/* --- the file system ------------------------------------------------------------------------ */

static unsigned ntables(unsigned npages)
{
    return (unsigned)((npages + TABLE_PAGES - 1) / TABLE_PAGES);
}

static void free_msg(struct mq_msg *m)
{
    for (unsigned t = 0; t < ntables(m->npages); t++) {
        if (!m->tables[t])
            break;
        for (unsigned i = t * TABLE_PAGES; i < m->npages && i < (t + 1) * TABLE_PAGES; i++)
            if (*msg_page(m, i))
                page_free(*msg_page(m, i));
        kfree(m->tables[t]);
    }
    kfree(m);
}

/* A message of `len` bytes with its tables, no text pages yet: NULL when out of memory. */
static struct mq_msg *alloc_msg(size_t len, unsigned prio)
{
    unsigned npages = (unsigned)((len + LX_PAGE - 1) / LX_PAGE);
    struct mq_msg *m = kmalloc(sizeof *m + ntables(npages) * sizeof(void **));
    if (!m)
        return NULL;
    *m = (struct mq_msg){ .prio = prio, .len = len, .npages = npages };
    for (unsigned t = 0; t < ntables(npages); t++) {
        unsigned n = npages - t * TABLE_PAGES < TABLE_PAGES ? npages - t * TABLE_PAGES
                                                               : TABLE_PAGES;
        if (!(m->tables[t] = kmalloc(n * sizeof(void *)))) {
            free_msg(m);
            return NULL;
        }
    }
    return m;
}

static void mqueue_evict(struct inode *i)
{
    struct mqueue *q = (struct mqueue *)i;
    while (q->msgs) {
        struct mq_msg *m = q->msgs;
        q->msgs = m->next;
        free_msg(m);
    }
    if (q->notify_owner)
        pid_put(q->notify_owner);
    if (q->notify_sock)
        sock_put(q->notify_sock);
    uncharge(q->uid, q->bytes);
    queues_count--;
    kfree(q);
}

static const struct fs_type mqueue_type = {
    .name = "mqueue", .magic = MQUEUE_MAGIC, .nodev = true, .evict = mqueue_evict,
};
static struct inode mqueue_root = { .mode = S_IFDIR | S_ISVTX | 0777, .nlink = 2, .ino = 1 };
static struct super_block mqueue_sb = { .type = &mqueue_type, .dev = 0x12,
                                        .root = &mqueue_root, .next_ino = 1 };

static struct mqueue *lookup(const char *name)
{
    struct mqueue *q;
    list_each(q, &queues, link)
        if (!strcmp(q->name, name))
            return q;
    return NULL;
}

static const struct file_ops mqueue_fops;

static struct mqueue *mq_of(struct thread *t, int fd, struct file **fp)
{
    struct file *f = fd_get(t, fd);
    if (!f || f->ops != &mqueue_fops)
        return NULL;
    *fp = f;
    return (struct mqueue *)f->inode;
}

/* SIGEV_THREAD's cookie to its socket, its last byte saying why (Linux's set_cookie and
 * netlink_sendskb): the registration's socket reference goes. */
static void notify_thread(struct mqueue *q, uint8_t why)
{
    q->notify_cookie[NOTIFY_COOKIE_LEN - 1] = why;
    netlink_kernel_send(nlk_sk(q->notify_sock), q->notify_cookie, NOTIFY_COOKIE_LEN, false);
    sock_put(q->notify_sock);
    q->notify_sock = NULL;
}

/* The notification goes (mq_notify(NULL), its delivery, its owner closing the queue). */
static void notify_remove(struct mqueue *q)
{
    if (q->notify_sock)
        notify_thread(q, NOTIFY_REMOVED);
    if (q->notify_owner)
        pid_put(q->notify_owner);
    q->notify_owner = NULL;
}

/* A message arrived in the empty queue: the registered process is told once. */
static void notify_fire(struct thread *sender, struct mqueue *q)
{
    if (!q->notify_owner || q->attr.mq_curmsgs != 1)
        return;
    struct process *p = q->notify_owner->proc;
    if (q->notify == SIGEV_SIGNAL && q->notify_signo && p && p->state == PROCESS_LIVE) {
        struct k_siginfo info = { .code = SI_MESGQ, .pid = thread_pid(sender),
                                  .uid = (int)sender->proc->cred.uid,
                                  .value = q->notify_value };
        signal_send_info(p, q->notify_signo, &info);
    }
    if (q->notify_sock)
        notify_thread(q, NOTIFY_WOKENUP);
    notify_remove(q);
}

static long mq_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t;
    struct mqueue *q = (struct mqueue *)f->inode;
    char buf[FILENT_SIZE];
    bool sig = q->notify_owner && q->notify == SIGEV_SIGNAL;
    int n = snprintf(buf, sizeof buf, "QSIZE:%-10lu NOTIFY:%-5d SIGNO:%-5d NOTIFY_PID:%d\n",
                     q->qsize, q->notify_owner ? q->notify : 0, sig ? q->notify_signo : 0,
                     q->notify_owner ? q->notify_owner->nr : 0);
    if (*pos >= (l4_word_t)n)
        return 0;
    l4_word_t done = uio_copy_out(u, buf + *pos, (l4_word_t)n - *pos);
    if (!done && u->fault)
        return -EFAULT;
    *pos += done;
    return (long)done;
}

static unsigned mq_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct mqueue *q = (struct mqueue *)f->inode;
    if (pt)
        poll_wait(pt, &q->wait);
    unsigned r = q->attr.mq_curmsgs ? POLLIN | POLLRDNORM : 0;
    if (q->attr.mq_curmsgs < q->attr.mq_maxmsg)
        r |= POLLOUT | POLLWRNORM;
    return r;
}

static void mq_release(struct file *f)
{
    struct mqueue *q = (struct mqueue *)f->inode;
    /* Linux removes it at any close by the owner; lx when an open file of it goes while its
     * owner is gone or closed it (the file does not know who closes it). */
    if (q->notify_owner && (!q->notify_owner->proc ||
                            q->notify_owner->proc->state != PROCESS_LIVE))
        notify_remove(q);
}

static const struct file_ops mqueue_fops = {
    .read = mq_read, .poll = mq_poll, .release = mq_release, .llseek = dir_llseek,
};

/* --- the calls -------------------------------------------------------------------------------- */

static long create(struct thread *t, const char *name, unsigned mode,
                   const struct mq_attr_k *attr, struct mqueue **out)
{
    bool resource = vfs_capable(t, CAP_SYS_RESOURCE);
    if (queues_count >= (unsigned)queues_max && !resource)
        return -ENOSPC;
    long maxmsg = attr ? attr->mq_maxmsg : msg_default;
    long msgsize = attr ? attr->mq_msgsize : msgsize_default;
    if (maxmsg <= 0 || msgsize <= 0)
        return -EINVAL;
    if (resource ? maxmsg > HARD_MSGMAX || msgsize > HARD_MSGSIZEMAX
                 : maxmsg > msg_max || msgsize > msgsize_max)
        return -EINVAL;
    unsigned long bytes = (unsigned long)maxmsg * (unsigned long)msgsize +
                          (unsigned long)maxmsg * MSG_MSG_SIZE +
                          (unsigned long)(maxmsg < MQ_PRIO_MAX ? maxmsg : MQ_PRIO_MAX) *
                          TREE_NODE_SIZE;
    unsigned uid = t->proc->cred.uid;
    if (!charge(uid, bytes, t->proc->rlim[RLIMIT_MSGQUEUE].cur))
        return -EMFILE;
    mqueue_root.sb = &mqueue_sb;
    mqueue_root.parent = &mqueue_root;
    struct mqueue *q = (struct mqueue *)inode_alloc(&mqueue_sb, sizeof *q,
                                                    S_IFREG | (mode & ~t->fs->umask & 07777));
    if (!q) {
        uncharge(uid, bytes);
        return -ENOMEM;
    }
    q->inode.uid = vfs_fsuid(t);
    q->inode.gid = vfs_fsgid(t);
    q->inode.nlink = 1;
    q->inode.size = FILENT_SIZE;
    q->attr = (struct mq_attr_k){ .mq_maxmsg = maxmsg, .mq_msgsize = msgsize };
    q->uid = uid;
    q->bytes = bytes;
    strcpy(q->name, name);
    list_add_tail(&queues, &q->link);
    queues_count++;
    *out = q;
    return 0;
}

long mq_open_k(struct thread *t, const char *name, int oflag, unsigned mode,
               const struct mq_attr_k *attr)
{
    int fd = fd_unused(t, 0);
    if (fd < 0)
        return fd;
    if (strchr(name, '/'))
        return -EACCES;
    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return -EACCES;
    struct mqueue *q = lookup(name);
    long e;
    if (!q) {
        if (!(oflag & O_CREAT))
            return -ENOENT;
        if ((e = create(t, name, mode, attr, &q)))
            return e;
    } else {
        static const int acc[3] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE };
        if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
            return -EEXIST;
        if ((oflag & O_ACCMODE) == O_ACCMODE)
            return -EINVAL;
        if ((e = inode_permission(t, &q->inode, acc[oflag & O_ACCMODE])))
            return e;
    }
    int err;
    struct file *f = file_open(t, &q->inode, (unsigned)oflag & (O_ACCMODE | O_NONBLOCK),
                               &mqueue_fops, &err);
    if (!f)
        return err;
    fd = fd_install(t, f, 0, true);    /* the fd takes the file's reference */
    if (fd < 0)
        file_put(f);
    return fd;
}

long mq_unlink_k(struct thread *t, const char *name)
{
    if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return -EACCES;
    if (strlen(name) > NAME_MAX)
        return -ENAMETOOLONG;
    struct mqueue *q = lookup(name);
    if (!q)
        return -ENOENT;
    /* The queue's owner or CAP_FOWNER (Linux 6.1 answers EACCES to another user). */
    if (q->inode.uid != vfs_fsuid(t) && !vfs_capable(t, CAP_FOWNER))
        return -EACCES;
    list_del(&q->link);
    list_init(&q->link);
    inode_drop_link(&q->inode);
    return 0;
}

/* How a blocked send or receive waits: -EAGAIN (O_NONBLOCK), -ETIMEDOUT, or parked. */
static long wait(struct thread *t, struct file *f, struct mqueue *q, uint64_t timeout)
{
    if (f->flags & O_NONBLOCK)
        return -EAGAIN;
    if (timeout && lx_now() >= timeout)
        return -ETIMEDOUT;
    waitq_add(&q->wait, t);
    return park_call(t, timeout, -ERESTARTSYS);
}

long mq_send_k(struct thread *t, int fd, l4_word_t umsg, size_t len, unsigned prio,
               uint64_t timeout)
{
    if (prio >= MQ_PRIO_MAX)
        return -EINVAL;
    struct file *f;
    struct mqueue *q = mq_of(t, fd, &f);
    if (!q || (f->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if (len > (size_t)q->attr.mq_msgsize)
        return -EMSGSIZE;
    struct mq_msg *m = alloc_msg(len, prio);
    if (!m)
        return -ENOMEM;
    /* Text is process memory: a sender that exhausts it gets ENOMEM, lx keeps its reserve. */
    for (unsigned i = 0; i < m->npages; i++) {
        size_t n = len - i * LX_PAGE < LX_PAGE ? len - i * LX_PAGE : LX_PAGE;
        void **page = msg_page(m, i);
        if (!(*page = page_alloc_user()) ||
            copy_from_user(t->mm, *page, umsg + i * LX_PAGE, n)) {
            bool fault = *page != NULL;
            free_msg(m);
            return fault ? -EFAULT : -ENOMEM;
        }
    }
    if (q->attr.mq_curmsgs >= q->attr.mq_maxmsg) {
        free_msg(m);                /* read again when the call runs again */
        return wait(t, f, q, timeout);
    }
    struct mq_msg **pp = &q->msgs;
    while (*pp && (*pp)->prio >= prio)
        pp = &(*pp)->next;
    m->next = *pp;
    *pp = m;
    q->attr.mq_curmsgs++;
    q->qsize += len;
    inode_touch(&q->inode, true);
    notify_fire(t, q);
    waitq_wake(&q->wait);
    return 0;
}

long mq_receive_k(struct thread *t, int fd, l4_word_t umsg, size_t len, l4_word_t uprio,
                  uint64_t timeout)
{
    struct file *f;
    struct mqueue *q = mq_of(t, fd, &f);
    if (!q || (f->flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    if (len < (size_t)q->attr.mq_msgsize)
        return -EMSGSIZE;
    if (!q->attr.mq_curmsgs)
        return wait(t, f, q, timeout);
    struct mq_msg *m = q->msgs;
    q->msgs = m->next;
    q->attr.mq_curmsgs--;
    q->qsize -= m->len;
    inode_touch(&q->inode, true);
    waitq_wake(&q->wait);
    long r = (long)m->len;
    if (uprio && copy_to_user(t->mm, uprio, &m->prio, sizeof m->prio))
        r = -EFAULT;
    for (unsigned i = 0; r >= 0 && i < m->npages; i++) {
        size_t n = m->len - i * LX_PAGE < LX_PAGE ? m->len - i * LX_PAGE : LX_PAGE;
        if (copy_to_user(t->mm, umsg + i * LX_PAGE, *msg_page(m, i), n))
            r = -EFAULT;            /* the message is gone, as on Linux */
    }
    free_msg(m);
    return r;
}

long mq_notify_k(struct thread *t, int fd, const int *notify, int signo, l4_word_t value,
                 l4_word_t cookie)
{
    if (notify) {
        if (*notify != SIGEV_NONE && *notify != SIGEV_SIGNAL && *notify != SIGEV_THREAD)
            return -EINVAL;
        if (*notify == SIGEV_SIGNAL && (signo < 0 || signo > 64))
            return -EINVAL;
    }
    struct socket *sock = NULL;
    uint8_t c[NOTIFY_COOKIE_LEN];
    if (notify && *notify == SIGEV_THREAD) {
        /* The C library's netlink socket gets the cookie (Linux's order of checks) */
        if (copy_from_user(t->mm, c, cookie, sizeof c))
            return -EFAULT;
        int err;
        if (!(sock = netlink_sock_from_fd(t, signo, &err)))
            return err;
    }
    struct file *f;
    struct mqueue *q = mq_of(t, fd, &f);
    long r = !q ? -EBADF : notify && q->notify_owner ? -EBUSY : 0;
    if (r || !notify) {
        if (sock)
            sock_put(sock);
        if (!r && q->notify_owner == t->proc->pid)
            notify_remove(q);
        return r;
    }
    q->notify_sock = sock;
    if (sock)
        memcpy(q->notify_cookie, c, sizeof c);
    q->notify = *notify;
    q->notify_signo = signo;
    q->notify_value = value;
    q->notify_owner = t->proc->pid;
    pid_get(q->notify_owner);
    return 0;
}

long mq_getsetattr_k(struct thread *t, int fd, const struct mq_attr_k *new,
                     struct mq_attr_k *old)
{
    if (new && (new->mq_flags & ~(long)O_NONBLOCK))
        return -EINVAL;
    struct file *f;
    struct mqueue *q = mq_of(t, fd, &f);
    if (!q)
        return -EBADF;
    if (old) {
        *old = q->attr;
        old->mq_flags = f->flags & O_NONBLOCK;
    }
    if (new)
        f->flags = (f->flags & ~(unsigned)O_NONBLOCK) | (unsigned)(new->mq_flags & O_NONBLOCK);
    return 0;
}

void mqueue_shutdown(void)
{
    struct mqueue *q, *n;
    list_each_safe(q, n, &queues, link) {
        list_del(&q->link);
        list_init(&q->link);
        inode_drop_link(&q->inode);     /* no fd is left: it goes now */
    }
    while (users) {
        struct user_bytes *u = users;
        users = u->next;
        kfree(u);
    }
}
