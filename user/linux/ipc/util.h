/* System V IPC's common part (util.c; docs/linux/sysvipc.md): the id table of each kind
 * (semaphore sets, shared memory segments, message queues), keys, ids as Linux forms them,
 * the permission record every object starts with and its checks, the limits of
 * /proc/sys/kernel, and the paged arrays the kinds keep their large parts in. */
#ifndef LX_IPC_UTIL_H
#define LX_IPC_UTIL_H

#include "lib/list.h"
#include "lib/radix.h"
#include <libl4.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct thread;
struct mm;

#define IPC_PRIVATE 0
#define IPC_CREAT   01000
#define IPC_EXCL    02000
#define IPC_NOWAIT  04000

#define IPC_RMID    0
#define IPC_SET     1
#define IPC_STAT    2
#define IPC_INFO    3

#define IPCMNI          32768       /* indices of one kind: ids are index + seq * IPCMNI */
#define IPC_SEQ_MAX     (0x7fffffff / IPCMNI)
#define S_IRWXUGO       0777

/* Linux's kern_ipc_perm: first in every object. */
struct ipc_perm_k {
    int id;                         /* index + seq * IPCMNI */
    int key;
    unsigned uid, gid, cuid, cgid;
    unsigned mode;                  /* 0777, and shm's SHM_DEST/SHM_LOCKED */
    unsigned seq;
    bool deleted;                   /* removed (an object still attached lives on: shm) */
    struct ipc_perm_k *key_next;    /* the key hash's chain (IPC_PRIVATE: none) */
};

/* ipc64_perm as x86-64 user space sees it (48 bytes). */
struct ipc64_perm {
    int key;
    unsigned uid, gid, cuid, cgid, mode;
    unsigned short seq, pad2;
    unsigned long unused1, unused2;
};
_Static_assert(sizeof(struct ipc64_perm) == 48, "ipc64_perm");

#define IPC_KEY_BUCKETS 64
/* One kind's objects: index -> object, key -> object. */
struct ipc_ids {
    struct radix idx;               /* index -> struct ipc_perm_k * */
    struct ipc_perm_k *keys[IPC_KEY_BUCKETS];
    int in_use;
    int max_idx;                    /* highest index in use; -1: none */
    int last_idx;                   /* where the cyclic allocation stands */
    unsigned seq;
};

/* The limits of /proc/sys/kernel (Linux's defaults), settable. */
struct ipc_limits {
    int semmsl, semmns, semopm, semmni;
    unsigned long shmmax, shmall;
    int shmmni;
    int msgmax, msgmnb, msgmni;
};
extern struct ipc_limits ipc_lim;
/* /proc/sys/kernel/NAME (sem, shmmax, shmall, shmmni, msgmax, msgmnb, msgmni) as Linux
 * shows it (sysctl.c): its length into buf, -ENOENT for another name; and a write of it with
 * Linux's ranges: 0, -EINVAL or -ENOENT.  For the /proc/sys tree to call. */
int ipc_sysctl_read(const char *name, char *buf, size_t size);
int ipc_sysctl_write(const char *name, const char *text, size_t len);
extern struct ipc_ids sem_ids, shm_ids, msg_ids;

/* May t use the object as flag asks (the low nine bits, any of the three triples: Linux's
 * ipcperms)?  0 or -EACCES.  The one place the caller's credentials are judged. */
int ipc_perms(struct thread *t, const struct ipc_perm_k *p, unsigned flag);
/* Is t the object's owner or creator, or privileged (IPC_SET, IPC_RMID)?  0 or -EPERM. */
int ipc_owner_check(struct thread *t, const struct ipc_perm_k *p);
bool ipc_privileged(struct thread *t);      /* CAP_IPC_OWNER / CAP_SYS_ADMIN */
unsigned ipc_euid(struct thread *t);
unsigned ipc_egid(struct thread *t);

