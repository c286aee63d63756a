/* AF_UNIX names (docs/linux/sockets.md, "Names"): a socket file made in the tree by bind
 * (S_IFSOCK through the VFS's mknod, so every error of the path is the VFS's), an abstract
 * name (sun_path[0] == 0: bytes, not a string, per socket type as Linux hashes them), or
 * an autobind name ("\0" and five hex digits).  One table holds every bound socket: found
 * by the inode its file has, or by its abstract bytes. */
#include "net/unix/af_unix.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/random.h"
#include <stdio.h>
#include <string.h>

static struct list bound = LIST_INIT(bound);

int unix_validate_addr(const char *addr, int len)
{
    if (len <= UNIX_ADDR_MIN || len > UNIX_ADDR_MAX)
        return -EINVAL;
    unsigned short family;
    memcpy(&family, addr, sizeof family);
    return family == AF_UNIX ? 0 : -EINVAL;
}

/* Linux's unix_mkname_bsd: the path ends at the address's end (or its first NUL); the
 * name's length is the family, the path and its NUL.  path: lx's copy (UNIX_ADDR_MAX). */
static int mkname_bsd(const char *addr, int len, char *path)
{
    memcpy(path, addr + UNIX_ADDR_MIN, (size_t)(len - UNIX_ADDR_MIN));
    path[len - UNIX_ADDR_MIN] = 0;
    return (int)strlen(path) + UNIX_ADDR_MIN + 1;
}

static void insert(struct unix_sock *u, struct unix_addr *a)
{
    u->addr = a;
    list_add_tail(&bound, &u->bound_link);
}

static struct unix_sock *find_abstract(const char *name, int len, int type)
{
    struct unix_sock *u;
    list_each(u, &bound, bound_link)
        if (!u->path && u->sock.type == type && u->addr->len == len &&
            !memcmp(u->addr->name, name, (size_t)len))
            return u;
    return NULL;
}

static struct unix_addr *new_addr(const char *name, int len)
{
    struct unix_addr *a = kmalloc(sizeof *a);
    if (a) {
        a->len = len;
        memcpy(a->name, name, (size_t)len);
    }
    return a;
}

static int bind_bsd(struct thread *t, struct unix_sock *u, const char *addr, int len)
{
    static char path[UNIX_ADDR_MAX + 1], last[NAME_MAX + 1];
    int alen = mkname_bsd(addr, len, path);
    struct unix_addr *a = kmalloc(sizeof *a);
    if (!a)
        return -ENOMEM;
    a->len = alen;
    memcpy(a->name, addr, UNIX_ADDR_MIN);
    memcpy(a->name + UNIX_ADDR_MIN, path, (size_t)(alen - UNIX_ADDR_MIN));
    int err;
    bool trailing;
    struct inode *dir = path_parent(t, NULL, path, last, &trailing, &err);
    if (dir)
        err = vfs_mknod(t, dir, last, trailing, S_IFSOCK | 0777, 0, 0);
    if (!dir || err) {
        kfree(a);
        return err == -EEXIST ? -EADDRINUSE : err;
    }
    if (u->addr) {                  /* bound already: Linux made the file first */
        vfs_unlink(t, dir, last, false);
        kfree(a);
        return -EINVAL;
    }
    struct inode *i = vfs_lookup(t, dir, last, strlen(last));
    inode_get(i);
    u->path = i;
    insert(u, a);
    return 0;
}

static int bind_abstract(struct unix_sock *u, const char *addr, int len)
{
    if (u->addr)
        return -EINVAL;
    if (find_abstract(addr, len, u->sock.type))
        return -EADDRINUSE;
    struct unix_addr *a = new_addr(addr, len);
    if (!a)
        return -ENOMEM;
    insert(u, a);
    return 0;
}

int unix_autobind(struct unix_sock *u)
{
    if (u->addr)
        return 0;
    char name[UNIX_ADDR_MIN + 6 + 1] = { AF_UNIX, 0, 0 };
    unsigned order;
    lx_random_bytes(&order, sizeof order);
    for (unsigned tries = 0; tries <= 0xFFFFF; tries++) {
        order = (order + 1) & 0xFFFFF;
        snprintf(name + UNIX_ADDR_MIN + 1, 6, "%05x", order);
        if (!find_abstract(name, UNIX_ADDR_MIN + 6, u->sock.type)) {
            struct unix_addr *a = new_addr(name, UNIX_ADDR_MIN + 6);
            if (!a)
                return -ENOMEM;
            insert(u, a);
            return 0;
        }
    }
    return -ENOSPC;
}

int unix_bind(struct thread *t, struct socket *s, const char *addr, int len)
{
    unsigned short family;
    memcpy(&family, addr, sizeof family);
    if (len == UNIX_ADDR_MIN && family == AF_UNIX)
        return unix_autobind(unix_sk(s));
    int err = unix_validate_addr(addr, len);
    if (err)
        return err;
    return addr[UNIX_ADDR_MIN] ? bind_bsd(t, unix_sk(s), addr, len)
                               : bind_abstract(unix_sk(s), addr, len);
}

void unix_unbind(struct unix_sock *u)
{
    if (!u->addr)
        return;
    if (list_linked(&u->bound_link))
        list_del(&u->bound_link);
    if (u->path)
        inode_put(u->path);
    u->path = NULL;
}

struct unix_sock *unix_find_other(struct thread *t, const char *addr, int len, int type,
                                  int *err)
{
    struct unix_sock *u = NULL;
    if (addr[UNIX_ADDR_MIN]) {
        static char path[UNIX_ADDR_MAX + 1];
        mkname_bsd(addr, len, path);
        struct inode *i = path_walk(t, NULL, path, true, err);
        if (!i)
            return NULL;
        if ((*err = inode_permission(t, i, MAY_WRITE)))
            return NULL;
        *err = -ECONNREFUSED;
        if ((i->mode & S_IFMT) != S_IFSOCK)
            return NULL;
        struct unix_sock *b;
        list_each(b, &bound, bound_link)
            if (b->path == i) {
                u = b;
                break;
            }
        if (!u)
            return NULL;
        if (u->sock.type != type) {
            *err = -EPROTOTYPE;
            return NULL;
        }
    } else if (!(u = find_abstract(addr, len, type))) {
        *err = -ECONNREFUSED;
        return NULL;
    }
    sock_get(&u->sock);
    return u;
}
