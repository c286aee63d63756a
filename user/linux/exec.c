/* execve: the process's memory model and registers are replaced by a new image's.  The
 * path, argv and envp are copied into lx (through user copy) and the new memory model is
 * built completely before the old one is dropped, so a failing execve returns to the old
 * image unharmed.  The reply is SET_REGS: RIP at the entry, RSP at the new initial stack,
 * every other register and the FS and GS bases 0.
 *
 * Images come from exec_image_lookup, for now data modules named by the path's last
 * component; the VFS replaces that function's body and nothing else. */
#include "lx.h"
#include "vfs/vfs.h"
#include "signal.h"
#include <stdio.h>
#include <string.h>

#define DATA_BASE     0x200000000ul     /* data modules mapped here in lx, 256 MiB apart */
#define DATA_SLOT     0x10000000ul
#define MAX_IMAGES    16
#define NAME_MAX_MOD  16                /* a data module's name (root task convention) */
#define PATH_MAX_LX   256
#define STRINGS_MAX   16384             /* argv and envp strings together */

struct image {
    char name[NAME_MAX_MOD + 1];
    const void *base;
    l4_word_t size;
};

static struct image images[MAX_IMAGES];
static unsigned nimages;

int exec_image_lookup(const char *path, const void **image, l4_word_t *size)
{
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    if (!*name || strlen(name) > NAME_MAX_MOD)
        return -ENOENT;
    for (unsigned i = 0; i < nimages; i++)
        if (!strcmp(images[i].name, name)) {
            *image = images[i].base;
            *size = images[i].size;
            return 0;
        }
    if (nimages == MAX_IMAGES)
        return -ENOENT;
    /* Mapped once, read-only, for good: regions of processes point into it. */
    l4_word_t err, addr = DATA_BASE + nimages * DATA_SLOT;
    l4_word_t n = l4_data_map(name, 0, &err);
    if (!n || err || n > DATA_SLOT || !l4_data_map(name, addr, &err) || err)
        return -ENOENT;
    struct image *im = &images[nimages++];
    strcpy(im->name, name);
    im->base = (const void *)addr;
    im->size = n;
    *image = im->base;
    *size = n;
    return 0;
}

static char path[PATH_MAX_LX];
static char strings[STRINGS_MAX];
static char *argv[LX_ARGV_MAX + 1], *envp[LX_ARGV_MAX + 1];
static struct mm new_mm;

/* A NULL-terminated vector of strings at user address uvec into vec (NULL-terminated),
 * the strings into strings[*used...]: the count or -EFAULT / -E2BIG. */
static int copy_vector(struct mm *mm, l4_word_t uvec, char **vec, size_t *used)
{
    int n = 0;
    for (; uvec; n++) {
        l4_word_t p;
        if (copy_from_user(mm, &p, uvec + n * sizeof p, sizeof p))
            return -EFAULT;
        if (!p)
            break;
        if (n == LX_ARGV_MAX)
            return -E2BIG;
        vec[n] = &strings[*used];
        for (l4_word_t i = 0;; i++) {
            if (*used == STRINGS_MAX)
                return -E2BIG;
            if (copy_from_user(mm, &strings[*used], p + i, 1))
                return -EFAULT;
            if (!strings[(*used)++])
                break;
        }
    }
    vec[n] = NULL;
    return n;
}

long sys_execve(struct task *t, const struct sysargs *a)
{
    long n = strncpy_from_user(&t->mm, path, a->a[0], sizeof path);
    if (n < 0)
        return n;
    size_t used = 0;
    int argc = copy_vector(&t->mm, a->a[1], argv, &used);
    if (argc < 0)
        return argc;
    int envc = copy_vector(&t->mm, a->a[2], envp, &used);
    if (envc < 0)
        return envc;
    const void *image;
    l4_word_t size;
    /* A file of the tree first; then, for programs that are not there, a data module. */
    int e = vfs_exec_image(t, path, &image, &size);
    if (e == -ENOENT)
        e = exec_image_lookup(path, &image, &size);
    if (e)
        return e;
    l4_word_t entry, sp;
    if (!mm_init(&new_mm))
        return -ENOMEM;
    e = elf_load(&new_mm, image, size, argc, argv, envp, &entry, &sp);
    if (e) {
        mm_destroy(&new_mm);        /* nothing of it was ever mapped */
        return e == -EINVAL ? -ENOEXEC : -ENOMEM;
    }
    /* The point of no return: the old image goes. */
    mm_release(&t->mm);
    t->mm = new_mm;
    new_mm.pgd = NULL;
    t->execed = true;
    vfs_task_exec(t);               /* close-on-exec */
    signal_exec(t);                 /* handlers back to default (ignored stay ignored) */
    t->clear_child_tid = 0;
    fork_vfork_done(t);             /* a vfork parent goes on (uses the MRs) */
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 1; i <= L4_FREG_WORDS; i++)
        l4_set_mr(i, 0);
    l4_set_mr(L4_FREG_RIP, entry);
    l4_set_mr(L4_FREG_RSP, sp);
    return LX_REPLIED;
}
