# busybox ip on lo (docs/linux/sockets.md, "AF_NETLINK"): what `ip link`, `ip addr` and
# `ip route` read through NETLINK_ROUTE (lo brought up first, as init scripts do on Linux).
ip link set lo up; echo "ip link set status $?"
ip link show; echo "ip link status $?"
ip link show dev lo; echo "ip link lo status $?"
ip addr show; echo "ip addr status $?"
ip -4 addr show dev lo; echo "ip -4 addr status $?"
ip -6 addr show; echo "ip -6 addr status $?"
ip route show; echo "ip route status $?"
ip route show table local; echo "ip route local status $?"
ip -6 route show table local; echo "ip -6 route local status $?"
ip -6 route show; echo "ip -6 route status $?"
ip link show dev nosuch 2>&1; echo "ip link nosuch status $?"
