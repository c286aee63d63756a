# debian-compare: slow
# tar with xz and gzip of 48 MiB generated deterministically; sha256sums of the results.
mkdir -p big
seq 1 3000000 > big/numbers
head -c 16777216 /dev/zero > big/zeros
awk 'BEGIN { x = 7; for (i = 0; i < 1000000; i++) { x = (x * 1103515245 + 12345) % 2147483648; printf "%08x\n", x } }' > big/random
yes 'tens of mebibytes' | head -c 4194304 > big/text
du -s --apparent-size -k big; sha256sum big/*
T="--sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu"
tar $T -cf big.tar big; wc -c < big.tar; sha256sum < big.tar
gzip -n -c big.tar | sha256sum
xz -T1 -3 -c big.tar > big.tar.xz; sha256sum < big.tar.xz; wc -c < big.tar.xz
rm -rf big; xz -dc big.tar.xz | tar -xf - && sha256sum big/*
