/* The network devices' ioctls (docs/linux/sockets.md, "Interfaces"): lx has one interface,
 * lo (index 1, up, 127.0.0.1/8 and ::1), and answers what Linux's dev_ioctl and
 * devinet_ioctl answer about it on any socket: SIOCGIFCONF, SIOCGIFINDEX, SIOCGIFNAME,
 * SIOCGIFFLAGS, SIOCGIFADDR/NETMASK, SIOCGIFMTU, SIOCGIFHWADDR, SIOCGIFTXQLEN.  Setting
 * flags (CAP_NET_ADMIN) is accepted and changes nothing: lo is always up here. */
#include "net/netdev.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <string.h>

#define SIOCGIFNAME    0x8910
#define SIOCGIFCONF    0x8912
#define SIOCGIFFLAGS   0x8913
#define SIOCSIFFLAGS   0x8914
#define SIOCGIFADDR    0x8915
#define SIOCGIFNETMASK 0x891b
#define SIOCGIFMTU     0x8921
#define SIOCGIFHWADDR  0x8927
#define SIOCGIFINDEX   0x8933
#define SIOCGIFTXQLEN  0x8942
#define ENODEV         19
#define CAP_NET_ADMIN  12

#define IFNAMSIZ       16
#define LO_INDEX       1
#define LO_FLAGS       0x49         /* IFF_UP | IFF_LOOPBACK | IFF_RUNNING */
#define LO_MTU         65536
#define LO_TXQLEN      1000
#define ARPHRD_LOOPBACK 772

struct ifreq_ {
    char name[IFNAMSIZ];
    union {
        struct {
            uint16_t family, port;
            uint8_t addr[4];
            uint8_t zero[8];
        } in;
        uint16_t hw_family;
        short flags;
        int ivalue;
        char pad[24];
    } u;
};
struct ifconf_ {
    int len;
    int pad;
    l4_word_t buf;
};

static void set_in(struct ifreq_ *r, uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    memset(&r->u, 0, sizeof r->u);
    r->u.in.family = 2;             /* AF_INET */
    r->u.in.addr[0] = a;
    r->u.in.addr[1] = b;
    r->u.in.addr[2] = c;
    r->u.in.addr[3] = d;
}

/* Linux's dev_ifconf: one ifreq per IPv4 address (lo's), or the room they need. */
static long ifconf(struct thread *t, l4_word_t arg)
{
    struct ifconf_ c;
    if (copy_from_user(t->mm, &c, arg, sizeof c))
        return -EFAULT;
    int len = 0;
    if (!c.buf) {
        len = sizeof(struct ifreq_);
    } else if (c.len >= (int)sizeof(struct ifreq_)) {
        struct ifreq_ r = { .name = "lo" };
        set_in(&r, 127, 0, 0, 1);
        if (copy_to_user(t->mm, c.buf, &r, sizeof r))
            return -EFAULT;
        len = sizeof r;
    }
    return copy_to_user(t->mm, arg, &len, sizeof len);
}

long netdev_ioctl(struct thread *t, unsigned cmd, l4_word_t arg)
{
    if (cmd == SIOCGIFCONF)
        return ifconf(t, arg);
    switch (cmd) {
    case SIOCGIFNAME: case SIOCGIFFLAGS: case SIOCSIFFLAGS: case SIOCGIFADDR:
    case SIOCGIFNETMASK: case SIOCGIFMTU: case SIOCGIFHWADDR: case SIOCGIFINDEX:
    case SIOCGIFTXQLEN:
        break;
    default:
        return -ENOTTY;
    }
    struct ifreq_ r;
    if (copy_from_user(t->mm, &r, arg, sizeof r))
        return -EFAULT;
    if (cmd == SIOCGIFNAME) {
        if (r.u.ivalue != LO_INDEX)
            return -ENODEV;
        memset(r.name, 0, sizeof r.name);
        strcpy(r.name, "lo");
        return copy_to_user(t->mm, arg, &r, sizeof r);
    }
    r.name[IFNAMSIZ - 1] = 0;
    if (strcmp(r.name, "lo"))
        return -ENODEV;
    switch (cmd) {
    case SIOCSIFFLAGS:
        return cred_capable(&t->proc->cred, CAP_NET_ADMIN) ? 0 : -EPERM;
    case SIOCGIFFLAGS: r.u.flags = LO_FLAGS; break;
    case SIOCGIFADDR: set_in(&r, 127, 0, 0, 1); break;
    case SIOCGIFNETMASK: set_in(&r, 255, 0, 0, 0); break;
    case SIOCGIFMTU: r.u.ivalue = LO_MTU; break;
    case SIOCGIFINDEX: r.u.ivalue = LO_INDEX; break;
    case SIOCGIFTXQLEN: r.u.ivalue = LO_TXQLEN; break;
    case SIOCGIFHWADDR:
        memset(&r.u, 0, sizeof r.u);
        r.u.hw_family = ARPHRD_LOOPBACK;
        break;
    }
    return copy_to_user(t->mm, arg, &r, sizeof r);
}
