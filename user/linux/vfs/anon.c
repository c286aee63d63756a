/* Anonymous inodes: files that are no file of the tree.  One inode serves every such file
 * (epoll instances, later eventfd, timerfd, signalfd), as Linux's anon_inode does: what a
 * file is lives in its private data.  The console behind fds 0-2 of the processes lx
 * starts lives here too (5:1, the tty's).  Nothing here is ever freed. */
#include "vfs/file.h"
#include "vfs/lock.h"

static void anon_evict(struct inode *i)
{
    (void)i;                        /* never: the inodes are static, with a link each */
}

static const struct fs_type anon_type = {
    .name = "anon_inodefs", .magic = ANON_INODE_FS_MAGIC, .nodev = true, .evict = anon_evict,
};

static struct inode anon_root = { .mode = S_IFDIR | 0555, .nlink = 2, .ino = 1 };
static struct super_block anon_sb = { .type = &anon_type, .dev = 0xd, .root = &anon_root };
static struct inode anon_inode = {
    .mode = 0600, .nlink = 1, .ino = 2, .sb = &anon_sb,
};
static struct inode console = {
    .mode = S_IFCHR | 0620, .nlink = 1, .ino = 3, .rdev_major = 5, .rdev_minor = 1,
    .sb = &anon_sb,
};

struct file *anon_file(const struct file_ops *ops, void *priv, unsigned flags)
{
    int err;
    anon_root.sb = &anon_sb;
    anon_root.parent = &anon_root;
    struct file *f = file_open(NULL, &anon_inode, flags, ops, &err);
    if (f)
        f->priv = priv;
    return f;
}

struct inode *console_inode(void)
{
    return &console;
}

void anon_shutdown(void)
{
    locks_inode_free(&anon_inode);  /* a flock on an epoll fd, say: no file is left */
    locks_inode_free(&console);
}
