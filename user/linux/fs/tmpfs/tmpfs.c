/* tmpfs: the RAM file system behind lx's tree.  Directories are lists of names; a regular
 * file's bytes are either the initramfs module's (read-only, never freed, so the ELF loader
 * can run them in place) or, from its first change on, lx pages named by one index page
 * (at most TMPFS_MAX_PAGES pages: EFBIG beyond); symlinks keep their target. */
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "time/clock.h"
#include <string.h>

struct inode *tmpfs_root;
static unsigned long next_ino = 1;

uint64_t vfs_now(void)
{
    return clock_realtime();        /* CLOCK_REALTIME (time/clock.c) */
}

void inode_touch(struct inode *i, bool modified)
{
    uint64_t now = vfs_now();
    if (modified)
        i->mtime = now;
    i->ctime = now;
}

struct inode *tmpfs_new(unsigned mode)
{
    struct inode *i = kmalloc(sizeof *i);
    if (!i)
        return NULL;
    i->mode = mode;
    i->ino = next_ino++;
    i->atime = i->mtime = i->ctime = vfs_now();
    i->next_cookie = 2;
    return i;
}

static void drop_data(struct inode *i)
{
    if (i->pages) {
        for (unsigned p = 0; p < TMPFS_MAX_PAGES; p++)
            if (i->pages[p])
                page_put(i->pages[p]);  /* a MAP_SHARED mapping may hold it still */
        page_free(i->pages);
        i->pages = NULL;
    }
    i->ro = NULL;
}

void inode_put(struct inode *i);

static void inode_free(struct inode *i)
{
    struct inode *from = i->removed_from;
    drop_data(i);
    kfree(i->target);
    kfree(i);
    if (from)
        inode_put(from);
}

void inode_get(struct inode *i)
{
    i->refs++;
    if (i->sb)
        i->sb->refs++;              /* umount: busy (unlinked files too) */
}

void inode_put(struct inode *i)
{
    if (i->sb)
        i->sb->refs--;
    if (--i->refs == 0 && i->nlink == 0)
        inode_free(i);
}

bool tmpfs_init(void)
{
    tmpfs_root = tmpfs_new(S_IFDIR | 0755);
    if (!tmpfs_root)
        return false;
    tmpfs_root->nlink = 2;
    tmpfs_root->parent = tmpfs_root;
    tmpfs_root->refs = 1;           /* the mount's */
    return mount_root_init();
}

/* Free a subtree bottom up; an inode still linked elsewhere (hard links) only loses one. */
static void free_tree(struct inode *dir, struct inode *root)
{
    struct dentry *d = dir->entries;
    while (d) {
        struct dentry *next = d->next;
        struct inode *i = d->inode;
        if (S_ISDIR(i->mode))
            free_tree(i, root);
        else if (--i->nlink == 0 && i->refs == 0)
            inode_free(i);
        kfree(d);
        d = next;
    }
    dir->entries = NULL;
    dir->nlink = 0;
    dir->parent = NULL;
    if (dir->refs == 0 || dir == root)
        inode_free(dir);
}

void tmpfs_shutdown(void)
{
    if (tmpfs_root)
        free_tree(tmpfs_root, tmpfs_root);
    tmpfs_root = NULL;
}

/* --- tmpfs as a mountable type (vfs/mount.c) --- */

static int tmpfs_fill(struct super_block *sb)
{
    struct inode *r = tmpfs_new(S_IFDIR | 01777);
    if (!r)
        return -ENOMEM;
    r->nlink = 2;
    r->parent = r;
    r->refs = 1;                    /* the mount's */
    r->sb = sb;
    sb->root = r;
    return 0;
}

static bool tmpfs_busy(struct super_block *sb)
{
    return sb->refs != 0;           /* the root's own reference (the mount's) is not counted */
}

static void tmpfs_kill(struct super_block *sb)
{
    free_tree(sb->root, sb->root);
}

const struct fs_type tmpfs_type = { "tmpfs", TMPFS_MAGIC, tmpfs_fill, tmpfs_busy, tmpfs_kill };

