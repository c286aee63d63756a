# Pipelines: the text tools again, through pipes, and the statuses of pipelines.
printf 'pear 3\napple 10\nfig 7\napple 10\nbanana 2\nfig 7\ncherry 12\n' > fruit
sort fruit | uniq -c | sort -rn | head -n 3
cat fruit | tr a-z A-Z | grep -v FIG | wc -l
awk '{ print $2 }' fruit | sort -n | tail -n 1
seq 1 1000 | awk '{ s += $1 } END { print s }'
seq 100 | grep 7 | wc -l
echo "a b c" | sed 's/ /-/g' | rev
seq 5 | xargs -n 2 echo
find /test/corpus/sh -name '*.sh' | sort | head -n 2 | sed 's,.*/,,'
echo data | cat | cat | cat
false | true; echo "status of false|true: $?"
true | false; echo "status of true|false: $?"
! echo x | grep -q y; echo "negated pipeline: $?"
yes | head -n 3
seq 1 20000 | tail -n 1
dd if=/dev/zero bs=1024 count=256 2>/dev/null | wc -c
seq 3 | while read n; do echo "line $n"; done
tar -cf - /test/corpus/sh 2>/dev/null | tar -tf - | sort | head -n 3
gzip -c < fruit | gzip -dc | md5sum
