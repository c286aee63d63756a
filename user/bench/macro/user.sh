#!/bin/bash
# One simulated user of the multi-user mix (init.sh users:N), in the way of the AIM
# Multiuser Benchmark Suite VII that the 1997 paper ran (§5.2, Figures 8 and 9): a fixed
# script of shell, file, pipe, process, compile and text-processing jobs, run once.  Output
# is deterministic (the same on Linux and lx); the number of jobs goes to /tmp/users/U.jobs.
u=$1
d=/tmp/users/u$u
mkdir -p "$d" && cd "$d" || exit 1
jobs=0
job() { "$@"; jobs=$((jobs + 1)); }

shell_arith() {             # the shell's own arithmetic, loops and string work
    local x=0 i s=""
    for ((i = 1; i <= 400; i++)); do x=$(( (x + i * i) % 9973 )); s="$s${i:0:1}"; done
    echo "arith $x ${#s}"
}
files() {                   # create, copy, list, read and remove a small tree
    mkdir -p tree/a tree/b
    local i
    for ((i = 0; i < 30; i++)); do printf 'file %d of user\n%0200d\n' $i $i > tree/a/f$i; done
    cp -r tree/a tree/b/copy
    ls -lR tree | grep -c '^-'
    cat tree/b/copy/* | wc -c
    rm -rf tree
}
pipes() {                   # a pipeline of text filters
    seq 1 4000 | sort -rn | awk '{print $1 % 97}' | sort -n | uniq -c | sort -k1,1nr -k2n | head -3
}
procs() {                   # process creation: many short commands
    local i n=0
    for ((i = 0; i < 25; i++)); do /bin/true && n=$((n + 1)); done
    echo "procs $n $(sh -c 'echo $((6 * 7))')"
}
compile_job() {             # compile and run a small C program
    gcc -O1 -o prog /bench/job.c && ./prog 300
    rm -f prog
}
text() {                    # text processing: sed, grep, awk, sort on a generated document
    seq 1 1500 | awk '{printf "line %d word%d %s\n", $1, $1 % 13, ($1 % 3 ? "alpha" : "beta")}' > doc
    sed -e 's/alpha/ALPHA/g' -e '/word7 /d' doc | grep -c ALPHA
    awk '{n[$3]++} END {for (k in n) print k, n[k]}' doc | sort
    tr 'a-z' 'A-Z' < doc | cut -d' ' -f2 | sort -n | tail -1
    rm -f doc
}
archive() {                 # tar and gzip of a generated tree
    mkdir -p arc
    seq 1 3000 > arc/numbers
    yes 'pecan multi-user' | head -n 2000 > arc/words
    tar cf - arc | gzip -1 | gzip -dc | tar tf - | sort
    rm -rf arc
}

job shell_arith
job files
job pipes
job procs
job compile_job
job text
job archive
echo $jobs > "/tmp/users/$u.jobs"
cd / && rm -rf "$d"
