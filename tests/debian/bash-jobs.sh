# bash job control in a script (set -m): background jobs in their own process groups,
# jobs, wait for each, kill %N, the statuses.  Each job's end is waited for: no races.
set -m
sleep 100 &
p1=$!
( exit 7 ) &
p2=$!
wait $p2; echo "job 2 status=$?"
jobs | sed 's/  */ /g'
[ "$(ps -o pgid= -p $p1 | tr -d ' ')" = "$p1" ] && echo "job 1 leads its own process group"
kill %1; wait $p1; echo "job 1 status=$?"
jobs; echo "jobs left: $(jobs | wc -l)"
for i in 1 2 3; do (exit $i) & done
wait; echo "wait all=$?"
(exit 9) & p=$!; wait $p; echo "wait pid=$?"
wait 12345 2>&1; echo "wait unknown=$?"
