/* The socket layer (docs/linux/sockets.md): the socket object, the registry of address
 * families, and what a family implements (struct proto_ops, Linux's and gVisor's shape).
 * A socket is an inode of sockfs (S_IFSOCK, a number of its own: /proc/N/fd's
 * "socket:[INO]") with the state every family shares (options, shutdown, the pending error,
 * the wait queue); a family embeds it at the start of its own object.  The core does the
 * system calls' common part: fds and files, addresses and control messages between the
 * process and lx, SOL_SOCKET options, and the waiting of blocking calls (a family's
 * operation never waits: it answers -EAGAIN and names the queue to wait on). */
#ifndef LX_NET_SOCKET_H
#define LX_NET_SOCKET_H

#include "park/waitq.h"
#include "vfs/file.h"

/* The network errors (Linux's numbers). */
#ifndef ENOTSOCK
#define EDOM            33
#define ENOTSOCK        88
#define EDESTADDRREQ    89
#define EMSGSIZE        90
#define EPROTOTYPE      91
#define ENOPROTOOPT     92
#define EPROTONOSUPPORT 93
#define ESOCKTNOSUPPORT 94
#define EAFNOSUPPORT    97
#define EADDRINUSE      98
#define EADDRNOTAVAIL   99
#define ECONNABORTED    103
#define ECONNRESET      104
#define ENOBUFS         105
#define EISCONN         106
#define ENOTCONN        107
#define ETOOMANYREFS    109
#define ECONNREFUSED    111
#endif

#define AF_UNSPEC  0
#define AF_UNIX    1
#define AF_INET    2
#define AF_MAX     46

#define SOCK_STREAM    1
#define SOCK_DGRAM     2
#define SOCK_RAW       3
#define SOCK_SEQPACKET 5
#define SOCK_TYPE_MASK 0xf
#define SOCK_MAX       11
#define SOCK_NONBLOCK  O_NONBLOCK
#define SOCK_CLOEXEC   O_CLOEXEC

#define MSG_OOB          0x1
#define MSG_PEEK         0x2
#define MSG_DONTROUTE    0x4
#define MSG_CTRUNC       0x8
#define MSG_TRUNC        0x20
#define MSG_DONTWAIT     0x40
#define MSG_EOR          0x80
#define MSG_WAITALL      0x100
#define MSG_ERRQUEUE     0x2000
#define MSG_NOSIGNAL     0x4000
#define MSG_MORE         0x8000
#define MSG_CMSG_CLOEXEC 0x40000000

#define SHUT_RD   0
#define SHUT_WR   1
#define SHUT_RDWR 2
#define RCV_SHUTDOWN  1
#define SEND_SHUTDOWN 2
#define SHUTDOWN_MASK 3

#define SIOCINQ   FIONREAD
#define SIOCOUTQ  0x5411

/* The connection state every family keeps (Linux's sk_state for AF_UNIX). */
enum sock_state { SS_CLOSE, SS_ESTABLISHED, SS_LISTEN };

#define SOCK_ADDR_MAX 128           /* sizeof(struct sockaddr_storage) */
#define SCM_MAX_FD    253

/* Credentials as SCM_CREDENTIALS and SO_PEERCRED carry them (struct ucred). */
struct ucred {
    int pid;
    unsigned uid, gid;
};

/* Open files in flight (SCM_RIGHTS): references held until received or dropped. */
struct scm_fp {
    unsigned count;
    struct file *fp[SCM_MAX_FD];
};

/* A message between the core and a family.  Send: the data, the destination (name NULL:
 * the connected peer), the files and credentials the control data gave.  Receive: the
 * family fills name/namelen (the source), fp (files, the caller's now), creds (always;
 * the core shows them if SO_PASSCRED) and flags (MSG_TRUNC, MSG_CTRUNC). */
struct sock_msg {
    struct uio *u;
    char *name;                     /* SOCK_ADDR_MAX bytes of lx's */
    int namelen;
    struct scm_fp *fp;              /* send: NULL or the files; receive: set by the family */
    struct ucred creds;
    bool has_creds;                 /* send: SCM_CREDENTIALS given; receive: creds set */
    int flags;                      /* receive: MSG_* out */
    struct waitq *wait;             /* an operation that answers -EAGAIN: where to wait
                                       (NULL: the socket's own queue) */
};

struct socket;
struct poll_table;

/* What a family does on its sockets.  Each gets the caller; addresses are lx copies with
 * their length as the process gave it.  NULL members: Linux's sock_no_* answer (EOPNOTSUPP). */
