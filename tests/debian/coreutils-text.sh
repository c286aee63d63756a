# coreutils on text: sort, uniq, join, comm, cut, paste, tr, od, base64, sha256sum, md5sum,
# seq, factor, numfmt, date -d @N -u, split, csplit, wc, head, tail, fold, nl, tac, expand.
seq 1 20 | awk '{ print ($1 * 7919) % 23, "k" $1 }' > nums
sort -n nums | head -5
sort -k2,2 -t' ' nums | tail -3
sort -rn nums | uniq -c -w2 | head -4
printf '%s\n' b a c a b a | sort | uniq -c
printf '1 one\n2 two\n3 three\n' > l; printf '1 uno\n3 tres\n4 cuatro\n' > r
join l r; join -a1 -e NONE -o 0,1.2,2.2 l r
printf '%s\n' a b c d > c1; printf '%s\n' b d e > c2; comm c1 c2 | cat -A; comm -12 c1 c2
printf 'a:b:c:d\n1:2:3:4\n' | cut -d: -f2,4; echo hello-world | cut -c3-7
paste -s -d, c1; paste c1 c2
echo 'Hello, World' | tr a-z A-Z; echo 'aabbccdd' | tr -s ab; echo 'x1y2z3' | tr -d 0-9
printf 'AB\001\377\n' | od -An -tx1 -c
printf 'binary\000data\n' | base64; echo 'YmFzZTY0IHJvdW5kIHRyaXA=' | base64 -d; echo
seq 1000 | sha256sum; seq 1000 | md5sum; seq 1000 | cksum; printf abc | sha1sum
seq -s' ' 0 0.25 1; seq -w 8 11 | paste -s; seq 10 -3 1 | tr '\n' ' '; echo
factor 1 2 97 360 1000000007 600851475143 2147483647
numfmt --to=iec 1023 1024 1048576 5000000000; numfmt --from=si 12K 3M
numfmt --to=si --padding=8 123456
date -u -d @0 '+%F %T %A %j'; date -u -d @1700000000; date -u -d @2147483648 +%s:%Y
date -u -d '2024-02-29 13:14:15' '+%s %a %b %U'; date -u -d '@86399' +%H:%M:%S
seq 1 25 > s; split -l 10 s part-; wc -l part-* | sort
split -b 20 -d s byte-; ls byte-* | tr '\n' ' '; echo; cat byte-02
csplit -s -f cs- s '/^10$/' '/^20$/'; for f in cs-*; do echo "$f $(wc -l < $f) $(head -1 $f)"; done
printf 'one two\nthree\n\nfour five six\n' > w; wc w; wc -lwc < w; wc -L w
head -c 5 w | od -c | head -1; tail -n 2 w; tail -c 6 w
echo 'The quick brown fox jumps over the lazy dog' | fold -w 12; echo abcdef | fold -w 2 | tac
nl -ba w; printf 'a\tb\tc\n' | expand -t 4 | cat -A; printf 'a    b\n' | unexpand -a | cat -A
printf '3\n1\n2\n' | sort -o sorted; cat sorted; printf 'b 2\na 2\nc 1\n' | sort -k2n -k1r
printf 'x\ny\n' | sort -c 2>&1; echo "sort -c=$?"; printf 'y\nx\n' | sort -c 2>&1; echo "sort -c=$?"
echo "expr: $(expr 7 \* 6) $(expr length hello) $(expr substr hello 2 3)"
printf '%s %5.2f %05d %x %o %e %c|\n' str 3.14159 42 255 8 12345.678 xyz
yes abc | head -n 3; basename /a/b/c.txt .txt; dirname /a/b/c.txt
echo "true=$(true; echo $?) false=$(false; echo $?)"
shuf -n 3 --random-source=s -i 1-100 | sort -n
echo a b c | xargs -n1 echo item; printf '3 b\n1 a\n' | sort | cut -d' ' -f2
