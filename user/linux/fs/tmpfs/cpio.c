/* The initramfs: newc cpio archives (magic 070701), possibly several concatenated, unpacked
 * into tmpfs in archive order as Linux does: a later entry replaces an earlier one of the
 * same name (a directory is kept and takes the new mode), parents must come first, and a
 * regular file's bytes stay in the module (read-only) until it is changed.  Entries with
 * nlink > 1 and the same inode number become hard links of one file. */
#include "fs/tmpfs/tmpfs.h"
#include "lib/errno.h"
#include <stdio.h>
#include <string.h>

#define HDR 110
#define MAX_LINKS 64

static struct { unsigned long ino; struct tmpfs_node *node; } links[MAX_LINKS];
static unsigned nlinks;

static bool hex8(const char *s, unsigned long *v)
{
    *v = 0;
    for (int k = 0; k < 8; k++) {
        char c = s[k];
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') :
                     c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10) :
                     c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (d == 16)
            return false;
        *v = *v << 4 | d;
    }
    return true;
}

static l4_word_t pad4(l4_word_t x)
{
    return (x + 3) & ~3ul;
}

/* The directory of the previous entry: an archive lists a directory's entries together, so
 * most walks end where the last one did (a Debian root: 7,300 entries, paths 5 deep).
 * Forgotten whenever an entry replaces another (the directory may be the one removed). */
static struct {
    char path[PATH_MAX];            /* up to and including the last '/' */
    size_t len;
    struct inode *dir;
} last_parent;

/* Walk the archive path (no symlinks followed: Linux's unpacker does not either) to its
 * parent directory; NULL if a parent is missing. */
static struct inode *parent_of(const char *path, const char **last)
{
    const char *slash = strrchr(path, '/');
    size_t plen = slash ? (size_t)(slash - path) + 1 : 0;
    if (last_parent.dir && plen && plen == last_parent.len && slash[1] &&
        !memcmp(path, last_parent.path, plen)) {
        *last = slash + 1;
        return last_parent.dir;
    }
    struct inode *dir = root_sb->root;
    const char *s = path;
    for (;;) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        const char *n = e;
        while (*n == '/')
            n++;
        if (!*n) {
            *last = s;
            if (s > path && s - path < PATH_MAX && s[-1] == '/' && strchr(s, '/') == NULL) {
                last_parent.len = (size_t)(s - path);
                memcpy(last_parent.path, path, last_parent.len);
                last_parent.dir = dir;
            }
            return dir;
        }
        struct inode *i = tmpfs_lookup(dir, s, (size_t)(e - s));
        if (!i || !S_ISDIR(i->mode))
            return NULL;
        dir = i;
        s = n;
    }
}

static int add_entry(const char *path, unsigned long f[13], const char *data)
{
    unsigned long ino = f[0], mode = f[1], nlink = f[4], size = f[6];
    if (!strcmp(path, ".") || !*path)
        return 0;
    const char *last = NULL;
    struct inode *dir = parent_of(path, &last);
    size_t len = strlen(last);
    while (len && last[len - 1] == '/')
        len--;
    if (!dir || !len)
        return -ENOENT;
    struct inode *old = tmpfs_lookup(dir, last, len);
    if (old && S_ISDIR(old->mode) && S_ISDIR(mode)) {
        old->mode = (unsigned)mode, old->uid = (unsigned)f[2], old->gid = (unsigned)f[3];
        return 0;
    }
    if (old && S_ISDIR(old->mode) && tmpfs_node(old)->entries)
        return -EEXIST;
    if (old) {
        tmpfs_unlink(dir, last, len);
        last_parent.dir = NULL;
    }
    struct tmpfs_node *n = NULL;
    bool hard = S_ISREG(mode) && nlink > 1;
    for (unsigned k = 0; hard && k < nlinks && !n; k++)
        if (links[k].ino == ino)
            n = links[k].node;
    if (!n) {
        n = tmpfs_new(dir->sb, (unsigned)mode);
        if (!n)
            return -ENOSPC;
        if (hard && nlinks < MAX_LINKS)
            links[nlinks].ino = ino, links[nlinks++].node = n;
    }
    struct inode *i = &n->i;
    i->uid = (unsigned)f[2], i->gid = (unsigned)f[3];
    i->atime = i->mtime = i->ctime = (uint64_t)f[5] * 1000000000ull;
    i->rdev_major = (unsigned)f[9], i->rdev_minor = (unsigned)f[10];
    int e = 0;
    if (S_ISREG(mode) && size) {
        tmpfs_drop_pages(n);        /* a hard link's earlier data, if any */
        n->ro = data;               /* the module's bytes until the first change */
        i->size = size;
    } else if (S_ISLNK(mode)) {
        e = tmpfs_set_target(n, data, size);
    }
    if (!e)
        e = tmpfs_link(dir, last, len, i);
    if (e && !i->nlink) {
        i->nlink = 1;
        inode_drop_link(i);
    }
    return e;
}

long cpio_unpack(const char *data, l4_word_t size)
{
    l4_word_t off = 0;
    long n = 0;
    static char name[PATH_MAX];
    nlinks = 0;
    last_parent.dir = NULL;
    while (off + HDR <= size) {
        const char *h = data + off;
        if (memcmp(h, "070701", 6) && memcmp(h, "070702", 6)) {
            if (!h[0]) {                /* zero padding between concatenated archives */
                off += 4;
                continue;
            }
            printf("lx: initramfs: bad header at %lu\n", off);
            return -EINVAL;
        }
        unsigned long f[13];
        for (int k = 0; k < 13; k++)
            if (!hex8(h + 6 + 8 * k, &f[k])) {
                printf("lx: initramfs: bad header at %lu\n", off);
                return -EINVAL;
            }
        unsigned long namesize = f[11], filesize = f[6];
        if (!namesize || namesize > PATH_MAX || off + HDR + namesize > size) {
            printf("lx: initramfs: bad name at %lu\n", off);
            return -EINVAL;
        }
        memcpy(name, h + HDR, namesize);
        name[namesize - 1] = 0;
        l4_word_t doff = pad4(off + HDR + namesize);
        if (doff > size || size - doff < filesize) {
            printf("lx: initramfs: truncated at %lu\n", off);
            return -EINVAL;
        }
        off = pad4(doff + filesize);
        if (!strcmp(name, "TRAILER!!!")) {
            nlinks = 0;             /* inode numbers are per archive */
            continue;
        }
        int e = add_entry(name, f, data + doff);
        if (e)
            printf("lx: initramfs: %s: error %d\n", name, -e);
        else
            n++;
    }
    return n;
}