struct inode *tmpfs_lookup(struct inode *dir, const char *name, size_t len)
{
    for (struct dentry *d = dir->entries; d; d = d->next)
        if (d->len == len && !memcmp(d->name, name, len))
            return d->inode;
    return NULL;
}

bool tmpfs_dir_empty(struct inode *dir)
{
    return dir->entries == NULL;
}

int tmpfs_link(struct inode *dir, const char *name, size_t len, struct inode *i)
{
    if (len > NAME_MAX)
        return -ENAMETOOLONG;
    struct dentry *d = kmalloc(sizeof *d + len + 1);
    if (!d)
        return -ENOMEM;
    d->inode = i;
    d->len = (unsigned char)len;
    memcpy(d->name, name, len);
    d->cookie = dir->next_cookie++;
    struct dentry **pp = &dir->entries;
    while (*pp)
        pp = &(*pp)->next;
    *pp = d;
    i->nlink++;
    if (!i->sb)
        i->sb = dir->sb;
    if (S_ISDIR(i->mode)) {
        i->nlink++;                 /* its "." */
        i->parent = dir;
        dir->nlink++;               /* its ".." */
    }
    inode_touch(dir, true);
    inode_touch(i, false);
    return 0;
}

int tmpfs_unlink(struct inode *dir, const char *name, size_t len)
{
    for (struct dentry **pp = &dir->entries; *pp; pp = &(*pp)->next) {
        struct dentry *d = *pp;
        if (d->len != len || memcmp(d->name, name, len))
            continue;
        struct inode *i = d->inode;
        *pp = d->next;
        kfree(d);
        inode_touch(dir, true);
        inode_touch(i, false);
        if (S_ISDIR(i->mode)) {
            dir->nlink--;
            i->nlink = 0;
            i->parent = NULL;
            if (i->refs) {          /* still someone's cwd: its ".." stays the old parent */
                i->removed_from = dir;
                inode_get(dir);
            }
        } else {
            i->nlink--;
        }
        if (i->nlink == 0 && i->refs == 0)
            inode_free(i);
        return 0;
    }
    return -ENOENT;
}

/* The module's bytes become pages (the first change of an initramfs file). */
static int own_pages(struct inode *i)
{
    if (i->pages)
        return 0;
    if (i->size > (l4_word_t)TMPFS_MAX_PAGES * LX_PAGE)
        return -EFBIG;
    void **pages = page_alloc();
    if (!pages)
        return -ENOMEM;
    for (l4_word_t p = 0; i->ro && p * LX_PAGE < i->size; p++) {
        pages[p] = page_alloc();
        if (!pages[p]) {
            for (l4_word_t q = 0; q < p; q++)
                page_free(pages[q]);
            page_free(pages);
            return -ENOMEM;
        }
        l4_word_t n = i->size - p * LX_PAGE < LX_PAGE ? i->size - p * LX_PAGE : LX_PAGE;
        memcpy(pages[p], i->ro + p * LX_PAGE, n);
    }
    i->pages = pages;
    i->ro = NULL;
    return 0;
}

void *tmpfs_page(struct inode *i, l4_word_t index)
{
    if (index >= TMPFS_MAX_PAGES || own_pages(i))
        return NULL;
    if (!i->pages[index])
        i->pages[index] = page_alloc();     /* a hole gets its page */
    return i->pages[index];
}

long tmpfs_read(struct inode *i, char *buf, l4_word_t n, l4_word_t pos)
{
    if (pos >= i->size)
        return 0;
    if (n > i->size - pos)
        n = i->size - pos;
    if (i->ro) {
        memcpy(buf, i->ro + pos, n);
    } else {
        for (l4_word_t done = 0; done < n;) {
            l4_word_t p = (pos + done) / LX_PAGE, off = (pos + done) % LX_PAGE;
            l4_word_t k = LX_PAGE - off < n - done ? LX_PAGE - off : n - done;
            if (i->pages && i->pages[p])
                memcpy(buf + done, (char *)i->pages[p] + off, k);
            else
                memset(buf + done, 0, k);
            done += k;
        }
    }
    i->atime = vfs_now();
    return (long)n;
}

