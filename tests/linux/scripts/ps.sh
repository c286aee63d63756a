# ps and /proc: the processes of this case, by name (pids differ between kernels).
ps -o comm > ps.out 2>&1; echo "ps status $?"
grep -cx sh ps.out     # whole names: Linux's ps lists kernel threads too
grep -x ps ps.out
test -r /proc/self/stat && echo "/proc/self/stat readable"
readlink /proc/self/exe
cat /proc/self/comm