struct proto_ops {
    int family;
    void (*release)(struct socket *s);          /* the file is closed (s may live on) */
    void (*destroy)(struct socket *s);          /* the last reference: free what s holds */
    int (*bind)(struct thread *t, struct socket *s, const char *addr, int len);
    /* 0, -errno or LX_PARK (a blocking connect waits for room in the listener's queue) */
    long (*connect)(struct thread *t, struct socket *s, const char *addr, int len, bool nonblock);
    int (*socketpair)(struct thread *t, struct socket *a, struct socket *b);
    /* The next connection, made a socket (a reference), or -EAGAIN. */
    int (*accept)(struct thread *t, struct socket *s, struct socket **out);
    int (*listen)(struct thread *t, struct socket *s, int backlog);
    int (*getname)(struct socket *s, char *addr, bool peer);   /* the length, or -errno */
    unsigned (*poll)(struct socket *s, struct poll_table *pt);
    long (*ioctl)(struct thread *t, struct socket *s, unsigned cmd, l4_word_t arg);
    int (*shutdown)(struct socket *s, int how);
    /* One run: the count, or -errno (-EAGAIN: it would wait; m->u->done says what moved and
     * counts; after another error the core forgets what moved). */
    long (*sendmsg)(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
    long (*recvmsg)(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
    /* Options of the family's levels (not SOL_SOCKET): NULL: EOPNOTSUPP.  uval/ulen are the
     * process's, as setsockopt/getsockopt gave them. */
    long (*setsockopt)(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                       unsigned len);
    long (*getsockopt)(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                       l4_word_t ulen);
    /* The family's lines of /proc/PID/fdinfo/FD (file_ops.show_fdinfo's contract). */
    int (*show_fdinfo)(struct socket *s, char *buf, size_t size);
};

/* An address family: makes its sockets.  Registered in net/families.c. */
struct net_family {
    int family;
    size_t obj_size;                /* the family's socket object (struct socket first) */
    /* s allocated with type set: its ops and state; 0 or -errno (ESOCKTNOSUPPORT,
     * EPROTONOSUPPORT) */
    int (*create)(struct thread *t, struct socket *s, int protocol);
};
const struct net_family *net_family_find(int family);

struct socket {
    struct inode inode;             /* sockfs's, first: the socket lives as long as it */
    const struct proto_ops *ops;
    int family, type, protocol;
    enum sock_state state;
    struct file *file;              /* its open file (not counted); NULL before accept */
    unsigned shutdown;              /* RCV_SHUTDOWN | SEND_SHUTDOWN */
    int err;                        /* a pending error (SO_ERROR), positive */
    int sndbuf, rcvbuf;             /* bytes, as Linux keeps them (doubled) */
    uint64_t rcvtimeo, sndtimeo;    /* ns; SOCK_TIMEO_NONE: wait forever */
    int rcvlowat, priority;
    unsigned opts;                  /* SOL_SOCKET booleans: 1 << SO_x */
    int linger_on, linger_sec;
    l4_word_t wmem;                 /* sent, not yet consumed (truesize) */
    struct ucred peer;              /* SO_PEERCRED's answer when has_peer (the family's) */
    bool has_peer;
    struct waitq wq;                /* readers, writers, acceptors and pollers */
};
#define SOCK_TIMEO_NONE UINT64_MAX
#define SO_PASSCRED 16
#define SO_BOOL(s, opt) (((s)->opts >> (opt)) & 1u)

/* --- the core (socket.c) ------------------------------------------------------------------ */
/* A new socket of family/type (nothing installed): NULL with *err. */
struct socket *sock_create(struct thread *t, int family, int type, int protocol, int *err);
/* An open file for s (its reference moves into the file, or is dropped: NULL when memory
 * is out), O_RDWR | flags' O_NONBLOCK. */
struct file *sock_file(struct socket *s, unsigned flags);
void sock_get(struct socket *s);
void sock_put(struct socket *s);
/* The socket behind an fd: NULL with *err (EBADF, ENOTSOCK). */
struct socket *sock_from_fd(struct thread *t, long fd, int *err);
/* Send or receive through s with the waiting of a blocking caller (SO_SNDTIMEO/RCVTIMEO,
 * signals): the count, -errno or LX_PARK.  A parked call's progress is in its park_io;
 * with own_io the caller is a socket call (not vfs_rw, which keeps it for read/write). */
long sock_transfer(struct thread *t, struct socket *s, struct sock_msg *m, int flags, bool send,
                   bool own_io);
/* Park a blocking socket call on q (NULL: s's queue) until its timeout. */
long sock_wait(struct thread *t, struct socket *s, struct waitq *q, bool send);
/* The caller's process credentials as SCM_CREDENTIALS gives them. */
struct ucred sock_current_creds(struct thread *t);
/* Linux's sock_alloc_send_pskb test: may s queue another buffer now? */
static inline bool sock_wmem_room(const struct socket *s)
{
    return s->wmem < (l4_word_t)s->sndbuf;
}
/* Linux's unix_writable / sock_writeable: POLLOUT when at most a quarter is in flight. */
static inline bool sock_writable(const struct socket *s)
{
    return (s->wmem << 2) <= (l4_word_t)s->sndbuf;
}

/* --- SOL_SOCKET options (sockopt.c) ---------------------------------------------------------- */
long sock_setsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     unsigned len);
long sock_getsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     l4_word_t ulen);
void sock_init_opts(struct socket *s);

/* --- control messages (scm.c) ------------------------------------------------------------------- */
/* The control data of a sendmsg (lx's copy of len bytes) into m: 0 or -errno; files taken
 * are held in m->fp (scm_release drops them). */
int scm_parse(struct thread *t, struct socket *s, const char *ctl, l4_word_t len,
              struct sock_msg *m);
void scm_release(struct sock_msg *m);
/* The control data of a received message into the process at uctl (*len room, set to what
 * was written): credentials if s passes them, then the files as new fds. */
int scm_emit(struct thread *t, struct socket *s, struct sock_msg *m, l4_word_t uctl,
             l4_word_t *len, int flags);
/* Files in flight: a new scm_fp holding the same files (a peek), or NULL. */
struct scm_fp *scm_fp_dup(const struct scm_fp *fp);
void scm_fp_free(struct scm_fp *fp);

#endif
