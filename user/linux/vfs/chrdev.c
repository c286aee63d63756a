/* Character devices by number: a driver registers its file operations for a range of minor
 * numbers of a major (fs/dev: the memory devices; tty/: the console), and opening a device
 * node of those numbers gives them (vfs/file.c).  The driver owns the record (static, as
 * Linux's struct cdev), so registering allocates nothing. */
#include "vfs/file.h"

static struct chrdev *chrdevs;      /* the latest registration first */

void chrdev_register(struct chrdev *c)
{
    c->next = chrdevs;
    chrdevs = c;
}

const struct file_ops *chrdev_ops(unsigned major, unsigned minor)
{
    for (struct chrdev *c = chrdevs; c; c = c->next)
        if (c->major == major && minor >= c->minor && minor - c->minor < c->count)
            return c->ops;
    return NULL;
}
