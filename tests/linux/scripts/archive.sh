# tar, gzip, od, cmp, diff, md5sum/sha256sum on known data (no pipes: zcat and tar -z,
# which busybox runs through pipes, are in zpipe.sh).
mkdir -p src/sub
printf 'hello tar\n' > src/a
seq 1 500 > src/sub/numbers
printf '\000\001\002\377abc\n' > src/bin
echo "== od"
od -c src/bin
od -An -tx1 src/bin
od -An -to2 src/a
od -An -td4 -N8 src/sub/numbers
echo "== sums"
md5sum src/a src/sub/numbers
sha256sum src/a
echo "== gzip"
cp src/sub/numbers n; gzip -n n; ls n*; gzip -t n.gz && echo "gzip -t ok"
gzip -d n.gz; cmp n src/sub/numbers && echo "round trip ok"
gzip -c -n src/a > a.gz; gunzip -c a.gz
gzip -d missing.gz; echo "gzip status $?"
printf 'not gzip' > bad.gz; gzip -d bad.gz; echo "gzip bad status $?"
echo "== tar"
tar -cf src.tar src; echo "tar c status $?"
tar -tf src.tar > list; sort list
mkdir out; tar -xf src.tar -C out; cmp out/src/sub/numbers src/sub/numbers && echo "tar x ok"
tar -xf missing.tar; echo "tar missing status $?"
echo "== cmp and diff"
printf 'one\ntwo\nthree\n' > x; printf 'one\nTWO\nthree\n' > y
cmp x y; echo "cmp status $?"
diff x y; echo "diff status $?"
