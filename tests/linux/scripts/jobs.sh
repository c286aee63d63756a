# Background jobs: &, $!, wait (for one, for all, statuses), kill of a job, sleep.
sh -c 'exit 3' &
p=$!
wait $p; echo "wait for background job: $?"
(echo background subshell; exit 4) > bg.out &
wait $!; echo "status $?"; cat bg.out
for i in 1 2 3; do (echo "job $i" > job$i.out) & done
wait; echo "all jobs done"; cat job1.out job2.out job3.out
sleep 100 &
p=$!
kill $p
wait $p; echo "killed sleep: $?"
sleep 0.05; echo "slept"
wait 99999 2>/dev/null; echo "wait for a non-child: $?"
sleep 1 &
kill -STOP $! 2>/dev/null; kill -CONT $!; kill -KILL $!; wait $!; echo "stopped, continued, killed: $?"
