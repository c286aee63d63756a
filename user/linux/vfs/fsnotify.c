/* File-system events: marks on inodes and the delivery of the VFS's events to them, in
 * Linux's order (fs/notify/fsnotify.c: a child's event to its directory's marks with the
 * name first, then to the child's own without it). */
#include "vfs/fsnotify.h"

static struct fsnotify_mark *all_marks;    /* every mark: unmount walks them */
unsigned long fsnotify_dir_marks;
static uint32_t last_cookie;

void fsnotify_add_mark(struct fsnotify_mark *m, struct inode *i)
{
    m->inode = i;
    m->next = i->marks;
    i->marks = m;
    m->all_next = all_marks;
    m->all_prev = &all_marks;
    if (all_marks)
        all_marks->all_prev = &m->all_next;
    all_marks = m;
    if (S_ISDIR(i->mode))
        fsnotify_dir_marks++;
    inode_hold(i);
}

/* m off its inode's list and the list of all (the inode still held). */
static void unlink_mark(struct fsnotify_mark *m)
{
    struct inode *i = m->inode;
    for (struct fsnotify_mark **pp = &i->marks; *pp; pp = &(*pp)->next)
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    *m->all_prev = m->all_next;
    if (m->all_next)
        m->all_next->all_prev = m->all_prev;
    if (S_ISDIR(i->mode))
        fsnotify_dir_marks--;
}

/* The end of an unlinked mark: the owner's freeing (it may free m), then the inode's hold. */
static void free_mark(struct fsnotify_mark *m)
{
    struct inode *i = m->inode;
    m->ops->freeing(m);
    inode_unhold(i);
}

void fsnotify_destroy_mark(struct fsnotify_mark *m)
{
    unlink_mark(m);
    free_mark(m);
}

/* The event to each mark of i that wants it.  on_child: i is the directory of the file the
 * event happened to (only marks asking for children's events); unlinked: that file has no
 * name left (IN_EXCL_UNLINK marks skip it). */
static void send(struct inode *i, uint32_t mask, const char *name, uint32_t cookie,
                 bool on_child, bool unlinked)
{
    struct fsnotify_mark *next;
    for (struct fsnotify_mark *m = i->marks; m; m = next) {
        next = m->next;             /* a one-shot mark ends in its event */
        if (!(m->mask & mask & (FS_EVENTS | FS_UNMOUNT)))
            continue;
        if (on_child && !(m->mask & FS_EVENT_ON_CHILD))
            continue;
        if (unlinked && (m->flags & FSN_EXCL_UNLINK))
            continue;
        m->ops->event(m, mask, name, cookie);
        if (m->flags & FSN_ONESHOT)
            fsnotify_destroy_mark(m);
    }
}

void fsnotify_dirent_slow(struct inode *dir, uint32_t mask, const char *name, bool isdir,
                          uint32_t cookie)
{
    send(dir, mask | (isdir ? FS_ISDIR : 0), name, cookie, false, false);
}

void fsnotify_inode_slow(struct inode *i, uint32_t mask)
{
    send(i, mask | (S_ISDIR(i->mode) ? FS_ISDIR : 0), NULL, 0, false, !i->nlink);
}

void fsnotify_file_slow(struct inode *i, uint32_t mask)
{
    if (S_ISDIR(i->mode))
        mask |= FS_ISDIR;
    /* The directory of the name: the file system's name operation (a file system's root
     * has none, as Linux's IS_ROOT dentry; an unlinked file has none here, where Linux
     * still reports to its old directory unless IN_EXCL_UNLINK). */
    if (fsnotify_dir_marks && i != i->sb->root && i->iop && i->iop->name) {
        char name[NAME_MAX + 1];
        struct inode *dir = NULL;
        int n = i->iop->name(i, &dir, name);
        if (n >= 0 && dir && dir != i && dir->marks) {
            name[n] = 0;
            send(dir, mask, name, 0, true, false);
        }
    }
    if (i->marks)
        send(i, mask, NULL, 0, false, !i->nlink);
}

void fsnotify_change(struct inode *i, unsigned ia_valid)
{
    uint32_t mask = 0;
    if (ia_valid & (ATTR_UID | ATTR_GID | ATTR_MODE))
        mask |= FS_ATTRIB;
    if (ia_valid & ATTR_SIZE)
        mask |= FS_MODIFY;
    /* both times: utimes; one of them: what it stands for */
    if ((ia_valid & (ATTR_ATIME | ATTR_MTIME)) == (ATTR_ATIME | ATTR_MTIME))
        mask |= FS_ATTRIB;
    else if (ia_valid & ATTR_ATIME)
        mask |= FS_ACCESS;
    else if (ia_valid & ATTR_MTIME)
        mask |= FS_MODIFY;
    if (mask)
        fsnotify_file(i, mask);
}

uint32_t fsnotify_cookie(void)
{
    return ++last_cookie;
}

/* Every mark of i off it, then each one's end: the marks' holds go last, so that i stays
 * until the last of them (its eviction then frees it). */
static void end_marks(struct inode *i)
{
    struct fsnotify_mark *m = i->marks;
    i->marks = NULL;
    while (m) {
        struct fsnotify_mark *next = m->next;
        m->next = NULL;
        i->marks = m;               /* unlink_mark finds it at the head */
        unlink_mark(m);
        free_mark(m);
        m = next;
    }
}

static unsigned count_marks(const struct inode *i)
{
    unsigned n = 0;
    for (const struct fsnotify_mark *m = i->marks; m; m = m->next)
        n++;
    return n;
}

void fsnotify_inode_unused(struct inode *i)
{
    if (i->nlink || !i->marks || i->refs != count_marks(i))
        return;
    inode_hold(i);                  /* the marks' ends must not free it under us */
    send(i, FS_DELETE_SELF, NULL, 0, false, false);
    end_marks(i);
    inode_unhold(i);
}

void fsnotify_unmount(struct super_block *sb)
{
    for (struct fsnotify_mark *m = all_marks; m;) {
        struct inode *i = m->inode;
        if (i->sb != sb) {
            m = m->all_next;
            continue;
        }
        inode_hold(i);
        send(i, FS_UNMOUNT | (S_ISDIR(i->mode) ? FS_ISDIR : 0), NULL, 0, false, false);
        end_marks(i);
        inode_unhold(i);
        m = all_marks;              /* the list changed: again from the start */
    }
}
