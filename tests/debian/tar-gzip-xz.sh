# tar with gzip and xz on about a MiB generated deterministically (seq, head of /dev/zero, a
# pseudo-random generator in awk): the archives' and the extracted files' sha256sums.
# tar-large.sh does tens of MiB (make debian-compare).
mkdir -p in/sub
seq 1 60000 > in/numbers
head -c 262144 /dev/zero > in/zeros
awk 'BEGIN { x = 12345; for (i = 0; i < 16384; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%08x\n", x } }' > in/sub/random
yes 'the same line again' | head -n 5000 > in/sub/text
sha256sum in/numbers in/zeros in/sub/random in/sub/text
T="--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu"
tar $T -cf in.tar in; echo "tar=$?"; wc -c < in.tar; sha256sum < in.tar
gzip -n -6 -c in.tar > in.tar.gz; sha256sum < in.tar.gz; wc -c < in.tar.gz
xz -T1 -1 -c in.tar > in.tar.xz; sha256sum < in.tar.xz; wc -c < in.tar.xz
tar $T -czf in2.tgz in 2>&1; gzip -l in2.tgz | tail -1 | awk '{ print $2 }'
tar -tvf in.tar | awk '{ print $1, $2, $3, $6 }'
mkdir out && cd out && xz -dc ../in.tar.xz | tar -xf - && cd ..
diff -r in out/in && echo "xz round trip same"
rm -rf out; mkdir out && tar -xzf in.tar.gz -C out && diff -r in out/in && echo "gzip round trip same"
xz -t in.tar.xz && gzip -t in.tar.gz && echo "integrity ok"
xz -l in.tar.xz | tail -1 | awk '{ print $1, $2 }'
head -c 100 in.tar.gz | gzip -dc > /dev/null 2>&1; echo "truncated gzip=$?"
