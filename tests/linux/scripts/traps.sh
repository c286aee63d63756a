# Traps and signals in the shell: EXIT, a signal trap run by kill, ignored signals, the
# status of a process killed by a signal, trap listing.
trap 'echo EXIT trap ran' EXIT
trap 'echo got USR1' USR1
kill -USR1 $$
echo "after USR1"
trap '' USR2
kill -USR2 $$
echo "USR2 ignored"
trap - USR1
trap
sh -c 'kill -TERM $$; echo not reached'; echo "sh killed by TERM: $?"
sh -c 'kill -9 $$'; echo "sh killed by KILL: $?"
sh -c 'trap "echo child trap; exit 3" TERM; kill -TERM $$; echo not reached'; echo "status $?"
kill -l 15
kill -0 $$ && echo "kill -0 self ok"
kill -0 99999 2>/dev/null; echo "kill -0 missing: $?"
kill -BOGUS $$ 2>/dev/null; echo "bad signal name: $?"
