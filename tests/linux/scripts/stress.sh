# fork/exec stress from the shell: 100 external commands, nested shells, subshells (no pipes).
i=0
while [ $i -lt 100 ]; do
  /bin/true || echo "true failed at $i"
  i=$((i + 1))
done
echo "ran $i commands"
i=0
while [ $i -lt 20 ]; do
  sh -c 'sh -c "exit 3"; exit $(( $? + 1 ))' 2>/dev/null
  [ $? -eq 4 ] || echo "nested status wrong at $i"
  (i=$((i * 2)); exit 0) || echo "subshell failed"
  i=$((i + 1))
done
echo "ran $i nested shells"
