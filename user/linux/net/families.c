/* The address families lx has (docs/linux/sockets.md, "Families"): a new family is one
 * more line here and its own folder; nothing else of the core changes.  socket(2) of any
 * other family is EAFNOSUPPORT, as on a Linux built without it. */
#include "net/socket.h"
#include "net/unix/af_unix.h"
#include "net/inet/inet.h"
#include "net/netlink/netlink.h"

static const struct net_family *const families[] = {
    &unix_family, &inet_family, &inet6_family, &netlink_family,
};

const struct net_family *net_family_find(int family)
{
    for (unsigned k = 0; k < sizeof families / sizeof families[0]; k++)
        if (families[k]->family == family)
            return families[k];
    return NULL;
}
