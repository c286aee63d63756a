#!/bin/bash
# pid 1 of a macro-benchmark boot (tools/macrobench.py, docs/performance.md "Macro
# benchmarks"): the same script on the Debian root under Debian's kernel and under lx.
# Arguments: what to run, in order: compile (Lua 5.4 from Debian's source package, make -j1
# then -j2) and users:N+N+... (the multi-user mix at each N).  Times are the guest's
# CLOCK_REALTIME in microseconds ($EPOCHREALTIME): under -icount one virtual nanosecond per
# guest instruction on both systems, otherwise the host's time.  Every result is a line
# "@@macro NAME us=T [jobs=J] [sum=S]"; "@@macro-done" at the end; pid 1 then exits, which
# ends both systems (lx: poweroff=1; Linux: the panic of a dead init, panic=-1 -no-reboot).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C TZ=UTC
umask 022
mount -t proc proc /proc 2>/dev/null
cd /tmp || exit 1

now() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000000 + 10#${t#*.} )); }
fail() { echo "@@macro-error $*"; exit 1; }

compile() {
    rm -rf /tmp/lua && mkdir /tmp/lua && tar xzf /bench/lua.tar.gz -C /tmp/lua || fail untar
    cd /tmp/lua/lua-*/src || fail "no lua source"
    for j in 1 2; do
        make -s clean >/dev/null 2>&1
        local t0; t0=$(now)
        make -s -j$j posix >/tmp/make-j$j.log 2>&1 || { cat /tmp/make-j$j.log; fail "make -j$j"; }
        local t1; t1=$(now)
        # the program works and is the same program on both systems
        local out; out=$(./lua -e 'local s=0 for i=1,1000 do s=s+i*i end print(s)')
        echo "@@macro compile_j$j us=$((t1 - t0)) sum=$out"
    done
    cd /tmp && rm -rf /tmp/lua
}

users() {
    local n
    for n in ${1//+/ }; do
        rm -rf /tmp/users && mkdir /tmp/users
        local t0; t0=$(now)
        local u
        for ((u = 1; u <= n; u++)); do
            /bench/user.sh "$u" >/tmp/users/$u.log 2>&1 &
        done
        wait
        local t1; t1=$(now)
        local jobs; jobs=$(cat /tmp/users/*.jobs 2>/dev/null | awk '{s += $1} END {print s + 0}')
        # every user's transcript is the same on every system: one checksum of user 1's
        echo "@@macro users_$n us=$((t1 - t0)) jobs=$jobs sum=$(md5sum </tmp/users/1.log | cut -c1-8)"
    done
    rm -rf /tmp/users
}

for what in "$@"; do
    case $what in
    compile) compile ;;
    users:*) users "${what#users:}" ;;
    *) fail "unknown benchmark $what" ;;
    esac
done
echo "@@macro-done"
