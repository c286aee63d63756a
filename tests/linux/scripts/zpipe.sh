# Compressed archives, which busybox unpacks through a pipe to a forked decompressor.
printf 'hello zcat\n' > a; seq 1 300 > n
gzip -c -n a > a.gz; zcat a.gz
tar -czf x.tgz a n; mkdir out; tar -xzf x.tgz -C out; cmp out/n n && echo "tgz ok"
tar -tzf x.tgz
zcat missing.gz; echo "zcat missing: $?"
