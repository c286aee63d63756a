# coreutils on files: stat -c with fixed fields, dd, truncate, install, ln, readlink,
# realpath, du --apparent-size, cp, mv, rm, mkdir, touch -d, ls -l with fixed times.
mkdir -p d/sub/deeper
printf 'hello\n' > d/file
dd if=/dev/zero of=d/zeros bs=1k count=64 status=none
dd if=d/file of=d/part bs=1 skip=1 count=3 status=none; cat d/part; echo
seq 100 | dd of=d/seq bs=7 conv=notrunc status=none; wc -c < d/seq
dd if=/dev/zero bs=4096 count=3 2>&1 >/dev/null | sed 's/,.*//'
truncate -s 10000 d/sparse; truncate -s -1000 d/sparse; truncate -s +5 d/file
stat -c '%n %s %F %a' d/file d/zeros d/sparse; stat -c '%n %F %a %h' d/sub
install -m 640 d/file d/installed; install -d -m 700 d/instdir
stat -c '%n %a %F %U %G' d/installed d/instdir
ln -s ../file d/sub/link; ln d/file d/hard; ln -s deeper d/sub/dl
stat -c '%n %h %F' d/file d/hard d/sub/link
readlink d/sub/link; readlink -f d/sub/link | sed "s|$PWD|PWD|"
realpath --relative-to=d/sub/deeper d/file; realpath -m d/sub/../nothing/x | sed "s|$PWD|PWD|"
realpath -s d/sub/dl/../x 2>&1 | sed "s|$PWD|PWD|"; realpath -e d/missing 2>&1; echo "realpath -e=$?"
du -s --apparent-size -B1 d/zeros d/file; du -s --apparent-size -k d/zeros
cp -a d e; cp d/file e/copy; mv e/copy e/moved; ls e | tr '\n' ' '; echo
touch -d @1000000000 e/moved; touch -m -d '2001-02-03 04:05:06 UTC' e/file
stat -c '%n %Y %y' e/moved e/file
TZ=UTC ls -l --time-style=+%s e/moved e/file | cut -d' ' -f1,3-
ls -1 --sort=size d | head -3; ls -R d | head -8
rm -r e/sub; rm e/moved; ls e | tr '\n' ' '; echo
rmdir d/sub 2>&1; echo "rmdir=$?"; mkdir d 2>&1; echo "mkdir=$?"
cat d/nothing 2>&1; echo "cat=$?"; ln -s x d/file 2>&1; echo "ln=$?"
chmod 751 d/file; stat -c %A d/file; chmod u-w,g+s d/file; stat -c '%A %a' d/file
mkfifo d/fifo; stat -c '%F %a' d/fifo; test -p d/fifo && echo "fifo test ok"
find d -newer d/zeros -name 'i*' | sort
cmp d/file d/hard && echo "hard link same"; sync; echo synced
dd if=/dev/urandom of=/dev/null bs=1k count=1 status=none && echo "urandom ok"
head -c 8 /dev/zero | od -An -tx1; echo "df fields: $(df -P . | tail -1 | wc -w)"
