# findutils, grep, sed and gawk over a generated tree.
mkdir -p t/a/b t/c
for i in $(seq 1 12); do seq $i > "t/a/f$i.txt"; done
printf 'alpha\nBeta\ngamma delta\nepsilon 42\n' > t/c/words
printf 'x' > t/a/b/tiny; : > t/empty
find t -type f -name '*.txt' -size -10c | sort
find t -type f -printf '%y %P %s %m\n' | sort; find t -type d -printf '%y %P %m %n\n' | sort
find t -type d | sort; find t -empty | sort; find t -maxdepth 1 | sort
find t -name 'f1*' -print0 | sort -z | xargs -0 cat | wc -l
find t -type f -newer t/a/f1.txt -name 'zz' | wc -l
find t -path '*/a/*' -name 'f?.txt' -exec wc -l {} + | sort | tail -2
grep -rl 12 t | sort; grep -c . t/a/f9.txt; grep -n -i beta t/c/words
grep -E 'al|ga' t/c/words; grep -o '[0-9]\+' t/c/words; grep -v a t/c/words
grep -w delta t/c/words; grep -F -x 'Beta' t/c/words; grep -q nothing t/c/words; echo "grep -q=$?"
grep -P '\d{2}' t/c/words; grep -A1 -B1 gamma t/c/words; grep -rh --include='f1?.txt' -c 1 t | sort -n
sed -n '2,3p' t/c/words; sed 's/a/A/g; s/^/> /' t/c/words; sed -E 's/([a-z]+) ([a-z]+)/\2 \1/' t/c/words
sed '/^B/d; $a\
the end' t/c/words
cp t/c/words w2; sed -i 's/epsilon/EPS/; 1i first' w2; cat w2
seq 10 | sed -n '0~3p'; seq 5 | sed 'N;s/\n/+/'; echo hello | sed 'y/helo/HELO/'
gawk -F' ' '{ n[$1]++; len += length($0) } END { for (k in n) print k, n[k] | "sort"; close("sort"); print "len", len }' t/c/words
gawk 'BEGIN { srand(42); for (i = 0; i < 5; i++) printf "%d ", int(rand() * 1000); print "" }'
gawk 'BEGIN { printf "%.6f %d %s %s\n", atan2(1, 1) * 4, 2^31, toupper("abc"), substr("hello", 2, 3) }'
seq 1 100 | gawk '{ s += $1; if ($1 % 10 == 0) a[$1 / 10] = s } END { for (i = 1; i <= 10; i++) printf "%d ", a[i]; print "" }'
echo 'a,b,"c d",e' | gawk -v FPAT='([^,]*)|("[^"]*")' '{ print NF, $3 }'
gawk 'BEGIN { n = split("2024-11-27", p, "-"); print n, p[1] + 0, p[3] * 2; print gensub(/([0-9])/, "<\\1>", "g", "a1b2") }'
gawk 'BEGIN { PROCINFO["sorted_in"] = "@ind_num_asc"; a[10]; a[2]; a[33]; for (k in a) printf "%s ", k; print "" }'
gawk 'BEGIN { print strftime("%Y-%m-%d %H:%M:%S", 1234567890, 1); print mktime("2020 01 01 00 00 00") > 0 }'
printf 'k1 3\nk2 5\nk1 4\n' | gawk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }' | sort
gawk 'BEGIN { while (("echo one; echo two" | getline l) > 0) print "got", l; print length("héllo") }'