long tmpfs_write(struct inode *i, const char *buf, l4_word_t n, l4_word_t pos)
{
    l4_word_t max = (l4_word_t)TMPFS_MAX_PAGES * LX_PAGE;
    if (pos >= max)
        return n ? -EFBIG : 0;
    if (n > max - pos)
        n = max - pos;
    int e = own_pages(i);
    if (e)
        return e == -ENOMEM ? -ENOSPC : e;  /* tmpfs's word for it */
    l4_word_t done = 0;
    while (done < n) {
        l4_word_t p = (pos + done) / LX_PAGE, off = (pos + done) % LX_PAGE;
        l4_word_t k = LX_PAGE - off < n - done ? LX_PAGE - off : n - done;
        if (!i->pages[p] && !(i->pages[p] = page_alloc()))
            break;
        memcpy((char *)i->pages[p] + off, buf + done, k);
        done += k;
    }
    if (pos + done > i->size)
        i->size = pos + done;
    if (done)
        inode_touch(i, true);
    return done ? (long)done : -ENOSPC;
}

int tmpfs_truncate(struct inode *i, l4_word_t size)
{
    if (size > (l4_word_t)TMPFS_MAX_PAGES * LX_PAGE)
        return -EFBIG;
    int e = own_pages(i);
    if (e)
        return e;
    /* Pages wholly past the end go; the tail of the last one is zeroed for a later grow. */
    for (l4_word_t p = (size + LX_PAGE - 1) / LX_PAGE; p < TMPFS_MAX_PAGES; p++)
        if (i->pages[p]) {
            page_put(i->pages[p]);      /* a MAP_SHARED mapping may hold it still */
            i->pages[p] = NULL;
        }
    if (size % LX_PAGE && i->pages[size / LX_PAGE])
        memset((char *)i->pages[size / LX_PAGE] + size % LX_PAGE, 0, LX_PAGE - size % LX_PAGE);
    i->size = size;
    inode_touch(i, true);
    return 0;
}

int tmpfs_set_target(struct inode *i, const char *target, size_t len)
{
    char *t = kmalloc(len + 1);
    if (!t)
        return -ENOMEM;
    memcpy(t, target, len);
    t[len] = 0;
    kfree(i->target);
    i->target = t;
    i->size = len;
    return 0;
}

/* Move a name (rename): the new name replaces whatever ndir had under it (the caller has
 * checked that it may).  Nothing changes if memory runs out. */
int tmpfs_move(struct inode *odir, const char *oname, size_t olen, struct inode *ndir,
               const char *nname, size_t nlen)
{
    if (nlen > NAME_MAX)
        return -ENAMETOOLONG;
    struct dentry *nd = kmalloc(sizeof *nd + nlen + 1);
    if (!nd)
        return -ENOMEM;
    struct dentry **pp = &odir->entries;
    while (*pp && ((*pp)->len != olen || memcmp((*pp)->name, oname, olen)))
        pp = &(*pp)->next;
    if (!*pp) {
        kfree(nd);
        return -ENOENT;
    }
    struct dentry *od = *pp;
    struct inode *i = od->inode;
    *pp = od->next;
    kfree(od);
    if (tmpfs_lookup(ndir, nname, nlen))
        tmpfs_unlink(ndir, nname, nlen);
    nd->inode = i;
    nd->len = (unsigned char)nlen;
    memcpy(nd->name, nname, nlen);
    nd->cookie = ndir->next_cookie++;
    for (pp = &ndir->entries; *pp; pp = &(*pp)->next)
        ;
    *pp = nd;
    if (S_ISDIR(i->mode)) {
        odir->nlink--;
        ndir->nlink++;
        i->parent = ndir;
    }
    inode_touch(odir, true);
    inode_touch(ndir, true);
    inode_touch(i, false);
    return 0;
}
