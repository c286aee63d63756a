/* Permission checks beyond inode_permission (vfs/vfs.h), vfs/permission.c: who the caller is
 * to the VFS, and the credential checks between processes (signals, priorities, /proc). */
#ifndef LX_VFS_PERMISSION_H
#define LX_VFS_PERMISSION_H

#include <stdbool.h>
#include <stdint.h>

struct thread;
struct inode;
struct process;

/* Linux's in_group_p: the caller's fsgid or one of its supplementary groups. */
bool vfs_in_group(struct thread *t, unsigned gid);
/* Has the caller capability cap (task/cred.h's CAP_*) in its effective set? */
bool vfs_capable(struct thread *t, int cap);
/* Linux's file_remove_privs: a write or truncate by a caller without CAP_FSETID takes
 * set-user-ID, and set-group-ID as should_drop_sgid says, off a regular file. */
void file_remove_privs(struct thread *t, struct inode *i);
/* Linux's setattr_should_drop_sgid: set-group-ID with group execute, or on a file of a group
 * the caller is not in (and it lacks CAP_FSETID). */
bool should_drop_sgid(struct thread *t, struct inode *i);
/* A new file's mode in dir (type included): set-group-ID with group execute goes when dir
 * is set-group-ID and the caller neither is in its group nor has CAP_FSETID. */
unsigned mode_strip_sgid(struct thread *t, struct inode *dir, unsigned mode);
/* access and faccessat check with the real ids (AT_EACCESS: the effective ones): run
 * inode_permission-based checks between these two with the fs ids swapped. */
struct access_ids { unsigned fsuid, fsgid; uint64_t cap_eff; };
void access_override_begin(struct thread *t, struct access_ids *saved);
void access_override_end(struct thread *t, const struct access_ids *saved);

/* Linux's kill_ok_by_cred: the sender's real or effective uid is the target's real or saved
 * uid, or the sender has CAP_KILL. */
bool cred_may_signal(const struct process *from, const struct process *to);
/* Linux's set_one_prio_perm and sched_setaffinity's check: the caller's euid is the target's
 * real or effective uid, or it is root (CAP_SYS_NICE). */
bool cred_may_change_sched(const struct process *from, const struct process *to);
/* prlimit64 of another process (Linux's check_prlimit_permission): the caller's real uid is
 * each of the target's real, effective and saved uids and its gid each of the target's gids,
 * or root (CAP_SYS_RESOURCE). */
bool cred_may_prlimit(const struct process *from, const struct process *to);
/* Linux's ptrace_may_access(PTRACE_MODE_READ_FSCREDS) for /proc: the caller's fsuid and fsgid
 * match the target's real, effective and saved ids, or it is root (CAP_SYS_PTRACE). */
bool cred_may_read_proc(const struct process *from, const struct process *to);

#endif