/* The object with that key (not IPC_PRIVATE), or NULL. */
struct ipc_perm_k *ipc_find_key(struct ipc_ids *ids, int key);
/* p (zeroed but for what the kind set) gets an index, an id, its key, owner and mode (flag's
 * nine bits); limit: the kind's maximum count.  0 or -ENOSPC. */
int ipc_add(struct ipc_ids *ids, struct ipc_perm_k *p, struct thread *t, int key, unsigned flag,
            int limit);
/* Out of the table (its index free, its key gone); the kind frees it. */
void ipc_remove(struct ipc_ids *ids, struct ipc_perm_k *p);
/* The key is dropped but the object stays listed (shm removed while attached). */
void ipc_set_key_private(struct ipc_ids *ids, struct ipc_perm_k *p);
/* By id (the sequence must match) or by index (*_STAT); NULL: -EINVAL. */
struct ipc_perm_k *ipc_obtain_check(struct ipc_ids *ids, int id);
struct ipc_perm_k *ipc_obtain_idx(struct ipc_ids *ids, int idx);
int ipc_max_idx(const struct ipc_ids *ids);    /* what *_INFO return: -1 none */
/* Each object in index order (the /proc/sysvipc listings): fn(p, ctx). */
void ipc_each(struct ipc_ids *ids, void (*fn)(struct ipc_perm_k *p, void *ctx), void *ctx);
/* The get calls' common path (Linux's ipcget): find or make.  more: the kind's check of an
 * existing object (its size) or NULL; make: the kind's constructor.  The id or -errno. */
int ipc_get(struct thread *t, struct ipc_ids *ids, int key, unsigned flag,
            int (*more)(struct ipc_perm_k *p, void *arg),
            int (*make)(struct thread *t, int key, unsigned flag, void *arg), void *arg);
/* IPC_SET's change (uid, gid, the nine mode bits): 0 or -EINVAL (uid/gid -1). */
int ipc_update_perm(const struct ipc64_perm *in, struct ipc_perm_k *p);
void ipc_to_user_perm(const struct ipc_perm_k *p, struct ipc64_perm *out);
int64_t ipc_seconds(void);          /* the realtime clock's seconds (the *_time fields) */
int ipc_tgid(struct thread *t);

/* A /proc/sysvipc listing into buf (size bytes): the header, then row() for each object in
 * index order, each writing through ipc_show_printf; its length (cut at size). */
struct ipc_show {
    char *buf;
    size_t size, len;
};
size_t ipc_proc_show(struct ipc_ids *ids, const char *header,
                     void (*row)(struct ipc_perm_k *p, struct ipc_show *s), char *buf,
                     size_t size);
void ipc_show_printf(struct ipc_show *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* An array of n elements of size bytes in whole pages (a semaphore set's 32,000 values,
 * the undo adjustments): lx's kmalloc stops at a page. */
struct paged {
    void **pages;
    unsigned npages;
    unsigned per_page;
    unsigned size;
};
bool paged_init(struct paged *a, unsigned n, unsigned size);   /* zeroed; false: no memory */
void paged_free(struct paged *a);
static inline void *paged_at(const struct paged *a, unsigned i)
{
    return (char *)a->pages[i / a->per_page] + (i % a->per_page) * a->size;
}

/* Hooks of a process's life (task/exit.c, task/exec.c): its memory is about to go (the
 * segments it had attached note it), its memory is gone, and its end (SEM_UNDO applied,
 * after its threads' calls have left every queue). */
struct process;
void ipc_exit_begin(struct process *p);
void ipc_exit_end(void);
void ipc_process_exit(struct process *p);
/* The last process has gone (the end of lx's run): every object goes, as Linux frees an IPC
 * namespace with its last process (main.c, before the file systems go). */
void ipc_shutdown(void);
/* destroy(p) for each object of ids (it removes p from the table). */
void ipc_each_remove(struct ipc_ids *ids, void (*destroy)(struct ipc_perm_k *p));

#endif
