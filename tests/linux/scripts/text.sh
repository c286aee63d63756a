# Text tools without pipes (files and redirections only): sort, uniq, wc, sed, awk, grep,
# tr, cut, head, tail, cat.
printf 'pear 3\napple 10\nfig 7\napple 10\nbanana 2\nfig 7\ncherry 12\n' > fruit
cat fruit
echo "== cat -n"; cat -n fruit
echo "== sort"; sort fruit
echo "== sort -r"; sort -r fruit
echo "== sort -n -k2"; sort -n -k2 fruit
echo "== sort -u"; sort -u fruit
echo "== sort -t: -k2,2n"; printf 'a:3\nb:1\nc:2\n' > colon; sort -t: -k2,2n colon
sort fruit > sorted
echo "== uniq"; uniq sorted
echo "== uniq -c"; uniq -c sorted
echo "== uniq -d"; uniq -d sorted
echo "== wc"; wc fruit
echo "== wc -l -w -c"; wc -l fruit; wc -w fruit; wc -c fruit
wc -l < fruit
echo "== sed"
sed 's/apple/APPLE/' fruit
sed -n '2,4p' fruit
sed '/fig/d' fruit
sed -e 's/\([a-z]*\) \([0-9]*\)/\2=\1/' -e '3q' fruit
sed -n '$=' fruit
cp fruit edited; sed -i 's/ /_/g' edited; cat edited
echo "== awk"
awk '{ s += $2 } END { print "total", s, NR }' fruit
awk '$2 > 5 { print $1 }' fruit
awk -F: '{ printf "%s-%03d\n", $1, $2 * 7 }' colon
awk 'BEGIN { for (i = 1; i <= 5; i++) x = x i; print x, length(x), substr("abcdef", 2, 3), toupper("q") }'
awk '{ n[$1]++ } END { print n["apple"], n["fig"], n["pear"] }' fruit
echo "== grep"
grep apple fruit
grep -c fig fruit
grep -v -n e fruit
grep -i APPLE fruit
grep -E '^(fig|pear) ' fruit
grep -w 7 fruit
grep -q cherry fruit && echo "cherry found"
grep nothing fruit; echo "grep status $?"
grep x missing-file; echo "grep status $?"
echo "== tr"
tr a-z A-Z < fruit
tr -d 0-9 < fruit
tr -s 'p' < fruit
echo "== cut"
cut -d' ' -f2 fruit
cut -c1-3 fruit
cut -d: -f1 colon
echo "== head/tail"
head -n 2 fruit
tail -n 2 fruit
tail -n +6 fruit
head -c 10 fruit; echo
seq 1 100 > numbers
head -n 3 numbers; tail -n 1 numbers
echo "== rev, nl, fold, expand"
rev fruit
printf 'a\tb\n' > tab; expand tab
echo "long line of words to fold here" > long; fold -w 10 long
